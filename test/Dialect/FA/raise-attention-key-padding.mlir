// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Key padding masks (a condition on attention_mask[b, k], Raising/
// KeyPadding.cpp) become a condition on the [B, Sk] tensor the program
// holds, read at (batch, key) in a modifier region that captures it: O(Sk)
// data, never a [B, 1, Sq, Sk] bias operand (Raising/Masks.cpp,
// placeKeyPadding). Where the fill allows it the padding is a mask_mod (the
// kernels may skip the key tiles it hides); a finite fill keeps the
// program's function: in score_mod as the program applies it, or in
// mask_mod with the rows it hides entirely replaced by the mean of V. The
// forms fa.attention cannot express decline, naming why.
// test/Execution/raise-key-padding.py runs the raised ones against the
// original on the CPU.

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>

// DistilBERT: masked_fill(~mask, finfo.min) on the scores, padding alone: the
// select in score_mod with the program's fill.
// CHECK-LABEL: func.func @select_finite_alone
// CHECK: fa.attention {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} : {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} captures(%arg3 : tensor<2x16xi64>) {scale = 1.000000e+00 : f32} -> tensor<2x4x16x8xf32> score_mod {
// CHECK-NEXT: ^bb0(%[[S:[^:]+]]: f32, %[[B:[^:]+]]: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %[[J:[^:]+]]: index, %[[M:[^:]+]]: tensor<2x16xi64>):
// CHECK-NEXT: %[[X:.+]] = tensor.extract %[[M]][%[[B]], %[[J]]] : tensor<2x16xi64>
// CHECK: %[[NZ:.+]] = arith.cmpi ne, %[[X]]
// CHECK: %[[F:.+]] = arith.constant -3.40282347E+38 : f32
// CHECK: %[[R:.+]] = arith.select %[[NZ]], %[[S]], %[[F]] : f32
// CHECK: fa.yield %[[R]] : f32
func.func @select_finite_alone(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x4x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) outs(%f_s : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %bi = linalg.index 0 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c0 = arith.constant 0 : i64
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c50 = arith.constant 50.0 : f32
    %aj = tensor.extract %am[%bi, %j] : tensor<2x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %y = arith.select %kept, %in, %fmin : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, key padding mask, score_mod)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f_o : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>

// Gemma-2 style: the padding where(mask, 0, finfo.min) added after the
// softcap. score_mod would add it before the softcap (which would cap the
// fill); finfo.min absorbs the scores, so the padding is mask_mod and the
// rows it hides entirely the mean of V.
// CHECK-LABEL: func.func @after_softcap_absorbing
// CHECK: %[[O:.+]] = fa.attention {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} : {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} captures(%arg3 : tensor<2x16xi64>) {scale = 1.000000e+00 : f32, softcap = 5.000000e+01 : f32} -> tensor<2x4x16x8xf32> mask_mod {
// CHECK: %[[K:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.+}} : tensor<16xi1>) outs(%{{.+}} : tensor<2x4x16xi1>)
// CHECK: tensor.extract %arg3
// CHECK: linalg.generic {{.+}} ins(%[[O]], %[[K]] : tensor<2x4x16x8xf32>, tensor<2x4x16xi1>)
func.func @after_softcap_absorbing(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x4x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) outs(%f_s : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %bi = linalg.index 0 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c0 = arith.constant 0 : i64
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c50 = arith.constant 50.0 : f32
    %aj = tensor.extract %am[%bi, %j] : tensor<2x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %d = arith.divf %in, %c50 : f32
    %t = math.tanh %d : f32
    %sc = arith.mulf %t, %c50 : f32
    %pad = arith.select %kept, %zero, %fmin : f32
    %y = arith.addf %sc, %pad : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, softcap 5.000000e+01, key padding mask, mask_mod)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f_o : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>

// The same with a fill of -1e9, which does not absorb the scores: a row the
// padding hides entirely is a softmax of its scores, which no form of the
// op gives.
// CHECK-LABEL: func.func @after_softcap_1e9
// CHECK-NOT: fa.attention
func.func @after_softcap_1e9(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x4x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) outs(%f_s : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %bi = linalg.index 0 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c0 = arith.constant 0 : i64
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c50 = arith.constant 50.0 : f32
    %aj = tensor.extract %am[%bi, %j] : tensor<2x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %f9 = arith.constant -1.0e9 : f32
    %d = arith.divf %in, %c50 : f32
    %t = math.tanh %d : f32
    %sc = arith.mulf %t, %c50 : f32
    %pad = arith.select %kept, %zero, %f9 : f32
    %y = arith.addf %sc, %pad : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{attention not raised: a key padding mask with a finite fill (-1.000000e+09) next to a softcap: the fill is above -2^100, so a row whose every key is hidden is a softmax of its scores in the original, which fa.attention cannot express}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f_o : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>

// The padding added before the softcap: a bias there (tanh makes its fill
// -50), so score_mod, which runs before the softcap too.
// CHECK-LABEL: func.func @before_softcap_alone
// CHECK: fa.attention {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} : {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} captures(%arg3 : tensor<2x16xi64>) {scale = 1.000000e+00 : f32, softcap = 5.000000e+01 : f32} -> tensor<2x4x16x8xf32> score_mod {
// CHECK: arith.select
// CHECK: arith.addf
func.func @before_softcap_alone(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x4x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) outs(%f_s : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %bi = linalg.index 0 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c0 = arith.constant 0 : i64
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c50 = arith.constant 50.0 : f32
    %aj = tensor.extract %am[%bi, %j] : tensor<2x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %pad = arith.select %kept, %zero, %fmin : f32
    %a = arith.addf %in, %pad : f32
    %d = arith.divf %a, %c50 : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c50 : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, softcap 5.000000e+01, key padding mask, score_mod)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f_o : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>

// Causal AND padding in one term added before the softcap: neither part is
// a mask there (their fill becomes -50), and the causal attribute would hide
// keys the program keeps.
// CHECK-LABEL: func.func @before_softcap_with_causal
// CHECK-NOT: fa.attention
func.func @before_softcap_with_causal(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x4x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) outs(%f_s : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %bi = linalg.index 0 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c0 = arith.constant 0 : i64
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c50 = arith.constant 50.0 : f32
    %aj = tensor.extract %am[%bi, %j] : tensor<2x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %past = arith.cmpi ule, %j, %i : index
    %vis = arith.andi %past, %kept : i1
    %pad = arith.select %vis, %zero, %fmin : f32
    %a = arith.addf %in, %pad : f32
    %d = arith.divf %a, %c50 : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c50 : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{attention not raised: a key padding mask added before the softcap together with other conditions: the softcap makes its fill a finite score, which the op's masks do not give}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f_o : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>

// A data bias (an input [B, H, Sq, Sk]) and the padding with finfo.min: the
// op would add the two in another order than the program.
// CHECK-LABEL: func.func @finite_fill_with_bias
// CHECK-NOT: fa.attention
func.func @finite_fill_with_bias(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %am: tensor<2x16xi64>, %bias: tensor<2x4x16x16xf32>) -> tensor<2x4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x4x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) outs(%f_s : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %bias : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %bi = linalg.index 0 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c0 = arith.constant 0 : i64
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c50 = arith.constant 50.0 : f32
    %aj = tensor.extract %am[%bi, %j] : tensor<2x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %a = arith.addf %in, %bb : f32
    %pad = arith.select %kept, %zero, %fmin : f32
    %y = arith.addf %a, %pad : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{attention not raised: a key padding mask with a finite fill (-3.402823e+38) and a data-dependent bias}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f_o : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>

// A data bias and the padding with -inf (sdpa): the bias operand as the
// program takes it and the padding in mask_mod.
// CHECK-LABEL: func.func @ninf_with_bias
// CHECK: fa.attention {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} : {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} bias(%arg4 : tensor<2x4x16x16xf32>) captures(%arg3 : tensor<2x16xi64>) {scale = 1.000000e+00 : f32} -> tensor<2x4x16x8xf32> mask_mod {
func.func @ninf_with_bias(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %am: tensor<2x16xi64>, %bias: tensor<2x4x16x16xf32>) -> tensor<2x4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x4x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) outs(%f_s : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %bias : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %bi = linalg.index 0 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c0 = arith.constant 0 : i64
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c50 = arith.constant 50.0 : f32
    %aj = tensor.extract %am[%bi, %j] : tensor<2x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %a = arith.addf %in, %bb : f32
    %pad = arith.select %kept, %zero, %ninf : f32
    %y = arith.addf %a, %pad : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, bias, key padding mask, mask_mod)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f_o : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>

// The padding selected with finfo.min around a document mask selected with
// -1e9: two score_mod selects with different fills, whose nesting the op
// does not keep.
// CHECK-LABEL: func.func @select_two_fills
// CHECK-NOT: fa.attention
func.func @select_two_fills(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %am: tensor<2x16xi64>, %doc: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x4x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) outs(%f_s : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %bi = linalg.index 0 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c0 = arith.constant 0 : i64
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c50 = arith.constant 50.0 : f32
    %aj = tensor.extract %am[%bi, %j] : tensor<2x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %f9 = arith.constant -1.0e9 : f32
    %di = tensor.extract %doc[%bi, %i] : tensor<2x16xi64>
    %dj = tensor.extract %doc[%bi, %j] : tensor<2x16xi64>
    %same = arith.cmpi eq, %di, %dj : i64
    %dm = arith.select %same, %in, %f9 : f32
    %y = arith.select %kept, %dm, %fmin : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{attention not raised: a key padding mask with a finite fill (-3.402823e+38) and a score_mod select with another fill}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f_o : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>

// A [B, Sk] padding mask whose batch equals the sequence length: still the
// [B, Sk] tensor read at (batch, key), captured (not taken for a [Sq, Sk]
// tensor).
// CHECK-LABEL: func.func @batch_equals_seq
// CHECK: fa.attention {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} : {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} captures(%arg3 : tensor<16x16xi64>) {scale = 1.000000e+00 : f32} -> tensor<16x4x16x8xf32> mask_mod {
func.func @batch_equals_seq(%q: tensor<16x4x16x8xf32>, %k: tensor<16x4x16x8xf32>, %v: tensor<16x4x16x8xf32>, %am: tensor<16x16xi64>) -> tensor<16x4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<16x4x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<16x4x16x8xf32>, tensor<16x4x16x8xf32>) outs(%f_s : tensor<16x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<16x4x16x16xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<16x4x16x16xf32>) outs(%e_s : tensor<16x4x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %bi = linalg.index 0 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c0 = arith.constant 0 : i64
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %c50 = arith.constant 50.0 : f32
    %aj = tensor.extract %am[%bi, %j] : tensor<16x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %pad = arith.select %kept, %zero, %ninf : f32
    %y = arith.addf %in, %pad : f32
    linalg.yield %y : f32
  } -> tensor<16x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<16x4x16x16xf32>) outs(%e_s : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
  %e_o = tensor.empty() : tensor<16x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<16x4x16x8xf32>) -> tensor<16x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, key padding mask, mask_mod)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %v : tensor<16x4x16x16xf32>, tensor<16x4x16x8xf32>) outs(%f_o : tensor<16x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<16x4x16x8xf32>
  return %o : tensor<16x4x16x8xf32>
}
