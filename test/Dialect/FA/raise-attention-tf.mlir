// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// TensorFlow-style attention in linalg: what StableHLO / MHLO lowerings
// produce for BERT (TF) and Keras MultiHeadAttention, with [B, S, H, D]
// inputs (BERT-base: batch 2, seq 128, 12 heads, head_dim 64).

#bshd = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#swap3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// Transposes as permuting generics, batch and heads collapsed together, Q
// scaled by a splat constant tensor, the scores computed as K Qᵀ and
// transposed back, the [B, 1, N, N] mask broadcast and added, linalg.reduce
// for max and sum, broadcast_in_dim as linalg.broadcast, the division as a
// reciprocal then a multiply, the output transposed to [B, S, H, D] and
// reshaped to [B, S, H*D]. Q, K, V are already [B, S, H, D]: bshd.
// CHECK-LABEL: func.func @tf_bert_attention
// CHECK-SAME: (%[[Q:.+]]: tensor<2x128x12x64xf32>, %[[K:.+]]: tensor<2x128x12x64xf32>, %[[V:.+]]: tensor<2x128x12x64xf32>, %[[M:.+]]: tensor<2x1x128x128xf32>)
// CHECK: %[[O:.+]] = fa.attention %[[Q]], %[[K]], %[[V]] : {{.+}} bias(%[[M]] : tensor<2x1x128x128xf32>) {layout = #fa<layout bshd>, scale = 1.250000e-01 : f32} -> tensor<2x128x12x64xf32>
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[O]] {{\[}}[0], [1], [2, 3]]
// CHECK: return %[[R]]
func.func @tf_bert_attention(%q: tensor<2x128x12x64xf32>, %k: tensor<2x128x12x64xf32>, %v: tensor<2x128x12x64xf32>, %mask: tensor<2x1x128x128xf32>) -> tensor<2x128x768xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %cst = arith.constant dense<0.125> : tensor<24x128x64xf32>
  %e_h = tensor.empty() : tensor<2x12x128x64xf32>
  // transposes as permuting generics: [B, S, H, D] -> [B, H, S, D]
  %qt = linalg.generic {indexing_maps = [#bshd, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<2x128x12x64xf32>) outs(%e_h : tensor<2x12x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x12x128x64xf32>
  %kt = linalg.generic {indexing_maps = [#bshd, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x128x12x64xf32>) outs(%e_h : tensor<2x12x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x12x128x64xf32>
  %vt = linalg.generic {indexing_maps = [#bshd, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x128x12x64xf32>) outs(%e_h : tensor<2x12x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x12x128x64xf32>
  // batch and heads collapsed together
  %qc = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  %vc = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  // q * 0.125 with a splat constant operand
  %e_c = tensor.empty() : tensor<24x128x64xf32>
  %qs = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qc, %cst : tensor<24x128x64xf32>, tensor<24x128x64xf32>) outs(%e_c : tensor<24x128x64xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<24x128x64xf32>
  // scores as K Qᵀ, then transposed back
  %e_t = tensor.empty() : tensor<24x64x128xf32>
  %qst = linalg.generic {indexing_maps = [#swap3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qs : tensor<24x128x64xf32>) outs(%e_t : tensor<24x64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<24x64x128xf32>
  %e_s3 = tensor.empty() : tensor<24x128x128xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<24x128x128xf32>) -> tensor<24x128x128xf32>
  %kq = linalg.batch_matmul ins(%kc, %qst : tensor<24x128x64xf32>, tensor<24x64x128xf32>) outs(%f_s3 : tensor<24x128x128xf32>) -> tensor<24x128x128xf32>
  %qk = linalg.generic {indexing_maps = [#swap3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%kq : tensor<24x128x128xf32>) outs(%e_s3 : tensor<24x128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<24x128x128xf32>
  %qk4 = tensor.expand_shape %qk [[0, 1], [2], [3]] output_shape [2, 12, 128, 128] : tensor<24x128x128xf32> into tensor<2x12x128x128xf32>
  // the [B, 1, N, N] mask broadcast and added
  %e_s = tensor.empty() : tensor<2x12x128x128xf32>
  %m3 = tensor.collapse_shape %mask [[0, 1], [2], [3]] : tensor<2x1x128x128xf32> into tensor<2x128x128xf32>
  %mb = linalg.broadcast ins(%m3 : tensor<2x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) dimensions = [1]
  %x = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk4, %mb : tensor<2x12x128x128xf32>, tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %r = arith.addf %in, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  // softmax: reduce, broadcast_in_dim, subtract, exp, reduce, reciprocal, multiply
  %e_r = tensor.empty() : tensor<2x12x128xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x12x128xf32>) -> tensor<2x12x128xf32>
  %mx = linalg.reduce ins(%x : tensor<2x12x128x128xf32>) outs(%f_m : tensor<2x12x128xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %r = arith.maximumf %in, %init : f32
      linalg.yield %r : f32
    }
  %mxb = linalg.broadcast ins(%mx : tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) dimensions = [3]
  %sub = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mxb : tensor<2x12x128x128xf32>, tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %r = arith.subf %in, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x12x128xf32>) -> tensor<2x12x128xf32>
  %l = linalg.reduce ins(%ex : tensor<2x12x128x128xf32>) outs(%f_l : tensor<2x12x128xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %r = arith.addf %in, %init : f32
      linalg.yield %r : f32
    }
  %rl = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%l : tensor<2x12x128xf32>) outs(%e_r : tensor<2x12x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128xf32>
  %rlb = linalg.broadcast ins(%rl : tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) dimensions = [3]
  %p = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %rlb : tensor<2x12x128x128xf32>, tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %y = arith.mulf %in, %r : f32
    linalg.yield %y : f32
  } -> tensor<2x12x128x128xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x12x128x128xf32> into tensor<24x128x128xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_c : tensor<24x128x64xf32>) -> tensor<24x128x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bshd, 12 query heads / 12 kv heads, scale 1.250000e-01, bias)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<24x128x128xf32>, tensor<24x128x64xf32>) outs(%f_o : tensor<24x128x64xf32>) -> tensor<24x128x64xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 12, 128, 64] : tensor<24x128x64xf32> into tensor<2x12x128x64xf32>
  %e_x = tensor.empty() : tensor<2x128x12x64xf32>
  %ot = linalg.generic {indexing_maps = [#bshd, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o4 : tensor<2x12x128x64xf32>) outs(%e_x : tensor<2x128x12x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x128x12x64xf32>
  %r = tensor.collapse_shape %ot [[0], [1], [2, 3]] : tensor<2x128x12x64xf32> into tensor<2x128x768xf32>
  return %r : tensor<2x128x768xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#bij = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#ek = affine_map<(a, c, b, e, d) -> (a, e, c, d)>
#eq = affine_map<(a, c, b, e, d) -> (a, b, c, d)>
#es = affine_map<(a, c, b, e, d) -> (a, c, b, e)>
#ep = affine_map<(a, b, c, d, e) -> (a, c, b, e)>
#ev = affine_map<(a, b, c, d, e) -> (a, e, c, d)>
#eo = affine_map<(a, b, c, d, e) -> (a, b, c, d)>
// Keras MultiHeadAttention: einsum contractions straight on [B, S, H, D]
// with the key as the first operand, Q pre-scaled, and the masked softmax's
// (1 - mask) * -1e9 adder fused in one generic: a data bias.
// CHECK-LABEL: func.func @keras_mha
// CHECK: %[[BIAS:.+]] = linalg.generic
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x128x12x64xf32>, tensor<2x128x12x64xf32>, tensor<2x128x12x64xf32> bias(%{{.+}} : tensor<2x1x128x128xf32>) {layout = #fa<layout bshd>, scale = 1.250000e-01 : f32} -> tensor<2x128x12x64xf32>
func.func @keras_mha(%q: tensor<2x128x12x64xf32>, %k: tensor<2x128x12x64xf32>, %v: tensor<2x128x12x64xf32>, %mask: tensor<2x128x128xf32>) -> tensor<2x128x12x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %e_x = tensor.empty() : tensor<2x128x12x64xf32>
  %qs = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<2x128x12x64xf32>) outs(%e_x : tensor<2x128x12x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %scale : f32
    linalg.yield %r : f32
  } -> tensor<2x128x12x64xf32>
  // einsum("aecd,abcd->acbe", key, query)
  %e_s = tensor.empty() : tensor<2x12x128x128xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x12x128x128xf32>) -> tensor<2x12x128x128xf32>
  %qk = linalg.generic {indexing_maps = [#ek, #eq, #es], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%k, %qs : tensor<2x128x12x64xf32>, tensor<2x128x12x64xf32>) outs(%f_s : tensor<2x12x128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  // masked softmax: scores += (1 - mask) * -1e9, mask [B, Sq, Sk]
  %x = linalg.generic {indexing_maps = [#id4, #bij, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %mask : tensor<2x12x128x128xf32>, tensor<2x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %big = arith.constant -1.0e9 : f32
    %inv = arith.subf %one, %m : f32
    %add = arith.mulf %inv, %big : f32
    %r = arith.addf %in, %add : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_r = tensor.empty() : tensor<2x12x128xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x12x128xf32>) -> tensor<2x12x128xf32>
  %mx = linalg.reduce ins(%x : tensor<2x12x128x128xf32>) outs(%f_m : tensor<2x12x128xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %r = arith.maximumf %in, %init : f32
      linalg.yield %r : f32
    }
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mx : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x12x128xf32>) -> tensor<2x12x128xf32>
  %l = linalg.reduce ins(%ex : tensor<2x12x128x128xf32>) outs(%f_l : tensor<2x12x128xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %r = arith.addf %in, %init : f32
      linalg.yield %r : f32
    }
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  // einsum("acbe,aecd->abcd", probs, value)
  %f_o = linalg.fill ins(%zero : f32) outs(%e_x : tensor<2x128x12x64xf32>) -> tensor<2x128x12x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bshd, 12 query heads / 12 kv heads, scale 1.250000e-01, bias)}}
  %o = linalg.generic {indexing_maps = [#ep, #ev, #eo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x128x12x64xf32>) outs(%f_o : tensor<2x128x12x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x128x12x64xf32>
  return %o : tensor<2x128x12x64xf32>
}

// -----

#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bnk = affine_map<(b, m, n, k) -> (b, n, k)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>
// Named elementwise linalg ops (linalg.mul / sub / exp / reciprocal, as newer
// StableHLO and TOSA lowerings emit) and batch_matmul with indexing_maps
// reading K untransposed (the former batch_matmul_transpose_b).
// CHECK-LABEL: func.func @named_elementwise
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<1x16x64x32xf32>, tensor<1x16x64x32xf32>, tensor<1x16x64x32xf32> {scale = 0.176776{{[0-9]+}} : f32}
// CHECK-NOT: linalg.exp
func.func @named_elementwise(%q: tensor<16x64x32xf32>, %k: tensor<16x64x32xf32>, %v: tensor<16x64x32xf32>) -> tensor<16x64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e_s = tensor.empty() : tensor<16x64x64xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %s = linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn] ins(%q, %k : tensor<16x64x32xf32>, tensor<16x64x32xf32>) outs(%f_s : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %c = arith.constant dense<0.176776695> : tensor<16x64x64xf32>
  %x = linalg.mul ins(%s, %c : tensor<16x64x64xf32>, tensor<16x64x64xf32>) outs(%e_s : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %e_r = tensor.empty() : tensor<16x64xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<16x64xf32>) -> tensor<16x64xf32>
  %mx = linalg.reduce ins(%x : tensor<16x64x64xf32>) outs(%f_m : tensor<16x64xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %r = arith.maxnumf %in, %init : f32
      linalg.yield %r : f32
    }
  %mxb = linalg.broadcast ins(%mx : tensor<16x64xf32>) outs(%e_s : tensor<16x64x64xf32>) dimensions = [2]
  %d = linalg.sub ins(%x, %mxb : tensor<16x64x64xf32>, tensor<16x64x64xf32>) outs(%e_s : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %ex = linalg.exp ins(%d : tensor<16x64x64xf32>) outs(%e_s : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<16x64xf32>) -> tensor<16x64xf32>
  %l = linalg.reduce ins(%ex : tensor<16x64x64xf32>) outs(%f_l : tensor<16x64xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %r = arith.addf %in, %init : f32
      linalg.yield %r : f32
    }
  %rl = linalg.reciprocal ins(%l : tensor<16x64xf32>) outs(%e_r : tensor<16x64xf32>) -> tensor<16x64xf32>
  %rlb = linalg.broadcast ins(%rl : tensor<16x64xf32>) outs(%e_s : tensor<16x64x64xf32>) dimensions = [2]
  %p = linalg.mul ins(%ex, %rlb : tensor<16x64x64xf32>, tensor<16x64x64xf32>) outs(%e_s : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %e_o = tensor.empty() : tensor<16x64x32xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<16x64x32xf32>) -> tensor<16x64x32xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 16 query heads / 16 kv heads, scale 1.767767e-01)}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<16x64x64xf32>, tensor<16x64x32xf32>) outs(%f_o : tensor<16x64x32xf32>) -> tensor<16x64x32xf32>
  return %o : tensor<16x64x32xf32>
}
