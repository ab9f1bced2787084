// REQUIRES: ptxas
// RUN: rm -rf %t && fa-compile %s -o %t --format=isa
// RUN: %ptxas -arch=sm_90a -v %t/fa_fwd_bf16_d128_bhsd_lse_m128n128s2o.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v %t/fa_fwd_bf16_d128_bshd_causal_w150_0_lse_m128n128s2o.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v %t/fa_fwd_bf16_d64_bhsd_causal_lse_m192n128s2o.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=D64

// ptxas on persistent kernels: no stack, no spills. The d128 ones (the
// 168-register launch bound, producer 24 and consumers 240 by setmaxnreg)
// spilled 16 and 16-20 bytes in the producer before its TMA destinations
// went by value (producer-tma-destinations.mlir); the d64 causal one (128
// at launch, three consumers at 160) 12 bytes in the consumers before they
// recomputed their thread indices per tile and their K/V descriptors in 32
// bits (AttentionKernelConfig::freshThreadIndices, narrowSlotDescriptors;
// docs/HopperKernel.md).

// CHECK: Compiling entry function 'fa_fwd_bf16_d128_
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Used 168 registers

// D64: Compiling entry function 'fa_fwd_bf16_d64_
// D64: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// D64: Used 128 registers

func.func @dense(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> {layout = #fa<layout bhsd>} -> tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
}

func.func @window(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> {layout = #fa<layout bshd>, causal, mask_alignment = #fa<mask_alignment top_left>, window = array<i64: 150, 0>} -> tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
}

func.func @d64_causal(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>) -> (tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> {layout = #fa<layout bhsd>, causal, mask_alignment = #fa<mask_alignment top_left>} -> tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>
}
