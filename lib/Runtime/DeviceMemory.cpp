//===- DeviceMemory.cpp - Device buffers through the runtime's driver -----===//
#include "fa/Runtime/DeviceMemory.h"

#include "Driver.h"

#include <cstdint>

namespace fa::runtime {

namespace {

/// The driver in the launch context of `stream`, checked to have `entry`
/// (an optional entry point: older drivers may lack it).
template <typename Fn>
Expected<std::unique_ptr<LaunchScope>> openWith(void *stream, Fn Driver::*entry,
                                                const char *name) {
  Expected<std::unique_ptr<LaunchScope>> scope =
      LaunchScope::open(static_cast<cu::CUstream>(stream));
  if (!scope.ok())
    return scope.status();
  if (!((*scope)->driver.*entry))
    return Status::error(
        ErrorCode::NoDriver,
        std::string("the CUDA driver lacks ") + name +
            " (the runtime needs a CUDA 12.0 or newer driver)");
  return scope;
}

cu::CUdeviceptr address(const void *ptr) {
  return static_cast<cu::CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}

} // namespace

Expected<void *> deviceAlloc(size_t bytes, void *stream) {
  auto scope = openWith(stream, &Driver::cuMemAllocAsync, "cuMemAllocAsync");
  if (!scope.ok())
    return scope.status();
  cu::CUdeviceptr ptr = 0;
  Driver &d = (*scope)->driver;
  FA_RETURN_IF_ERROR(
      d.check(d.cuMemAllocAsync(&ptr, bytes, static_cast<cu::CUstream>(stream)),
              "cuMemAllocAsync"));
  return reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
}

Status deviceFree(void *ptr, void *stream) {
  if (!ptr)
    return Status::success();
  auto scope = openWith(stream, &Driver::cuMemFreeAsync, "cuMemFreeAsync");
  if (!scope.ok())
    return scope.status();
  Driver &d = (*scope)->driver;
  return d.check(
      d.cuMemFreeAsync(address(ptr), static_cast<cu::CUstream>(stream)),
      "cuMemFreeAsync");
}

Status copyToDevice(void *dst, const void *src, size_t bytes, void *stream) {
  auto scope =
      openWith(stream, &Driver::cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  if (!scope.ok())
    return scope.status();
  Driver &d = (*scope)->driver;
  return d.check(d.cuMemcpyHtoDAsync(address(dst), src, bytes,
                                     static_cast<cu::CUstream>(stream)),
                 "cuMemcpyHtoDAsync_v2");
}

Status copyToHost(void *dst, const void *src, size_t bytes, void *stream) {
  auto scope =
      openWith(stream, &Driver::cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  if (!scope.ok())
    return scope.status();
  Driver &d = (*scope)->driver;
  return d.check(d.cuMemcpyDtoHAsync(dst, address(src), bytes,
                                     static_cast<cu::CUstream>(stream)),
                 "cuMemcpyDtoHAsync_v2");
}

Status synchronize(void *stream) {
  auto scope =
      openWith(stream, &Driver::cuStreamSynchronize, "cuStreamSynchronize");
  if (!scope.ok())
    return scope.status();
  Driver &d = (*scope)->driver;
  return d.check(d.cuStreamSynchronize(static_cast<cu::CUstream>(stream)),
                 "cuStreamSynchronize");
}

} // namespace fa::runtime
