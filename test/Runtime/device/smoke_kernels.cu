// Kernels for the runtime's GPU smoke test (test/Runtime/device/run.sh).
// Each one exercises one launch feature of the runtime; the bundles next to
// this file describe them. Build: see run.sh (nvcc -cubin, sm_90a).
#include <cuda.h>
#include <stdint.h>

namespace {

__device__ uint32_t smemAddress(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Loads one 64 (seq) x 64 (dim) tile of 2-byte elements at (0, s0, h, b)
// through the tensor map at generic address `map` into `tile`, then copies
// the in-bounds rows to `out` (a [batch, seq, heads, 64] tensor).
__device__ void copyTile(uint64_t map, uint16_t *out, int seq, int swizzled) {
  extern __shared__ uint8_t dynamicSmem[];
  __shared__ __align__(8) uint64_t barrier;
  // 128B swizzling is a function of smem address bits [4,10): align to 1 KiB.
  uint8_t *tile = reinterpret_cast<uint8_t *>(
      (reinterpret_cast<uintptr_t>(dynamicSmem) + 1023) & ~uintptr_t(1023));
  const int s0 = blockIdx.x * 64, h = blockIdx.y, b = blockIdx.z;
  const int heads = gridDim.y;
  const uint32_t bar = smemAddress(&barrier);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;");
    asm volatile("fence.proxy.async.shared::cta;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
        "r"(64 * 64 * 2));
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile."
                 "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
                 "[%6];" ::"r"(smemAddress(tile)),
                 "l"(map), "r"(0), "r"(s0), "r"(h), "r"(b), "r"(bar)
                 : "memory");
  }
  asm volatile("{\n .reg .pred done;\n WAIT:\n"
               " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               " @!done bra WAIT;\n}" ::"r"(bar)
               : "memory");
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    int r = i / 64, c = i % 64, s = s0 + r;
    if (s >= seq)
      continue;
    uint32_t offset = r * 128 + c * 2;
    if (swizzled) // undo TMA's 128B swizzle: 16B chunk ^= row % 8
      offset ^= ((offset >> 7) & 7) << 4;
    out[((size_t(b) * seq + s) * heads + h) * 64 + c] =
        *reinterpret_cast<const uint16_t *>(tile + offset);
  }
}

} // namespace

// tensor_map parameter: the descriptor lives in kernel parameter space.
extern "C" __global__ void tma_copy_tile(const __grid_constant__ CUtensorMap map,
                                         uint16_t *out, int seq, int swizzled) {
  copyTile(reinterpret_cast<uint64_t>(&map), out, seq, swizzled);
}

// tensor_map_global parameter: the runtime put the descriptor in global memory.
extern "C" __global__ void tma_copy_tile_global(const CUtensorMap *map,
                                                uint16_t *out, int seq,
                                                int swizzled) {
  copyTile(reinterpret_cast<uint64_t>(map), out, seq, swizzled);
}

// ptr, i64, i32 and f32 parameters.
extern "C" __global__ void fill_lse(float *lse, long long n, int seqQ,
                                    float value) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    lse[i] = value + float(i % seqQ);
}

// A kernel sequence (seq.json): seq_accumulate runs twice, adding 1 to each
// element of the workspace buffer `acc` (which the runtime zeroes), then
// seq_finish writes 10 * acc to `out`: 20 everywhere unless a step is lost.
extern "C" __global__ void seq_accumulate(float *acc, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    acc[i] += 1.0f;
}

extern "C" __global__ void seq_finish(const float *acc, float *out,
                                      long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 10.0f * acc[i];
}

// Cluster launch: records each block's rank in its cluster and the cluster
// size, which are 0 and 1 unless the cluster attribute reached the launch.
extern "C" __global__ void cluster_rank(int *out) {
  unsigned rank, size;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  if (threadIdx.x == 0)
    out[blockIdx.x] = int(rank + 100 * size);
}
