// RUN: fa-opt %s --convert-fa-to-nvvm | FileCheck %s

// FP8 per-block descales (docs/HopperKernel.md, "Per-block descales"): the
// bundle carries descale_block and reads each descale as [batch, heads,
// blocks] through three strides; the key tile is the largest that divides
// block_k (192 at d128 for 192-key blocks, 128 for 128-key blocks).

// CHECK: fa.kernel_bundles = {fa_fwd_f8e4m3fn_d128_bhsd_causal_obf16_dblk128x192_lse_m128n192s2o = {fa_fwd_f8e4m3fn_d128_bhsd_causal_obf16_dblk128x192_lse_m128n192s2o = "
// CHECK-SAME: \22descale_block\22: [\0A      128,\0A      192\0A    ]
// CHECK-SAME: \22format\22: \22fa-kernel-sequence\22
// CHECK-SAME: _main = "
// CHECK-SAME: \22operand\22: \22query_descale\22
// CHECK-SAME: \22stride(query_descale, batch)\22
// CHECK-SAME: \22stride(query_descale, head)\22
// CHECK-SAME: \22stride(query_descale, block)\22
// CHECK-SAME: \22stride(value_descale, block)\22
// CHECK-SAME: fa_fwd_f8e4m3fn_d128_bhsd_obf16_dblk64x128_lse_m128n128s2o = {

// The main kernel: Q's descales per row before the loop; each iteration
// loads its key tile's K and V descales, divides the old V descale by the
// new one (O's unit), and keeps the max scaled (no multiply of the max by
// one factor for the rescale: exp2(max_old - max_new)).
// CHECK-LABEL: llvm.func @fa_fwd_f8e4m3fn_d128_bhsd_causal_obf16_dblk128x192_lse_m128n192s2o_main
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: scf.for
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 192, k = 32>
// CHECK: arith.divf %arg{{[0-9]+}}, %{{[0-9]+}} : f32
// CHECK-LABEL: llvm.func @fa_fwd_f8e4m3fn_d128_bhsd_obf16_dblk64x128_lse_m128n128s2o_main
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>

func.func @causal_192(%q: tensor<?x8x?x128xf8E4M3FN>, %k: tensor<?x2x?x128xf8E4M3FN>, %v: tensor<?x2x?x128xf8E4M3FN>, %dq: tensor<?x8x?xf32>, %dk: tensor<?x2x?xf32>, %dv: tensor<?x2x?xf32>) -> (tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x8x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN> descale(%dq, %dk, %dv : tensor<?x8x?xf32>, tensor<?x2x?xf32>, tensor<?x2x?xf32>) {causal, descale_block = array<i64: 128, 192>} -> tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
  return %o, %lse : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
}

func.func @blocks_64x128(%q: tensor<2x4x300x128xf8E4M3FN>, %k: tensor<2x4x256x128xf8E4M3FN>, %v: tensor<2x4x256x128xf8E4M3FN>, %dq: tensor<2x4x5xf32>, %dk: tensor<2x4x2xf32>, %dv: tensor<2x4x2xf32>) -> (tensor<2x4x300x128xbf16>, tensor<2x4x300xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<2x4x300x128xf8E4M3FN>, tensor<2x4x256x128xf8E4M3FN>, tensor<2x4x256x128xf8E4M3FN> descale(%dq, %dk, %dv : tensor<2x4x5xf32>, tensor<2x4x2xf32>, tensor<2x4x2xf32>) {descale_block = array<i64: 64, 128>} -> tensor<2x4x300x128xbf16>, tensor<2x4x300xf32>
  return %o, %lse : tensor<2x4x300x128xbf16>, tensor<2x4x300xf32>
}
