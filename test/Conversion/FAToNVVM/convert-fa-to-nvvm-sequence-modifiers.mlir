// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm | FileCheck %s

// score_mod/mask_mod on the ragged-batch and KV-cache forwards
// (docs/Modifiers.md, "On the inference ops"): the dense forward's fragment
// evaluator with each op's positions, the captures kernel parameters.

// A ragged batch: the regions' batch is the sequence the tile search found
// (result #1 of the search; 0 for a spare CTA), here reading the document
// ids by it. The
// capture is a parameter (pointer, two strides) and in the bundle.
// CHECK-LABEL: module attributes
// CHECK-SAME: fa_fwd_bf16_d64_bshd_mod{{[0-9a-f]+}}_lse_m128n128s2o_varlen
// CHECK-SAME: \22captures\22: [
// CHECK-SAME: \22op\22: \22attention_varlen\22
// CHECK: llvm.func @fa_fwd_bf16_d64_bshd_mod{{[0-9a-f]+}}_lse_m128n128s2o_varlen({{.*}}%[[DOCS:arg[0-9]+]]: !llvm.ptr {llvm.noalias}, %[[S0:arg[0-9]+]]: i64, %{{arg[0-9]+}}: i64, %{{arg[0-9]+}}: i32
// CHECK: %[[SEQIDX:[^ ]+]] = arith.select %{{[^ ,]+}}, %{{[0-9]+}}#1, %{{[^ ]+}} : i32
// CHECK: nvvm.wgmma.mma_async
// CHECK: %[[B64:[^ ]+]] = arith.extsi %[[SEQIDX]] : i32 to i64
// CHECK-NEXT: arith.muli %[[B64]], %[[S0]] : i64
// CHECK: llvm.getelementptr %[[DOCS]]
// CHECK: llvm.load {{.*}} -> i32
// CHECK: arith.cmpi eq, {{.*}} : i32
func.func @varlen_docs(%q: tensor<?x8x64xbf16>, %k: tensor<?x2x64xbf16>, %v: tensor<?x2x64xbf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>, %docs: tensor<?x?xi32>) -> tensor<?x8x64xbf16> {
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<?x8x64xbf16>, tensor<?x2x64xbf16>, tensor<?x2x64xbf16>, tensor<?xi32>, tensor<?xi32> captures(%docs : tensor<?x?xi32>) -> tensor<?x8x64xbf16>, tensor<8x?xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<?x?xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<?x?xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1
  }
  return %o : tensor<?x8x64xbf16>
}

// -----

// A band mask_mod of a ragged batch counts from 0 in each sequence, as the
// top-left causal attribute: it folds into it (the attribute's kernel, no
// region left; under the mask, with the dynamic scheduler).
// CHECK-LABEL: module attributes
// CHECK-SAME: fa.kernel_bundles = {fa_fwd_bf16_d128_bshd_causal_lse_m128n128s2o_varlen_dyn = {
// CHECK-NOT: _mod{{[0-9a-f]+}}
// CHECK: llvm.func @fa_fwd_bf16_d128_bshd_causal_lse_m128n128s2o_varlen_dyn_main(
func.func @varlen_band(%q: tensor<?x8x128xbf16>, %k: tensor<?x2x128xbf16>, %v: tensor<?x2x128xbf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> tensor<?x8x128xbf16> {
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>, tensor<?xi32>, tensor<?xi32> -> tensor<?x8x128xbf16>, tensor<8x?xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %keep = arith.cmpi sle, %j, %i : index
    fa.yield %keep : i1
  }
  return %o : tensor<?x8x128xbf16>
}

// -----

// A KV cache: the query index is the absolute position, n - seq_q + the
// (pack-GQA unpacked, clamped) query, n the sequence's keys; a band
// mask_mod therefore does not fold into the (top-left counting) attributes
// and stays a region.
// CHECK-LABEL: module attributes
// CHECK-SAME: fa_fwd_bf16_d128_bshd_mod{{[0-9a-f]+}}_lse_m64n64s2o_split_kvcache_page64
// CHECK-SAME: \22captures\22: [
// CHECK-SAME: \22op\22: \22attention_fwd_partial\22
// CHECK: llvm.func @fa_fwd_bf16_d128_bshd_mod{{[0-9a-f]+}}_lse_m64n64s2o_split_kvcache_page64_partial({{.*}}%[[DOCS:arg[0-9]+]]: !llvm.ptr {llvm.noalias}, %{{arg[0-9]+}}: i64, %[[S1:arg[0-9]+]]: i64, %[[SEQQ:arg[0-9]+]]: i32
// CHECK: nvvm.wgmma.mma_async
// CHECK: %[[OFFSET:[^ ]+]] = arith.subi %{{[^ ,]+}}, %[[SEQQ]] : i32
// CHECK-NEXT: %[[POS:[^ ]+]] = arith.addi %{{[^ ,]+}}, %[[OFFSET]] : i32
// CHECK: %[[POS64:[^ ]+]] = arith.extsi %[[POS]] : i32 to i64
// CHECK-NEXT: arith.muli %[[POS64]], %[[S1]] : i64
// CHECK-NEXT: arith.addi
// CHECK-NEXT: llvm.getelementptr %[[DOCS]]
// CHECK: arith.cmpi eq, {{.*}} : i32
func.func @kv_docs(%q: tensor<?x?x8x128xbf16>, %kc: tensor<?x64x2x128xbf16>, %vc: tensor<?x64x2x128xbf16>, %lens: tensor<?xi32>, %bt: tensor<?x?xi32>, %docs: tensor<?x?xi32>) -> tensor<?x?x8x128xbf16> {
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<?x?x8x128xbf16>, tensor<?x64x2x128xbf16>, tensor<?x64x2x128xbf16>, tensor<?xi32> block_table(%bt : tensor<?x?xi32>) captures(%docs : tensor<?x?xi32>) -> tensor<?x?x8x128xbf16>, tensor<?x8x?xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<?x?xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<?x?xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    %causal = arith.cmpi sle, %j, %i : index
    %keep = arith.andi %same, %causal : i1
    fa.yield %keep : i1
  }
  return %o : tensor<?x?x8x128xbf16>
}
