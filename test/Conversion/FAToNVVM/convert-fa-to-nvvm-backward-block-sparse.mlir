// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm | FileCheck %s
// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm="deterministic=true" | FileCheck %s --check-prefix=DET

// Block sparsity in the sm_90a backward (docs/Modifiers.md, "Block sparsity
// on sm_90a"; lib/Conversion/FAToNVVM/BackwardBlockMap.h): a mask_mod that
// states more than a band makes the backward sequence start with a
// _block_map pre-kernel, which writes per key block the query tiles to visit
// (2 * tile + full), and the main kernel walks that list. Deterministic
// backwards keep every query tile of the band (their dQ order counts them).

// A document mask with causal: the map is per batch (the region reads b,
// not h): [batch, 1, key blocks(, query tiles)], written by kernel 0 so a
// caller may keep it; the pre-kernel's grid is one CTA per (key block,
// batch), it reads the capture and takes the group size.
// CHECK-LABEL: module attributes
// CHECK-SAME: fa_bwd_bf16_d128_bhsd_causal_mod[[H:[0-9a-f]+]]_m64n128s2_bsparse = {
// CHECK-SAME: \22kernels\22: [\0A{{ *}}\22fa_bwd_bf16_d128_bhsd_causal_mod[[H]]_m64n128s2_bsparse_block_map.json\22,\0A{{ *}}\22{{[^"]*}}_bsparse_pre.json\22,\0A{{ *}}\22{{[^"]*}}_bsparse_main.json\22,\0A{{ *}}\22{{[^"]*}}_bsparse_post.json\22\0A{{ *}}]
// CHECK-SAME: \22name\22: \22q_num_blocks\22,\0A{{ *}}\22shape\22: [\0A{{ *}}\22batch\22,\0A{{ *}}\221\22,\0A{{ *}}\22ceildiv(seq_k, 128)\22\0A{{ *}}],\0A{{ *}}\22written_by\22: 0
// CHECK-SAME: \22name\22: \22q_indices\22,\0A{{ *}}\22shape\22: [\0A{{ *}}\22batch\22,\0A{{ *}}\221\22,\0A{{ *}}\22ceildiv(seq_k, 128)\22,\0A{{ *}}\22ceildiv(seq_q, 64)\22\0A{{ *}}],\0A{{ *}}\22written_by\22: 0
// CHECK-SAME: _bsparse_block_map = "{\0A{{ *}}\22block\22: [\0A{{ *}}1024,
// CHECK-SAME: \22captures\22: [
// CHECK-SAME: \22grid\22: [\0A{{ *}}\22ceildiv(seq_k, 128)\22,\0A{{ *}}\221\22,\0A{{ *}}\22batch\22\0A{{ *}}],
// CHECK-SAME: \22op\22: \22attention_bwd_block_map\22
// CHECK-SAME: \22value\22: \22heads_q / heads_kv\22
// The main kernel names the same buffers.
// CHECK-SAME: _bsparse_main = "{
// CHECK-SAME: \22operand\22: \22q_num_blocks\22
// CHECK-SAME: \22operand\22: \22q_indices\22
// CHECK-SAME: \22name\22: \22q_num_blocks\22
//
// The pre-kernel: this key block's count and list; per query tile of the
// band (four per step) mask_mod on the thread's elements (document ids
// read), two reducing barriers, thread 0 appending 2 * tile + full.
// CHECK: llvm.func @fa_bwd_bf16_d128_bhsd_causal_mod[[H]]_m64n128s2_bsparse_block_map(%[[NUM:arg[0-9]+]]: !llvm.ptr {llvm.noalias}, %[[IDX:arg[0-9]+]]: !llvm.ptr {llvm.noalias}, {{.*}}nvvm.maxntid = array<i32: 1024, 1, 1>
// CHECK: %[[COUNT:.*]] = llvm.getelementptr %[[NUM]][
// CHECK: %[[LIST:.*]] = llvm.getelementptr %[[IDX]][
// CHECK: scf.for
// CHECK: llvm.load {{.*}} -> i32
// CHECK: arith.cmpi eq, {{.*}} : i32
// CHECK: nvvm.barrier #nvvm.reduction<or>
// CHECK: nvvm.barrier #nvvm.reduction<and>
// CHECK: llvm.getelementptr %[[LIST]][
// CHECK: llvm.store
// CHECK: llvm.store %{{.*}}, %[[COUNT]]
// CHECK: llvm.func @{{.*}}_bsparse_pre(
// The main kernel: the map after the sizes, before the capture; the count
// of its list times the group is the CTA's steps. The producer's step t:
// q head t / count, entry t % count, tile entry >> 1.
// CHECK: llvm.func @{{.*}}_bsparse_main({{.*}}, %[[GROUP:[^:]*]]: i32, %[[MNUM:[^:]*]]: !llvm.ptr, %[[MIDX:[^:]*]]: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64)
// CHECK: %[[CPTR:.*]] = llvm.getelementptr %[[MNUM]][
// CHECK: %[[ROW:.*]] = llvm.getelementptr %[[MIDX]][
// CHECK: %[[N:.*]] = llvm.load %[[CPTR]] {{.*}} -> i32
// CHECK: %[[STEPS:.*]] = arith.muli %[[N]], %[[GROUP]] : i32
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[STEPS]]
// CHECK: arith.divui %[[T]], %[[N]] : i32
// CHECK: %[[AT:.*]] = arith.remui %[[T]], %[[N]] : i32
// CHECK: %[[EPTR:.*]] = llvm.getelementptr %[[ROW]][
// CHECK: %[[E:.*]] = llvm.load %[[EPTR]] {{.*}} -> i32
// CHECK: arith.shrui %[[E]], %{{.*}} : i32
// A consumer: the same entry; mask_mod (the document ids) only where the
// tile is partial (entry & 1 == 0), a uniform branch.
// CHECK: scf.for %[[TC:.*]] = %{{.*}} to %[[STEPS]]
// CHECK: %[[EC:.*]] = llvm.load {{.*}} -> i32
// CHECK: %[[FULLBIT:.*]] = arith.andi %[[EC]], %{{.*}} : i32
// CHECK: %[[PARTIAL:.*]] = arith.cmpi eq, %[[FULLBIT]], %{{.*}} : i32
// CHECK: scf.if %[[PARTIAL]] -> (f32
// CHECK: llvm.load {{.*}} -> i32
// CHECK: arith.cmpi eq, {{.*}} : i32
// CHECK: llvm.func @{{.*}}_bsparse_post(
//
// DET-LABEL: module attributes
// DET-NOT: _bsparse
// DET: gpu.module @fa_bwd_bf16_d128_bhsd_causal_mod{{[0-9a-f]+}}_m64n128s2_det
// DET-NOT: block_map
// DET: llvm.func @{{.*}}_det_post(
func.func @document_causal(%do: tensor<?x4x?x128xbf16>, %q: tensor<?x4x?x128xbf16>, %k: tensor<?x4x?x128xbf16>, %v: tensor<?x4x?x128xbf16>, %o: tensor<?x4x?x128xbf16>, %lse: tensor<?x4x?xf32>, %doc: tensor<?x?xi32>) -> (tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?xf32> captures(%doc : tensor<?x?xi32>) {causal} -> tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<?x?xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<?x?xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1
  }
  return %dq, %dk, %dv : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
}

// -----

// A mask_mod that reads the query head, under GQA: the map is per kv head
// ([1, heads_kv, ...], the pre-kernel's grid one CTA per (key block, kv
// head)), and the pre-kernel evaluates each tile for every query head of
// the group (a loop to heads_q / heads_kv): the group's heads share the
// CTA's list.
// CHECK-LABEL: module attributes
// CHECK-SAME: \22name\22: \22q_num_blocks\22,\0A{{ *}}\22shape\22: [\0A{{ *}}\221\22,\0A{{ *}}\22heads_kv\22,
// CHECK-SAME: \22grid\22: [\0A{{ *}}\22ceildiv(seq_k, 128)\22,\0A{{ *}}\22heads_kv\22,\0A{{ *}}\221\22\0A{{ *}}],
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_mod{{[0-9a-f]+}}_m64n128s2_bsparse_block_map({{.*}}, %[[G:[^:]*]]: i32) attributes
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[G]] {{.*}}-> (i1, i1)
// CHECK: nvvm.barrier #nvvm.reduction<or>
//
// DET-LABEL: module attributes
// DET-NOT: _bsparse
func.func @per_head_limit(%do: tensor<?x8x?x64xbf16>, %q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %o: tensor<?x8x?x64xbf16>, %lse: tensor<?x8x?xf32>) -> (tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?xf32> -> tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c1 = arith.constant 1 : index
    %c100 = arith.constant 100 : index
    %h1 = arith.addi %h, %c1 : index
    %limit = arith.muli %h1, %c100 : index
    %keep = arith.cmpi ult, %j, %limit : index
    fa.yield %keep : i1
  }
  return %dq, %dk, %dv : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>
}
