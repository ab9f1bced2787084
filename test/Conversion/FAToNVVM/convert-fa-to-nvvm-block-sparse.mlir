// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm | FileCheck %s

// Run-time block sparsity from mask_mod on sm_90a (docs/Modifiers.md,
// "Block sparsity on sm_90a"): a mask_mod that is not only a band makes the
// forward a sequence of a _block_map pre-kernel, which evaluates mask_mod
// per element of each (query block, key tile) and writes the key tiles to
// visit (2 * tile + full), and the forward, whose producer and consumers walk
// that list.

// A document mask reads its batch argument, not its head: the map is
// [batch, 1, query blocks(, key tiles)], the pre-kernel's grid one CTA per
// (query block, batch).
// CHECK-LABEL: module attributes
// CHECK-SAME: fa_fwd_bf16_d128_bhsd_mod[[H:[0-9a-f]+]]_m128n96s2o_bsparse = {
// The sequence: the pre-kernel, then the forward; both buffers written by
// the pre-kernel (init none, written_by 0: a caller that keeps the map
// passes it and the pre-kernel is skipped).
// CHECK-SAME: \22format\22: \22fa-kernel-sequence\22
// CHECK-SAME: \22kernels\22: [\0A{{ *}}\22fa_fwd_bf16_d128_bhsd_mod[[H]]_m128n96s2o_bsparse_block_map.json\22,\0A{{ *}}\22fa_fwd_bf16_d128_bhsd_mod[[H]]_m128n96s2o_bsparse_main.json\22\0A{{ *}}]
// CHECK-SAME: \22init\22: \22none\22,\0A{{ *}}\22name\22: \22kv_num_blocks\22,\0A{{ *}}\22shape\22: [\0A{{ *}}\22batch\22,\0A{{ *}}\221\22,\0A{{ *}}\22ceildiv(seq_q, 128)\22\0A{{ *}}],\0A{{ *}}\22written_by\22: 0
// CHECK-SAME: \22init\22: \22none\22,\0A{{ *}}\22name\22: \22kv_indices\22,\0A{{ *}}\22shape\22: [\0A{{ *}}\22batch\22,\0A{{ *}}\221\22,\0A{{ *}}\22ceildiv(seq_q, 128)\22,\0A{{ *}}\22ceildiv(seq_k, 96)\22\0A{{ *}}],\0A{{ *}}\22written_by\22: 0
// The pre-kernel's bundle: 1024 threads, its grid, the map as scratch, the
// capture it reads.
// CHECK-SAME: _bsparse_block_map = "{\0A{{ *}}\22block\22: [\0A{{ *}}1024,
// CHECK-SAME: \22grid\22: [\0A{{ *}}\22ceildiv(seq_q, 128)\22,\0A{{ *}}\221\22,\0A{{ *}}\22batch\22\0A{{ *}}],
// CHECK-SAME: \22op\22: \22attention_fwd_block_map\22
// CHECK-SAME: \22value\22: \22stride(kv_indices, block)\22
// CHECK-SAME: \22operand\22: \22capture0\22
// The forward's bundle names the same buffers.
// CHECK-SAME: _bsparse_main = "{
// CHECK-SAME: \22operand\22: \22kv_num_blocks\22
// CHECK-SAME: \22operand\22: \22kv_indices\22
//
// CHECK: gpu.module @fa_fwd_bf16_d128_bhsd_mod[[H]]_m128n96s2o_bsparse
// The pre-kernel: the map, the document ids, seq_q and seq_k.
// CHECK: llvm.func @fa_fwd_bf16_d128_bhsd_mod[[H]]_m128n96s2o_bsparse_block_map(%[[NUM:arg[0-9]+]]: !llvm.ptr {llvm.noalias}, %[[IDX:arg[0-9]+]]: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[DOC:arg[0-9]+]]: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32, %{{.*}}: i32) attributes {{{.*}}nvvm.maxntid = array<i32: 1024, 1, 1>
// This query block's count and list.
// CHECK: %[[COUNT:.*]] = llvm.getelementptr %[[NUM]][
// CHECK: %[[LIST:.*]] = llvm.getelementptr %[[IDX]][
// Over the key tiles (the count carried), over a thread's rows: mask_mod
// evaluated, both document ids read, compared.
// CHECK: scf.for {{.*}} iter_args(%[[N:.*]] = %{{.*}}) -> (i32)
// CHECK: scf.for {{.*}} -> (i1, i1)
// CHECK: llvm.getelementptr %[[DOC]]
// CHECK: llvm.load {{.*}} -> i32
// CHECK: llvm.getelementptr %[[DOC]]
// CHECK: llvm.load {{.*}} -> i32
// CHECK: arith.cmpi eq, {{.*}} : i32
// Some element visible / mask_mod keeps all: the CTA's reductions; thread 0
// appends 2 * tile + full.
// CHECK: nvvm.barrier #nvvm.reduction<or>
// CHECK: nvvm.barrier #nvvm.reduction<and>
// CHECK: scf.if
// CHECK: arith.shli %{{.*}}, %{{.*}} : i32
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[LIST]][
// CHECK-NEXT: llvm.store %{{.*}}, %[[AT]]
// CHECK: scf.yield
// Then the count.
// CHECK: scf.if
// CHECK-NEXT: llvm.store %{{.*}}, %[[COUNT]]
// CHECK: llvm.return
//
// The forward: the map after the captures.
// CHECK: llvm.func @fa_fwd_bf16_d128_bhsd_mod[[H]]_m128n96s2o_bsparse_main(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}: !llvm.ptr {llvm.noalias}, %[[FDOC:arg[0-9]+]]: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %[[FNUM:arg[0-9]+]]: !llvm.ptr {llvm.noalias}, %[[FIDX:arg[0-9]+]]: !llvm.ptr {llvm.noalias}
// The work tile's iterations: its list's count.
// CHECK: %[[FCOUNT:.*]] = llvm.getelementptr %[[FNUM]][
// CHECK: %[[FLIST:.*]] = llvm.getelementptr %[[FIDX]][
// CHECK: %[[ITERS:.*]] = llvm.load %[[FCOUNT]] {{.*}} -> i32
// The producer loads K and V of the listed tiles: entry t's key tile.
// CHECK: llvm.getelementptr %[[FLIST]][
// CHECK-NEXT: %[[E0:.*]] = llvm.load
// CHECK: arith.shrui %[[E0]], %{{.*}} : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[ITERS]]
// The consumers read the entry and its partial bit; mask_mod (the document
// loads) runs only under it.
// CHECK: nvvm.setmaxregister increase
// CHECK: llvm.getelementptr %[[FLIST]][
// CHECK-NEXT: %[[E:.*]] = llvm.load
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: %[[BIT:.*]] = arith.andi %[[E]],
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[PARTIAL:.*]] = arith.cmpi eq, %[[BIT]],
// CHECK: nvvm.wgmma.mma_async
// CHECK: scf.if %[[PARTIAL]] -> (f32,
// CHECK: llvm.getelementptr %[[FDOC]]
// CHECK: arith.cmpi eq, {{.*}} : i32
func.func @document(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x4x?x128xbf16>, %v: tensor<?x4x?x128xbf16>, %doc: tensor<?x?xi32>) -> tensor<?x4x?x128xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> captures(%doc : tensor<?x?xi32>) -> tensor<?x4x?x128xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<?x?xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<?x?xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1
  }
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// A mask_mod that reads the head (a per-head limit on the keys, no
// captures): one map per query head, shared by the batch. Without a
// capture read per key the tile plan keeps 128-key tiles (d128) and two
// consumers; a block-sparse kernel is never persistent (its grid is the
// tiles') and takes the pre-kernel's query blocks, which start at 0.
// CHECK-LABEL: module attributes
// CHECK-SAME: \22name\22: \22kv_num_blocks\22,\0A{{ *}}\22shape\22: [\0A{{ *}}\221\22,\0A{{ *}}\22heads_q\22,\0A{{ *}}\22ceildiv(seq_q, 128)\22
// CHECK-SAME: \22grid\22: [\0A{{ *}}\22ceildiv(seq_q, 128)\22,\0A{{ *}}\22heads_q\22,\0A{{ *}}\221\22\0A{{ *}}]
// CHECK-SAME: \22grid\22: [\0A{{ *}}\22ceildiv(seq_q, 128)\22,\0A{{ *}}\22heads_q\22,\0A{{ *}}\22batch\22\0A{{ *}}]
// CHECK: llvm.func @fa_fwd_bf16_d128_bhsd_mod{{[0-9a-f]+}}_m128n128s2o_bsparse_block_map(
// CHECK: nvvm.barrier #nvvm.reduction<or>
// CHECK: llvm.func @fa_fwd_bf16_d128_bhsd_mod{{[0-9a-f]+}}_m128n128s2o_bsparse_main(
func.func @per_head(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c300 = arith.constant 300 : index
    %limit = arith.muli %h, %c300 : index
    %keep = arith.cmpi slt, %j, %limit : index
    fa.yield %keep : i1
  }
  return %o : tensor<?x?x?x128xbf16>
}

// -----

// Causal and prefix-LM (j <= i or j < prefix[b]): an "or" states no band,
// so the pre-kernel evaluates every key tile. A mask_mod that states only
// a band (causal) is the attribute, with no map at all.
// CHECK-LABEL: module attributes
// CHECK: gpu.module @fa_fwd_bf16_d128_bhsd_causal_m128n128s2o
// CHECK-NOT: _block_map
// CHECK: gpu.module @fa_fwd_bf16_d128_bhsd_mod{{[0-9a-f]+}}_m128n128s2o_bsparse
// CHECK: llvm.func @{{.*}}_bsparse_block_map(
// CHECK: llvm.func @{{.*}}_bsparse_main(
func.func @prefix_lm(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>, %prefix: tensor<?xi32>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>) {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c = arith.cmpi sle, %j, %i : index
    fa.yield %c : i1
  }
  %o2 = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> captures(%prefix : tensor<?xi32>) -> tensor<?x?x?x128xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %p: tensor<?xi32>):
    %n = tensor.extract %p[%b] : tensor<?xi32>
    %ni = arith.index_cast %n : i32 to index
    %causal = arith.cmpi sle, %j, %i : index
    %inPrefix = arith.cmpi slt, %j, %ni : index
    %keep = arith.ori %causal, %inPrefix : i1
    fa.yield %keep : i1
  }
  return %o, %o2 : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>
}
