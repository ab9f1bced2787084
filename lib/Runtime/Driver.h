//===- Driver.h - The CUDA driver, reached through dlopen -------*- C++ -*-===//
//
// The runtime links neither libcuda nor libcudart: it opens libcuda.so.1 at the
// first launch (or the library named by FA_RUNTIME_LIBCUDA, which tests use to
// force a failure or to load a fake driver) and looks up the entry points it
// needs. Private to lib/Runtime.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_LIB_DRIVER_H
#define FA_RUNTIME_LIB_DRIVER_H

#include "fa/Runtime/CudaTypes.h"
#include "fa/Runtime/ParamPack.h"
#include "fa/Runtime/Status.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace fa::runtime {

class Driver {
public:
  /// The driver named by FA_RUNTIME_LIBCUDA (default "libcuda.so.1"), opened
  /// and cuInit'ed. NoDriver when it cannot be opened or lacks an entry point,
  /// NoDevice when cuInit finds no GPU. Successful loads are kept for the
  /// process lifetime (unloading a driver is never safe).
  static Expected<Driver *> get();

  /// Ok for CUDA_SUCCESS, else a Driver error "<call> failed: NAME (text)".
  Status check(cu::CUresult result, const char *call) const;

  /// Primary context of `device`, retained once per process.
  Expected<cu::CUcontext> primaryContext(cu::CUdevice device);

  std::string path;

  // Required entry points.
  cu::CUresult (*cuInit)(unsigned);
  cu::CUresult (*cuDriverGetVersion)(int *);
  cu::CUresult (*cuGetErrorName)(cu::CUresult, const char **);
  cu::CUresult (*cuGetErrorString)(cu::CUresult, const char **);
  cu::CUresult (*cuDeviceGetCount)(int *);
  cu::CUresult (*cuDeviceGet)(cu::CUdevice *, int);
  cu::CUresult (*cuDeviceGetAttribute)(int *, int, cu::CUdevice);
  cu::CUresult (*cuDevicePrimaryCtxRetain)(cu::CUcontext *, cu::CUdevice);
  cu::CUresult (*cuCtxGetCurrent)(cu::CUcontext *);
  cu::CUresult (*cuCtxSetCurrent)(cu::CUcontext);
  cu::CUresult (*cuCtxPushCurrent)(cu::CUcontext);
  cu::CUresult (*cuCtxPopCurrent)(cu::CUcontext *);
  cu::CUresult (*cuCtxGetDevice)(cu::CUdevice *);
  cu::CUresult (*cuStreamGetCtx)(cu::CUstream, cu::CUcontext *);
  cu::CUresult (*cuModuleLoadData)(cu::CUmodule *, const void *);
  cu::CUresult (*cuModuleUnload)(cu::CUmodule);
  cu::CUresult (*cuModuleGetFunction)(cu::CUfunction *, cu::CUmodule,
                                      const char *);
  cu::CUresult (*cuFuncSetAttribute)(cu::CUfunction, int, int);
  cu::CUresult (*cuTensorMapEncodeTiled)(
      void *, int, uint32_t, void *, const uint64_t *, const uint64_t *,
      const uint32_t *, const uint32_t *, int, int, int, int);
  cu::CUresult (*cuLaunchKernelEx)(const cu::CUlaunchConfig *, cu::CUfunction,
                                   void **, void **);

  // Optional entry points (null when the driver lacks them).
  cu::CUresult (*cuFuncGetParamInfo)(cu::CUfunction, size_t, size_t *,
                                     size_t *);
  cu::CUresult (*cuMemAllocAsync)(cu::CUdeviceptr *, size_t, cu::CUstream);
  cu::CUresult (*cuMemFreeAsync)(cu::CUdeviceptr, cu::CUstream);
  cu::CUresult (*cuMemcpyHtoDAsync)(cu::CUdeviceptr, const void *, size_t,
                                    cu::CUstream);
  cu::CUresult (*cuMemsetD8Async)(cu::CUdeviceptr, unsigned char, size_t,
                                  cu::CUstream);
  cu::CUresult (*cuMemsetD32Async)(cu::CUdeviceptr, unsigned int, size_t,
                                   cu::CUstream);
  // For host programs without CUDA of their own (DeviceMemory.h).
  cu::CUresult (*cuMemcpyDtoHAsync)(void *, cu::CUdeviceptr, size_t,
                                    cu::CUstream);
  cu::CUresult (*cuStreamSynchronize)(cu::CUstream);

private:
  Driver() = default;
  void *handle_ = nullptr;
  bool initialized_ = false; // guarded by the registry mutex in get()
  std::mutex mutex_;
  std::unordered_map<cu::CUdevice, cu::CUcontext> primary_;
};

/// Makes `ctx` current for the scope of the guard (push/pop), if it is not.
class ContextGuard {
public:
  ContextGuard(Driver &driver, cu::CUcontext ctx);
  ~ContextGuard();
  const Status &status() const { return status_; }

private:
  Driver &driver_;
  bool pushed_ = false;
  Status status_;
};

/// The driver and the context a launch on `stream` runs in (the stream's,
/// else the current one, else device 0's primary context, retained and made
/// current as the CUDA runtime does), current while the scope lives.
struct LaunchScope {
  LaunchScope(Driver &d, cu::CUcontext c) : driver(d), ctx(c), guard(d, c) {}
  static Expected<std::unique_ptr<LaunchScope>> open(cu::CUstream stream);

  Driver &driver;
  cu::CUcontext ctx;
  ContextGuard guard;
};

/// cuTensorMapEncodeTiled, with the request's arguments in its errors.
TensorMapEncoder driverEncoder(Driver &driver);

} // namespace fa::runtime

#endif // FA_RUNTIME_LIB_DRIVER_H
