// RUN: fa-opt %s --convert-fa-to-nvvm | FileCheck %s

// Split-KV (docs/Inference.md, "The sm_90a decode kernel"): a KV-cache op
// and a dense op with num_splits each become one gpu.module with the
// partial and combine kernels and a kernel sequence whose workspace holds
// the f32 partials.

// CHECK: fa.kernel_bundles = {fa_fwd_bf16_d128_bshd_causal_br_lse_m64n128s2o_split_kvcache = {fa_fwd_bf16_d128_bshd_causal_br_lse_m64n128s2o_split_kvcache = "
// CHECK-SAME: \22format\22: \22fa-kernel-sequence\22
// CHECK-SAME: \22kernels\22: [\0A    \22fa_fwd_bf16_d128_bshd_causal_br_lse_m64n128s2o_split_kvcache_partial.json\22,\0A    \22fa_fwd_bf16_d128_bshd_causal_br_lse_m64n128s2o_split_kvcache_combine.json\22
// CHECK-SAME: \22op\22: \22attention_kvcache\22
// CHECK-SAME: \22name\22: \22o_partial\22
// The split count: one wave of CTAs over (packed query block, KV head, batch).
// CHECK-SAME: \22max(1, min(min(num_sms / max(1, ceildiv(seq_q * (heads_q / heads_kv), 64) * heads_kv * batch), ceildiv(seq_k, 128)), 64))\22
// The merge: 4 rows per CTA, none with one split (the partial kernel then
// writes O and the LSE itself).
// CHECK-SAME: _combine = "
// CHECK-SAME: \22ceildiv(seq_q, 4) * min(1, max(1, min(min(num_sms / max(1, ceildiv(seq_q * (heads_q / heads_kv), 64) * heads_kv * batch), ceildiv(seq_k, 128)), 64)) - 1)\22
// CHECK-SAME: \22op\22: \22attention_combine\22
// The partial kernel: K and V by TMA, Q by 16-byte loads (pack-GQA), the
// per-batch lengths, the partials.
// CHECK-SAME: _partial = "
// CHECK-SAME: \22heads_kv\22,\0A    \22batch\22
// CHECK-SAME: \22kind\22: \22tensor_map\22,\0A      \22operand\22: \22key\22
// CHECK-SAME: \22kind\22: \22tensor_map\22,\0A      \22operand\22: \22value\22
// CHECK-SAME: \22align\22: 16,\0A      \22kind\22: \22ptr\22,\0A      \22operand\22: \22query\22
// CHECK-SAME: \22operand\22: \22o_partial\22
// CHECK-SAME: \22operand\22: \22lse_partial\22
// CHECK-SAME: \22operand\22: \22cache_seqlens\22
// CHECK-SAME: \22stride(query, batch)\22
// CHECK-SAME: fa_fwd_bf16_d128_bshd_lse_m64n128s2o_split3 = {
// CHECK-SAME: \22op\22: \22attention_fwd\22
// CHECK-SAME: \22shape\22: [\0A        \223\22
// CHECK: gpu.module @fa_fwd_bf16_d128_bshd_causal_br_lse_m64n128s2o_split_kvcache
// One consumer warpgroup: 256 threads.
// CHECK: llvm.func @fa_fwd_bf16_d128_bshd_causal_br_lse_m64n128s2o_split_kvcache_partial(%{{.+}}: !llvm.ptr {{{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr {{{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr {llvm.noalias},
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// The batch's key count, read before the mask rule.
// CHECK: nvvm.read.ptx.sreg.ctaid.z
// CHECK: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr -> i32
// Q rows by 16-byte loads into the swizzled slab, then visible to wgmma.
// CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK: fence.proxy.async.shared::cta
// CHECK: nvvm.wgmma.mma_async
// V rows past the batch's keys are zeroed before P V.
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: llvm.func @fa_fwd_bf16_d128_bshd_causal_br_lse_m64n128s2o_split_kvcache_combine(
// CHECK: ex2.approx
// CHECK: gpu.module @fa_fwd_bf16_d128_bshd_lse_m64n128s2o_split3
// CHECK: llvm.func @fa_fwd_bf16_d128_bshd_lse_m64n128s2o_split3_partial(%{{.+}}: !llvm.ptr {{{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr {{{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr {llvm.noalias},

func.func @decode(%q: tensor<?x?x?x128xbf16>, %kc: tensor<?x?x?x128xbf16>, %vc: tensor<?x?x?x128xbf16>, %lens: tensor<?xi32>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) {
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?xi32> {causal} -> tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
}

func.func @dense(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> {layout = #fa<layout bshd>, num_splits = 3 : i64} -> tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
}
