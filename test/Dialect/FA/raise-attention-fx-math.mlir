// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// torch.nn.functional.scaled_dot_product_attention as PyTorch's math
// decomposition (_scaled_dot_product_attention_math) writes it and the FX
// importer + torch-mlir lower it: Q and Kᵀ each multiplied by sqrt(scale),
// a boolean mask turned into an additive 0 / -inf bias, linalg.softmax or
// the decomposed chain.

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#b1ij = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#ij4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
// A boolean attn_mask [B, 1, L, S]: a data-dependent mask, raised as the
// bias operand (its 0 / -inf tensor, built by the original code).
// CHECK-LABEL: func.func @fx_sdpa_bool_mask
// CHECK-SAME: %[[M:[a-z0-9]+]]: tensor<2x1x64x64xi1>
// CHECK: %[[B:.+]] = linalg.generic {{.+}} ins(%[[M]] : tensor<2x1x64x64xi1>)
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : {{.+}} bias(%[[B]] : tensor<2x1x64x64xf32>) {scale = 0.12{{[0-9]+}} : f32}
func.func @fx_sdpa_bool_mask(%q: tensor<2x8x64x64xf32>, %k: tensor<2x8x64x64xf32>, %v: tensor<2x8x64x64xf32>, %mask: tensor<2x1x64x64xi1>) -> tensor<2x8x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sqrt_scale = arith.constant 0.3535533905932738 : f64
  %e_q = tensor.empty() : tensor<2x8x64x64xf32>
  // q * sqrt(scale)
  %qs = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<2x8x64x64xf32>) outs(%e_q : tensor<2x8x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.truncf %sqrt_scale : f64 to f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64x64xf32>
  // k.transpose(-2, -1) * sqrt(scale)
  %e_kt = tensor.empty() : tensor<2x8x64x64xf32>
  %kt = linalg.transpose ins(%k : tensor<2x8x64x64xf32>) outs(%e_kt : tensor<2x8x64x64xf32>) permutation = [0, 1, 3, 2]
  %kts = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kt : tensor<2x8x64x64xf32>) outs(%e_kt : tensor<2x8x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.truncf %sqrt_scale : f64 to f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64x64xf32>
  %qc = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %ktc = tensor.collapse_shape %kts [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %e_s3 = tensor.empty() : tensor<16x64x64xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<16x64x64xf32>, tensor<16x64x64xf32>) outs(%f_s3 : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 8, 64, 64] : tensor<16x64x64xf32> into tensor<2x8x64x64xf32>
  %e_s = tensor.empty() : tensor<2x8x64x64xf32>
  // attn_mask.masked_fill(attn_mask.logical_not(), -inf) as an additive bias
  %e_b = tensor.empty() : tensor<2x1x64x64xf32>
  %bias = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask : tensor<2x1x64x64xi1>) outs(%e_b : tensor<2x1x64x64xf32>) {
  ^bb0(%m: i1, %out: f32):
    %r = arith.select %m, %zero, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x1x64x64xf32>
  %x = linalg.generic {indexing_maps = [#id4, #b1ij, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se, %bias : tensor<2x8x64x64xf32>, tensor<2x1x64x64xf32>) outs(%e_s : tensor<2x8x64x64xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %r = arith.addf %in, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64x64xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<2x8x64x64xf32>) outs(%e_s : tensor<2x8x64x64xf32>) -> tensor<2x8x64x64xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %e_o = tensor.empty() : tensor<16x64x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 8 kv heads, scale 1.250000e-01, bias)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<16x64x64xf32>, tensor<16x64x64xf32>) outs(%f_o : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 8, 64, 64] : tensor<16x64x64xf32> into tensor<2x8x64x64xf32>
  return %oe : tensor<2x8x64x64xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#b1ij = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#ij4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
// is_causal=True: the tril mask built from indices, turned into a bias and
// added; maxnumf row max. Evaluated on the grid: causal.
// CHECK-LABEL: func.func @fx_sdpa_causal
// CHECK: fa.attention {{.+}} {causal, scale = 0.12{{[0-9]+}} : f32}
// CHECK-NOT: linalg.generic
func.func @fx_sdpa_causal(%q: tensor<1x12x128x64xf32>, %k: tensor<1x12x128x64xf32>, %v: tensor<1x12x128x64xf32>) -> tensor<1x12x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sqrt_scale = arith.constant 0.3535533905932738 : f64
  %e_q = tensor.empty() : tensor<1x12x128x64xf32>
  // q * sqrt(scale)
  %qs = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<1x12x128x64xf32>) outs(%e_q : tensor<1x12x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.truncf %sqrt_scale : f64 to f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x12x128x64xf32>
  // k.transpose(-2, -1) * sqrt(scale)
  %e_kt = tensor.empty() : tensor<1x12x64x128xf32>
  %kt = linalg.transpose ins(%k : tensor<1x12x128x64xf32>) outs(%e_kt : tensor<1x12x64x128xf32>) permutation = [0, 1, 3, 2]
  %kts = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kt : tensor<1x12x64x128xf32>) outs(%e_kt : tensor<1x12x64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.truncf %sqrt_scale : f64 to f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x128xf32>
  %qc = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<1x12x128x64xf32> into tensor<12x128x64xf32>
  %ktc = tensor.collapse_shape %kts [[0, 1], [2], [3]] : tensor<1x12x64x128xf32> into tensor<12x64x128xf32>
  %e_s3 = tensor.empty() : tensor<12x128x128xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<12x128x64xf32>, tensor<12x64x128xf32>) outs(%f_s3 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 12, 128, 128] : tensor<12x128x128xf32> into tensor<1x12x128x128xf32>
  %e_s = tensor.empty() : tensor<1x12x128x128xf32>
  // temp_mask = ones(L, S, dtype=bool).tril(); bias.masked_fill_(temp_mask.logical_not(), -inf)
  %e_t = tensor.empty() : tensor<128x128xi1>
  %tril = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e_t : tensor<128x128xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %d = arith.subi %j64, %i64 : i64
    %c0 = arith.constant 0 : i64
    %r = arith.cmpi sle, %d, %c0 : i64
    linalg.yield %r : i1
  } -> tensor<128x128xi1>
  %e_b = tensor.empty() : tensor<128x128xf32>
  %bias = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%tril : tensor<128x128xi1>) outs(%e_b : tensor<128x128xf32>) {
  ^bb0(%m: i1, %out: f32):
    %true = arith.constant true
    %not = arith.xori %m, %true : i1
    %r = arith.select %not, %ninf, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x128xf32>
  %x = linalg.generic {indexing_maps = [#id4, #ij4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se, %bias : tensor<1x12x128x128xf32>, tensor<128x128xf32>) outs(%e_s : tensor<1x12x128x128xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %r = arith.addf %in, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x12x128x128xf32>
  %e_r = tensor.empty() : tensor<1x12x128xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x128xf32>) -> tensor<1x12x128xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x12x128x128xf32>) outs(%f_m : tensor<1x12x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maxnumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x128xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mx : tensor<1x12x128x128xf32>, tensor<1x12x128xf32>) outs(%e_s : tensor<1x12x128x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x128x128xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x128xf32>) -> tensor<1x12x128xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x128x128xf32>) outs(%f_l : tensor<1x12x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x128xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x128x128xf32>, tensor<1x12x128xf32>) outs(%e_s : tensor<1x12x128x128xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %r = arith.divf %in, %sum : f32
    linalg.yield %r : f32
  } -> tensor<1x12x128x128xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x12x128x128xf32> into tensor<12x128x128xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x12x128x64xf32> into tensor<12x128x64xf32>
  %e_o = tensor.empty() : tensor<12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<12x128x64xf32>) -> tensor<12x128x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, causal)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<12x128x128xf32>, tensor<12x128x64xf32>) outs(%f_o : tensor<12x128x64xf32>) -> tensor<12x128x64xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 12, 128, 64] : tensor<12x128x64xf32> into tensor<1x12x128x64xf32>
  return %oe : tensor<1x12x128x64xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#b1ij = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#ij4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
// PyTorch >= 2.5 wraps the softmax in _safe_softmax: rows whose every score
// is -inf give 0 instead of NaN, exactly fa.attention's definition. The
// select must zero exactly those rows (all(x == -inf) over the keys).
// CHECK-LABEL: func.func @fx_sdpa_safe_softmax
// CHECK: fa.attention {{.+}} bias(
// CHECK-NOT: arith.andi
func.func @fx_sdpa_safe_softmax(%q: tensor<2x8x64x64xf32>, %k: tensor<2x8x64x64xf32>, %v: tensor<2x8x64x64xf32>, %mask: tensor<2x1x64x64xi1>) -> tensor<2x8x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sqrt_scale = arith.constant 0.3535533905932738 : f64
  %e_q = tensor.empty() : tensor<2x8x64x64xf32>
  // q * sqrt(scale)
  %qs = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<2x8x64x64xf32>) outs(%e_q : tensor<2x8x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.truncf %sqrt_scale : f64 to f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64x64xf32>
  // k.transpose(-2, -1) * sqrt(scale)
  %e_kt = tensor.empty() : tensor<2x8x64x64xf32>
  %kt = linalg.transpose ins(%k : tensor<2x8x64x64xf32>) outs(%e_kt : tensor<2x8x64x64xf32>) permutation = [0, 1, 3, 2]
  %kts = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kt : tensor<2x8x64x64xf32>) outs(%e_kt : tensor<2x8x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.truncf %sqrt_scale : f64 to f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64x64xf32>
  %qc = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %ktc = tensor.collapse_shape %kts [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %e_s3 = tensor.empty() : tensor<16x64x64xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<16x64x64xf32>, tensor<16x64x64xf32>) outs(%f_s3 : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 8, 64, 64] : tensor<16x64x64xf32> into tensor<2x8x64x64xf32>
  %e_s = tensor.empty() : tensor<2x8x64x64xf32>
  // attn_mask.masked_fill(attn_mask.logical_not(), -inf) as an additive bias
  %e_b = tensor.empty() : tensor<2x1x64x64xf32>
  %bias = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask : tensor<2x1x64x64xi1>) outs(%e_b : tensor<2x1x64x64xf32>) {
  ^bb0(%m: i1, %out: f32):
    %r = arith.select %m, %zero, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x1x64x64xf32>
  %x = linalg.generic {indexing_maps = [#id4, #b1ij, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se, %bias : tensor<2x8x64x64xf32>, tensor<2x1x64x64xf32>) outs(%e_s : tensor<2x8x64x64xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %r = arith.addf %in, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64x64xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<2x8x64x64xf32>) outs(%e_s : tensor<2x8x64x64xf32>) -> tensor<2x8x64x64xf32>
  // _safe_softmax: rows whose every score is -inf become 0
  %e_i = tensor.empty() : tensor<2x8x64x64xi1>
  %isinf = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x8x64x64xf32>) outs(%e_i : tensor<2x8x64x64xi1>) {
  ^bb0(%in: f32, %out: i1):
    %r = arith.cmpf oeq, %in, %ninf : f32
    linalg.yield %r : i1
  } -> tensor<2x8x64x64xi1>
  %true = arith.constant true
  %e_a = tensor.empty() : tensor<2x8x64xi1>
  %f_a = linalg.fill ins(%true : i1) outs(%e_a : tensor<2x8x64xi1>) -> tensor<2x8x64xi1>
  %all = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%isinf : tensor<2x8x64x64xi1>) outs(%f_a : tensor<2x8x64xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %r = arith.andi %in, %acc : i1
    linalg.yield %r : i1
  } -> tensor<2x8x64xi1>
  %allx = tensor.expand_shape %all [[0], [1], [2, 3]] output_shape [2, 8, 64, 1] : tensor<2x8x64xi1> into tensor<2x8x64x1xi1>
  %e_z = tensor.empty() : tensor<2x8x64x64xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e_z : tensor<2x8x64x64xf32>) -> tensor<2x8x64x64xf32>
  %ps = linalg.generic {indexing_maps = [#keep0, #id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%allx, %zeros, %p : tensor<2x8x64x1xi1>, tensor<2x8x64x64xf32>, tensor<2x8x64x64xf32>) outs(%e_s : tensor<2x8x64x64xf32>) {
  ^bb0(%c: i1, %z: f32, %in: f32, %out: f32):
    %r = arith.select %c, %z, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64x64xf32>
  %pc = tensor.collapse_shape %ps [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %e_o = tensor.empty() : tensor<16x64x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 8 kv heads, scale 1.250000e-01, bias)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<16x64x64xf32>, tensor<16x64x64xf32>) outs(%f_o : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 8, 64, 64] : tensor<16x64x64xf32> into tensor<2x8x64x64xf32>
  return %oe : tensor<2x8x64x64xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#b1ij = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#ij4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
// Near miss: the rows zeroed where every score is 0, not -inf.
// CHECK-LABEL: func.func @safe_softmax_wrong_condition
// CHECK-NOT: fa.attention
func.func @safe_softmax_wrong_condition(%q: tensor<2x8x64x64xf32>, %k: tensor<2x8x64x64xf32>, %v: tensor<2x8x64x64xf32>, %mask: tensor<2x1x64x64xi1>) -> tensor<2x8x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sqrt_scale = arith.constant 0.3535533905932738 : f64
  %e_q = tensor.empty() : tensor<2x8x64x64xf32>
  // q * sqrt(scale)
  %qs = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<2x8x64x64xf32>) outs(%e_q : tensor<2x8x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.truncf %sqrt_scale : f64 to f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64x64xf32>
  // k.transpose(-2, -1) * sqrt(scale)
  %e_kt = tensor.empty() : tensor<2x8x64x64xf32>
  %kt = linalg.transpose ins(%k : tensor<2x8x64x64xf32>) outs(%e_kt : tensor<2x8x64x64xf32>) permutation = [0, 1, 3, 2]
  %kts = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kt : tensor<2x8x64x64xf32>) outs(%e_kt : tensor<2x8x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.truncf %sqrt_scale : f64 to f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64x64xf32>
  %qc = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %ktc = tensor.collapse_shape %kts [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %e_s3 = tensor.empty() : tensor<16x64x64xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<16x64x64xf32>, tensor<16x64x64xf32>) outs(%f_s3 : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 8, 64, 64] : tensor<16x64x64xf32> into tensor<2x8x64x64xf32>
  %e_s = tensor.empty() : tensor<2x8x64x64xf32>
  // attn_mask.masked_fill(attn_mask.logical_not(), -inf) as an additive bias
  %e_b = tensor.empty() : tensor<2x1x64x64xf32>
  %bias = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask : tensor<2x1x64x64xi1>) outs(%e_b : tensor<2x1x64x64xf32>) {
  ^bb0(%m: i1, %out: f32):
    %r = arith.select %m, %zero, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x1x64x64xf32>
  %x = linalg.generic {indexing_maps = [#id4, #b1ij, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se, %bias : tensor<2x8x64x64xf32>, tensor<2x1x64x64xf32>) outs(%e_s : tensor<2x8x64x64xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %r = arith.addf %in, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64x64xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<2x8x64x64xf32>) outs(%e_s : tensor<2x8x64x64xf32>) -> tensor<2x8x64x64xf32>
  // _safe_softmax: rows whose every score is -inf become 0
  %e_i = tensor.empty() : tensor<2x8x64x64xi1>
  %isinf = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x8x64x64xf32>) outs(%e_i : tensor<2x8x64x64xi1>) {
  ^bb0(%in: f32, %out: i1):
    %r = arith.cmpf oeq, %in, %zero : f32
    linalg.yield %r : i1
  } -> tensor<2x8x64x64xi1>
  %true = arith.constant true
  %e_a = tensor.empty() : tensor<2x8x64xi1>
  %f_a = linalg.fill ins(%true : i1) outs(%e_a : tensor<2x8x64xi1>) -> tensor<2x8x64xi1>
  %all = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%isinf : tensor<2x8x64x64xi1>) outs(%f_a : tensor<2x8x64xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %r = arith.andi %in, %acc : i1
    linalg.yield %r : i1
  } -> tensor<2x8x64xi1>
  %allx = tensor.expand_shape %all [[0], [1], [2, 3]] output_shape [2, 8, 64, 1] : tensor<2x8x64xi1> into tensor<2x8x64x1xi1>
  %e_z = tensor.empty() : tensor<2x8x64x64xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e_z : tensor<2x8x64x64xf32>) -> tensor<2x8x64x64xf32>
  %ps = linalg.generic {indexing_maps = [#keep0, #id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%allx, %zeros, %p : tensor<2x8x64x1xi1>, tensor<2x8x64x64xf32>, tensor<2x8x64x64xf32>) outs(%e_s : tensor<2x8x64x64xf32>) {
  ^bb0(%c: i1, %z: f32, %in: f32, %out: f32):
    %r = arith.select %c, %z, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64x64xf32>
  %pc = tensor.collapse_shape %ps [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  %e_o = tensor.empty() : tensor<16x64x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  // expected-remark @+1 {{attention not raised: the softmax's rows are zeroed by a condition other than 'every score is -inf' (_safe_softmax)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<16x64x64xf32>, tensor<16x64x64xf32>) outs(%f_o : tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 8, 64, 64] : tensor<16x64x64xf32> into tensor<2x8x64x64xf32>
  return %oe : tensor<2x8x64x64xf32>
}
