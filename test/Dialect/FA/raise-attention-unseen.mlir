// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Forms first seen in architectures outside the frontend corpus
// (scripts/frontend-corpus/sweep.py); test/Execution/raise-unseen.py runs
// each function against the original on the CPU.

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
#head4 = affine_map<(b, h, i, j) -> (h)>
// (qk + bias) * 0.125 = 0.125 qk + 0.125 bias (Falcon's ALiBi under its
// norm factor): the bias is scaled with the scores, rebuilt as a tensor
// (it is an input of the program's own).
// CHECK-LABEL: func.func @bias_before_scale
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: fa.attention {{.*}} bias(
// CHECK-SAME: scale = 1.250000e-01
func.func @bias_before_scale(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %v: tensor<2x2x8x4xf32>, %bias: tensor<2x2x8x8xf32>) -> tensor<2x2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x2x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>) outs(%f_s : tensor<2x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %bias : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %a = arith.addf %in, %b : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<2x2x8xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x8x8xf32>) outs(%f_m : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x8x8xf32>) outs(%f_l : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %e_o = tensor.empty() : tensor<2x2x8x4xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, bias)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x4xf32>) outs(%f_o : tensor<2x2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x4xf32>
  return %o : tensor<2x2x8x4xf32>
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
#head4 = affine_map<(b, h, i, j) -> (h)>
// The same with a bias that is a function of the positions (slope[h] * j,
// ALiBi): computed in score_mod, times the scale, nothing [S, S] stored.
// CHECK-LABEL: func.func @position_bias_before_scale
// CHECK: fa.attention
// CHECK-NOT: bias(
// CHECK-SAME: scale = 1.250000e-01
// CHECK: score_mod
// CHECK: arith.mulf
func.func @position_bias_before_scale(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %v: tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %slopes = arith.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %e_s = tensor.empty() : tensor<2x2x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>) outs(%f_s : tensor<2x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #head4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %slopes : tensor<2x2x8x8xf32>, tensor<2xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %sl: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %jj = linalg.index 3 : index
    %ji = arith.index_cast %jj : index to i64
    %jf = arith.sitofp %ji : i64 to f32
    %b = arith.mulf %sl, %jf : f32
    %a = arith.addf %in, %b : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<2x2x8xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x8x8xf32>) outs(%f_m : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x8x8xf32>) outs(%f_l : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %e_o = tensor.empty() : tensor<2x2x8x4xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, score_mod)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x4xf32>) outs(%f_o : tensor<2x2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x4xf32>
  return %o : tensor<2x2x8x4xf32>
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
#pos4 = affine_map<(b, h, i, j) -> (i, j)>
// GPT-Neo's causal buffer as torch-mlir prints it: a dense_resource blob
// (i8, row-major), read through `!= 0` and a finfo.min select. The blob's
// elements are evaluated like a dense constant: causal, no bias.
// CHECK-LABEL: func.func @resource_buffer_causal
// CHECK: fa.attention
// CHECK-NOT: bias(
// CHECK-SAME: causal
func.func @resource_buffer_causal(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %v: tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %fill = arith.constant -3.40282347E+38 : f32
  %c0_i8 = arith.constant 0 : i8
  %buf = arith.constant dense_resource<tril_8x8> : tensor<8x8xi8>
  %e_s = tensor.empty() : tensor<2x2x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>) outs(%f_s : tensor<2x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #pos4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %buf : tensor<2x2x8x8xf32>, tensor<8x8xi8>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %b: i8, %out: f32):
    %c = arith.constant 0.5 : f32
    %s = arith.mulf %in, %c : f32
    %keep = arith.cmpi ne, %b, %c0_i8 : i8
    %r = arith.select %keep, %s, %fill : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<2x2x8xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x8x8xf32>) outs(%f_m : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x8x8xf32>) outs(%f_l : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %e_o = tensor.empty() : tensor<2x2x8x4xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 5.000000e-01, causal)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x4xf32>) outs(%f_o : tensor<2x2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x4xf32>
  return %o : tensor<2x2x8x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      tril_8x8: "0x0100000001000000000000000101000000000000010101000000000001010101000000000101010101000000010101010101000001010101010101000101010101010101"
    }
  }
#-}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// XGLM's clamp of the masked scores, max(s + mask, finfo.min), spelled
// select(x > c, x, c): an identity, since the finfo.min mask stays at or
// above the clamp: dropped, the mask is causal.
// CHECK-LABEL: func.func @score_floor_causal
// CHECK: fa.attention
// CHECK-NOT: bias(
// CHECK-SAME: causal
func.func @score_floor_causal(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %v: tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %fill = arith.constant -3.40282347E+38 : f32
  %e_s = tensor.empty() : tensor<2x2x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>) outs(%f_s : tensor<2x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x2x8x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.5 : f32
    %zf = arith.constant 0.0 : f32
    %s = arith.mulf %in, %c : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %vis = arith.cmpi ule, %j, %i : index
    %m = arith.select %vis, %zf, %fill : f32
    %x = arith.addf %s, %m : f32
    %gt = arith.cmpf ogt, %x, %fill : f32
    %r = arith.select %gt, %x, %fill : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<2x2x8xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x8x8xf32>) outs(%f_m : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x8x8xf32>) outs(%f_l : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %e_o = tensor.empty() : tensor<2x2x8x4xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 5.000000e-01, causal)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x4xf32>) outs(%f_o : tensor<2x2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x4xf32>
  return %o : tensor<2x2x8x4xf32>
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
// The clamp over a -inf mask turns the hidden scores into a finite fill
// (a fully hidden row would average V): not an identity, declined.
// CHECK-LABEL: func.func @score_floor_over_ninf
// CHECK-NOT: fa.attention
func.func @score_floor_over_ninf(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %v: tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %fill = arith.constant -3.40282347E+38 : f32
  %e_s = tensor.empty() : tensor<2x2x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>) outs(%f_s : tensor<2x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x2x8x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.5 : f32
    %ninf_ = arith.constant 0xFF800000 : f32
    %s = arith.mulf %in, %c : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %vis = arith.cmpi ule, %j, %i : index
    %x = arith.select %vis, %s, %ninf_ : f32
    %r = arith.maximumf %x, %fill : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<2x2x8xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x8x8xf32>) outs(%f_m : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x8x8xf32>) outs(%f_l : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %e_o = tensor.empty() : tensor<2x2x8x4xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32>
  // expected-remark @+1 {{attention not raised: the scores are clamped at -3.40282e+38 (max(x, c)), and a mask fill of -inf may go below it}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x4xf32>) outs(%f_o : tensor<2x2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x4xf32>
  return %o : tensor<2x2x8x4xf32>
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
#head4 = affine_map<(b, h, i, j) -> (h)>
// V shared by the heads (broadcast from one kv head), K one per head (an
// input, which may differ per head; K computed per head from a repeat is
// raise-attention-kv-after-repeat.mlir): no GQA grouping fits both; V is
// read as P·V reads it, repeated, and the op is MHA.
// CHECK-LABEL: func.func @kv_broadcast_differently
// CHECK: %[[V:.*]] = linalg.broadcast
// CHECK: fa.attention %{{.*}}, %{{.*}}, %[[V]] : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>
func.func @kv_broadcast_differently(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %vkv: tensor<2x1x8x4xf32>, %bias: tensor<2x2x8x8xf32>) -> tensor<2x2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e_v = tensor.empty() : tensor<2x2x8x4xf32>
  %vc = tensor.collapse_shape %vkv [[0, 1], [2], [3]] : tensor<2x1x8x4xf32> into tensor<2x8x4xf32>
  %v = linalg.broadcast ins(%vc : tensor<2x8x4xf32>) outs(%e_v : tensor<2x2x8x4xf32>) dimensions = [1]
  %e_s = tensor.empty() : tensor<2x2x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>) outs(%f_s : tensor<2x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %bias : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %a = arith.addf %in, %b : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<2x2x8xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x8x8xf32>) outs(%f_m : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x8x8xf32>) outs(%f_l : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %e_o = tensor.empty() : tensor<2x2x8x4xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, bias)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x4xf32>) outs(%f_o : tensor<2x2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x4xf32>
  return %o : tensor<2x2x8x4xf32>
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
#head4 = affine_map<(b, h, i, j) -> (h)>
// K shared by the heads, V one per head: K is not read untraced (its
// scaling is in the op's scale); declined, the remark names what K and V
// were traced to.
// CHECK-LABEL: func.func @k_shared_v_per_head
// CHECK-NOT: fa.attention
func.func @k_shared_v_per_head(%q: tensor<2x2x8x4xf32>, %kkv: tensor<2x1x8x4xf32>, %v: tensor<2x2x8x4xf32>, %bias: tensor<2x2x8x8xf32>) -> tensor<2x2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e_k = tensor.empty() : tensor<2x2x8x4xf32>
  %kc = tensor.collapse_shape %kkv [[0, 1], [2], [3]] : tensor<2x1x8x4xf32> into tensor<2x8x4xf32>
  %k = linalg.broadcast ins(%kc : tensor<2x8x4xf32>) outs(%e_k : tensor<2x2x8x4xf32>) dimensions = [1]
  %e_s = tensor.empty() : tensor<2x2x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>) outs(%f_s : tensor<2x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %bias : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %a = arith.addf %in, %b : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<2x2x8xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x8x8xf32>) outs(%f_m : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x8x8xf32>) outs(%f_l : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x8x8xf32>, tensor<2x2x8xf32>) outs(%e_s : tensor<2x2x8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %e_o = tensor.empty() : tensor<2x2x8x4xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32>
  // expected-remark @+1 {{attention not raised: K and V are broadcast differently (K traced to a function argument [2, 1, 8, 4], V to a function argument [2, 2, 8, 4])}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x4xf32>) outs(%f_o : tensor<2x2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x4xf32>
  return %o : tensor<2x2x8x4xf32>
}
