// RUN: fa-opt %s -split-input-file --fa-tile-attention | FileCheck %s

// Block sparsity from mask_mod. With static lengths, the interval analysis
// of the region classifies each 64 x 64 tile (0 hidden, 1 partial,
// 2 visible) into constant tables; the loops run over the spans of
// non-hidden tiles, and visible tiles take the unmasked score body. A
// mask that reads captures gets a map computed at run time.

// A causal mask written as mask_mod: the attribute's tiles exactly (key
// tiles [0, qt] for query tile qt, the diagonal partial, the rest visible),
// and no per-tile skip test (no hidden tile inside a span).
// CHECK-LABEL: func.func @causal_as_mask_mod
// CHECK-DAG:     %[[KINDS:.+]] = arith.constant dense<{{\[}}[1, 0, 0, 0], [2, 1, 0, 0], [2, 2, 1, 0], [2, 2, 2, 1]]> : tensor<4x4xi32>
// CHECK-DAG:     %[[KLO:.+]] = arith.constant dense<0> : tensor<4xi32>
// CHECK-DAG:     %[[KHI:.+]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
// CHECK:         scf.forall
// CHECK:           tensor.extract %[[KLO]]
// CHECK:           %[[HI:.+]] = tensor.extract %[[KHI]]
// CHECK:           %[[HIX:.+]] = arith.index_cast %[[HI]] : i32 to index
// CHECK:           %[[UB:.+]] = arith.minsi %{{.+}}, %[[HIX]] : index
// CHECK:           scf.for %{{.+}} = %{{.+}} to %[[UB]]
// CHECK-NOT:         scf.if %{{.+}} -> (tensor<?xf32>, tensor<?xf32>, tensor<?x32xf32>)
// CHECK:             %[[KIND:.+]] = tensor.extract %[[KINDS]]
// CHECK:             %[[K:.+]] = arith.index_cast %[[KIND]] : i32 to index
// CHECK:             %[[VIS:.+]] = arith.cmpi eq, %[[K]], %c2
// CHECK:             scf.if %[[VIS]] -> (tensor<?x?xf32>)
// The visible branch: no comparison of positions.
// CHECK-NOT:           arith.cmpi
// CHECK:               scf.yield
// CHECK:             } else {
// CHECK:               arith.cmpi ule
// CHECK:               arith.select
func.func @causal_as_mask_mod(%q: tensor<1x2x256x32xf32>, %k: tensor<1x2x256x32xf32>, %v: tensor<1x2x256x32xf32>) -> tensor<1x2x256x32xf32> {
  %o = fa.attention %q, %k, %v : tensor<1x2x256x32xf32>, tensor<1x2x256x32xf32>, tensor<1x2x256x32xf32> -> tensor<1x2x256x32xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %keep = arith.cmpi ule, %j, %i : index
    fa.yield %keep : i1
  }
  return %o : tensor<1x2x256x32xf32>
}

// -----

// Every other block of 64 keys, causally: hidden tiles inside the spans are
// skipped by an scf.if that yields the running state unchanged; the
// backward's dK/dV nest narrows each key tile's query tiles (key tiles 1
// and 3 see none).
// CHECK-LABEL: func.func @holes
// CHECK-DAG:     %[[KINDS:.+]] = arith.constant dense<{{\[}}[1, 0, 0, 0], [2, 0, 0, 0], [2, 0, 1, 0], [2, 0, 2, 0]]> : tensor<4x4xi32>
// CHECK-DAG:     arith.constant dense<[1, 1, 3, 3]> : tensor<4xi32>
// CHECK:         scf.for %{{.+}} iter_args(%[[M:[^ ]+]] = %{{.+}}, %[[L:[^ ]+]] = %{{.+}}, %[[ACC:[^ ]+]] = %{{.+}})
// CHECK:           %[[KIND:.+]] = tensor.extract %[[KINDS]]
// CHECK:           %[[K:.+]] = arith.index_cast %[[KIND]] : i32 to index
// CHECK:           %[[HIDDEN:.+]] = arith.cmpi eq, %[[K]], %c0
// CHECK:           scf.if %[[HIDDEN]] -> (tensor<?xf32>, tensor<?xf32>, tensor<?x32xf32>) {
// CHECK-NEXT:        scf.yield %[[M]], %[[L]], %[[ACC]]
// CHECK:           } else {
func.func @holes(%q: tensor<1x2x256x32xf32>, %k: tensor<1x1x256x32xf32>, %v: tensor<1x1x256x32xf32>) -> tensor<1x2x256x32xf32> {
  %o = fa.attention %q, %k, %v : tensor<1x2x256x32xf32>, tensor<1x1x256x32xf32>, tensor<1x1x256x32xf32> -> tensor<1x2x256x32xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c64 = arith.constant 64 : index
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %blk = arith.divui %j, %c64 : index
    %par = arith.remui %blk, %c2 : index
    %even = arith.cmpi eq, %par, %c0 : index
    %past = arith.cmpi ule, %j, %i : index
    %keep = arith.andi %even, %past : i1
    fa.yield %keep : i1
  }
  return %o : tensor<1x2x256x32xf32>
}

// CHECK-LABEL: func.func @holes_grad
// Query-tile spans of the key tiles: [0, 4), [4, 4), [2, 4), [4, 4).
// CHECK-DAG:     %[[QLO:.+]] = arith.constant dense<[0, 4, 2, 4]> : tensor<4xi32>
// CHECK-DAG:     %[[QHI:.+]] = arith.constant dense<4> : tensor<4xi32>
// CHECK:         scf.forall
// CHECK:         scf.forall
// CHECK:           tensor.extract %[[QLO]]
// CHECK:           tensor.extract %[[QHI]]
func.func @holes_grad(%do: tensor<1x2x256x32xf32>, %q: tensor<1x2x256x32xf32>, %k: tensor<1x1x256x32xf32>, %v: tensor<1x1x256x32xf32>, %o: tensor<1x2x256x32xf32>, %l: tensor<1x2x256xf32>) -> tensor<1x1x256x32xf32> {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<1x2x256x32xf32>, tensor<1x2x256x32xf32>, tensor<1x1x256x32xf32>, tensor<1x1x256x32xf32>, tensor<1x2x256x32xf32>, tensor<1x2x256xf32> -> tensor<1x2x256x32xf32>, tensor<1x1x256x32xf32>, tensor<1x1x256x32xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c64 = arith.constant 64 : index
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %blk = arith.divui %j, %c64 : index
    %par = arith.remui %blk, %c2 : index
    %even = arith.cmpi eq, %par, %c0 : index
    %past = arith.cmpi ule, %j, %i : index
    %keep = arith.andi %even, %past : i1
    fa.yield %keep : i1
  }
  return %dk : tensor<1x1x256x32xf32>
}

// -----

// A document mask reads captures: no tile is decided at compile time, so a
// pre-nest counts each tile's hidden elements into a run-time map
// [batch, 1 (the region ignores the head), query tiles, key tiles], and the
// forward tests each tile against it.
// CHECK-LABEL: func.func @document
// CHECK-NOT:     arith.constant dense
// CHECK:         %[[MAP:.+]] = scf.forall ({{.+}}) in ({{.+}}) shared_outs({{.+}}) -> (tensor<2x1x4x4xi32>)
// CHECK:           scf.for
// CHECK:             scf.for {{.+}} -> (i32)
// CHECK:               scf.for {{.+}} -> (i32)
// CHECK:                 tensor.extract %{{.+}} : tensor<2x256xi32>
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             tensor.extract %[[MAP]]
// CHECK:             scf.if %{{.+}} -> (tensor<?xf32>, tensor<?xf32>, tensor<?x32xf32>)
func.func @document(%q: tensor<2x2x256x32xf32>, %k: tensor<2x2x256x32xf32>, %v: tensor<2x2x256x32xf32>, %doc: tensor<2x256xi32>) -> tensor<2x2x256x32xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x2x256x32xf32>, tensor<2x2x256x32xf32>, tensor<2x2x256x32xf32> captures(%doc : tensor<2x256xi32>) -> tensor<2x2x256x32xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<2x256xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<2x256xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<2x256xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1
  }
  return %o : tensor<2x2x256x32xf32>
}

// -----

// An index-only mask with a dynamic length: the map is computed at run time
// ([1, 1, ...]: the region reads neither batch nor head).
// CHECK-LABEL: func.func @dynamic_causal
// CHECK-NOT:     arith.constant dense
// CHECK:         scf.forall ({{.+}}) in ({{.+}}) shared_outs({{.+}}) -> (tensor<1x1x?x?xi32>)
func.func @dynamic_causal(%q: tensor<1x2x?x32xf32>, %k: tensor<1x2x?x32xf32>, %v: tensor<1x2x?x32xf32>) -> tensor<1x2x?x32xf32> {
  %o = fa.attention %q, %k, %v : tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x2x?x32xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %keep = arith.cmpi ule, %j, %i : index
    fa.yield %keep : i1
  }
  return %o : tensor<1x2x?x32xf32>
}

// -----

// A per-head capture: the run-time map has the heads ([1 (the region
// ignores the batch), heads_q, ...]).
// CHECK-LABEL: func.func @per_head_prefix
// CHECK:         scf.forall ({{.+}}) in ({{.+}}) shared_outs({{.+}}) -> (tensor<1x2x4x4xi32>)
func.func @per_head_prefix(%q: tensor<2x2x256x32xf32>, %k: tensor<2x2x256x32xf32>, %v: tensor<2x2x256x32xf32>, %len: tensor<2xindex>) -> tensor<2x2x256x32xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x2x256x32xf32>, tensor<2x2x256x32xf32>, tensor<2x2x256x32xf32> captures(%len : tensor<2xindex>) -> tensor<2x2x256x32xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %l: tensor<2xindex>):
    %n = tensor.extract %l[%h] : tensor<2xindex>
    %keep = arith.cmpi ult, %j, %n : index
    fa.yield %keep : i1
  }
  return %o : tensor<2x2x256x32xf32>
}
