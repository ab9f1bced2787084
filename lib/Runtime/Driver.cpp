//===- Driver.cpp - The CUDA driver, reached through dlopen ---------------===//
#include "Driver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <memory>

namespace fa::runtime {

namespace {

template <typename Fn> bool lookup(void *handle, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  return fn != nullptr;
}

std::mutex registryMutex;
// Path -> loaded driver. Entries are never removed: dlclose of libcuda while
// contexts exist is unsafe, and tests switch paths through the env var.
std::map<std::string, std::unique_ptr<Driver>> &registry() {
  static auto *drivers = new std::map<std::string, std::unique_ptr<Driver>>;
  return *drivers;
}

} // namespace

Expected<Driver *> Driver::get() {
  const char *env = std::getenv("FA_RUNTIME_LIBCUDA");
  bool fromEnv = env && *env;
  std::string path = fromEnv ? env : "libcuda.so.1";

  std::lock_guard<std::mutex> lock(registryMutex);
  auto &drivers = registry();
  Driver *driver = nullptr;
  auto it = drivers.find(path);
  if (it != drivers.end()) {
    driver = it->second.get();
  } else {
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      return Status::error(
          ErrorCode::NoDriver,
          "cannot load the CUDA driver library '" + path + "'" +
              (fromEnv ? " (named by FA_RUNTIME_LIBCUDA)" : "") + ": " +
              (why ? why : "unknown dlopen error") +
              ". Launching needs an NVIDIA GPU driver (libcuda.so.1); bundle "
              "loading and operand checks work without one");
    }
    std::unique_ptr<Driver> d(new Driver());
    d->path = path;
    d->handle_ = handle;
    // Versioned names are the ones cuda.h maps the plain names to.
    struct Entry {
      const char *name;
      bool found;
    };
    Entry required[] = {
        {"cuInit", lookup(handle, "cuInit", d->cuInit)},
        {"cuDriverGetVersion",
         lookup(handle, "cuDriverGetVersion", d->cuDriverGetVersion)},
        {"cuGetErrorName", lookup(handle, "cuGetErrorName", d->cuGetErrorName)},
        {"cuGetErrorString",
         lookup(handle, "cuGetErrorString", d->cuGetErrorString)},
        {"cuDeviceGetCount",
         lookup(handle, "cuDeviceGetCount", d->cuDeviceGetCount)},
        {"cuDeviceGet", lookup(handle, "cuDeviceGet", d->cuDeviceGet)},
        {"cuDeviceGetAttribute",
         lookup(handle, "cuDeviceGetAttribute", d->cuDeviceGetAttribute)},
        {"cuDevicePrimaryCtxRetain",
         lookup(handle, "cuDevicePrimaryCtxRetain", d->cuDevicePrimaryCtxRetain)},
        {"cuCtxGetCurrent",
         lookup(handle, "cuCtxGetCurrent", d->cuCtxGetCurrent)},
        {"cuCtxSetCurrent",
         lookup(handle, "cuCtxSetCurrent", d->cuCtxSetCurrent)},
        {"cuCtxPushCurrent_v2",
         lookup(handle, "cuCtxPushCurrent_v2", d->cuCtxPushCurrent)},
        {"cuCtxPopCurrent_v2",
         lookup(handle, "cuCtxPopCurrent_v2", d->cuCtxPopCurrent)},
        {"cuCtxGetDevice", lookup(handle, "cuCtxGetDevice", d->cuCtxGetDevice)},
        {"cuStreamGetCtx", lookup(handle, "cuStreamGetCtx", d->cuStreamGetCtx)},
        {"cuModuleLoadData",
         lookup(handle, "cuModuleLoadData", d->cuModuleLoadData)},
        {"cuModuleUnload", lookup(handle, "cuModuleUnload", d->cuModuleUnload)},
        {"cuModuleGetFunction",
         lookup(handle, "cuModuleGetFunction", d->cuModuleGetFunction)},
        {"cuFuncSetAttribute",
         lookup(handle, "cuFuncSetAttribute", d->cuFuncSetAttribute)},
        {"cuTensorMapEncodeTiled",
         lookup(handle, "cuTensorMapEncodeTiled", d->cuTensorMapEncodeTiled)},
        {"cuLaunchKernelEx",
         lookup(handle, "cuLaunchKernelEx", d->cuLaunchKernelEx)},
    };
    for (const Entry &e : required)
      if (!e.found) {
        dlclose(handle);
        return Status::error(ErrorCode::NoDriver,
                             "the CUDA driver library '" + path +
                                 "' lacks the entry point " + e.name +
                                 " (the runtime needs a CUDA 12.0 or newer "
                                 "driver)");
      }
    lookup(handle, "cuFuncGetParamInfo", d->cuFuncGetParamInfo);
    lookup(handle, "cuMemAllocAsync", d->cuMemAllocAsync);
    lookup(handle, "cuMemFreeAsync", d->cuMemFreeAsync);
    lookup(handle, "cuMemcpyHtoDAsync_v2", d->cuMemcpyHtoDAsync);
    lookup(handle, "cuMemsetD8Async", d->cuMemsetD8Async);
    lookup(handle, "cuMemsetD32Async", d->cuMemsetD32Async);
    lookup(handle, "cuMemcpyDtoHAsync_v2", d->cuMemcpyDtoHAsync);
    lookup(handle, "cuStreamSynchronize", d->cuStreamSynchronize);
    driver = d.get();
    drivers.emplace(path, std::move(d));
  }

  // Once cuInit has succeeded it is not called again; after a failure it is
  // retried, so a process can recover (and tests can switch a fake driver).
  if (driver->initialized_)
    return driver;
  cu::CUresult r = driver->cuInit(0);
  if (r == cu::CUDA_ERROR_NO_DEVICE)
    return Status::error(ErrorCode::NoDevice,
                         "no CUDA GPU is available: " +
                             driver->check(r, "cuInit").message());
  FA_RETURN_IF_ERROR(driver->check(r, "cuInit"));
  driver->initialized_ = true;
  return driver;
}

Status Driver::check(cu::CUresult result, const char *call) const {
  if (result == cu::CUDA_SUCCESS)
    return Status::success();
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName(result, &name) != cu::CUDA_SUCCESS || !name)
    name = "unknown CUDA error";
  if (cuGetErrorString(result, &text) != cu::CUDA_SUCCESS || !text)
    text = "no description";
  return Status::error(ErrorCode::Driver,
                       std::string(call) + " failed: " + name + " (" +
                           std::to_string(result) + "): " + text);
}

Expected<cu::CUcontext> Driver::primaryContext(cu::CUdevice device) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = primary_.find(device);
  if (it != primary_.end())
    return it->second;
  cu::CUcontext ctx = nullptr;
  FA_RETURN_IF_ERROR(
      check(cuDevicePrimaryCtxRetain(&ctx, device), "cuDevicePrimaryCtxRetain"));
  primary_[device] = ctx;
  return ctx;
}

ContextGuard::ContextGuard(Driver &driver, cu::CUcontext ctx)
    : driver_(driver) {
  cu::CUcontext current = nullptr;
  status_ = driver_.check(driver_.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (!status_.ok() || current == ctx)
    return;
  status_ = driver_.check(driver_.cuCtxPushCurrent(ctx), "cuCtxPushCurrent");
  pushed_ = status_.ok();
}

ContextGuard::~ContextGuard() {
  if (pushed_) {
    cu::CUcontext popped = nullptr;
    (void)driver_.cuCtxPopCurrent(&popped);
  }
}

} // namespace fa::runtime
