// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Near misses: attention-like code that fa-raise-attention must leave alone,
// each with the remark that says why. BERT-base shapes; einsum-style
// contractions and the decomposed softmax, one thing wrong per case.

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// The probabilities are also returned (attention weights for
// visualization): raising would lose them.
// CHECK-LABEL: func.func @probabilities_escape
// CHECK-NOT: fa.attention
func.func @probabilities_escape(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> (tensor<2x12x128x64xf32>, tensor<2x12x128x128xf32>) {
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
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: 'func.return' outside the attention also reads the probabilities}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o, %p : tensor<2x12x128x64xf32>, tensor<2x12x128x128xf32>
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
// The raw scores Q Kᵀ have another user.
// CHECK-LABEL: func.func @scores_escape
// CHECK-NOT: fa.attention
func.func @scores_escape(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> (tensor<2x12x128x64xf32>, tensor<2x12x128x128xf32>) {
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
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: 'func.return' outside the attention also reads the scores (Q Kᵀ)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o, %qk : tensor<2x12x128x64xf32>, tensor<2x12x128x128xf32>
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
// The exponentials feed something else too.
// CHECK-LABEL: func.func @exp_escape
// CHECK-NOT: fa.attention
func.func @exp_escape(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> (tensor<2x12x128x64xf32>, tensor<2x12x128x128xf32>) {
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
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: 'func.return' outside the attention also reads an intermediate ('linalg.generic')}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o, %ex : tensor<2x12x128x64xf32>, tensor<2x12x128x128xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, j)>
// The softmax normalizes over the queries (dim 2) but P·V sums over the
// keys: not attention.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT: fa.attention
func.func @softmax_over_queries(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
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
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%masked : tensor<2x12x128x128xf32>) outs(%f_m : tensor<2x12x128xf32>) {
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
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%ex : tensor<2x12x128x128xf32>) outs(%f_l : tensor<2x12x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: P·V sums over a different dimension than the one the softmax normalizes}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o : tensor<2x12x128x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, j, i)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// P·V contracts P over the query dimension: O[j] = sum_i P[i, j] V[i].
// CHECK-LABEL: func.func @pv_over_queries
// CHECK-NOT: fa.attention
func.func @pv_over_queries(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
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
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: P·V sums over a different dimension than the one the softmax normalizes}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o : tensor<2x12x128x64xf32>
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
// -1e9 fill, bottom-right causal with seq_q > seq_k: the first rows see
// no key. The original averages V there, fa.attention would give 0.
// CHECK-LABEL: func.func @finite_fill_empty_rows
// CHECK-NOT: fa.attention
func.func @finite_fill_empty_rows(%q: tensor<2x12x32x64xf32>, %k: tensor<2x12x16x64xf32>, %v: tensor<2x12x16x64xf32>) -> tensor<2x12x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x12x32x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x12x32x16xf32>) -> tensor<2x12x32x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x12x32x64xf32>, tensor<2x12x16x64xf32>) outs(%f_s : tensor<2x12x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x32x16xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x12x32x16xf32>) outs(%e_s : tensor<2x12x32x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c_scale = arith.constant 0.125 : f32
    %c0f = arith.constant 0.0 : f32
    %fill = arith.constant -1.000000e+09 : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c16 = arith.constant 16 : index
    %jj = arith.addi %j, %c16 : index
    %cond = arith.cmpi ule, %jj, %i : index
    %x = arith.mulf %in, %c_scale : f32
    %y = arith.select %cond, %x, %fill : f32
    linalg.yield %y : f32
  } -> tensor<2x12x32x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<2x12x32xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x12x32xf32>) -> tensor<2x12x32xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x12x32x16xf32>) outs(%f_m : tensor<2x12x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x12x32xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x12x32x16xf32>, tensor<2x12x32xf32>) outs(%e_s : tensor<2x12x32x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x12x32x16xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x12x32xf32>) -> tensor<2x12x32xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x12x32x16xf32>) outs(%f_l : tensor<2x12x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x12x32xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x32x16xf32>, tensor<2x12x32xf32>) outs(%e_s : tensor<2x12x32x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x32x16xf32>
  %e_o = tensor.empty() : tensor<2x12x32x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x32x64xf32>) -> tensor<2x12x32x64xf32>
  // expected-remark @+1 {{attention not raised: a finite mask fill (like -1e9) hides every key of some row: the original averages V there, fa.attention gives 0}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x32x16xf32>, tensor<2x12x16x64xf32>) outs(%f_o : tensor<2x12x32x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x32x64xf32>
  return %o : tensor<2x12x32x64xf32>
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
// A constant mask that is neither causal nor a window.
// No attribute, but a function of the indices: mask_mod.
// CHECK-LABEL: func.func @checkerboard_mask
// CHECK: fa.attention {{.+}} -> {{.+}} mask_mod {
// CHECK-NOT: bias(
func.func @checkerboard_mask(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
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
    %c_scale = arith.constant 0.125 : f32
    %c0f = arith.constant 0.0 : f32
    %fill = arith.constant 0xFF800000 : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %x1 = arith.xori %i, %j : index
    %c1 = arith.constant 1 : index
    %x2 = arith.andi %x1, %c1 : index
    %c0 = arith.constant 0 : index
    %cond = arith.cmpi eq, %x2, %c0 : index
    %x = arith.mulf %in, %c_scale : f32
    %y = arith.select %cond, %x, %fill : f32
    linalg.yield %y : f32
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
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, mask_mod)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o : tensor<2x12x128x64xf32>
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
// The row max is taken of the unscaled scores, the exp of the scaled
// ones: still a softmax mathematically only if the scale is 1.
// CHECK-LABEL: func.func @max_of_other_tensor
// CHECK-NOT: fa.attention
func.func @max_of_other_tensor(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
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
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%qk : tensor<2x12x128x128xf32>) outs(%f_m : tensor<2x12x128xf32>) {
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
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: the row max reduces a different tensor than the one the softmax normalizes}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o : tensor<2x12x128x64xf32>
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
// The row sum adds the scores instead of the exponentials.
// CHECK-LABEL: func.func @sum_of_other_tensor
// CHECK-NOT: fa.attention
func.func @sum_of_other_tensor(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
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
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x12x128x128xf32>) outs(%f_l : tensor<2x12x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: the row sum adds a different tensor than the exponentials}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o : tensor<2x12x128x64xf32>
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
// P·V accumulates into a tensor of ones.
// CHECK-LABEL: func.func @nonzero_accumulator
// CHECK-NOT: fa.attention
func.func @nonzero_accumulator(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
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
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %one = arith.constant 1.0 : f32
  %f_o = linalg.fill ins(%one : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: a contraction that accumulates into a non-zero tensor}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o : tensor<2x12x128x64xf32>
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
// The scores multiplied by a runtime value.
// CHECK-LABEL: func.func @non_constant_scale
// CHECK-NOT: fa.attention
func.func @non_constant_scale(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>, %t: f32) -> tensor<2x12x128x64xf32> {
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
    %r = arith.mulf %in, %t : f32
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
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: the scores are multiplied by a non-constant}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o : tensor<2x12x128x64xf32>
}

// -----

// Dynamic shapes, and P·V accumulates into a tensor the function receives
// (unknown contents, not a zero fill).
// CHECK-LABEL: func.func @dynamic_shapes
// CHECK-NOT: fa.attention
func.func @dynamic_shapes(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>, %s: tensor<?x12x?x?xf32>, %init: tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %p = linalg.softmax dimension(3) ins(%s : tensor<?x12x?x?xf32>) outs(%s : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  // expected-remark @+1 {{attention not raised: a contraction that accumulates into a non-zero tensor}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>, affine_map<(b, h, i, e, j) -> (b, h, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<?x12x?x?xf32>, tensor<?x12x?x64xf32>) outs(%init : tensor<?x12x?x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
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
// exp(x) / rowsum(exp(x)) without subtracting the row max: mathematically a
// softmax, but it overflows to inf / NaN where fa.attention does not.
// CHECK-LABEL: func.func @softmax_without_max
// CHECK-NOT: fa.attention
func.func @softmax_without_max(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
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
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x12x128xf32>) -> tensor<2x12x128xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x12x128x128xf32>) outs(%f_l : tensor<2x12x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: a softmax without the max subtraction (exp(x) overflows where fa.attention does not)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o : tensor<2x12x128x64xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// A causal mask with dynamic sequence lengths: the mask is evaluated on the
// (row, column) grid, which needs static sizes.
// CHECK-LABEL: func.func @dynamic_causal
// CHECK-NOT: fa.attention
func.func @dynamic_causal(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32> {
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
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.mulf %in, %c : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi ugt, %j, %i : index
    %r = arith.select %hide, %ninf, %y : f32
    linalg.yield %r : f32
  } -> tensor<?x12x?x?xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<?x12x?x?xf32>) outs(%e_s : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<?x12x?x?xf32> into tensor<?x?x?xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<?x12x?x64xf32> into tensor<?x?x64xf32>
  %c12 = arith.constant 12 : index
  %bh = arith.muli %b, %c12 : index
  %e_o = tensor.empty(%bh, %sq) : tensor<?x?x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  // expected-remark @+1 {{attention not raised: masks and biases with dynamic sequence lengths are not supported}}
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
// softcap(s) + bias: fa.attention adds the bias before the softcap.
// CHECK-LABEL: func.func @bias_after_softcap
// CHECK-NOT: fa.attention
func.func @bias_after_softcap(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>, %bias: tensor<2x12x128x128xf32>) -> tensor<2x12x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x12x128x128xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x12x128x128xf32>) -> tensor<2x12x128x128xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>) outs(%f_s : tensor<2x12x128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %bias : tensor<2x12x128x128xf32>, tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %cap = arith.constant 30.0 : f32
    %x = arith.mulf %in, %c : f32
    %d = arith.divf %x, %cap : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %cap : f32
    %r = arith.addf %y, %b : f32
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
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: a bias added after the softcap}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o : tensor<2x12x128x64xf32>
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
// 0.125 * softcap(qk): fa.attention applies the scale before the softcap.
// CHECK-LABEL: func.func @scale_after_softcap
// CHECK-NOT: fa.attention
func.func @scale_after_softcap(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
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
    %cap = arith.constant 30.0 : f32
    %d = arith.divf %in, %cap : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %cap : f32
    %r = arith.mulf %y, %c : f32
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
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %e_o = tensor.empty() : tensor<2x12x128x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  // expected-remark @+1 {{attention not raised: a scale applied after the softcap}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o : tensor<2x12x128x64xf32>
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
// exp(S - max) V, never divided by the row sum: not attention.
// CHECK-LABEL: func.func @unnormalized_softmax
// CHECK-NOT: fa.attention
func.func @unnormalized_softmax(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
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
  // expected-remark @+1 {{attention not raised: an unnormalized softmax whose P·V is not divided by the row sum}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%ex, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_o : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o : tensor<2x12x128x64xf32>
}

// -----

// P scaled after the softmax (issue 15, item 9): not an attention scale.
// CHECK-LABEL: func.func @scale_after_softmax
// CHECK-NOT: fa.attention
func.func @scale_after_softmax(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x4xf32>
  %m = tosa.reduce_max %s {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %d = tosa.sub %s, %m : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
  %e = tosa.exp %d : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %r = tosa.reciprocal %l : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x4x4xf32>, tensor<2x4x1xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  %ps = tosa.mul %p, %half, %shift : (tensor<2x4x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  // expected-remark @+1 {{attention not raised: the probabilities are scaled after the softmax (by 0.500000): fa.attention's scale applies to the scores}}
  %o = tosa.matmul %ps, %v, %zp, %zp : (tensor<2x4x4xf32>, tensor<2x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// P multiplied by a data tensor (a dropout mask) before P·V.
// CHECK-LABEL: func.func @probabilities_times_tensor
// CHECK-NOT: fa.attention
func.func @probabilities_times_tensor(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %keep: tensor<2x4x4xf32>) -> tensor<2x4x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x4xf32>
  %m = tosa.reduce_max %s {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %d = tosa.sub %s, %m : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
  %e = tosa.exp %d : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %r = tosa.reciprocal %l : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x4x4xf32>, tensor<2x4x1xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  %pd = tosa.mul %p, %keep, %shift : (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  // expected-remark @+1 {{attention not raised: the probabilities are multiplied by another tensor (an argument) before P·V, e.g. a dropout mask}}
  %o = tosa.matmul %pd, %v, %zp, %zp : (tensor<2x4x4xf32>, tensor<2x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}
