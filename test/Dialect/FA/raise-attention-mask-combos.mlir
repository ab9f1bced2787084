// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// A positional mask (causal / window) next to another term: every term must
// reach the raised op (issue 39: the causal match used to replace the whole
// mask configuration, dropping a bias or padding mask found before it).
// test/Execution/raise-mask-types.py runs these against the original.

// -----

// An additive position bias and a causal select in one generic.
// CHECK-LABEL: func.func @causal_and_bias
// CHECK: %[[B:.+]] = tensor.expand_shape %arg3 {{.+}} into tensor<1x2x16x16xf32>
// CHECK: fa.attention {{.+}} bias(%[[B]] : tensor<1x2x16x16xf32>) {causal, scale = 1.250000e-01 : f32}
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @causal_and_bias(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>, %bias: tensor<2x16x16xf32>) -> tensor<2x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%fs : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, i, j) -> (b, i, j)>, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk, %bias : tensor<2x16x16xf32>, tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %t = arith.addf %s, %in0 : f32
    %h = arith.cmpi ugt, %j, %i : index
    %x = arith.select %h, %ninf, %t : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %er = tensor.empty() : tensor<2x16xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<2x16x16xf32>) outs(%fm : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x16xf32>) -> tensor<2x16xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<2x16x16xf32>) outs(%fl : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %eo = tensor.empty() : tensor<2x16x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal, bias)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// A key padding mask [BH, Sk] (true: keep) and a causal select: causal, and
// the mask read per (head, key) in mask_mod, captured as the program holds
// it (no [.., Sq, Sk] bias).
// CHECK-LABEL: func.func @causal_and_padding
// CHECK: fa.attention {{.+}} captures(%arg3 : tensor<2x16xi1>) {causal, scale = 1.250000e-01 : f32} -> {{.+}} mask_mod {
// CHECK-NEXT: ^bb0(%{{.+}}: index, %[[H:.+]]: index, %{{.+}}: index, %[[J:.+]]: index, %[[M:.+]]: tensor<2x16xi1>):
// CHECK-NEXT: %[[E:.+]] = tensor.extract %[[M]][%[[H]], %[[J]]] : tensor<2x16xi1>
// CHECK-NEXT: fa.yield %[[E]] : i1
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @causal_and_padding(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>, %pad: tensor<2x16xi1>) -> tensor<2x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%fs : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, i, j) -> (b, j)>, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk, %pad : tensor<2x16x16xf32>, tensor<2x16xi1>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: i1, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %t = arith.select %in0, %s, %ninf : f32
    %h = arith.cmpi ugt, %j, %i : index
    %x = arith.select %h, %ninf, %t : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %er = tensor.empty() : tensor<2x16xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<2x16x16xf32>) outs(%fm : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x16xf32>) -> tensor<2x16xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<2x16x16xf32>) outs(%fl : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %eo = tensor.empty() : tensor<2x16x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal, mask_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// A bias and a sliding window [3, 0] from an iota band.
// CHECK-LABEL: func.func @window_and_bias
// CHECK: fa.attention {{.+}} bias(%{{.+}} : tensor<1x2x16x16xf32>) {causal, scale = 1.250000e-01 : f32, window = array<i64: 3, 0>}
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @window_and_bias(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>, %bias: tensor<2x16x16xf32>) -> tensor<2x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%fs : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, i, j) -> (b, i, j)>, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk, %bias : tensor<2x16x16xf32>, tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c3 = arith.constant 3 : index
    %t = arith.addf %s, %in0 : f32
    %dd = arith.subi %i, %j : index
    %keep = arith.cmpi ule, %dd, %c3 : index
    %x = arith.select %keep, %t, %ninf : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %er = tensor.empty() : tensor<2x16xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<2x16x16xf32>) outs(%fm : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x16xf32>) -> tensor<2x16xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<2x16x16xf32>) outs(%fl : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %eo = tensor.empty() : tensor<2x16x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal window [3, 0], bias)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// TOSA: a data bias added, then a causal select from index constants.
// CHECK-LABEL: func.func @tosa_causal_and_bias
// CHECK: fa.attention {{.+}} bias(%{{.+}} : tensor<1x2x16x16xf32>) {causal, scale = 1.250000e-01 : f32}
func.func @tosa_causal_and_bias(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>, %bias: tensor<2x16x16xf32>) -> tensor<2x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %fmin = "tosa.const"() <{values = dense<-3.40282347E+38> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %fzero = "tosa.const"() <{values = dense<0.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %qi = "tosa.const"() <{values = dense<[[[0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15]]]> : tensor<1x16x1xi32>}> : () -> tensor<1x16x1xi32>
  %kj = "tosa.const"() <{values = dense<[[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]]> : tensor<1x1x16xi32>}> : () -> tensor<1x1x16xi32>
  
  %sb = tosa.add %ss, %bias : (tensor<2x16x16xf32>, tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %h = tosa.greater %kj, %qi : (tensor<1x1x16xi32>, tensor<1x16x1xi32>) -> tensor<1x16x16xi1>
  %x = tosa.select %h, %ninf, %sb : (tensor<1x16x16xi1>, tensor<1x1x1xf32>, tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %rmax = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %rdiff = tosa.sub %x, %rmax : (tensor<2x16x16xf32>, tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %rexp = tosa.exp %rdiff : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %rsum = tosa.reduce_sum %rexp {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %rrec = tosa.reciprocal %rsum : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %prob = tosa.mul %rexp, %rrec, %shift : (tensor<2x16x16xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal, bias)}}
  %out = tosa.matmul %prob, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// Two data terms (a bias and a boolean [BH, S, S] mask): fa.attention has
// one bias operand; the remark names the first.
// CHECK-LABEL: func.func @two_data_terms
// CHECK-NOT: fa.attention
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @two_data_terms(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>, %bias: tensor<2x16x16xf32>, %keep: tensor<2x16x16xi1>) -> tensor<2x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%fs : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk, %bias, %keep : tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<2x16x16xi1>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: f32, %in1: i1, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %t = arith.addf %s, %in0 : f32
    %x = arith.select %in1, %t, %ninf : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %er = tensor.empty() : tensor<2x16xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<2x16x16xf32>) outs(%fm : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x16xf32>) -> tensor<2x16xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<2x16x16xf32>) outs(%fl : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %eo = tensor.empty() : tensor<2x16x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // expected-remark @+1 {{attention not raised: more than one data-dependent mask or bias (the first from a function argument)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}
