//===- FakeCuda.h - Control block of the fake CUDA driver -------*- C++ -*-===//
//
// libfa-fake-cuda.so exports the driver entry points the runtime looks up and
// records what it is asked to do. Tests point FA_RUNTIME_LIBCUDA at it, then
// dlopen the same file to reach this state through fake_cuda_state().
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_TEST_FAKECUDA_H
#define FA_RUNTIME_TEST_FAKECUDA_H

#include <cstddef>
#include <cstdint>

struct FakeEncodeCall {
  int dataType;
  uint32_t rank;
  uint64_t address;
  uint64_t dims[5];
  uint64_t strides[4];
  uint32_t box[5];
  int swizzle, l2, oob, interleave;
};

/// One call that touches the stream, in the order the runtime made it.
enum FakeEventKind { kFakeAlloc = 1, kFakeFree, kFakeMemsetD8, kFakeMemsetD32,
                     kFakeLaunch };
struct FakeEvent {
  int kind;
  uint64_t ptr;   // alloc/free/memset: the device address
  uint64_t count; // alloc: bytes; memset: elements
  void *stream;
  char function[64]; // launch: the kernel's name
  // launch: the first min(size, 8) bytes of each of the first 16
  // parameters (zero-extended), so every kernel of a sequence is seen.
  uint64_t paramWords[16];
};

/// Parameter sizes cuFuncGetParamInfo reports for a kernel by name (other
/// kernels get kernelParamSizes).
struct FakeFunction {
  char name[64];
  size_t paramSizes[16];
};

struct FakeCudaState {
  // Behaviour (reset by fake_cuda_reset to a working sm_90 device).
  int initResult;
  int deviceCount;
  int ccMajor, ccMinor, numSms, maxSmemOptin;
  int moduleLoadResult, getFunctionResult, encodeResult, launchResult;
  int numKernelParams;          // what cuFuncGetParamInfo reports
  size_t kernelParamSizes[16];
  FakeFunction functions[4];    // per-kernel parameter sizes
  int launchFailAt;             // > 0: that launch (1-based) fails with 701
  int allocFailAt;              // > 0: that cuMemAllocAsync fails with 2
  uint64_t allocOffset;         // added to every cuMemAllocAsync address

  // Records.
  void *currentCtx;
  int primaryRetains, setCurrents, pushes, pops;
  int moduleLoads, moduleUnloads;
  char lastFunctionName[128];
  int funcAttrCalls;
  int lastSmemAttr, nonPortableClusterAttr;
  int encodes;
  FakeEncodeCall lastEncodes[8];
  int launches;
  unsigned grid[3], block[3], sharedMem;
  void *stream;
  unsigned numAttrs;
  int attrId;
  unsigned cluster[3];
  void *launchCtx;
  uint8_t params[16][128]; // copied kernel parameters
  int allocs, frees, copies;
  uint64_t lastAlloc, lastFree;
  uint8_t deviceMaps[4][128]; // bytes copied to the fake device memory
  int memsets;
  int numEvents;
  FakeEvent events[64];
  // Copies (DeviceMemory.h): the last one's arguments.
  int copiesToHost, syncs;
  uint64_t lastCopyDst, lastCopySrc, lastCopyBytes;
  void *lastCopyStream, *lastSyncStream;
};

extern "C" FakeCudaState *fake_cuda_state();
extern "C" void fake_cuda_reset();

#endif // FA_RUNTIME_TEST_FAKECUDA_H
