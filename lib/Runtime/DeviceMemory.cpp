//===- DeviceMemory.cpp - Device buffers through the runtime's driver -----===//
#include "fa/Runtime/DeviceMemory.h"

#include "Driver.h"
#include "fa/Runtime/DType.h"
#include "fa/Runtime/Sequence.h"

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

namespace fa::runtime {

namespace {

/// Bytes from the first to one past the last element (strides >= 0).
Expected<uint64_t> extentBytes(const TensorArg &t) {
  uint64_t last = 0;
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    if (t.sizes[i] == 0)
      return uint64_t(0);
    if (t.sizes[i] < 0 || t.strides[i] < 0)
      return Status::error(ErrorCode::Tensor,
                           "operand '" + t.role +
                               "': host operands need non-negative sizes "
                               "and strides");
    last += uint64_t(t.sizes[i] - 1) * uint64_t(t.strides[i]);
  }
  return (last + 1) * uint64_t(dtypeSize(t.dtype));
}

/// Device buffers that are freed when it goes out of scope.
struct DeviceBuffers {
  explicit DeviceBuffers(void *stream) : stream(stream) {}
  ~DeviceBuffers() {
    for (void *p : owned)
      (void)deviceFree(p, stream);
    if (!owned.empty())
      (void)synchronize(stream);
  }
  void *stream;
  std::vector<void *> owned;
};

/// Checks `operands` as a launch would, at stand-in device addresses
/// (aligned as the allocator's are): a wrong shape, dtype or stride is
/// reported before anything touches the GPU.
Status checkBeforeAllocating(Sequence &kernels,
                             const std::vector<TensorArg> &operands) {
  std::vector<TensorArg> standIns = operands;
  for (size_t i = 0; i < standIns.size(); ++i)
    standIns[i].data = (uint64_t(i) + 1) << 40;
  Expected<std::array<uint32_t, 3>> grid =
      kernels.check(standIns, /*numSms=*/132);
  return grid.ok() ? Status::success() : grid.status();
}

} // namespace

Status launchOnHostBuffers(Sequence &kernels, std::vector<TensorArg> operands,
                           const std::vector<Direction> &directions,
                           void *stream) {
  if (directions.size() != operands.size())
    return Status::error(ErrorCode::InvalidArgument,
                         "launchOnHostBuffers: one direction per operand");
  FA_RETURN_IF_ERROR(checkBeforeAllocating(kernels, operands));
  std::vector<const void *> host(operands.size());
  std::vector<uint64_t> bytes(operands.size());
  DeviceBuffers buffers(stream);
  for (size_t i = 0; i < operands.size(); ++i) {
    Expected<uint64_t> extent = extentBytes(operands[i]);
    if (!extent.ok())
      return extent.status();
    bytes[i] = *extent;
    host[i] = reinterpret_cast<const void *>(operands[i].data);
    Expected<void *> dev = deviceAlloc(bytes[i] ? bytes[i] : 1, stream);
    if (!dev.ok())
      return dev.status().withContext("operand '" + operands[i].role + "'");
    buffers.owned.push_back(*dev);
    operands[i].data = reinterpret_cast<uint64_t>(*dev);
    if (directions[i] != Direction::Out && bytes[i])
      FA_RETURN_IF_ERROR(copyToDevice(*dev, host[i], bytes[i], stream));
  }
  FA_RETURN_IF_ERROR(kernels.launch(operands, stream));
  for (size_t i = 0; i < operands.size(); ++i)
    if (directions[i] != Direction::In && bytes[i])
      FA_RETURN_IF_ERROR(copyToHost(const_cast<void *>(host[i]),
                                    reinterpret_cast<void *>(operands[i].data),
                                    bytes[i], stream));
  return synchronize(stream);
}

} // namespace fa::runtime
