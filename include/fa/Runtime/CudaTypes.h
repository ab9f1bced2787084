//===- CudaTypes.h - The few CUDA driver ABI types the runtime uses -*- C++ -*-=//
//
// Declared here rather than taken from <cuda.h> so that the runtime builds
// where CUDA is not installed. Values and layouts follow CUDA 12/13's cuda.h;
// test/Runtime/CudaAbiTest.cpp static_asserts them against cuda.h when it is
// available at build time.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_CUDATYPES_H
#define FA_RUNTIME_CUDATYPES_H

#include <cstddef>
#include <cstdint>

namespace fa::runtime::cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;

// CUdevice_attribute
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

// CUfunction_attribute
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14;

// CUtensorMapDataType
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2;
constexpr int CU_TENSOR_MAP_DATA_TYPE_INT32 = 3;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4;
constexpr int CU_TENSOR_MAP_DATA_TYPE_INT64 = 5;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8;
constexpr int CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9;

// CUtensorMapInterleave / Swizzle / L2promotion / FloatOOBfill
constexpr int CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_32B = 1;
constexpr int CU_TENSOR_MAP_SWIZZLE_64B = 2;
constexpr int CU_TENSOR_MAP_SWIZZLE_128B = 3;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_NONE = 0;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_64B = 1;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3;
constexpr int CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0; // out of bounds reads 0

constexpr size_t kTensorMapBytes = 128;

struct alignas(128) CUtensorMap { // cuda.h aligns it to 128 since CUDA 12.x
  uint64_t opaque[16];
};

// CUlaunchAttributeID
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;

union CUlaunchAttributeValue {
  char pad[64];
  struct {
    unsigned int x, y, z;
  } clusterDim;
};

struct CUlaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  CUlaunchAttributeValue value;
};

struct CUlaunchConfig {
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned int numAttrs;
};

} // namespace fa::runtime::cu

#endif // FA_RUNTIME_CUDATYPES_H
