// RUN: fa-opt %s --fa-lower-tm-tensor -split-input-file -verify-diagnostics | FileCheck %s

// tm_tensor.scan becomes an scf.for along the scanned dimension whose body
// applies the combiner to one slice with a linalg.generic; the accumulator
// result is the last slice (the init where the dimension has size 1).

// CHECK-LABEL: func.func @cumsum_inclusive
// CHECK-SAME: (%[[X:.+]]: tensor<3x10xi64>, %[[O:.+]]: tensor<3x10xi64>, %[[A:.+]]: tensor<3xi64>)
// CHECK: %[[OUT:.+]] = scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[C:.+]] = %[[O]]) -> (tensor<3x10xi64>)
// CHECK: %[[STEP:.+]] = scf.if
// CHECK: tensor.extract_slice %[[X]][0, %[[I]]] [3, 1] [1, 1] : tensor<3x10xi64> to tensor<3xi64>
// CHECK: } else {
// CHECK: %[[PREV:.+]] = tensor.extract_slice %[[C]]
// CHECK: %[[IN:.+]] = tensor.extract_slice %[[X]][0, %[[I]]]
// CHECK: linalg.generic {{.+}} ins(%[[PREV]], %[[IN]] : tensor<3xi64>, tensor<3xi64>)
// CHECK: arith.addi
// CHECK: tensor.insert_slice %[[STEP]] into %[[C]][0, %[[I]]] [3, 1] [1, 1] : tensor<3xi64> into tensor<3x10xi64>
// CHECK: %[[ACC:.+]] = scf.if
// CHECK: tensor.extract_slice %[[OUT]]
// CHECK: scf.yield %[[A]]
// CHECK: return %[[OUT]], %[[ACC]]
// CHECK-NOT: tm_tensor
func.func @cumsum_inclusive(%x: tensor<3x10xi64>, %o: tensor<3x10xi64>, %a: tensor<3xi64>) -> (tensor<3x10xi64>, tensor<3xi64>) {
  %0:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<3x10xi64>) outs(%o, %a : tensor<3x10xi64>, tensor<3xi64>) {
  ^bb0(%arg0: i64, %arg1: i64):
    %1 = arith.addi %arg0, %arg1 : i64
    tm_tensor.yield %1 : i64
  } -> tensor<3x10xi64>, tensor<3xi64>
  return %0#0, %0#1 : tensor<3x10xi64>, tensor<3xi64>
}

// -----

// Exclusive: the first slice is the accumulator's init, step i combines
// out[i-1] with in[i-1].
// CHECK-LABEL: func.func @exclusive
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>, %[[O:.+]]: tensor<4x3xf32>, %[[A:.+]]: tensor<3xf32>)
// CHECK: scf.for %[[I:.+]] = {{.+}} iter_args(%[[C:.+]] = %[[O]])
// CHECK: scf.if
// CHECK-NEXT: scf.yield %[[A]] : tensor<3xf32>
// CHECK: %[[P:.+]] = arith.subi %[[I]]
// CHECK: tensor.extract_slice %[[C]][%[[P]], 0] [1, 3] [1, 1]
// CHECK: tensor.extract_slice %[[X]][%[[P]], 0] [1, 3] [1, 1]
// CHECK: arith.mulf
func.func @exclusive(%x: tensor<4x3xf32>, %o: tensor<4x3xf32>, %a: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  %0:2 = tm_tensor.scan dimension(0) inclusive(false) ins(%x : tensor<4x3xf32>) outs(%o, %a : tensor<4x3xf32>, tensor<3xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %1 = arith.mulf %arg0, %arg1 : f32
    tm_tensor.yield %1 : f32
  } -> tensor<4x3xf32>, tensor<3xf32>
  return %0#0, %0#1 : tensor<4x3xf32>, tensor<3xf32>
}

// -----

// tm_tensor.attention over [B*H, S, D] (what torch-mlir makes of a whole
// sdpa): the collapse of [B, H, S, D] is walked back, so fa.attention gets
// the batch and the heads; the scale attribute is the op's scale.
// CHECK-LABEL: func.func @attention_heads
// CHECK-SAME: (%[[Q:.+]]: tensor<2x3x10x8xf32>, %[[K:.+]]: tensor<2x3x12x8xf32>, %[[V:.+]]: tensor<2x3x12x16xf32>)
// CHECK: %[[O:.+]] = fa.attention %[[Q]], %[[K]], %[[V]] : tensor<2x3x10x8xf32>, tensor<2x3x12x8xf32>, tensor<2x3x12x16xf32> {scale = 2.500000e-01 : f32} -> tensor<2x3x10x16xf32>
// CHECK: %[[C:.+]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]]
// CHECK: return %[[C]]
func.func @attention_heads(%q: tensor<2x3x10x8xf32>, %k: tensor<2x3x12x8xf32>, %v: tensor<2x3x12x16xf32>) -> tensor<6x10x16xf32> {
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x3x10x8xf32> into tensor<6x10x8xf32>
  %kc = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<2x3x12x8xf32> into tensor<6x12x8xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x3x12x16xf32> into tensor<6x12x16xf32>
  %0 = tensor.empty() : tensor<6x10x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 3 query heads / 3 kv heads, scale 2.500000e-01)}}
  %1 = tm_tensor.attention {scale = 0.25 : f64} ins(%qc, %kc, %vc : tensor<6x10x8xf32>, tensor<6x12x8xf32>, tensor<6x12x16xf32>) outs(%0 : tensor<6x10x16xf32>) -> tensor<6x10x16xf32>
  return %1 : tensor<6x10x16xf32>
}

// -----

// No scale attribute: 1/sqrt(head dim). A rank-3 op without a view on its
// operands is one batch of B*H heads.
// CHECK-LABEL: func.func @attention_default_scale
// CHECK: fa.attention {{.+}} : tensor<1x4x10x16xf32>, tensor<1x4x10x16xf32>, tensor<1x4x10x16xf32> {scale = 2.500000e-01 : f32} -> tensor<1x4x10x16xf32>
func.func @attention_default_scale(%q: tensor<4x10x16xf32>, %k: tensor<4x10x16xf32>, %v: tensor<4x10x16xf32>) -> tensor<4x10x16xf32> {
  %0 = tensor.empty() : tensor<4x10x16xf32>
  // expected-remark @+1 {{raised to fa.attention}}
  %1 = tm_tensor.attention ins(%q, %k, %v : tensor<4x10x16xf32>, tensor<4x10x16xf32>, tensor<4x10x16xf32>) outs(%0 : tensor<4x10x16xf32>) -> tensor<4x10x16xf32>
  return %1 : tensor<4x10x16xf32>
}

// -----

// GQA as torch-mlir's sdpa(enable_gqa) or transformers' repeat_kv leave it:
// K and V [B, Hkv, S, D] broadcast to [B, Hkv, G, S, D] and collapsed to
// the query heads. fa.attention reads them unrepeated (heads_kv = 2).
#bcast = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @attention_gqa
// CHECK-SAME: (%[[Q:.+]]: tensor<1x4x10x8xf32>, %[[K:.+]]: tensor<1x2x10x8xf32>, %[[V:.+]]: tensor<1x2x10x8xf32>)
// CHECK: fa.attention %[[Q]], %[[K]], %[[V]] : tensor<1x4x10x8xf32>, tensor<1x2x10x8xf32>, tensor<1x2x10x8xf32>
func.func @attention_gqa(%q: tensor<1x4x10x8xf32>, %k: tensor<1x2x10x8xf32>, %v: tensor<1x2x10x8xf32>) -> tensor<4x10x8xf32> {
  %e = tensor.empty() : tensor<1x2x2x10x8xf32>
  %kb = linalg.generic {indexing_maps = [#bcast, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<1x2x10x8xf32>) outs(%e : tensor<1x2x2x10x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x2x10x8xf32>
  %vb = linalg.generic {indexing_maps = [#bcast, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<1x2x10x8xf32>) outs(%e : tensor<1x2x2x10x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x2x10x8xf32>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x4x10x8xf32> into tensor<4x10x8xf32>
  %kc = tensor.collapse_shape %kb [[0, 1, 2], [3], [4]] : tensor<1x2x2x10x8xf32> into tensor<4x10x8xf32>
  %vc = tensor.collapse_shape %vb [[0, 1, 2], [3], [4]] : tensor<1x2x2x10x8xf32> into tensor<4x10x8xf32>
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 2 kv heads}}
  %1 = tm_tensor.attention {scale = 0.35355339059327379 : f64} ins(%qc, %kc, %vc : tensor<4x10x8xf32>, tensor<4x10x8xf32>, tensor<4x10x8xf32>) outs(%0 : tensor<4x10x8xf32>) -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}

// -----

// A boolean mask computed from indices (what torch-mlir makes of
// sdpa(is_causal=True)... as a 0 / -inf float mask, and of tril as i1):
// evaluated on the grid, it is causal, and no mask operand remains.
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @attention_causal_mask
// CHECK: fa.attention {{.+}} {causal, scale = {{.+}}} -> tensor<1x4x10x8xf32>
// CHECK-NOT: bias(
func.func @attention_causal_mask(%q: tensor<4x10x8xf32>, %k: tensor<4x10x8xf32>, %v: tensor<4x10x8xf32>) -> tensor<4x10x8xf32> {
  %e = tensor.empty() : tensor<4x10x10xi1>
  %m = linalg.generic {indexing_maps = [#m3], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<4x10x10xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c = arith.cmpi sle, %j, %i : index
    linalg.yield %c : i1
  } -> tensor<4x10x10xi1>
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 3.535534e-01, causal)}}
  %1 = tm_tensor.attention {scale = 0.35355339059327379 : f64} ins(%q, %k, %v, %m : tensor<4x10x8xf32>, tensor<4x10x8xf32>, tensor<4x10x8xf32>, tensor<4x10x10xi1>) outs(%0 : tensor<4x10x8xf32>) -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}

// -----

// A float mask that is data (an argument) is added to the scores: it
// becomes the bias operand.
// CHECK-LABEL: func.func @attention_float_mask
// CHECK-SAME: %[[M:[^:]+]]: tensor<4x10x12xf32>
// CHECK: %[[B:.+]] = tensor.expand_shape %[[M]]
// CHECK: fa.attention {{.+}} bias(%[[B]] : tensor<1x4x10x12xf32>) {scale = 1.250000e-01 : f32}
func.func @attention_float_mask(%q: tensor<4x10x8xf32>, %k: tensor<4x12x8xf32>, %v: tensor<4x12x8xf32>, %m: tensor<4x10x12xf32>) -> tensor<4x10x8xf32> {
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.250000e-01, bias)}}
  %1 = tm_tensor.attention {scale = 0.125 : f64} ins(%q, %k, %v, %m : tensor<4x10x8xf32>, tensor<4x12x8xf32>, tensor<4x12x8xf32>, tensor<4x10x12xf32>) outs(%0 : tensor<4x10x8xf32>) -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}

// -----

// Dynamic shapes: tm_tensor.attention stays, and fa-lower-tm-tensor says so.
func.func @attention_dynamic(%q: tensor<?x10x8xf32>, %k: tensor<?x10x8xf32>, %v: tensor<?x10x8xf32>, %o: tensor<?x10x8xf32>) -> tensor<?x10x8xf32> {
  // expected-remark @+2 {{attention not raised: dynamic shapes are not supported for tm_tensor.attention}}
  // expected-error @+1 {{'tm_tensor.attention' could not be lowered by fa-lower-tm-tensor}}
  %1 = tm_tensor.attention ins(%q, %k, %v : tensor<?x10x8xf32>, tensor<?x10x8xf32>, tensor<?x10x8xf32>) outs(%o : tensor<?x10x8xf32>) -> tensor<?x10x8xf32>
  return %1 : tensor<?x10x8xf32>
}

// -----

// A mask the analysis does not model (here a sine of the positions) stays
// an operand: the [B, 1, Sq, Sk] tensor the program broadcast to the heads.
#m4 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @attention_unmodelled_mask
// CHECK: fa.attention {{.+}} bias(%{{.+}} : tensor<2x1x10x10xf32>) {scale
func.func @attention_unmodelled_mask(%q: tensor<2x3x10x8xf32>, %k: tensor<2x3x10x8xf32>, %v: tensor<2x3x10x8xf32>, %m: tensor<2x1x10x10xf32>) -> tensor<6x10x8xf32> {
  %s = tensor.empty() : tensor<2x1x10x10xf32>
  %sin = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m : tensor<2x1x10x10xf32>) outs(%s : tensor<2x1x10x10xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.sin %in : f32
    linalg.yield %r : f32
  } -> tensor<2x1x10x10xf32>
  %e = tensor.empty() : tensor<2x3x10x10xf32>
  %b = linalg.generic {indexing_maps = [#m4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sin : tensor<2x1x10x10xf32>) outs(%e : tensor<2x3x10x10xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x10x10xf32>
  %bc = tensor.collapse_shape %b [[0, 1], [2], [3]] : tensor<2x3x10x10xf32> into tensor<6x10x10xf32>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x3x10x8xf32> into tensor<6x10x8xf32>
  %kc = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<2x3x10x8xf32> into tensor<6x10x8xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x3x10x8xf32> into tensor<6x10x8xf32>
  %0 = tensor.empty() : tensor<6x10x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 3 query heads / 3 kv heads, scale 3.535534e-01, bias)}}
  %1 = tm_tensor.attention ins(%qc, %kc, %vc, %bc : tensor<6x10x8xf32>, tensor<6x10x8xf32>, tensor<6x10x8xf32>, tensor<6x10x10xf32>) outs(%0 : tensor<6x10x8xf32>) -> tensor<6x10x8xf32>
  return %1 : tensor<6x10x8xf32>
}
