// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Attention as torch-mlir's TorchToLinalg lowers
//   softmax(q @ k.transpose(-2, -1) / math.sqrt(64), dim=-1) @ v
// with BERT-base shapes (batch 2, 12 heads, seq 128, head_dim 64):
// linalg.transpose of K, broadcast-copy generics, collapse_shape into
// linalg.batch_matmul and expand_shape back, the scale as a divf by an f64
// constant truncated to f32, the max as a two-result (value, argmax)
// reduction, keepdim results read through (d0, d1, d2, 0).

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @bert_attention
// CHECK-SAME: (%[[Q:.+]]: tensor<2x12x128x64xf32>, %[[K:.+]]: tensor<2x12x128x64xf32>, %[[V:.+]]: tensor<2x12x128x64xf32>)
// CHECK: %[[O:.+]] = fa.attention %[[Q]], %[[K]], %[[V]] : tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32> {scale = 1.250000e-01 : f32} -> tensor<2x12x128x64xf32>
// CHECK-NOT: linalg.batch_matmul
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @bert_attention(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 8.000000e+00 : f64
  %cst_1 = arith.constant 0xFF800000 : f32
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<2x12x64x128xf32>
  %kt = linalg.transpose ins(%k : tensor<2x12x128x64xf32>) outs(%0 : tensor<2x12x64x128xf32>) permutation = [0, 1, 3, 2]
  %1 = tensor.empty() : tensor<2x12x128x64xf32>
  %qb = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<2x12x128x64xf32>) outs(%1 : tensor<2x12x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x12x128x64xf32>
  %kb = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kt : tensor<2x12x64x128xf32>) outs(%0 : tensor<2x12x64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x12x64x128xf32>
  %qc = tensor.collapse_shape %qb [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  %kc = tensor.collapse_shape %kb [[0, 1], [2], [3]] : tensor<2x12x64x128xf32> into tensor<24x64x128xf32>
  %3 = tensor.empty() : tensor<24x128x128xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<24x128x128xf32>) -> tensor<24x128x128xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<24x128x64xf32>, tensor<24x64x128xf32>) outs(%4 : tensor<24x128x128xf32>) -> tensor<24x128x128xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 12, 128, 128] : tensor<24x128x128xf32> into tensor<2x12x128x128xf32>
  %5 = tensor.empty() : tensor<2x12x128x128xf32>
  %sc = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se : tensor<2x12x128x128xf32>) outs(%5 : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %cst_0 : f64 to f32
    %d = arith.divf %in, %t : f32
    linalg.yield %d : f32
  } -> tensor<2x12x128x128xf32>
  %6 = tensor.empty() : tensor<2x12x128xf32>
  %7 = linalg.fill ins(%cst_1 : f32) outs(%6 : tensor<2x12x128xf32>) -> tensor<2x12x128xf32>
  %8 = tensor.empty() : tensor<2x12x128xi64>
  %9 = linalg.fill ins(%c0_i64 : i64) outs(%8 : tensor<2x12x128xi64>) -> tensor<2x12x128xi64>
  %mx:2 = linalg.generic {indexing_maps = [#map, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x12x128x128xf32>) outs(%7, %9 : tensor<2x12x128xf32>, tensor<2x12x128xi64>) {
  ^bb0(%in: f32, %out: f32, %out_2: i64):
    %idx = linalg.index 3 : index
    %i = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %out : f32
    %c = arith.cmpf ogt, %in, %out : f32
    %sel = arith.select %c, %i, %out_2 : i64
    linalg.yield %m, %sel : f32, i64
  } -> (tensor<2x12x128xf32>, tensor<2x12x128xi64>)
  %mxe = tensor.expand_shape %mx#0 [[0], [1], [2, 3]] output_shape [2, 12, 128, 1] : tensor<2x12x128xf32> into tensor<2x12x128x1xf32>
  %sub = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %mxe : tensor<2x12x128x128xf32>, tensor<2x12x128x1xf32>) outs(%5 : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %r = arith.subf %in, %in_1 : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %exp = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<2x12x128x128xf32>) outs(%5 : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %10 = tensor.empty() : tensor<2x12x128x1xf32>
  %11 = linalg.fill ins(%cst : f32) outs(%10 : tensor<2x12x128x1xf32>) -> tensor<2x12x128x1xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%exp : tensor<2x12x128x128xf32>) outs(%11 : tensor<2x12x128x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x1xf32>
  %p = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%exp, %sum : tensor<2x12x128x128xf32>, tensor<2x12x128x1xf32>) outs(%5 : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %r = arith.divf %in, %in_1 : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %pb = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<2x12x128x128xf32>) outs(%5 : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x12x128x128xf32>
  %vb = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x12x128x64xf32>) outs(%1 : tensor<2x12x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x12x128x64xf32>
  %pc = tensor.collapse_shape %pb [[0, 1], [2], [3]] : tensor<2x12x128x128xf32> into tensor<24x128x128xf32>
  %vc = tensor.collapse_shape %vb [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  %12 = tensor.empty() : tensor<24x128x64xf32>
  %13 = linalg.fill ins(%cst : f32) outs(%12 : tensor<24x128x64xf32>) -> tensor<24x128x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<24x128x128xf32>, tensor<24x128x64xf32>) outs(%13 : tensor<24x128x64xf32>) -> tensor<24x128x64xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 12, 128, 64] : tensor<24x128x64xf32> into tensor<2x12x128x64xf32>
  return %oe : tensor<2x12x128x64xf32>
}

// -----

// One head, no batch: 2-D linalg.matmul with the scale multiplied after,
// the max as a plain maximumf reduction and the division as
// multiplication by a reciprocal.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @single_head
// CHECK: %[[Q4:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0, 1, 2], [3]] output_shape [1, 1, 64, 32]
// CHECK: fa.attention %[[Q4]], %{{.+}}, %{{.+}} : tensor<1x1x64x32xf32>, tensor<1x1x96x32xf32>, tensor<1x1x96x48xf32> {scale = 0.176776692 : f32} -> tensor<1x1x64x48xf32>
// CHECK: tensor.collapse_shape %{{.+}} {{\[}}[0, 1, 2], [3]] : tensor<1x1x64x48xf32> into tensor<64x48xf32>
func.func @single_head(%q: tensor<64x32xf32>, %k: tensor<96x32xf32>, %v: tensor<96x48xf32>) -> tensor<64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.176776695 : f32
  %e0 = tensor.empty() : tensor<32x96xf32>
  %kt = linalg.transpose ins(%k : tensor<96x32xf32>) outs(%e0 : tensor<32x96xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<64x96xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x96xf32>) -> tensor<64x96xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<64x32xf32>, tensor<32x96xf32>) outs(%f1 : tensor<64x96xf32>) -> tensor<64x96xf32>
  %ss = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x96xf32>) outs(%e1 : tensor<64x96xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %scale : f32
    linalg.yield %r : f32
  } -> tensor<64x96xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.reduce ins(%ss : tensor<64x96xf32>) outs(%f2 : tensor<64xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %r = arith.maximumf %in, %init : f32
      linalg.yield %r : f32
    }
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ss, %m : tensor<64x96xf32>, tensor<64xf32>) outs(%e1 : tensor<64x96xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<64x96xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %l = linalg.reduce ins(%ex : tensor<64x96xf32>) outs(%f3 : tensor<64xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %r = arith.addf %in, %init : f32
      linalg.yield %r : f32
    }
  %rl = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%l : tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %in : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %rl : tensor<64x96xf32>, tensor<64xf32>) outs(%e1 : tensor<64x96xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %x = arith.mulf %in, %r : f32
    linalg.yield %x : f32
  } -> tensor<64x96xf32>
  %e3 = tensor.empty() : tensor<64x48xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64x48xf32>) -> tensor<64x48xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 1 query heads / 1 kv heads, scale 1.767767e-01)}}
  %o = linalg.matmul ins(%p, %v : tensor<64x96xf32>, tensor<96x48xf32>) outs(%f4 : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %o : tensor<64x48xf32>
}

// -----

// Contractions as einsum-like linalg.generic ops reading Q and K in place
// (no transpose), linalg.softmax in between.

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
// CHECK-LABEL: func.func @einsum_softmax
// CHECK-SAME: (%[[Q:.+]]: tensor<1x8x100x64xf32>, %[[K:.+]]: tensor<1x8x100x64xf32>, %[[V:.+]]: tensor<1x8x100x64xf32>)
// CHECK: %[[O:.+]] = fa.attention %[[Q]], %[[K]], %[[V]] {{.+}} {scale = 1.000000e+00 : f32}
// CHECK: return %[[O]]
func.func @einsum_softmax(%q: tensor<1x8x100x64xf32>, %k: tensor<1x8x100x64xf32>, %v: tensor<1x8x100x64xf32>) -> tensor<1x8x100x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x8x100x100xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x8x100x100xf32>) -> tensor<1x8x100x100xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x8x100x64xf32>, tensor<1x8x100x64xf32>) outs(%f0 : tensor<1x8x100x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x100x100xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<1x8x100x100xf32>) outs(%e0 : tensor<1x8x100x100xf32>) -> tensor<1x8x100x100xf32>
  %e1 = tensor.empty() : tensor<1x8x100x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x100x64xf32>) -> tensor<1x8x100x64xf32>
  // expected-remark @+1 {{raised to fa.attention}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x8x100x100xf32>, tensor<1x8x100x64xf32>) outs(%f1 : tensor<1x8x100x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x100x64xf32>
  return %o : tensor<1x8x100x64xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// Dynamic batch and sequence lengths (what torch-mlir exports with dynamic
// dims): batch and heads merged into a dynamic [B*H] for the matmuls.
// CHECK-LABEL: func.func @dynamic_batch_seq
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32> {scale = 1.250000e-01 : f32} -> tensor<?x12x?x64xf32>
// CHECK-NOT: linalg.softmax
func.func @dynamic_batch_seq(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %q, %c0 : tensor<?x12x?x64xf32>
  %sq = tensor.dim %q, %c2 : tensor<?x12x?x64xf32>
  %sk = tensor.dim %k, %c2 : tensor<?x12x?x64xf32>
  %e_s = tensor.empty(%b, %sq, %sk) : tensor<?x12x?x?xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>) outs(%f_s : tensor<?x12x?x?xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<?x12x?x?xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<?x12x?x?xf32>) outs(%e_s : tensor<?x12x?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<?x12x?x?xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<?x12x?x?xf32>) outs(%e_s : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<?x12x?x?xf32> into tensor<?x?x?xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<?x12x?x64xf32> into tensor<?x?x64xf32>
  %c12 = arith.constant 12 : index
  %bh = arith.muli %b, %c12 : index
  %e_o = tensor.empty(%bh, %sq) : tensor<?x?x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<?x?x?xf32>, tensor<?x?x64xf32>) outs(%f_o : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [%b, 12, %sq, 64] : tensor<?x?x64xf32> into tensor<?x12x?x64xf32>
  return %oe : tensor<?x12x?x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// Normalization after P·V: O = (exp(S - max) V) / rowsum(exp(S - max)), the
// form decompositions that avoid dividing the big matrix use.
// CHECK-LABEL: func.func @deferred_normalization
// CHECK: %[[O:.+]] = fa.attention {{.+}} {scale = 1.250000e-01 : f32}
// CHECK-NEXT: return %[[O]]
func.func @deferred_normalization(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x12x128x128xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x12x128x128xf32>) -> tensor<2x12x128x128xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>) outs(%f_s : tensor<2x12x128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<2x12x128xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x12x128xf32>) -> tensor<2x12x128xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x12x128x128xf32>) outs(%f_m : tensor<2x12x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x12x128xf32>) -> tensor<2x12x128xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x12x128x128xf32>) outs(%f_l : tensor<2x12x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%ex, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  %e_n = tensor.empty() : tensor<2x12x128x64xf32>
  %on = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o, %l : tensor<2x12x128x64xf32>, tensor<2x12x128xf32>) outs(%e_n : tensor<2x12x128x64xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %on : tensor<2x12x128x64xf32>
}
