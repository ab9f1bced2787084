// Empty kernels whose only purpose is an ELF cubin with the right symbols and
// parameter lists for the host-side tests' bundles. The checked-in
// stub_kernels.cubin is built with:
//   nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -o stub_kernels.cubin stub_kernels.cu
#include <cuda.h>
#include <cuda_bf16.h>

// The parameter list of docs/BundleFormat.md's example.
extern "C" __global__ void
fa_fwd_bf16_d128(const __grid_constant__ CUtensorMap query,
                 const __grid_constant__ CUtensorMap key, __nv_bfloat16 *output,
                 float *lse, int seqQ, int seqK, float scaleLog2) {}

extern "C" __global__ void helper_kernel(float *lse, long long n) {}

// The bias sequence's kernels (Inputs/bwd_bias*.json): the main kernel with
// the operands a bias adds (bias and its strides, the dBias accumulator)
// around a few of the backward's own, and the dBias kernel with the
// parameters the compiler's has.
extern "C" __global__ void
fa_bwd_bias_main(const __grid_constant__ CUtensorMap query, float *dqAccum,
                 const float *bias, long long biasStrideBatch,
                 long long biasStrideHead, long long biasStrideSeqQ,
                 float *dbiasAccum, int seqQ, int seqK, int groups) {}

extern "C" __global__ void
fa_bwd_dbias(const float *dbiasAccum, float *gradBias,
             long long gradStrideBatch, long long gradStrideHead,
             long long gradStrideSeqQ, int seqQ, int seqK) {}
