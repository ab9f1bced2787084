//===- FakeCuda.cpp - A fake libcuda for host-side launch tests -----------===//
//
// Implements just enough of the driver API for fa_runtime's launch path, so
// that context selection, module caching, attributes, tensor-map encoding
// arguments and the launch configuration are tested without a GPU.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"

#include <cstring>

namespace {

FakeCudaState state;
void *ctxStack[16];
int ctxDepth = 0;
void *const kPrimaryCtx = reinterpret_cast<void *>(0xC0C0);
// Function handles: 0x4000 + k for the k-th kernel name without a
// FakeFunction entry, 0x4100 + i for state.functions[i].
const uintptr_t kFunction = 0x4000, kNamedFunction = 0x4100;
char otherNames[8][64];

FakeEvent &record(int kind, uint64_t ptr, uint64_t count, void *stream) {
  static FakeEvent overflow;
  FakeEvent &e = state.numEvents < 64 ? state.events[state.numEvents] : overflow;
  ++state.numEvents;
  std::memset(&e, 0, sizeof(e));
  e.kind = kind;
  e.ptr = ptr;
  e.count = count;
  e.stream = stream;
  return e;
}

const size_t *paramSizesOf(void *fn) {
  uintptr_t h = reinterpret_cast<uintptr_t>(fn);
  if (h >= kNamedFunction && h < kNamedFunction + 4)
    return state.functions[h - kNamedFunction].paramSizes;
  return state.kernelParamSizes;
}

} // namespace

extern "C" {

FakeCudaState *fake_cuda_state() { return &state; }

void fake_cuda_reset() {
  std::memset(&state, 0, sizeof(state));
  ctxDepth = 0;
  state.deviceCount = 1;
  state.ccMajor = 9;
  state.ccMinor = 0;
  state.numSms = 132;
  state.maxSmemOptin = 232448;
  state.numKernelParams = -1; // -1: accept any index (sizes from the table)
}

int cuInit(unsigned) { return state.initResult; }
int cuDriverGetVersion(int *v) {
  *v = 13000;
  return 0;
}

int cuGetErrorName(int e, const char **s) {
  switch (e) {
  case 0: *s = "CUDA_SUCCESS"; return 0;
  case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
  case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
  case 100: *s = "CUDA_ERROR_NO_DEVICE"; return 0;
  case 200: *s = "CUDA_ERROR_INVALID_IMAGE"; return 0;
  case 500: *s = "CUDA_ERROR_NOT_FOUND"; return 0;
  case 701: *s = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; return 0;
  }
  *s = nullptr;
  return 1;
}

int cuGetErrorString(int e, const char **s) {
  switch (e) {
  case 0: *s = "no error"; return 0;
  case 1: *s = "invalid argument"; return 0;
  case 2: *s = "out of memory"; return 0;
  case 100: *s = "no CUDA-capable device is detected"; return 0;
  case 200: *s = "device kernel image is invalid"; return 0;
  case 500: *s = "named symbol not found"; return 0;
  case 701: *s = "too many resources requested for launch"; return 0;
  }
  *s = nullptr;
  return 1;
}

int cuDeviceGetCount(int *n) {
  *n = state.deviceCount;
  return 0;
}
int cuDeviceGet(int *d, int ordinal) {
  if (ordinal >= state.deviceCount)
    return 101; // CUDA_ERROR_INVALID_DEVICE
  *d = ordinal;
  return 0;
}
int cuDeviceGetAttribute(int *v, int attr, int) {
  switch (attr) {
  case 16: *v = state.numSms; return 0;
  case 75: *v = state.ccMajor; return 0;
  case 76: *v = state.ccMinor; return 0;
  case 97: *v = state.maxSmemOptin; return 0;
  }
  return 1;
}
int cuDevicePrimaryCtxRetain(void **ctx, int) {
  ++state.primaryRetains;
  *ctx = kPrimaryCtx;
  return 0;
}
int cuCtxGetCurrent(void **ctx) {
  *ctx = ctxDepth ? ctxStack[ctxDepth - 1] : state.currentCtx;
  return 0;
}
int cuCtxSetCurrent(void *ctx) {
  ++state.setCurrents;
  state.currentCtx = ctx;
  return 0;
}
int cuCtxPushCurrent_v2(void *ctx) {
  ++state.pushes;
  ctxStack[ctxDepth++] = ctx;
  return 0;
}
int cuCtxPopCurrent_v2(void **ctx) {
  ++state.pops;
  if (ctxDepth == 0)
    return 201; // CUDA_ERROR_INVALID_CONTEXT
  *ctx = ctxStack[--ctxDepth];
  return 0;
}
int cuCtxGetDevice(int *d) {
  *d = 0;
  return 0;
}
// A stream's context is derived from the stream's value.
int cuStreamGetCtx(void *stream, void **ctx) {
  *ctx = reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(stream) + 0x100);
  return 0;
}
int cuModuleLoadData(void **module, const void *image) {
  if (state.moduleLoadResult)
    return state.moduleLoadResult;
  if (!image || std::memcmp(image, "\x7f" "ELF", 4) != 0)
    return 200;
  ++state.moduleLoads;
  *module = reinterpret_cast<void *>(0x3000 + state.moduleLoads);
  return 0;
}
int cuModuleUnload(void *) {
  ++state.moduleUnloads;
  return 0;
}
int cuModuleGetFunction(void **fn, void *, const char *name) {
  if (state.getFunctionResult)
    return state.getFunctionResult;
  std::strncpy(state.lastFunctionName, name, sizeof(state.lastFunctionName) - 1);
  int k = 0;
  while (k < 7 && otherNames[k][0] && std::strcmp(otherNames[k], name) != 0)
    ++k;
  std::strncpy(otherNames[k], name, sizeof(otherNames[k]) - 1);
  *fn = reinterpret_cast<void *>(kFunction + k);
  for (int i = 0; i < 4; ++i)
    if (state.functions[i].name[0] &&
        std::strcmp(state.functions[i].name, name) == 0)
      *fn = reinterpret_cast<void *>(kNamedFunction + i);
  return 0;
}
int cuFuncSetAttribute(void *, int attr, int value) {
  ++state.funcAttrCalls;
  if (attr == 8)
    state.lastSmemAttr = value;
  if (attr == 14)
    state.nonPortableClusterAttr = value;
  return 0;
}
int cuFuncGetParamInfo(void *fn, size_t index, size_t *offset, size_t *size) {
  const size_t *sizes = paramSizesOf(fn);
  if (state.numKernelParams >= 0 && index >= size_t(state.numKernelParams))
    return 1;
  if (state.numKernelParams < 0 && (index >= 16 || !sizes[index]))
    return 1;
  *offset = 0;
  *size = sizes[index];
  return 0;
}
int cuTensorMapEncodeTiled(void *map, int dataType, uint32_t rank, void *address,
                           const uint64_t *dims, const uint64_t *strides,
                           const uint32_t *box, const uint32_t *, int interleave,
                           int swizzle, int l2, int oob) {
  if (state.encodeResult)
    return state.encodeResult;
  if (state.encodes < 8) {
    FakeEncodeCall &c = state.lastEncodes[state.encodes];
    c.dataType = dataType;
    c.rank = rank;
    c.address = reinterpret_cast<uint64_t>(address);
    for (uint32_t i = 0; i < rank && i < 5; ++i) {
      c.dims[i] = dims[i];
      c.box[i] = box[i];
      if (i + 1 < rank)
        c.strides[i] = strides[i];
    }
    c.swizzle = swizzle;
    c.l2 = l2;
    c.oob = oob;
    c.interleave = interleave;
  }
  ++state.encodes;
  std::memset(map, 0xE0 + state.encodes, 128);
  return 0;
}

struct LaunchConfig {
  unsigned grid[3], block[3], smem;
  void *stream;
  struct Attr {
    int id;
    char pad[4];
    union {
      char bytes[64];
      unsigned dims[3];
    } value;
  } *attrs;
  unsigned numAttrs;
};

int cuLaunchKernelEx(const LaunchConfig *config, void *fn, void **params, void **) {
  if (state.launchResult)
    return state.launchResult;
  if (state.launchFailAt && state.launches + 1 == state.launchFailAt)
    return 701;
  ++state.launches;
  FakeEvent &e = record(kFakeLaunch, 0, 0, config->stream);
  uintptr_t h = reinterpret_cast<uintptr_t>(fn);
  std::strncpy(e.function,
               h >= kNamedFunction && h < kNamedFunction + 4
                   ? state.functions[h - kNamedFunction].name
                   : otherNames[(h - kFunction) % 8],
               sizeof(e.function) - 1);
  for (int i = 0; i < 3; ++i) {
    state.grid[i] = config->grid[i];
    state.block[i] = config->block[i];
  }
  state.sharedMem = config->smem;
  state.stream = config->stream;
  state.numAttrs = config->numAttrs;
  if (config->numAttrs) {
    state.attrId = config->attrs[0].id;
    for (int i = 0; i < 3; ++i)
      state.cluster[i] = config->attrs[0].value.dims[i];
  }
  cuCtxGetCurrent(&state.launchCtx);
  const size_t *sizes = paramSizesOf(fn);
  for (int i = 0; i < 16 && sizes[i]; ++i) {
    std::memcpy(state.params[i], params[i], sizes[i]);
    std::memcpy(&e.paramWords[i], params[i], sizes[i] < 8 ? sizes[i] : 8);
  }
  return 0;
}

int cuMemAllocAsync(uint64_t *ptr, size_t bytes, void *stream) {
  if (state.allocFailAt && state.allocs + 1 == state.allocFailAt)
    return 2; // CUDA_ERROR_OUT_OF_MEMORY
  ++state.allocs;
  // 16 MiB apart, 256-byte aligned like the real allocator's memory.
  state.lastAlloc =
      0x70000000 + (uint64_t(state.allocs) << 24) + state.allocOffset;
  *ptr = state.lastAlloc;
  record(kFakeAlloc, *ptr, bytes, stream);
  return 0;
}
int cuMemFreeAsync(uint64_t ptr, void *stream) {
  ++state.frees;
  state.lastFree = ptr;
  record(kFakeFree, ptr, 0, stream);
  return 0;
}
int cuMemsetD8Async(uint64_t ptr, unsigned char value, size_t n, void *stream) {
  ++state.memsets;
  record(kFakeMemsetD8, ptr, n, stream).function[0] = char(value);
  return 0;
}
int cuMemsetD32Async(uint64_t ptr, unsigned value, size_t n, void *stream) {
  ++state.memsets;
  record(kFakeMemsetD32, ptr, n, stream).function[0] = char(value);
  return 0;
}
int cuMemcpyHtoDAsync_v2(uint64_t dst, const void *src, size_t bytes,
                         void *stream) {
  size_t index = (dst - state.lastAlloc) / 128;
  if (bytes == 128 && index < 4)
    std::memcpy(state.deviceMaps[index], src, 128);
  ++state.copies;
  state.lastCopyDst = dst;
  state.lastCopySrc = reinterpret_cast<uintptr_t>(src);
  state.lastCopyBytes = bytes;
  state.lastCopyStream = stream;
  return 0;
}
int cuMemcpyDtoHAsync_v2(void *dst, uint64_t src, size_t bytes, void *stream) {
  ++state.copiesToHost;
  state.lastCopyDst = reinterpret_cast<uintptr_t>(dst);
  state.lastCopySrc = src;
  state.lastCopyBytes = bytes;
  state.lastCopyStream = stream;
  return 0;
}
int cuStreamSynchronize(void *stream) {
  ++state.syncs;
  state.lastSyncStream = stream;
  return 0;
}

} // extern "C"
