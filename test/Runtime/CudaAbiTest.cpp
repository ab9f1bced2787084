//===- CudaAbiTest.cpp - CudaTypes.h against the real cuda.h --------------===//
//
// Compiled only when cuda.h is found at configure time; a mismatch is a build
// error, which is the point: the runtime's own declarations must not drift.
//
//===----------------------------------------------------------------------===//
#include "Matchers.h"

#include "fa/Runtime/CudaTypes.h"

#include <cstddef>
#include <cuda.h>

namespace cu = fa::runtime::cu;

static_assert(cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ==
              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(cu::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ==
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(cu::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED ==
              CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
static_assert(cu::CU_TENSOR_MAP_DATA_TYPE_UINT8 == CU_TENSOR_MAP_DATA_TYPE_UINT8);
static_assert(cu::CU_TENSOR_MAP_DATA_TYPE_INT32 == CU_TENSOR_MAP_DATA_TYPE_INT32);
static_assert(cu::CU_TENSOR_MAP_DATA_TYPE_INT64 == CU_TENSOR_MAP_DATA_TYPE_INT64);
static_assert(cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT16 == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
static_assert(cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT32 == CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
static_assert(cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT64 == CU_TENSOR_MAP_DATA_TYPE_FLOAT64);
static_assert(cu::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
static_assert(cu::CU_TENSOR_MAP_INTERLEAVE_NONE == CU_TENSOR_MAP_INTERLEAVE_NONE);
static_assert(cu::CU_TENSOR_MAP_SWIZZLE_NONE == CU_TENSOR_MAP_SWIZZLE_NONE);
static_assert(cu::CU_TENSOR_MAP_SWIZZLE_32B == CU_TENSOR_MAP_SWIZZLE_32B);
static_assert(cu::CU_TENSOR_MAP_SWIZZLE_64B == CU_TENSOR_MAP_SWIZZLE_64B);
static_assert(cu::CU_TENSOR_MAP_SWIZZLE_128B == CU_TENSOR_MAP_SWIZZLE_128B);
static_assert(cu::CU_TENSOR_MAP_L2_PROMOTION_NONE == CU_TENSOR_MAP_L2_PROMOTION_NONE);
static_assert(cu::CU_TENSOR_MAP_L2_PROMOTION_L2_64B == CU_TENSOR_MAP_L2_PROMOTION_L2_64B);
static_assert(cu::CU_TENSOR_MAP_L2_PROMOTION_L2_128B == CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
static_assert(cu::CU_TENSOR_MAP_L2_PROMOTION_L2_256B == CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
static_assert(cu::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
static_assert(cu::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION ==
              CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
static_assert(cu::CUDA_SUCCESS == CUDA_SUCCESS);
static_assert(cu::CUDA_ERROR_INVALID_VALUE == CUDA_ERROR_INVALID_VALUE);
static_assert(cu::CUDA_ERROR_NO_DEVICE == CUDA_ERROR_NO_DEVICE);

static_assert(sizeof(cu::CUtensorMap) == sizeof(CUtensorMap));
static_assert(alignof(cu::CUtensorMap) == alignof(CUtensorMap));
static_assert(sizeof(cu::CUlaunchAttributeValue) == sizeof(CUlaunchAttributeValue));
static_assert(sizeof(cu::CUlaunchAttribute) == sizeof(CUlaunchAttribute));
static_assert(offsetof(cu::CUlaunchAttribute, value) == offsetof(CUlaunchAttribute, value));
static_assert(offsetof(cu::CUlaunchAttributeValue, clusterDim) ==
              offsetof(CUlaunchAttributeValue, clusterDim));
static_assert(sizeof(cu::CUlaunchConfig) == sizeof(CUlaunchConfig));
static_assert(offsetof(cu::CUlaunchConfig, sharedMemBytes) ==
              offsetof(CUlaunchConfig, sharedMemBytes));
static_assert(offsetof(cu::CUlaunchConfig, hStream) == offsetof(CUlaunchConfig, hStream));
static_assert(offsetof(cu::CUlaunchConfig, attrs) == offsetof(CUlaunchConfig, attrs));
static_assert(offsetof(cu::CUlaunchConfig, numAttrs) == offsetof(CUlaunchConfig, numAttrs));
static_assert(sizeof(cu::CUdeviceptr) == sizeof(CUdeviceptr));
static_assert(sizeof(cu::CUresult) == sizeof(CUresult));

TEST(CudaAbi, cuda_abi_matches_cuda_h) { EXPECT_TRUE(true); }
