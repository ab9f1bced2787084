// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Attention as torch-mlir prints it for Hugging Face models (the forms of
// test/Frontends/corpus, cut down): PyTorch's _safe_softmax with the scores
// extended to f64 (linalg and TOSA), the softmax scale split over Q and K
// after the projections' bias adds, and repeat_kv as tosa.tile. Numerics:
// test/Execution/raise-frontends.py.

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
// _safe_softmax as torch-mlir lowers it: extf to f64, cmpf oeq -inf,
// and-reduce over the keys (keepdim), select(all, 0, P).
// CHECK-LABEL: func.func @safe_softmax_f64
// CHECK: fa.attention {{.+}} {scale = 1.250000e-01 : f32}
// CHECK-NOT: arith.andi
func.func @safe_softmax_f64(%q: tensor<2x4x6x16xf32>, %k: tensor<2x4x6x16xf32>, %v: tensor<2x4x6x16xf32>) -> tensor<2x4x6x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %ninf64 = arith.constant 0xFFF0000000000000 : f64
  %true = arith.constant true
  %scale = arith.constant 0.125 : f32
  %et = tensor.empty() : tensor<2x4x16x6xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x6x16xf32>) outs(%et : tensor<2x4x16x6xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x6x16xf32> into tensor<8x6x16xf32>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x16x6xf32> into tensor<8x16x6xf32>
  %es = tensor.empty() : tensor<8x6x6xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<8x6x16xf32>, tensor<8x16x6xf32>) outs(%fs : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 4, 6, 6] : tensor<8x6x6xf32> into tensor<2x4x6x6xf32>
  %e = tensor.empty() : tensor<2x4x6x6xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se : tensor<2x4x6x6xf32>) outs(%e : tensor<2x4x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %scale : f32
    linalg.yield %r : f32
  } -> tensor<2x4x6x6xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<2x4x6x6xf32>) outs(%e : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %ei = tensor.empty() : tensor<2x4x6x6xi1>
  %isinf = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x4x6x6xf32>) outs(%ei : tensor<2x4x6x6xi1>) {
  ^bb0(%in: f32, %out: i1):
    %w = arith.extf %in : f32 to f64
    %r = arith.cmpf oeq, %w, %ninf64 : f64
    linalg.yield %r : i1
  } -> tensor<2x4x6x6xi1>
  %ea = tensor.empty() : tensor<2x4x6x1xi1>
  %fa = linalg.fill ins(%true : i1) outs(%ea : tensor<2x4x6x1xi1>) -> tensor<2x4x6x1xi1>
  %all = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%isinf : tensor<2x4x6x6xi1>) outs(%fa : tensor<2x4x6x1xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %r = arith.andi %in, %acc : i1
    linalg.yield %r : i1
  } -> tensor<2x4x6x1xi1>
  %zeros = arith.constant dense<0.0> : tensor<2x4x6x6xf32>
  %ps = linalg.generic {indexing_maps = [#row4, #id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%all, %zeros, %p : tensor<2x4x6x1xi1>, tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) outs(%e : tensor<2x4x6x6xf32>) {
  ^bb0(%c: i1, %z: f32, %in: f32, %out: f32):
    %r = arith.select %c, %z, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x4x6x6xf32>
  %pc = tensor.collapse_shape %ps [[0, 1], [2], [3]] : tensor<2x4x6x6xf32> into tensor<8x6x6xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x6x16xf32> into tensor<8x6x16xf32>
  %eo = tensor.empty() : tensor<8x6x16xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x6x16xf32>) -> tensor<8x6x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.250000e-01)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<8x6x6xf32>, tensor<8x6x16xf32>) outs(%fo : tensor<8x6x16xf32>) -> tensor<8x6x16xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 4, 6, 16] : tensor<8x6x16xf32> into tensor<2x4x6x16xf32>
  return %oe : tensor<2x4x6x16xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
// A narrowing is not exact (large finite scores round to -inf in bf16): a
// compare of the truncated scores is not _safe_softmax's condition.
// CHECK-LABEL: func.func @safe_softmax_truncated_compare
// CHECK-NOT: fa.attention
func.func @safe_softmax_truncated_compare(%q: tensor<2x4x6x16xf32>, %k: tensor<2x4x6x16xf32>, %v: tensor<2x4x6x16xf32>) -> tensor<2x4x6x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf16 = arith.constant 0xFF80 : bf16
  %true = arith.constant true
  %et = tensor.empty() : tensor<2x4x16x6xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x6x16xf32>) outs(%et : tensor<2x4x16x6xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x6x16xf32> into tensor<8x6x16xf32>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x16x6xf32> into tensor<8x16x6xf32>
  %es = tensor.empty() : tensor<8x6x6xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<8x6x16xf32>, tensor<8x16x6xf32>) outs(%fs : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %x = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 4, 6, 6] : tensor<8x6x6xf32> into tensor<2x4x6x6xf32>
  %e = tensor.empty() : tensor<2x4x6x6xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<2x4x6x6xf32>) outs(%e : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %ei = tensor.empty() : tensor<2x4x6x6xi1>
  %isinf = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x4x6x6xf32>) outs(%ei : tensor<2x4x6x6xi1>) {
  ^bb0(%in: f32, %out: i1):
    %w = arith.truncf %in : f32 to bf16
    %r = arith.cmpf oeq, %w, %ninf16 : bf16
    linalg.yield %r : i1
  } -> tensor<2x4x6x6xi1>
  %ea = tensor.empty() : tensor<2x4x6x1xi1>
  %fa = linalg.fill ins(%true : i1) outs(%ea : tensor<2x4x6x1xi1>) -> tensor<2x4x6x1xi1>
  %all = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%isinf : tensor<2x4x6x6xi1>) outs(%fa : tensor<2x4x6x1xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %r = arith.andi %in, %acc : i1
    linalg.yield %r : i1
  } -> tensor<2x4x6x1xi1>
  %zeros = arith.constant dense<0.0> : tensor<2x4x6x6xf32>
  %ps = linalg.generic {indexing_maps = [#row4, #id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%all, %zeros, %p : tensor<2x4x6x1xi1>, tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) outs(%e : tensor<2x4x6x6xf32>) {
  ^bb0(%c: i1, %z: f32, %in: f32, %out: f32):
    %r = arith.select %c, %z, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x4x6x6xf32>
  %pc = tensor.collapse_shape %ps [[0, 1], [2], [3]] : tensor<2x4x6x6xf32> into tensor<8x6x6xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x6x16xf32> into tensor<8x6x16xf32>
  %eo = tensor.empty() : tensor<8x6x16xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x6x16xf32>) -> tensor<8x6x16xf32>
  // expected-remark @+1 {{attention not raised: the softmax's rows are zeroed by a condition other than 'every score is -inf' (_safe_softmax)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<8x6x6xf32>, tensor<8x6x16xf32>) outs(%fo : tensor<8x6x16xf32>) -> tensor<8x6x16xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 4, 6, 16] : tensor<8x6x16xf32> into tensor<2x4x6x16xf32>
  return %oe : tensor<2x4x6x16xf32>
}

// -----

// The same in TOSA: tosa.cast to f64, tosa.equal with -inf, tosa.reduce_all,
// tosa.select.
// CHECK-LABEL: func.func @tosa_safe_softmax_f64
// CHECK: fa.attention {{.+}} {scale = 1.250000e-01 : f32}
// CHECK-NOT: tosa.reduce_all
func.func @tosa_safe_softmax_f64(%q: tensor<8x6x16xf32>, %k: tensor<8x6x16xf32>, %v: tensor<8x6x16xf32>) -> tensor<8x6x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ninf = "tosa.const"() <{values = dense<0xFFF0000000000000> : tensor<1x1x1xf64>}> : () -> tensor<1x1x1xf64>
  %zeros = "tosa.const"() <{values = dense<0.0> : tensor<8x6x6xf32>}> : () -> tensor<8x6x6xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<8x6x16xf32>) -> tensor<8x16x6xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<8x6x16xf32>, tensor<8x16x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x6x6xf32>
  %x = tosa.mul %s, %c, %shift : (tensor<8x6x6xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<8x6x6xf32>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<8x6x6xf32>) -> tensor<8x6x1xf32>
  %d = tosa.sub %x, %m : (tensor<8x6x6xf32>, tensor<8x6x1xf32>) -> tensor<8x6x6xf32>
  %ex = tosa.exp %d : (tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %l = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<8x6x6xf32>) -> tensor<8x6x1xf32>
  %r = tosa.reciprocal %l : (tensor<8x6x1xf32>) -> tensor<8x6x1xf32>
  %p = tosa.mul %ex, %r, %shift : (tensor<8x6x6xf32>, tensor<8x6x1xf32>, tensor<1xi8>) -> tensor<8x6x6xf32>
  %w = tosa.cast %x : (tensor<8x6x6xf32>) -> tensor<8x6x6xf64>
  %eq = tosa.equal %w, %ninf : (tensor<8x6x6xf64>, tensor<1x1x1xf64>) -> tensor<8x6x6xi1>
  %all = tosa.reduce_all %eq {axis = 2 : i32} : (tensor<8x6x6xi1>) -> tensor<8x6x1xi1>
  %ps = tosa.select %all, %zeros, %p : (tensor<8x6x1xi1>, tensor<8x6x6xf32>, tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 8 kv heads, scale 1.250000e-01)}}
  %o = tosa.matmul %ps, %v, %zp, %zp : (tensor<8x6x6xf32>, tensor<8x6x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x6x16xf32>
  return %o : tensor<8x6x16xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
// The scale split over Q and K unevenly (0.5 and 0.25), each applied after
// the projection's bias add: both fold into the op's scale (0.125), and Q
// and K are the scaled tensors' inputs (the projections with their bias).
// CHECK-LABEL: func.func @scale_split_after_bias
// CHECK-SAME: (%[[Q:[^:]+]]: tensor<2x4x6x16xf32>, %[[K:[^:]+]]: tensor<2x4x6x16xf32>
// CHECK: %[[QB:.+]] = linalg.generic {{.+}} ins(%[[Q]], %{{.+}} : tensor<2x4x6x16xf32>, tensor<16xf32>)
// CHECK: %[[KB:.+]] = linalg.generic {{.+}} ins(%[[K]], %{{.+}} : tensor<2x4x6x16xf32>, tensor<16xf32>)
// CHECK: fa.attention %[[QB]], %[[KB]], %{{.+}} {scale = 1.250000e-01 : f32}
func.func @scale_split_after_bias(%q: tensor<2x4x6x16xf32>, %k: tensor<2x4x6x16xf32>, %v: tensor<2x4x6x16xf32>, %b: tensor<16xf32>) -> tensor<2x4x6x16xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f64
  %quarter = arith.constant 0.25 : f32
  %e = tensor.empty() : tensor<2x4x6x16xf32>
  %qb = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q, %b : tensor<2x4x6x16xf32>, tensor<16xf32>) outs(%e : tensor<2x4x6x16xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %r = arith.addf %in, %bb : f32
    linalg.yield %r : f32
  } -> tensor<2x4x6x16xf32>
  %kb = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k, %b : tensor<2x4x6x16xf32>, tensor<16xf32>) outs(%e : tensor<2x4x6x16xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %r = arith.addf %in, %bb : f32
    linalg.yield %r : f32
  } -> tensor<2x4x6x16xf32>
  %qs = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qb : tensor<2x4x6x16xf32>) outs(%e : tensor<2x4x6x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.truncf %half : f64 to f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x4x6x16xf32>
  %et = tensor.empty() : tensor<2x4x16x6xf32>
  %kt = linalg.transpose ins(%kb : tensor<2x4x6x16xf32>) outs(%et : tensor<2x4x16x6xf32>) permutation = [0, 1, 3, 2]
  %ks = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kt : tensor<2x4x16x6xf32>) outs(%et : tensor<2x4x16x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %quarter, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x6xf32>
  %qc = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<2x4x6x16xf32> into tensor<8x6x16xf32>
  %kc = tensor.collapse_shape %ks [[0, 1], [2], [3]] : tensor<2x4x16x6xf32> into tensor<8x16x6xf32>
  %es = tensor.empty() : tensor<8x6x6xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<8x6x16xf32>, tensor<8x16x6xf32>) outs(%fs : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<8x6x6xf32>) outs(%es : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x6x16xf32> into tensor<8x6x16xf32>
  %eo = tensor.empty() : tensor<8x6x16xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x6x16xf32>) -> tensor<8x6x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.250000e-01)}}
  %o = linalg.batch_matmul ins(%p, %vc : tensor<8x6x6xf32>, tensor<8x6x16xf32>) outs(%fo : tensor<8x6x16xf32>) -> tensor<8x6x16xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 4, 6, 16] : tensor<8x6x16xf32> into tensor<2x4x6x16xf32>
  return %oe : tensor<2x4x6x16xf32>
}

// -----

// transformers' repeat_kv in TOSA: reshape [B, Hkv, S, D] to
// [B, Hkv, 1, S, D], tosa.tile by [1, 1, G, 1, 1], reshape to the query
// heads. fa.attention reads K and V unrepeated: 2 kv heads.
// CHECK-LABEL: func.func @tosa_repeat_kv_tile
// CHECK-SAME: (%[[Q:[^:]+]]: tensor<2x4x6x16xf32>, %[[K:[^:]+]]: tensor<2x2x6x16xf32>, %[[V:[^:]+]]: tensor<2x2x6x16xf32>)
// CHECK: fa.attention %[[Q]], %[[K]], %[[V]] : tensor<2x4x6x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32> {scale = 2.500000e-01 : f32}
// CHECK-NOT: tosa.tile
func.func @tosa_repeat_kv_tile(%q: tensor<2x4x6x16xf32>, %k: tensor<2x2x6x16xf32>, %v: tensor<2x2x6x16xf32>) -> tensor<2x4x6x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<0.25> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s5 = tosa.const_shape {values = dense<[2, 2, 1, 6, 16]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %rep = tosa.const_shape {values = dense<[1, 1, 2, 1, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %s3 = tosa.const_shape {values = dense<[8, 6, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s4 = tosa.const_shape {values = dense<[2, 4, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %k5 = tosa.reshape %k, %s5 : (tensor<2x2x6x16xf32>, !tosa.shape<5>) -> tensor<2x2x1x6x16xf32>
  %kr = tosa.tile %k5, %rep : (tensor<2x2x1x6x16xf32>, !tosa.shape<5>) -> tensor<2x2x2x6x16xf32>
  %k3 = tosa.reshape %kr, %s3 : (tensor<2x2x2x6x16xf32>, !tosa.shape<3>) -> tensor<8x6x16xf32>
  %v5 = tosa.reshape %v, %s5 : (tensor<2x2x6x16xf32>, !tosa.shape<5>) -> tensor<2x2x1x6x16xf32>
  %vr = tosa.tile %v5, %rep : (tensor<2x2x1x6x16xf32>, !tosa.shape<5>) -> tensor<2x2x2x6x16xf32>
  %v3 = tosa.reshape %vr, %s3 : (tensor<2x2x2x6x16xf32>, !tosa.shape<3>) -> tensor<8x6x16xf32>
  %q3 = tosa.reshape %q, %s3 : (tensor<2x4x6x16xf32>, !tosa.shape<3>) -> tensor<8x6x16xf32>
  %kt = tosa.transpose %k3 {perms = array<i32: 0, 2, 1>} : (tensor<8x6x16xf32>) -> tensor<8x16x6xf32>
  %s = tosa.matmul %q3, %kt, %zp, %zp : (tensor<8x6x16xf32>, tensor<8x16x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x6x6xf32>
  %x = tosa.mul %s, %c, %shift : (tensor<8x6x6xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<8x6x6xf32>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<8x6x6xf32>) -> tensor<8x6x1xf32>
  %d = tosa.sub %x, %m : (tensor<8x6x6xf32>, tensor<8x6x1xf32>) -> tensor<8x6x6xf32>
  %ex = tosa.exp %d : (tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %l = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<8x6x6xf32>) -> tensor<8x6x1xf32>
  %r = tosa.reciprocal %l : (tensor<8x6x1xf32>) -> tensor<8x6x1xf32>
  %p = tosa.mul %ex, %r, %shift : (tensor<8x6x6xf32>, tensor<8x6x1xf32>, tensor<1xi8>) -> tensor<8x6x6xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 2 kv heads, scale 2.500000e-01)}}
  %o = tosa.matmul %p, %v3, %zp, %zp : (tensor<8x6x6xf32>, tensor<8x6x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x6x16xf32>
  %o4 = tosa.reshape %o, %s4 : (tensor<8x6x16xf32>, !tosa.shape<4>) -> tensor<2x4x6x16xf32>
  return %o4 : tensor<2x4x6x16xf32>
}

// -----

// K.repeat(1, G, 1, 1) as a tosa.tile of the head dimension (query head h
// reads kv head h mod Hkv): the heads are permuted so that each group is
// contiguous, and K and V are read unrepeated.
// CHECK-LABEL: func.func @tosa_tile_heads
// CHECK: fa.attention {{.+}} : tensor<2x4x6x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>
func.func @tosa_tile_heads(%q: tensor<2x4x6x16xf32>, %k: tensor<2x2x6x16xf32>, %v: tensor<2x2x6x16xf32>) -> tensor<2x4x6x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<0.25> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %rep = tosa.const_shape {values = dense<[1, 2, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s3 = tosa.const_shape {values = dense<[8, 6, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s4 = tosa.const_shape {values = dense<[2, 4, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %kr = tosa.tile %k, %rep : (tensor<2x2x6x16xf32>, !tosa.shape<4>) -> tensor<2x4x6x16xf32>
  %k3 = tosa.reshape %kr, %s3 : (tensor<2x4x6x16xf32>, !tosa.shape<3>) -> tensor<8x6x16xf32>
  %vr = tosa.tile %v, %rep : (tensor<2x2x6x16xf32>, !tosa.shape<4>) -> tensor<2x4x6x16xf32>
  %v3 = tosa.reshape %vr, %s3 : (tensor<2x4x6x16xf32>, !tosa.shape<3>) -> tensor<8x6x16xf32>
  %q3 = tosa.reshape %q, %s3 : (tensor<2x4x6x16xf32>, !tosa.shape<3>) -> tensor<8x6x16xf32>
  %kt = tosa.transpose %k3 {perms = array<i32: 0, 2, 1>} : (tensor<8x6x16xf32>) -> tensor<8x16x6xf32>
  %s = tosa.matmul %q3, %kt, %zp, %zp : (tensor<8x6x16xf32>, tensor<8x16x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x6x6xf32>
  %x = tosa.mul %s, %c, %shift : (tensor<8x6x6xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<8x6x6xf32>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<8x6x6xf32>) -> tensor<8x6x1xf32>
  %d = tosa.sub %x, %m : (tensor<8x6x6xf32>, tensor<8x6x1xf32>) -> tensor<8x6x6xf32>
  %ex = tosa.exp %d : (tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %l = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<8x6x6xf32>) -> tensor<8x6x1xf32>
  %r = tosa.reciprocal %l : (tensor<8x6x1xf32>) -> tensor<8x6x1xf32>
  %p = tosa.mul %ex, %r, %shift : (tensor<8x6x6xf32>, tensor<8x6x1xf32>, tensor<1xi8>) -> tensor<8x6x6xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 2 kv heads, scale 2.500000e-01)}}
  %o = tosa.matmul %p, %v3, %zp, %zp : (tensor<8x6x6xf32>, tensor<8x6x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x6x16xf32>
  %o4 = tosa.reshape %o, %s4 : (tensor<8x6x16xf32>, !tosa.shape<4>) -> tensor<2x4x6x16xf32>
  return %o4 : tensor<2x4x6x16xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#alibi = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>
// BLOOM's form: a data bias per head and key (ALiBi, here an argument) plus
// a constant causal mask. Both are kept: causal, and the bias read in
// score_mod from the [1, H, 1, Sk] argument, captured as it is (the causal
// classification must not drop the bias; nothing [.., Sq, Sk] is made).
// CHECK-LABEL: func.func @causal_and_head_bias
// CHECK-SAME: %[[B:[^:]+]]: tensor<1x4x1x6xf32>
// CHECK: fa.attention {{.+}} captures(%[[B]] : tensor<1x4x1x6xf32>) {causal, scale = 2.500000e-01 : f32} -> tensor<2x4x6x16xf32> score_mod {
// CHECK-NEXT: ^bb0(%{{.+}}: f32, %{{.+}}: index, %[[H:.+]]: index, %{{.+}}: index, %[[J:.+]]: index, %[[A:.+]]: tensor<1x4x1x6xf32>):
// CHECK: tensor.extract %[[A]][%{{.+}}, %[[H]], %{{.+}}, %[[J]]]
func.func @causal_and_head_bias(%q: tensor<2x4x6x16xf32>, %k: tensor<2x4x6x16xf32>, %v: tensor<2x4x6x16xf32>, %alibi: tensor<1x4x1x6xf32>) -> tensor<2x4x6x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.25 : f32
  %et = tensor.empty() : tensor<2x4x16x6xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x6x16xf32>) outs(%et : tensor<2x4x16x6xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x6x16xf32> into tensor<8x6x16xf32>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x16x6xf32> into tensor<8x16x6xf32>
  %es = tensor.empty() : tensor<8x6x6xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<8x6x16xf32>, tensor<8x16x6xf32>) outs(%fs : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 4, 6, 6] : tensor<8x6x6xf32> into tensor<2x4x6x6xf32>
  %e = tensor.empty() : tensor<2x4x6x6xf32>
  %x = linalg.generic {indexing_maps = [#id4, #alibi, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se, %alibi : tensor<2x4x6x6xf32>, tensor<1x4x1x6xf32>) outs(%e : tensor<2x4x6x6xf32>) {
  ^bb0(%in: f32, %a: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %m = arith.cmpi ugt, %j, %i : index
    %sc = arith.mulf %in, %scale : f32
    %b = arith.addf %sc, %a : f32
    %r = arith.select %m, %ninf, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x6x6xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<2x4x6x6xf32>) outs(%e : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x4x6x6xf32> into tensor<8x6x6xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x6x16xf32> into tensor<8x6x16xf32>
  %eo = tensor.empty() : tensor<8x6x16xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x6x16xf32>) -> tensor<8x6x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 2.500000e-01, causal, score_mod)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<8x6x6xf32>, tensor<8x6x16xf32>) outs(%fo : tensor<8x6x16xf32>) -> tensor<8x6x16xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 4, 6, 16] : tensor<8x6x16xf32> into tensor<2x4x6x16xf32>
  return %oe : tensor<2x4x6x16xf32>
}

// -----

// The same in TOSA, as torch-mlir prints BLOOM: the ALiBi bias [B*H, 1, Sk]
// added to the scaled scores, then a constant causal mask ([1, 1, S, S],
// finfo.min). Two additive terms: one becomes causal, the other is read in
// score_mod from the captured [B*H, 1, Sk] tensor.
// CHECK-LABEL: func.func @tosa_causal_and_alibi
// CHECK: fa.attention {{.+}} captures(%{{.+}} : tensor<8x1x6xf32>) {causal, scale = 2.500000e-01 : f32} -> {{.+}} score_mod {
func.func @tosa_causal_and_alibi(%q: tensor<8x6x16xf32>, %k: tensor<8x6x16xf32>, %v: tensor<8x6x16xf32>, %alibi: tensor<8x1x6xf32>) -> tensor<8x6x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<0.25> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %mask = "tosa.const"() <{values = dense<[[[[0.000000e+00, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38], [0.000000e+00, 0.000000e+00, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38], [0.000000e+00, 0.000000e+00, 0.000000e+00, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -3.40282347E+38, -3.40282347E+38], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -3.40282347E+38], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]> : tensor<1x1x6x6xf32>}> : () -> tensor<1x1x6x6xf32>
  %s4 = tosa.const_shape {values = dense<[2, 4, 6, 6]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s3 = tosa.const_shape {values = dense<[8, 6, 6]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<8x6x16xf32>) -> tensor<8x16x6xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<8x6x16xf32>, tensor<8x16x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x6x6xf32>
  %x0 = tosa.mul %s, %c, %shift : (tensor<8x6x6xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<8x6x6xf32>
  %x1 = tosa.add %alibi, %x0 : (tensor<8x1x6xf32>, tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %x2 = tosa.reshape %x1, %s4 : (tensor<8x6x6xf32>, !tosa.shape<4>) -> tensor<2x4x6x6xf32>
  %x = tosa.add %x2, %mask : (tensor<2x4x6x6xf32>, tensor<1x1x6x6xf32>) -> tensor<2x4x6x6xf32>
  %m = tosa.reduce_max %x {axis = 3 : i32} : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x1xf32>
  %d = tosa.sub %x, %m : (tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>) -> tensor<2x4x6x6xf32>
  %ex = tosa.exp %d : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %l = tosa.reduce_sum %ex {axis = 3 : i32} : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x1xf32>
  %r = tosa.reciprocal %l : (tensor<2x4x6x1xf32>) -> tensor<2x4x6x1xf32>
  %p4 = tosa.mul %ex, %r, %shift : (tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>, tensor<1xi8>) -> tensor<2x4x6x6xf32>
  %p = tosa.reshape %p4, %s3 : (tensor<2x4x6x6xf32>, !tosa.shape<3>) -> tensor<8x6x6xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 8 kv heads, scale 2.500000e-01, causal, score_mod)}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<8x6x6xf32>, tensor<8x6x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x6x16xf32>
  return %o : tensor<8x6x16xf32>
}
