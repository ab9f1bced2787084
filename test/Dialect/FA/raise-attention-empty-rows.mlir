// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Rows that transformers' eager finfo.min mask hides entirely (padding AND
// causal in one term) average V over all keys in the original
// (Raising/EmptyRows.cpp). That holds only when the one fill hides every
// hidden key: another mask term beside it declines, naming it.

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>

// causal AND padding in one finfo.min term (transformers' eager mask): causal, the padding in mask_mod reading the [B, Sk] input (no [.., Sq, Sk] operand), and the rows it hides entirely the mean of V: the reduction over the keys evaluates mask_mod's body.
// CHECK-LABEL: func.func @one_term
// CHECK-SAME: %[[AM:[^:]+]]: tensor<2x16xi64>
// CHECK: fa.attention {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} : {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} captures(%[[AM]] : tensor<2x16xi64>) {causal, scale = 1.000000e+00 : f32} -> tensor<2x4x16x8xf32> mask_mod {
// CHECK-NEXT: ^bb0(%[[B:[^:]+]]: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %[[J:[^:]+]]: index, %[[C:[^:]+]]: tensor<2x16xi64>):
// CHECK-NEXT: tensor.extract %[[C]][%[[B]], %[[J]]] : tensor<2x16xi64>
// CHECK-NOT: x16x16x
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.+}} : tensor<16xi1>) outs(%{{.+}} : tensor<2x4x16xi1>)
// CHECK: tensor.extract %[[AM]]
func.func @one_term(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %am: tensor<2x16xi64>, %doc: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
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
    %di = tensor.extract %doc[%bi, %i] : tensor<2x16xi64>
    %dj = tensor.extract %doc[%bi, %j] : tensor<2x16xi64>
    %same = arith.cmpi eq, %di, %dj : i64
    %aj = tensor.extract %am[%bi, %j] : tensor<2x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %past = arith.cmpi ule, %j, %i : index
    %vis = arith.andi %past, %kept : i1
    %pad = arith.select %vis, %zero, %fmin : f32
    %y = arith.addf %in, %pad : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, causal, key padding mask, mask_mod)}}
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

// the same term next to a document mask with -inf (a mask_mod condition): keys hidden by both are -inf, so a row the padding hides entirely is no mean over all keys.
// CHECK-LABEL: func.func @mask_mod_beside
// CHECK-NOT: fa.attention
func.func @mask_mod_beside(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %am: tensor<2x16xi64>, %doc: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
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
    %di = tensor.extract %doc[%bi, %i] : tensor<2x16xi64>
    %dj = tensor.extract %doc[%bi, %j] : tensor<2x16xi64>
    %same = arith.cmpi eq, %di, %dj : i64
    %aj = tensor.extract %am[%bi, %j] : tensor<2x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %past = arith.cmpi ule, %j, %i : index
    %vis = arith.andi %past, %kept : i1
    %pad = arith.select %vis, %zero, %fmin : f32
    %dm = arith.select %same, %in, %ninf : f32
    %y = arith.addf %dm, %pad : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{attention not raised: a key padding mask with a finite fill (-3.402823e+38) next to a causal or window mask: a mask_mod condition ('arith.cmpi') hides keys with -inf, so a row whose every key is hidden mixes two fills in the original}}
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

// the same term next to a document mask added with its own finfo.min (a score_mod term): two fills add up to -inf where both hide.
// CHECK-LABEL: func.func @score_mod_mask_beside
// CHECK-NOT: fa.attention
func.func @score_mod_mask_beside(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %am: tensor<2x16xi64>, %doc: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
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
    %di = tensor.extract %doc[%bi, %i] : tensor<2x16xi64>
    %dj = tensor.extract %doc[%bi, %j] : tensor<2x16xi64>
    %same = arith.cmpi eq, %di, %dj : i64
    %aj = tensor.extract %am[%bi, %j] : tensor<2x16xi64>
    %kept = arith.cmpi ne, %aj, %c0 : i64
    %past = arith.cmpi ule, %j, %i : index
    %vis = arith.andi %past, %kept : i1
    %pad = arith.select %vis, %zero, %fmin : f32
    %dm = arith.select %same, %zero, %fmin : f32
    %s1 = arith.addf %in, %dm : f32
    %y = arith.addf %s1, %pad : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{attention not raised: a key padding mask with a finite fill (-3.402823e+38) next to a causal or window mask: a score_mod mask term ('arith.cmpi') adds its own fill, so a row whose every key is hidden mixes two fills in the original}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f_o : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}
