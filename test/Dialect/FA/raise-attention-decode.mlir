// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Decode: one query token. The query row is then a unit dimension, which
// carries no atom in the raise's dimension bookkeeping; the plan gives it a
// size-1 atom of its own, which the rearrangements turn into the unit
// dimension of the fa operands (Raising/Atoms.cpp, rearrange). Numerics:
// test/Execution/raise-decode.py.

// torch-mlir's BERT form (batch_matmul on [B*H, 1, D], keepdim max with
// argmax) with seq_q = 1: raised onto the arguments, nothing left around.

// -----

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @bert_decode
// CHECK: %[[O:.+]] = fa.attention %arg0, %arg1, %arg2 : tensor<2x12x1x64xf32>, tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32> {scale = 1.250000e-01 : f32} -> tensor<2x12x1x64xf32>
// CHECK-NOT: linalg.batch_matmul
// CHECK: return %[[O]]
func.func @bert_decode(%q: tensor<2x12x1x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x1x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 8.000000e+00 : f64
  %cst_1 = arith.constant 0xFF800000 : f32
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<2x12x64x128xf32>
  %kt = linalg.transpose ins(%k : tensor<2x12x128x64xf32>) outs(%0 : tensor<2x12x64x128xf32>) permutation = [0, 1, 3, 2]
  %1 = tensor.empty() : tensor<2x12x128x64xf32>
  %e1q = tensor.empty() : tensor<2x12x1x64xf32>
  %qb = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<2x12x1x64xf32>) outs(%e1q : tensor<2x12x1x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x12x1x64xf32>
  %kb = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kt : tensor<2x12x64x128xf32>) outs(%0 : tensor<2x12x64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x12x64x128xf32>
  %qc = tensor.collapse_shape %qb [[0, 1], [2], [3]] : tensor<2x12x1x64xf32> into tensor<24x1x64xf32>
  %kc = tensor.collapse_shape %kb [[0, 1], [2], [3]] : tensor<2x12x64x128xf32> into tensor<24x64x128xf32>
  %3 = tensor.empty() : tensor<24x1x128xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<24x1x128xf32>) -> tensor<24x1x128xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<24x1x64xf32>, tensor<24x64x128xf32>) outs(%4 : tensor<24x1x128xf32>) -> tensor<24x1x128xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 12, 1, 128] : tensor<24x1x128xf32> into tensor<2x12x1x128xf32>
  %5 = tensor.empty() : tensor<2x12x1x128xf32>
  %sc = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se : tensor<2x12x1x128xf32>) outs(%5 : tensor<2x12x1x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %cst_0 : f64 to f32
    %d = arith.divf %in, %t : f32
    linalg.yield %d : f32
  } -> tensor<2x12x1x128xf32>
  %6 = tensor.empty() : tensor<2x12x1xf32>
  %7 = linalg.fill ins(%cst_1 : f32) outs(%6 : tensor<2x12x1xf32>) -> tensor<2x12x1xf32>
  %8 = tensor.empty() : tensor<2x12x1xi64>
  %9 = linalg.fill ins(%c0_i64 : i64) outs(%8 : tensor<2x12x1xi64>) -> tensor<2x12x1xi64>
  %mx:2 = linalg.generic {indexing_maps = [#map, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x12x1x128xf32>) outs(%7, %9 : tensor<2x12x1xf32>, tensor<2x12x1xi64>) {
  ^bb0(%in: f32, %out: f32, %out_2: i64):
    %idx = linalg.index 3 : index
    %i = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %out : f32
    %c = arith.cmpf ogt, %in, %out : f32
    %sel = arith.select %c, %i, %out_2 : i64
    linalg.yield %m, %sel : f32, i64
  } -> (tensor<2x12x1xf32>, tensor<2x12x1xi64>)
  %mxe = tensor.expand_shape %mx#0 [[0], [1], [2, 3]] output_shape [2, 12, 1, 1] : tensor<2x12x1xf32> into tensor<2x12x1x1xf32>
  %sub = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %mxe : tensor<2x12x1x128xf32>, tensor<2x12x1x1xf32>) outs(%5 : tensor<2x12x1x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %r = arith.subf %in, %in_1 : f32
    linalg.yield %r : f32
  } -> tensor<2x12x1x128xf32>
  %exp = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<2x12x1x128xf32>) outs(%5 : tensor<2x12x1x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<2x12x1x128xf32>
  %10 = tensor.empty() : tensor<2x12x1x1xf32>
  %11 = linalg.fill ins(%cst : f32) outs(%10 : tensor<2x12x1x1xf32>) -> tensor<2x12x1x1xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%exp : tensor<2x12x1x128xf32>) outs(%11 : tensor<2x12x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x12x1x1xf32>
  %p = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%exp, %sum : tensor<2x12x1x128xf32>, tensor<2x12x1x1xf32>) outs(%5 : tensor<2x12x1x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %r = arith.divf %in, %in_1 : f32
    linalg.yield %r : f32
  } -> tensor<2x12x1x128xf32>
  %pb = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<2x12x1x128xf32>) outs(%5 : tensor<2x12x1x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x12x1x128xf32>
  %vb = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x12x128x64xf32>) outs(%1 : tensor<2x12x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x12x128x64xf32>
  %pc = tensor.collapse_shape %pb [[0, 1], [2], [3]] : tensor<2x12x1x128xf32> into tensor<24x1x128xf32>
  %vc = tensor.collapse_shape %vb [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  %12 = tensor.empty() : tensor<24x1x64xf32>
  %13 = linalg.fill ins(%cst : f32) outs(%12 : tensor<24x1x64xf32>) -> tensor<24x1x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<24x1x128xf32>, tensor<24x128x64xf32>) outs(%13 : tensor<24x1x64xf32>) -> tensor<24x1x64xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 12, 1, 64] : tensor<24x1x64xf32> into tensor<2x12x1x64xf32>
  return %oe : tensor<2x12x1x64xf32>
}

// -----

// One head, 2-D matmuls, a [1, D] query: the unit dims are added around it.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @single_head_decode
// CHECK: %[[Q1:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1]] : tensor<1x32xf32> into tensor<32xf32>
// CHECK: %[[Q4:.+]] = tensor.expand_shape %[[Q1]] {{\[}}[0, 1, 2, 3]] output_shape [1, 1, 1, 32] : tensor<32xf32> into tensor<1x1x1x32xf32>
// CHECK: %[[O:.+]] = fa.attention %[[Q4]], %{{.+}}, %{{.+}} : tensor<1x1x1x32xf32>, tensor<1x1x96x32xf32>, tensor<1x1x96x48xf32> {scale = 0.176776692 : f32} -> tensor<1x1x1x48xf32>
// CHECK: tensor.collapse_shape %[[O]] {{\[}}[0], [1, 2, 3]] : tensor<1x1x1x48xf32> into tensor<1x48xf32>
func.func @single_head_decode(%q: tensor<1x32xf32>, %k: tensor<96x32xf32>, %v: tensor<96x48xf32>) -> tensor<1x48xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.176776695 : f32
  %e0 = tensor.empty() : tensor<32x96xf32>
  %kt = linalg.transpose ins(%k : tensor<96x32xf32>) outs(%e0 : tensor<32x96xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<1x96xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x96xf32>) -> tensor<1x96xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<1x32xf32>, tensor<32x96xf32>) outs(%f1 : tensor<1x96xf32>) -> tensor<1x96xf32>
  %ss = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<1x96xf32>) outs(%e1 : tensor<1x96xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %scale : f32
    linalg.yield %r : f32
  } -> tensor<1x96xf32>
  %e2 = tensor.empty() : tensor<1xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1xf32>) -> tensor<1xf32>
  %m = linalg.reduce ins(%ss : tensor<1x96xf32>) outs(%f2 : tensor<1xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %r = arith.maximumf %in, %init : f32
      linalg.yield %r : f32
    }
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ss, %m : tensor<1x96xf32>, tensor<1xf32>) outs(%e1 : tensor<1x96xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x96xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1xf32>) -> tensor<1xf32>
  %l = linalg.reduce ins(%ex : tensor<1x96xf32>) outs(%f3 : tensor<1xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %r = arith.addf %in, %init : f32
      linalg.yield %r : f32
    }
  %rl = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%l : tensor<1xf32>) outs(%e2 : tensor<1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %in : f32
    linalg.yield %r : f32
  } -> tensor<1xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %rl : tensor<1x96xf32>, tensor<1xf32>) outs(%e1 : tensor<1x96xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %x = arith.mulf %in, %r : f32
    linalg.yield %x : f32
  } -> tensor<1x96xf32>
  %e3 = tensor.empty() : tensor<1x48xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x48xf32>) -> tensor<1x48xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 1 query heads / 1 kv heads, scale 1.767767e-01)}}
  %o = linalg.matmul ins(%p, %v : tensor<1x96xf32>, tensor<96x48xf32>) outs(%f4 : tensor<1x48xf32>) -> tensor<1x48xf32>
  return %o : tensor<1x48xf32>
}

// -----

// Einsum-like generics with linalg.softmax.
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#pad = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
// CHECK-LABEL: func.func @einsum_decode
// CHECK: %[[O:.+]] = fa.attention %arg0, %arg1, %arg2 : tensor<1x8x1x64xf32>, tensor<1x8x100x64xf32>, tensor<1x8x100x64xf32> {scale = 1.000000e+00 : f32} -> tensor<1x8x1x64xf32>
// CHECK: return %[[O]]
func.func @einsum_decode(%q: tensor<1x8x1x64xf32>, %k: tensor<1x8x100x64xf32>, %v: tensor<1x8x100x64xf32>) -> tensor<1x8x1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x8x1x100xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x8x1x100xf32>) -> tensor<1x8x1x100xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x8x1x64xf32>, tensor<1x8x100x64xf32>) outs(%f0 : tensor<1x8x1x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1x100xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<1x8x1x100xf32>) outs(%e0 : tensor<1x8x1x100xf32>) -> tensor<1x8x1x100xf32>
  %e1 = tensor.empty() : tensor<1x8x1x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x1x64xf32>) -> tensor<1x8x1x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 8 kv heads, scale 1.000000e+00)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x8x1x100xf32>, tensor<1x8x100x64xf32>) outs(%f1 : tensor<1x8x1x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1x64xf32>
  return %o : tensor<1x8x1x64xf32>
}

// -----

// A padding mask [B, 1, 1, Sk] added to the decode scores: added in
// score_mod reading the captured mask at (batch, key), as at any seq_q.
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#pad = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
// CHECK-LABEL: func.func @padded_decode
// CHECK: fa.attention %arg0, %arg1, %arg2 : tensor<2x8x1x64xf32>, tensor<2x8x100x64xf32>, tensor<2x8x100x64xf32> captures(%arg3 : tensor<2x1x1x100xf32>) {scale = 1.000000e+00 : f32} -> tensor<2x8x1x64xf32> score_mod {
// CHECK-NEXT: ^bb0(%[[S:[^:]+]]: f32, %[[B:[^:]+]]: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %[[J:[^:]+]]: index, %[[M:[^:]+]]: tensor<2x1x1x100xf32>):
// CHECK: %[[X:.+]] = tensor.extract %[[M]][%[[B]], %{{.+}}, %{{.+}}, %[[J]]] : tensor<2x1x1x100xf32>
// CHECK: arith.addf %[[S]], %[[X]] : f32
func.func @padded_decode(%q: tensor<2x8x1x64xf32>, %k: tensor<2x8x100x64xf32>, %v: tensor<2x8x100x64xf32>, %mask: tensor<2x1x1x100xf32>) -> tensor<2x8x1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x8x1x100xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x8x1x100xf32>) -> tensor<2x8x1x100xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x8x1x64xf32>, tensor<2x8x100x64xf32>) outs(%f0 : tensor<2x8x1x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x8x1x100xf32>
  %sm = linalg.generic {indexing_maps = [#id4, #pad, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %mask : tensor<2x8x1x100xf32>, tensor<2x1x1x100xf32>) outs(%e0 : tensor<2x8x1x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x1x100xf32>
  %p = linalg.softmax dimension(3) ins(%sm : tensor<2x8x1x100xf32>) outs(%e0 : tensor<2x8x1x100xf32>) -> tensor<2x8x1x100xf32>
  %e1 = tensor.empty() : tensor<2x8x1x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8x1x64xf32>) -> tensor<2x8x1x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 8 kv heads, scale 1.000000e+00, score_mod)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x8x1x100xf32>, tensor<2x8x100x64xf32>) outs(%f1 : tensor<2x8x1x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x8x1x64xf32>
  return %o : tensor<2x8x1x64xf32>
}

// -----

// GQA written with the group as its own dimension ("bhgid,bhjd->bhgij"),
// one query token: i is a unit dimension, so the group's atom is the only
// query-side atom and becomes the row; the 4 query heads of a kv head are
// then 4 rows over the same keys (what pack-GQA does by hand). This form
// raised so before decode support too; without a mask it is exact.
#qg = affine_map<(b, h, g, i, j, d) -> (b, h, g, i, d)>
#kg = affine_map<(b, h, g, i, j, d) -> (b, h, j, d)>
#sg = affine_map<(b, h, g, i, j, d) -> (b, h, g, i, j)>
#pg = affine_map<(b, h, g, i, e, j) -> (b, h, g, i, j)>
#vg = affine_map<(b, h, g, i, e, j) -> (b, h, j, e)>
#og = affine_map<(b, h, g, i, e, j) -> (b, h, g, i, e)>
// CHECK-LABEL: func.func @gqa_einsum_decode
// CHECK: %[[Q:.+]] = tensor.collapse_shape %arg0 {{\[}}[0], [1], [2], [3, 4]] : tensor<2x2x4x1x32xf32> into tensor<2x2x4x32xf32>
// CHECK: fa.attention %[[Q]], %arg1, %arg2 : tensor<2x2x4x32xf32>, tensor<2x2x100x32xf32>, tensor<2x2x100x32xf32> {scale = 1.000000e+00 : f32} -> tensor<2x2x4x32xf32>
func.func @gqa_einsum_decode(%q: tensor<2x2x4x1x32xf32>, %k: tensor<2x2x100x32xf32>, %v: tensor<2x2x100x32xf32>) -> tensor<2x2x4x1x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x2x4x1x100xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x2x4x1x100xf32>) -> tensor<2x2x4x1x100xf32>
  %s = linalg.generic {indexing_maps = [#qg, #kg, #sg], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x4x1x32xf32>, tensor<2x2x100x32xf32>) outs(%f0 : tensor<2x2x4x1x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x1x100xf32>
  %p = linalg.softmax dimension(4) ins(%s : tensor<2x2x4x1x100xf32>) outs(%e0 : tensor<2x2x4x1x100xf32>) -> tensor<2x2x4x1x100xf32>
  %e1 = tensor.empty() : tensor<2x2x4x1x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x2x4x1x32xf32>) -> tensor<2x2x4x1x32xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.000000e+00)}}
  %o = linalg.generic {indexing_maps = [#pg, #vg, #og], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x4x1x100xf32>, tensor<2x2x100x32xf32>) outs(%f1 : tensor<2x2x4x1x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x1x32xf32>
  return %o : tensor<2x2x4x1x32xf32>
}

// -----

// GQA decode with a bias that differs per query of the group: the group is
// raised as the rows, so the bias follows them ([b, 1, g, keys]).
// CHECK-LABEL: func.func @gqa_bias_g
// CHECK: fa.attention {{.+}} bias({{.+}} : tensor<2x1x4x100xf32>)
#qh = affine_map<(b, h, g, i, j, d) -> (b, h, g, i, d)>
#kh = affine_map<(b, h, g, i, j, d) -> (b, h, j, d)>
#sh = affine_map<(b, h, g, i, j, d) -> (b, h, g, i, j)>
#ph = affine_map<(b, h, g, i, e, j) -> (b, h, g, i, j)>
#vh = affine_map<(b, h, g, i, e, j) -> (b, h, j, e)>
#oh = affine_map<(b, h, g, i, e, j) -> (b, h, g, i, e)>
func.func @gqa_bias_g(%bias: tensor<2x4x100xf32>, %q: tensor<2x2x4x1x32xf32>, %k: tensor<2x2x100x32xf32>, %v: tensor<2x2x100x32xf32>) -> tensor<2x2x4x1x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x2x4x1x100xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x2x4x1x100xf32>) -> tensor<2x2x4x1x100xf32>
  %s = linalg.generic {indexing_maps = [#qh, #kh, #sh], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x4x1x32xf32>, tensor<2x2x100x32xf32>) outs(%f0 : tensor<2x2x4x1x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x1x100xf32>
  %sb = linalg.generic {indexing_maps = [affine_map<(b, h, g, i, j) -> (b, h, g, i, j)>, affine_map<(b, h, g, i, j) -> (b, g, j)>, affine_map<(b, h, g, i, j) -> (b, h, g, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%s, %bias : tensor<2x2x4x1x100xf32>, tensor<2x4x100xf32>) outs(%e0 : tensor<2x2x4x1x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x1x100xf32>
  %p = linalg.softmax dimension(4) ins(%sb : tensor<2x2x4x1x100xf32>) outs(%e0 : tensor<2x2x4x1x100xf32>) -> tensor<2x2x4x1x100xf32>
  %e1 = tensor.empty() : tensor<2x2x4x1x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x2x4x1x32xf32>) -> tensor<2x2x4x1x32xf32>
    // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.000000e+00, bias)}}
  %o = linalg.generic {indexing_maps = [#ph, #vh, #oh], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x4x1x100xf32>, tensor<2x2x100x32xf32>) outs(%f1 : tensor<2x2x4x1x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x1x32xf32>
  return %o : tensor<2x2x4x1x32xf32>
}

// -----

// GQA decode with a top-left causal mask on the unit row: over the group's
// rows it is not fa's causal mask (row g would see keys <= g), so it must be
// declined, not raised as causal.
// Now raised with mask_mod: the unit row's index is 0 for every row of the
// group, so each sees key 0 only, which the region states exactly.
// CHECK-LABEL: func.func @gqa_causal_decode_declined
// CHECK: fa.attention {{.+}} {scale = 1.000000e+00 : f32} -> tensor<2x2x4x32xf32> mask_mod {
// CHECK-NEXT: ^bb0(%{{.+}}: index, %{{.+}}: index, %{{.+}}: index, %[[J:.+]]: index):
// CHECK: arith.cmpi ugt, %[[J]]
#qm = affine_map<(b, h, g, i, j, d) -> (b, h, g, i, d)>
#km = affine_map<(b, h, g, i, j, d) -> (b, h, j, d)>
#sm = affine_map<(b, h, g, i, j, d) -> (b, h, g, i, j)>
#pm = affine_map<(b, h, g, i, e, j) -> (b, h, g, i, j)>
#vm = affine_map<(b, h, g, i, e, j) -> (b, h, j, e)>
#om = affine_map<(b, h, g, i, e, j) -> (b, h, g, i, e)>
func.func @gqa_causal_decode_declined(%q: tensor<2x2x4x1x32xf32>, %k: tensor<2x2x100x32xf32>, %v: tensor<2x2x100x32xf32>) -> tensor<2x2x4x1x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x2x4x1x100xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x2x4x1x100xf32>) -> tensor<2x2x4x1x100xf32>
  %s = linalg.generic {indexing_maps = [#qm, #km, #sm], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x4x1x32xf32>, tensor<2x2x100x32xf32>) outs(%f0 : tensor<2x2x4x1x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x1x100xf32>
  %sb = linalg.generic {indexing_maps = [affine_map<(b, h, g, i, j) -> (b, h, g, i, j)>, affine_map<(b, h, g, i, j) -> (b, h, g, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<2x2x4x1x100xf32>) outs(%e0 : tensor<2x2x4x1x100xf32>) {
  ^bb0(%a: f32, %c: f32):
    %i = linalg.index 3 : index
    %j = linalg.index 4 : index
    %c50 = arith.constant 0 : index
    %lim = arith.addi %i, %c50 : index
    %hide = arith.cmpi ugt, %j, %lim : index
    %ninf0 = arith.constant 0xFF800000 : f32
    %r = arith.select %hide, %ninf0, %a : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x1x100xf32>
  %p = linalg.softmax dimension(4) ins(%sb : tensor<2x2x4x1x100xf32>) outs(%e0 : tensor<2x2x4x1x100xf32>) -> tensor<2x2x4x1x100xf32>
  %e1 = tensor.empty() : tensor<2x2x4x1x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x2x4x1x32xf32>) -> tensor<2x2x4x1x32xf32>
    // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.000000e+00, mask_mod)}}
  %o = linalg.generic {indexing_maps = [#pm, #vm, #om], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x4x1x100xf32>, tensor<2x2x100x32xf32>) outs(%f1 : tensor<2x2x4x1x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x1x32xf32>
  return %o : tensor<2x2x4x1x32xf32>
}
