// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm | FileCheck %s

// Attention sinks in the sm_90a forward (docs/Modifiers.md, "Attention
// sinks"): the sinks are a kernel parameter after the LSE ("sinks" in the
// bundle, config "sinks": true, "_sinks" in the name), read once in the
// epilogue, where the sink joins each row's normalizer in the log2 domain:
// s2 = sink * log2(e); M = max(m, s2); l' = l 2^(m - M) + 2^(s2 - M);
// O *= 2^(m - M) / l'; LSE = ln 2 (M + log2 l'); rows without keys (l = 0)
// take O = 0 and LSE = sink.

// CHECK-LABEL: fa.kernel_bundles = {fa_fwd_bf16_d128_bhsd_causal_sinks_lse_m128n128s2o = "
// CHECK-SAME: \22sinks\22: true
// CHECK-SAME: \22operand\22: \22lse\22
// CHECK-SAME: \22operand\22: \22sinks\22
// CHECK: llvm.func @fa_fwd_bf16_d128_bhsd_causal_sinks_lse_m128n128s2o(
// CHECK-SAME: %arg4: !llvm.ptr {llvm.noalias}, %arg5: !llvm.ptr {llvm.noalias}, %arg6: i32
// CHECK: llvm.getelementptr %arg5[{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT: %[[SINK:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-NEXT: %[[S2:.*]] = arith.mulf %[[SINK]], %[[LOG2E]] : f32
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %[[SUM:.*]], %{{.*}} : f32
// CHECK: %[[M:.*]] = arith.select %[[EMPTY]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[MAX:.*]] = arith.maxnumf %[[M]], %[[S2]] : f32
// CHECK-NEXT: %[[TOP:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[MAX]] : f32
// CHECK-NEXT: %[[D1:.*]] = arith.subf %[[M]], %[[TOP]] : f32
// CHECK-NEXT: %[[ROW:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[D1]])
// CHECK-NEXT: %[[D2:.*]] = arith.subf %[[S2]], %[[TOP]] : f32
// CHECK-NEXT: %[[SHARE:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[D2]])
// CHECK-NEXT: %[[TOTAL:.*]] = llvm.intr.fma(%[[SUM]], %[[ROW]], %[[SHARE]])
// CHECK: %[[LG:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"(%[[TOTAL]])
// CHECK-NEXT: %[[LSE2:.*]] = arith.addf %[[TOP]], %[[LG]] : f32
// CHECK: %[[LSE:.*]] = arith.mulf %[[LSE2]], %{{.*}} : f32
// CHECK-NEXT: arith.select %[[EMPTY]], %[[SINK]], %[[LSE]] : f32
func.func @forward(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>, %s: tensor<?xf32>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> sinks(%s : tensor<?xf32>) {causal} -> tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
  return %o, %l : tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
}

// -----

// Without sinks nothing of the above: no parameter, no config entry.
// CHECK-LABEL: fa.kernel_bundles = {fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o = "
// CHECK-NOT: sinks
// CHECK: llvm.func @fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o(
// CHECK-SAME: %arg4: !llvm.ptr {llvm.noalias}, %arg5: i32
func.func @forward_plain(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> {causal} -> tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
  return %o, %l : tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
}

// -----

// The backward: dQ, dK, dV as without sinks (P from the LSE, which includes
// the sink). dSinks takes D = sum_j P dP from the main kernel's fp32
// products, not the pre kernel's rowsum(dO * O) of the rounded output: after
// each query step every consumer warp adds -exp2(s2 - LSE2) P dP over its
// fragment (a butterfly over the warp: 1, 2, 4, 8, 16) into its own partial
// of dsinks_partial [batch, heads_q, ceildiv(seq_k, 128) * 8] (zeroed:
// "init": "zero"; one lane reads, adds and writes it); a fifth kernel,
// _dsinks (a CTA per query head), adds a head's partials in a fixed order
// and writes grad_sinks. No atomics anywhere. (d64 takes the 128-query tile, as without sinks.)
// CHECK-LABEL: fa.kernel_bundles = {fa_bwd_bf16_d64_bhsd_causal_sinks_m128n128s2 = {fa_bwd_bf16_d64_bhsd_causal_sinks_m128n128s2 = "
// CHECK-SAME: \22sinks\22: true
// CHECK-SAME: \22fa_bwd_bf16_d64_bhsd_causal_sinks_m128n128s2_post.json\22,\0A    \22fa_bwd_bf16_d64_bhsd_causal_sinks_m128n128s2_dsinks.json\22\0A  ]
// CHECK-SAME: \22init\22: \22zero\22,\0A      \22name\22: \22dsinks_partial\22,\0A      \22shape\22: [\0A        \22batch\22,\0A        \22heads_q\22,\0A        \22ceildiv(seq_k, 128) * 8\22
// CHECK-SAME: fa_bwd_bf16_d64_bhsd_causal_sinks_m128n128s2_dsinks = "
// CHECK-SAME: \22grid\22: [\0A    \22heads_q\22,\0A    1,\0A    1\0A  ]
// CHECK-SAME: \22op\22: \22attention_bwd_dsinks\22
// CHECK-SAME: \22operand\22: \22dsinks_partial\22
// CHECK-SAME: \22operand\22: \22grad_sinks\22
// CHECK-SAME: \22value\22: \22batch\22
// CHECK-SAME: \22value\22: \22seq_k\22
// CHECK-SAME: \22shared_memory_bytes\22: 1056
// CHECK-SAME: fa_bwd_bf16_d64_bhsd_causal_sinks_m128n128s2_main = "
// CHECK-SAME: \22operand\22: \22dq_accum\22
// CHECK-SAME: \22operand\22: \22sinks\22
// CHECK-SAME: \22operand\22: \22dsinks_partial\22
// CHECK-SAME: fa_bwd_bf16_d64_bhsd_causal_sinks_m128n128s2_pre = "
// CHECK-SAME: \22operand\22: \22softmax_d\22
// The pre kernel's parameters are those without sinks (it zeroes dq_accum).
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_causal_sinks_m128n128s2_pre(
// CHECK-SAME: %arg12: !llvm.ptr, %arg13: !llvm.ptr, %arg14: !llvm.ptr, %arg15: i32)
// The main kernel: dq_accum, sinks, dsinks_partial, then the sizes.
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_causal_sinks_m128n128s2_main(
// CHECK-SAME: %arg14: !llvm.ptr, %arg15: !llvm.ptr, %arg16: !llvm.ptr, %arg17: i32, %arg18: i32, %arg19: i32)
// CHECK: llvm.getelementptr %arg15[{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c1_i32
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c2_i32
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c4_i32
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c8_i32
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c16_i32
// CHECK: %[[PART:.*]] = llvm.getelementptr %arg16[{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT: %[[OLD:.*]] = llvm.load %[[PART]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT: %[[NEW:.*]] = arith.subf %[[OLD]], %{{.*}} : f32
// CHECK-NEXT: llvm.store %[[NEW]], %[[PART]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_causal_sinks_m128n128s2_dsinks(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i32, %arg3: i32)
// CHECK-NOT: red.global
// CHECK: nvvm.barrier0
// CHECK: llvm.getelementptr %arg1[{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
func.func @backward(%do: tensor<?x?x?x64xbf16>, %q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %o: tensor<?x?x?x64xbf16>, %l: tensor<?x?x?xf32>, %s: tensor<?xf32>) -> tensor<?xf32> {
  %dq, %dk, %dv, %ds = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?xf32> sinks(%s : tensor<?xf32>) {causal} -> tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?xf32>
  return %ds : tensor<?xf32>
}
