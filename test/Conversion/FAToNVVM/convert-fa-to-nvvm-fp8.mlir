// RUN: fa-opt %s --convert-fa-to-nvvm | FileCheck %s

// FP8 (docs/HopperKernel.md, "FP8 forward"): f8E4M3FN Q, K, V with
// per-tensor or per-(batch, kv-head) descales become one gpu.module with the
// V^T pre-kernel and the attention kernel, and a kernel sequence whose
// workspace holds V^T. Both descale forms give the same kernel: the bundle
// reads every descale as [batch, heads_kv] through its strides.

// CHECK: fa.kernel_bundles = {fa_fwd_f8e4m3fn_d128_bhsd_causal_obf16_lse_m128n224s2o = {fa_fwd_f8e4m3fn_d128_bhsd_causal_obf16_lse_m128n224s2o = "
// CHECK-SAME: \22dtype\22: \22f8e4m3fn\22
// CHECK-SAME: \22out_dtype\22: \22bf16\22
// CHECK-SAME: \22format\22: \22fa-kernel-sequence\22
// CHECK-SAME: \22kernels\22: [\0A    \22fa_fwd_f8e4m3fn_d128_bhsd_causal_obf16_lse_m128n224s2o_transpose_v.json\22,\0A    \22fa_fwd_f8e4m3fn_d128_bhsd_causal_obf16_lse_m128n224s2o_main.json\22
// CHECK-SAME: \22op\22: \22attention_fwd\22
// V^T: [batch, heads_kv, head_dim_v, keys in whole 64-key tiles], written
// whole by the pre-kernel.
// CHECK-SAME: \22dims\22: [\0A        \22batch\22,\0A        \22head\22,\0A        \22dim\22,\0A        \22seq\22
// CHECK-SAME: \22init\22: \22none\22,\0A      \22name\22: \22value_t\22
// CHECK-SAME: \22heads_kv\22,\0A        128,\0A        \22ceildiv(seq_k, 64) * 64\22
// The attention kernel: Q and K boxes of 128 e4m3 (one 128-byte swizzle
// row), V^T boxes of 128 keys x the head dim's rows (two per 224-key tile),
// the descales.
// CHECK-SAME: _main = "
// CHECK-SAME: \22op\22: \22attention_fwd\22
// CHECK-SAME: \22box\22: [\0A        128,\0A        128\0A      ],\0A      \22dims\22: [\0A        \22dim\22,\0A        \22seq\22,\0A        \22head\22,\0A        \22batch\22\0A      ],\0A      \22dtype\22: \22f8e4m3fn\22,\0A      \22kind\22: \22tensor_map\22,\0A      \22operand\22: \22query\22
// CHECK-SAME: \22operand\22: \22key\22
// CHECK-SAME: \22dims\22: [\0A        \22seq\22,\0A        \22dim\22,\0A        \22head\22,\0A        \22batch\22\0A      ],\0A      \22dtype\22: \22f8e4m3fn\22,\0A      \22kind\22: \22tensor_map\22,\0A      \22operand\22: \22value_t\22
// CHECK-SAME: \22operand\22: \22query_descale\22
// CHECK-SAME: \22operand\22: \22key_descale\22
// CHECK-SAME: \22operand\22: \22value_descale\22
// CHECK-SAME: \22stride(query_descale, batch)\22
// CHECK-SAME: \22stride(value_descale, head)\22
// CHECK-SAME: \22name\22: \22value_t\22
// The pre-kernel: V (16-byte loads) into value_t, 64 keys per CTA.
// CHECK-SAME: _transpose_v = "
// CHECK-SAME: \22ceildiv(seq_k, 64)\22,\0A    \22heads_kv\22,\0A    \22batch\22
// CHECK-SAME: \22op\22: \22attention_fwd_transpose_v\22
// CHECK-SAME: \22align\22: 16,\0A      \22kind\22: \22ptr\22,\0A      \22operand\22: \22value\22
// CHECK-SAME: \22align\22: 16,\0A      \22kind\22: \22ptr\22,\0A      \22operand\22: \22value_t\22
// CHECK-SAME: \22stride(value, seq)\22
// A second configuration: f16 output, bshd, d64: three consumers (192
// rows), Q and K boxes still of 128 e4m3 (TMA zero-fills the head dim's
// second half).
// CHECK-SAME: fa_fwd_f8e4m3fn_d64_bshd_of16_lse_m192n128s2o = {
// CHECK-SAME: \22out_dtype\22: \22f16\22

// The pre-kernel stores 16 keys of one dim row at a time.
// CHECK-LABEL: llvm.func @fa_fwd_f8e4m3fn_d128_bhsd_causal_obf16_lse_m128n224s2o_transpose_v
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr{{$}}

// Q K^T by FP8 wgmma (k32, both K-major) over 224-key tiles at d128; P to
// e4m3 in registers; P V by FP8 wgmma with P in registers and V^T K-major
// (no transpose immediate).
// CHECK-LABEL: llvm.func @fa_fwd_f8e4m3fn_d128_bhsd_causal_obf16_lse_m128n224s2o_main
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 224, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK: cvt.rn.satfinite.e4m3x2.f32 lo, $2, $1
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// CHECK-NOT: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k16
// CHECK-LABEL: llvm.func @fa_fwd_f8e4m3fn_d64_bshd_of16_lse_m192n128s2o_main

func.func @per_tensor(%q: tensor<?x8x?x128xf8E4M3FN>, %k: tensor<?x2x?x128xf8E4M3FN>, %v: tensor<?x2x?x128xf8E4M3FN>, %dq: tensor<f32>, %dk: tensor<f32>, %dv: tensor<f32>) -> (tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x8x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN> descale(%dq, %dk, %dv : tensor<f32>, tensor<f32>, tensor<f32>) {causal} -> tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
  return %o, %lse : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
}

// The per-(batch, kv-head) form reuses the kernel above.
func.func @per_head(%q: tensor<2x8x256x128xf8E4M3FN>, %k: tensor<2x2x256x128xf8E4M3FN>, %v: tensor<2x2x256x128xf8E4M3FN>, %dq: tensor<2x2xf32>, %dk: tensor<2x2xf32>, %dv: tensor<2x2xf32>) -> (tensor<2x8x256x128xbf16>, tensor<2x8x256xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<2x8x256x128xf8E4M3FN>, tensor<2x2x256x128xf8E4M3FN>, tensor<2x2x256x128xf8E4M3FN> descale(%dq, %dk, %dv : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {causal} -> tensor<2x8x256x128xbf16>, tensor<2x8x256xf32>
  return %o, %lse : tensor<2x8x256x128xbf16>, tensor<2x8x256xf32>
}

func.func @bshd_f16(%q: tensor<?x?x4x64xf8E4M3FN>, %k: tensor<?x?x4x64xf8E4M3FN>, %v: tensor<?x?x4x64xf8E4M3FN>, %d: tensor<f32>) -> (tensor<?x?x4x64xf16>, tensor<?x4x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x?x4x64xf8E4M3FN>, tensor<?x?x4x64xf8E4M3FN>, tensor<?x?x4x64xf8E4M3FN> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) {layout = #fa<layout bshd>} -> tensor<?x?x4x64xf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xf16>, tensor<?x4x?xf32>
}
