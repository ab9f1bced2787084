// RUN: fa-opt %s --convert-fa-to-nvvm | FileCheck %s

// Paged KV caches and append (docs/Inference.md, "Paged caches and append
// on the GPU"). Pages of 16 rows under key tiles of 128: each tile is 8 TMA
// boxes of [64 x 16] per 64-column box, each from the page the block table
// names. Append: a write_kv kernel first in the sequence, then the attention
// over cache_seqlens + seq_new keys.

// CHECK: fa.kernel_bundles = {fa_fwd_bf16_d128_bshd_lse_m64n128s2o_split_kvcache_page16 = {fa_fwd_bf16_d128_bshd_lse_m64n128s2o_split_kvcache_page16 = "
// CHECK-SAME: \22op\22: \22attention_kvcache_paged\22
// The key slots of a paged cache bound the split count.
// CHECK-SAME: ceildiv(max_pages * page_size, 128)
// CHECK-SAME: _partial = "
// CHECK-SAME: \22page_size\22: 16
// CHECK-SAME: \22box\22: [\0A        64,\0A        16\0A      ],\0A      \22dims\22: [\0A        \22dim\22,\0A        \22row\22,\0A        \22head\22,\0A        \22page\22\0A      ],\0A      \22dtype\22: \22bf16\22,\0A      \22kind\22: \22tensor_map\22,\0A      \22operand\22: \22key_cache\22
// CHECK-SAME: \22operand\22: \22value_cache\22
// With one split the partial kernel writes O and the LSE itself.
// CHECK-SAME: \22operand\22: \22output\22
// CHECK-SAME: \22operand\22: \22lse\22
// CHECK-SAME: \22operand\22: \22block_table\22
// CHECK-SAME: \22value\22: \22max_pages * page_size\22
// CHECK-SAME: \22value\22: \22max_pages\22
// CHECK-SAME: \22value\22: \22stride(block_table, batch)\22

// CHECK-SAME: fa_fwd_f16_d64_bshd_causal_br_lse_m64n128s2o_split_kvcache_append = {
// CHECK-SAME: \22kernels\22: [\0A    \22fa_fwd_f16_d64_bshd_causal_br_lse_m64n128s2o_split_kvcache_append_write_kv.json\22,\0A    \22fa_fwd_f16_d64_bshd_causal_br_lse_m64n128s2o_split_kvcache_append_partial.json\22,\0A    \22fa_fwd_f16_d64_bshd_causal_br_lse_m64n128s2o_split_kvcache_append_combine.json\22
// CHECK-SAME: \22op\22: \22attention_kvcache_append\22
// CHECK-SAME: _partial = "
// CHECK-SAME: \22value\22: \22seq_new\22
// CHECK-SAME: _write_kv = "
// CHECK-SAME: \22ceildiv(seq_new * heads_kv, 4)\22,\0A    \22batch\22,\0A    2
// CHECK-SAME: \22op\22: \22kvcache_append\22
// CHECK-SAME: \22align\22: 16,\0A      \22kind\22: \22ptr\22,\0A      \22operand\22: \22key_new\22
// CHECK-SAME: \22operand\22: \22key\22
// CHECK-SAME: \22value\22: \22seq_k\22
// CHECK-SAME: \22value\22: \22stride(key, seq)\22

// The paged partial kernel: the page of each 16-row part is read from the
// block table (column clamped below max_pages) before its TMA boxes.
// CHECK: llvm.func @fa_fwd_bf16_d128_bshd_lse_m64n128s2o_split_kvcache_page16_partial(
// CHECK: arith.minsi
// CHECK: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global

// The append kernel: the batch's length, then 16-byte copies.
// CHECK: llvm.func @fa_fwd_f16_d64_bshd_causal_br_lse_m64n128s2o_split_kvcache_append_write_kv(
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
// The attention adds seq_new to each batch's length.
// CHECK: llvm.func @fa_fwd_f16_d64_bshd_causal_br_lse_m64n128s2o_split_kvcache_append_partial(

func.func @paged(%q: tensor<?x?x?x128xbf16>, %kc: tensor<?x16x?x128xbf16>, %vc: tensor<?x16x?x128xbf16>, %lens: tensor<?xi32>, %table: tensor<?x?xi32>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) {
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<?x?x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?xi32> block_table(%table : tensor<?x?xi32>) -> tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
}

func.func @append(%q: tensor<?x?x?x64xf16>, %kc: tensor<?x?x?x64xf16>, %vc: tensor<?x?x?x64xf16>, %lens: tensor<?xi32>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> (tensor<?x?x?x64xf16>, tensor<?x?x?xf32>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>) {
  %o, %lse, %kc2, %vc2 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?xi32> append(%k, %v : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>) {causal} -> tensor<?x?x?x64xf16>, tensor<?x?x?xf32>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>
  return %o, %lse, %kc2, %vc2 : tensor<?x?x?x64xf16>, tensor<?x?x?xf32>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>
}
