// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Masks proved in the program's own integer and float types (issue 39): the
// grid evaluator computes at each type's width and signedness, wraps where
// the IR wraps, and declines where the IR has no defined value. Each case
// names what the old double-precision evaluator got wrong.
// test/Execution/raise-mask-types.py runs the raised ones against the
// original.

// -----

// Positions cast to i8 and compared signed at sequence 200: i8 wraps at 128,
// so rows >= 128 see only keys 128..i. Not causal (was raised as causal).
// No attribute states it: mask_mod computes it in i8, as the program does.
// CHECK-LABEL: func.func @i8_wraps_at_128
// CHECK: fa.attention {{.+}} {scale = 1.250000e-01 : f32} -> {{.+}} mask_mod {
// CHECK: arith.index_cast {{.+}} : index to i8
// CHECK: arith.cmpi
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @i8_wraps_at_128(%q: tensor<1x200x8xf32>, %k: tensor<1x200x8xf32>, %v: tensor<1x200x8xf32>) -> tensor<1x200x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<1x200x200xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x200x200xf32>) -> tensor<1x200x200xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x200x8xf32>, tensor<1x200x8xf32>) outs(%fs : tensor<1x200x200xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x200x200xf32>
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<1x200x200xf32>) outs(%es : tensor<1x200x200xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %i8 = arith.index_cast %i : index to i8
    %j8 = arith.index_cast %j : index to i8
    %h = arith.cmpi sgt, %j8, %i8 : i8
    %x = arith.select %h, %ninf, %s : f32
    linalg.yield %x : f32
  } -> tensor<1x200x200xf32>
  %er = tensor.empty() : tensor<1x200xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<1x200xf32>) -> tensor<1x200xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<1x200x200xf32>) outs(%fm : tensor<1x200xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x200xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x200x200xf32>, tensor<1x200xf32>) outs(%es : tensor<1x200x200xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<1x200x200xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<1x200xf32>) -> tensor<1x200xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<1x200x200xf32>) outs(%fl : tensor<1x200xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x200xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x200x200xf32>, tensor<1x200xf32>) outs(%es : tensor<1x200x200xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<1x200x200xf32>
  %eo = tensor.empty() : tensor<1x200x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x200x8xf32>) -> tensor<1x200x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 1 query heads / 1 kv heads, scale 1.250000e-01, mask_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x200x200xf32>, tensor<1x200x8xf32>) outs(%fo : tensor<1x200x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x200x8xf32>
  return %out : tensor<1x200x8xf32>
}

// -----

// The same at sequence 100: no wrap, causal.
// CHECK-LABEL: func.func @i8_no_wrap
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @i8_no_wrap(%q: tensor<1x100x8xf32>, %k: tensor<1x100x8xf32>, %v: tensor<1x100x8xf32>) -> tensor<1x100x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<1x100x100xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x100x100xf32>) -> tensor<1x100x100xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x100x8xf32>, tensor<1x100x8xf32>) outs(%fs : tensor<1x100x100xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x100x100xf32>
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<1x100x100xf32>) outs(%es : tensor<1x100x100xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %i8 = arith.index_cast %i : index to i8
    %j8 = arith.index_cast %j : index to i8
    %h = arith.cmpi sgt, %j8, %i8 : i8
    %x = arith.select %h, %ninf, %s : f32
    linalg.yield %x : f32
  } -> tensor<1x100x100xf32>
  %er = tensor.empty() : tensor<1x100xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<1x100xf32>) -> tensor<1x100xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<1x100x100xf32>) outs(%fm : tensor<1x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x100xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x100x100xf32>, tensor<1x100xf32>) outs(%es : tensor<1x100x100xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<1x100x100xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<1x100xf32>) -> tensor<1x100xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<1x100x100xf32>) outs(%fl : tensor<1x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x100xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x100x100xf32>, tensor<1x100xf32>) outs(%es : tensor<1x100x100xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<1x100x100xf32>
  %eo = tensor.empty() : tensor<1x100x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x100x8xf32>) -> tensor<1x100x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 1 query heads / 1 kv heads, scale 1.250000e-01, causal)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x100x100xf32>, tensor<1x100x8xf32>) outs(%fo : tensor<1x100x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x100x8xf32>
  return %out : tensor<1x100x8xf32>
}

// -----

// i8 read unsigned: uitofp of the wrapped i8 gives back 0..199, causal.
// CHECK-LABEL: func.func @uitofp_of_i8
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @uitofp_of_i8(%q: tensor<1x200x8xf32>, %k: tensor<1x200x8xf32>, %v: tensor<1x200x8xf32>) -> tensor<1x200x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<1x200x200xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x200x200xf32>) -> tensor<1x200x200xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x200x8xf32>, tensor<1x200x8xf32>) outs(%fs : tensor<1x200x200xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x200x200xf32>
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<1x200x200xf32>) outs(%es : tensor<1x200x200xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %i8 = arith.index_cast %i : index to i8
    %j8 = arith.index_cast %j : index to i8
    %fi = arith.uitofp %i8 : i8 to f32
    %fj = arith.uitofp %j8 : i8 to f32
    %h = arith.cmpf ogt, %fj, %fi : f32
    %x = arith.select %h, %ninf, %s : f32
    linalg.yield %x : f32
  } -> tensor<1x200x200xf32>
  %er = tensor.empty() : tensor<1x200xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<1x200xf32>) -> tensor<1x200xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<1x200x200xf32>) outs(%fm : tensor<1x200xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x200xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x200x200xf32>, tensor<1x200xf32>) outs(%es : tensor<1x200x200xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<1x200x200xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<1x200xf32>) -> tensor<1x200xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<1x200x200xf32>) outs(%fl : tensor<1x200xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x200xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x200x200xf32>, tensor<1x200xf32>) outs(%es : tensor<1x200x200xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<1x200x200xf32>
  %eo = tensor.empty() : tensor<1x200x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x200x8xf32>) -> tensor<1x200x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 1 query heads / 1 kv heads, scale 1.250000e-01, causal)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x200x200xf32>, tensor<1x200x8xf32>) outs(%fo : tensor<1x200x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x200x8xf32>
  return %out : tensor<1x200x8xf32>
}

// -----

// sitofp of the same i8: wraps, not causal.
// No attribute states it: mask_mod computes it in the program's types.
// CHECK-LABEL: func.func @sitofp_of_i8
// CHECK: fa.attention {{.+}} {scale = 1.250000e-01 : f32} -> {{.+}} mask_mod {
// CHECK: arith.sitofp
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @sitofp_of_i8(%q: tensor<1x200x8xf32>, %k: tensor<1x200x8xf32>, %v: tensor<1x200x8xf32>) -> tensor<1x200x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<1x200x200xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x200x200xf32>) -> tensor<1x200x200xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x200x8xf32>, tensor<1x200x8xf32>) outs(%fs : tensor<1x200x200xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x200x200xf32>
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<1x200x200xf32>) outs(%es : tensor<1x200x200xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %i8 = arith.index_cast %i : index to i8
    %j8 = arith.index_cast %j : index to i8
    %fi = arith.sitofp %i8 : i8 to f32
    %fj = arith.sitofp %j8 : i8 to f32
    %h = arith.cmpf ogt, %fj, %fi : f32
    %x = arith.select %h, %ninf, %s : f32
    linalg.yield %x : f32
  } -> tensor<1x200x200xf32>
  %er = tensor.empty() : tensor<1x200xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<1x200xf32>) -> tensor<1x200xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<1x200x200xf32>) outs(%fm : tensor<1x200xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x200xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x200x200xf32>, tensor<1x200xf32>) outs(%es : tensor<1x200x200xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<1x200x200xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<1x200xf32>) -> tensor<1x200xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<1x200x200xf32>) outs(%fl : tensor<1x200xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x200xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x200x200xf32>, tensor<1x200xf32>) outs(%es : tensor<1x200x200xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<1x200x200xf32>
  %eo = tensor.empty() : tensor<1x200x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x200x8xf32>) -> tensor<1x200x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 1 query heads / 1 kv heads, scale 1.250000e-01, mask_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x200x200xf32>, tensor<1x200x8xf32>) outs(%fo : tensor<1x200x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x200x8xf32>
  return %out : tensor<1x200x8xf32>
}

// -----

// (i - j) <u 16 holds exactly when j <= i: i - j wraps to a huge unsigned
// value for j > i. Causal (was raised with no mask).
// CHECK-LABEL: func.func @unsigned_difference_causal
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @unsigned_difference_causal(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c16 = arith.constant 16 : index
    %dd = arith.subi %i, %j : index
    %keep = arith.cmpi ult, %dd, %c16 : index
    %x = arith.select %keep, %s, %ninf : f32
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
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// (i - j) <u 4 in i32: a causal window of 3 keys back.
// CHECK-LABEL: func.func @unsigned_difference_window
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32, window = array<i64: 3, 0>}
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @unsigned_difference_window(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c4 = arith.constant 4 : i32
    %i32 = arith.index_cast %i : index to i32
    %j32 = arith.index_cast %j : index to i32
    %dd = arith.subi %i32, %j32 : i32
    %keep = arith.cmpi ult, %dd, %c4 : i32
    %x = arith.select %keep, %s, %ninf : f32
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
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal window [3, 0])}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// extsi of an i1 true is -1: (extsi (j > i)) < 0 hides j > i. Causal (was
// raised with no mask: the extension was read as 0 / 1).
// CHECK-LABEL: func.func @extsi_of_bool
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @extsi_of_bool(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c0 = arith.constant 0 : i32
    %b = arith.cmpi sgt, %j, %i : index
    %e = arith.extsi %b : i1 to i32
    %h = arith.cmpi slt, %e, %c0 : i32
    %x = arith.select %h, %ninf, %s : f32
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
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// andi is bitwise: (j - i) & -8 == 0 keeps 0 <= j - i <= 7, a window
// (0, 7) (was read as a logical and: the diagonal only).
// CHECK-LABEL: func.func @bitwise_and_window
// CHECK: fa.attention {{.+}} {scale = 1.250000e-01 : f32, window = array<i64: 0, 7>}
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @bitwise_and_window(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %cm8 = arith.constant -8 : i64
    %c0 = arith.constant 0 : i64
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %dd = arith.subi %j64, %i64 : i64
    %t = arith.andi %dd, %cm8 : i64
    %h = arith.cmpi ne, %t, %c0 : i64
    %x = arith.select %h, %ninf, %s : f32
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
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, window [0, 7])}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// j > i + INT64_MAX: i + INT64_MAX wraps for i >= 1, hiding every key of
// those rows. Not a mask fa.attention has (was raised with no mask).
// Now a mask_mod that wraps as the program does.
// CHECK-LABEL: func.func @add_int64_max_wraps
// CHECK: fa.attention {{.+}} {scale = 1.250000e-01 : f32} -> {{.+}} mask_mod {
// CHECK: arith.addi
// CHECK: arith.cmpi
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @add_int64_max_wraps(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %cmax = arith.constant 9223372036854775807 : i64
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %t = arith.addi %i64, %cmax : i64
    %h = arith.cmpi sgt, %j64, %t : i64
    %x = arith.select %h, %ninf, %s : f32
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
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, mask_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// The same add with nsw: the overflow is poison; declined, naming the op.
// CHECK-LABEL: func.func @add_nsw_overflows
// CHECK-NOT: fa.attention
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @add_nsw_overflows(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %cmax = arith.constant 9223372036854775807 : i64
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %t = arith.addi %i64, %cmax overflow<nsw> : i64
    %h = arith.cmpi sgt, %j64, %t : i64
    %x = arith.select %h, %ninf, %s : f32
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
  // expected-remark @+1 {{attention not raised: the mask's 'arith.addi' overflows although its flags forbid it at row 1, key 0: the program has no defined value there}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// Division by zero has no value: declined, naming the op.
// CHECK-LABEL: func.func @divsi_by_zero
// CHECK-NOT: fa.attention
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @divsi_by_zero(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %qq = arith.divsi %i64, %j64 : i64
    %h = arith.cmpi sgt, %qq, %i64 : i64
    %x = arith.select %h, %ninf, %s : f32
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
  // expected-remark @+1 {{attention not raised: the mask's 'arith.divsi' divides by zero or overflows at row 0, key 0: the program has no defined value there}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// An op the evaluator does not model is named in the remark.
// CHECK-LABEL: func.func @unmodelled_op
// CHECK-NOT: fa.attention
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @unmodelled_op(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c1 = arith.constant 1 : index
    %i2 = arith.shli %i, %c1 : index
    %h = arith.cmpi sgt, %j, %i2 : index
    %x = arith.select %h, %ninf, %s : f32
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
  // expected-remark @+1 {{attention not raised: the mask has an op that is not modelled: 'arith.shli'}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// A decline names the op that stopped it (issue 34 item 7).
// CHECK-LABEL: func.func @scores_through_unmodelled_op
// CHECK-NOT: fa.attention
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @scores_through_unmodelled_op(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %x = math.sin %s : f32
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
  // expected-remark @+1 {{attention not raised: the scores go through an op that is not a scale, bias, mask, softcap or cast: 'math.sin'}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// A select whose sides are no mask fill, named.
// CHECK-LABEL: func.func @select_not_a_mask
// CHECK-NOT: fa.attention
#mq = affine_map<(b, i, j, d) -> (b, i, d)>
#mk = affine_map<(b, i, j, d) -> (b, j, d)>
#ms = affine_map<(b, i, j, d) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#mp = affine_map<(b, i, e, j) -> (b, i, j)>
#mv = affine_map<(b, i, e, j) -> (b, j, e)>
#mo = affine_map<(b, i, e, j) -> (b, i, e)>
func.func @select_not_a_mask(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qk : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %h = arith.cmpi ugt, %j, %i : index
    %c1 = arith.constant -1.0 : f32
    %x = arith.select %h, %c1, %s : f32
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
  // expected-remark @+1 {{attention not raised: a select that is not a mask ('arith.select': neither side is -inf or <= -1e4)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%fo : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// TOSA: i8 positions plus 120 wrap for rows >= 8 (tosa.add on integers
// wraps), which hides every key of those rows (was raised with no mask): a
// constant that is no causal mask or window, kept as the bias.
// Now computed in mask_mod (in i8, wrapping) instead of a [S, S] bias.
// CHECK-LABEL: func.func @tosa_i8_add_wraps
// CHECK: fa.attention {{.+}} captures({{.+}} : tensor<1x1x16xi8>, tensor<1x16x1xi8>) {scale = 1.250000e-01 : f32} -> {{.+}} mask_mod {
// CHECK: arith.addi {{.+}} : i8
func.func @tosa_i8_add_wraps(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %fmin = "tosa.const"() <{values = dense<-3.40282347E+38> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %fzero = "tosa.const"() <{values = dense<0.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %qi = "tosa.const"() <{values = dense<[[[0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15]]]> : tensor<1x16x1xi8>}> : () -> tensor<1x16x1xi8>
  %kj = "tosa.const"() <{values = dense<[[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]]> : tensor<1x1x16xi8>}> : () -> tensor<1x1x16xi8>
  
  %c120 = "tosa.const"() <{values = dense<120> : tensor<1x1x1xi8>}> : () -> tensor<1x1x1xi8>
  %t = tosa.add %qi, %c120 : (tensor<1x16x1xi8>, tensor<1x1x1xi8>) -> tensor<1x16x1xi8>
  %h = tosa.greater %kj, %t : (tensor<1x1x16xi8>, tensor<1x16x1xi8>) -> tensor<1x16x16xi1>
  %x = tosa.select %h, %ninf, %ss : (tensor<1x16x16xi1>, tensor<1x1x1xf32>, tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %rmax = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %rdiff = tosa.sub %x, %rmax : (tensor<2x16x16xf32>, tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %rexp = tosa.exp %rdiff : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %rsum = tosa.reduce_sum %rexp {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %rrec = tosa.reciprocal %rsum : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %prob = tosa.mul %rexp, %rrec, %shift : (tensor<2x16x16xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, mask_mod)}}
  %out = tosa.matmul %prob, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}

// -----

// TOSA: i8 positions minus a key, compared with 0 through an i1 -> f32
// cast (uitofp: true is 1.0): causal.
// CHECK-LABEL: func.func @tosa_bool_to_float
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
func.func @tosa_bool_to_float(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %fmin = "tosa.const"() <{values = dense<-3.40282347E+38> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %fzero = "tosa.const"() <{values = dense<0.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %qi = "tosa.const"() <{values = dense<[[[0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15]]]> : tensor<1x16x1xi8>}> : () -> tensor<1x16x1xi8>
  %kj = "tosa.const"() <{values = dense<[[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]]> : tensor<1x1x16xi8>}> : () -> tensor<1x1x16xi8>
  
  %dd = tosa.sub %kj, %qi : (tensor<1x1x16xi8>, tensor<1x16x1xi8>) -> tensor<1x16x16xi8>
  %z8 = "tosa.const"() <{values = dense<0> : tensor<1x1x1xi8>}> : () -> tensor<1x1x1xi8>
  %h = tosa.greater %dd, %z8 : (tensor<1x16x16xi8>, tensor<1x1x1xi8>) -> tensor<1x16x16xi1>
  %hf = tosa.cast %h : (tensor<1x16x16xi1>) -> tensor<1x16x16xf32>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %hb = tosa.greater %hf, %half : (tensor<1x16x16xf32>, tensor<1x1x1xf32>) -> tensor<1x16x16xi1>
  %x = tosa.select %hb, %ninf, %ss : (tensor<1x16x16xi1>, tensor<1x1x1xf32>, tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %rmax = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %rdiff = tosa.sub %x, %rmax : (tensor<2x16x16xf32>, tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %rexp = tosa.exp %rdiff : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %rsum = tosa.reduce_sum %rexp {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %rrec = tosa.reciprocal %rsum : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %prob = tosa.mul %rexp, %rrec, %shift : (tensor<2x16x16xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal)}}
  %out = tosa.matmul %prob, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x8xf32>
  return %out : tensor<2x16x8xf32>
}
