// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Biases and masks that are neither causal, a window nor key padding
// (issue 34 item 1, through issue 35's regions): functions of the batch,
// head, query and key indices and of small tensors the program holds become
// fa.attention's score_mod / mask_mod regions, the tensors captures
// (ToRegions.cpp). test/Execution/raise-regions.py runs them against the
// original.

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
// T5's relative position bias: a learned [buckets, heads] table read at a
// bucket computed from k - q. The table is a capture; the bucket is
// computed in score_mod from the indices, nothing [.., Sq, Sk] is made.
// CHECK-LABEL: func.func @t5_bucket_bias
// CHECK: %[[O:.+]] = fa.attention %arg0, %arg1, %arg2 : {{[^(]+}} captures(%arg3 : tensor<8x4xf32>) {scale = 1.000000e+00 : f32} -> tensor<2x4x16x8xf32> score_mod {
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32, %[[B:.+]]: index, %[[H:.+]]: index, %[[I:.+]]: index, %[[J:.+]]: index, %[[TAB:.+]]: tensor<8x4xf32>):
// CHECK: %[[D:.+]] = arith.subi %[[J]], %[[I]] : index
// CHECK: math.absi
// CHECK: arith.minsi
// CHECK: %[[T:.+]] = tensor.extract %[[TAB]][%{{.+}}, %[[H]]] : tensor<8x4xf32>
// CHECK: %[[R:.+]] = arith.addf %[[S]], %[[T]] : f32
// CHECK-NEXT: fa.yield %[[R]] : f32
// CHECK-NOT: mask_mod
// CHECK: return %[[O]]
func.func @t5_bucket_bias(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %tab: tensor<8x4xf32>) -> tensor<2x4x16x8xf32> {
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
    %hi = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %d = arith.subi %j, %i : index
    %di = arith.index_cast %d : index to i64
    %a = math.absi %di : i64
    %c7 = arith.constant 7 : i64
    %bk = arith.minsi %a, %c7 : i64
    %bki = arith.index_cast %bk : i64 to index
    %t = tensor.extract %tab[%bki, %hi] : tensor<8x4xf32>
    %y = arith.addf %in, %t : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, score_mod)}}
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
// Packed sequences (sdpa, -inf fill): per-token document ids compared at
// the query and the key, and causal. The causal part becomes the attribute,
// the document part a mask_mod reading the ids as a capture.
// CHECK-LABEL: func.func @document_mask_causal
// CHECK: fa.attention %arg0, %arg1, %arg2 : {{[^(]+}} captures(%arg3 : tensor<2x16xi64>) {causal, scale = 1.000000e+00 : f32} -> tensor<2x4x16x8xf32> mask_mod {
// CHECK-NEXT: ^bb0(%[[B:.+]]: index, %[[H:.+]]: index, %[[I:.+]]: index, %[[J:.+]]: index, %[[DOC:.+]]: tensor<2x16xi64>):
// CHECK-DAG: %[[DI:.+]] = tensor.extract %[[DOC]][%[[B]], %[[I]]]
// CHECK-DAG: %[[DJ:.+]] = tensor.extract %[[DOC]][%[[B]], %[[J]]]
// CHECK: %[[EQ:.+]] = arith.cmpi eq, %[[DI]], %[[DJ]] : i64
// CHECK-NEXT: fa.yield %[[EQ]] : i1
func.func @document_mask_causal(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %doc: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
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
    %hi = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %di = tensor.extract %doc[%bi, %i] : tensor<2x16xi64>
    %dj = tensor.extract %doc[%bi, %j] : tensor<2x16xi64>
    %same = arith.cmpi eq, %di, %dj : i64
    %past = arith.cmpi ule, %j, %i : index
    %vis = arith.andi %same, %past : i1
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %vis, %in, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, causal, mask_mod)}}
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
// The same with eager's finite fill added: a row whose every key is hidden
// averages V in the original, so the whole 0 / fill term is added in
// score_mod (exact), not split into causal and mask_mod.
// CHECK-LABEL: func.func @document_mask_finite_fill
// CHECK: fa.attention %arg0, %arg1, %arg2 : {{[^(]+}} captures(%arg3 : tensor<2x16xi64>) {scale = 1.000000e+00 : f32} -> tensor<2x4x16x8xf32> score_mod {
// CHECK: arith.select %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK: arith.addf
// CHECK-NOT: mask_mod
func.func @document_mask_finite_fill(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %doc: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
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
    %hi = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %di = tensor.extract %doc[%bi, %i] : tensor<2x16xi64>
    %dj = tensor.extract %doc[%bi, %j] : tensor<2x16xi64>
    %same = arith.cmpi eq, %di, %dj : i64
    %past = arith.cmpi ule, %j, %i : index
    %vis = arith.andi %same, %past : i1
    %fmin = arith.constant -3.40282347E+38 : f32
    %c0 = arith.constant 0.0 : f32
    %m = arith.select %vis, %c0, %fmin : f32
    %y = arith.addf %in, %m : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, score_mod)}}
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
// ALiBi: per-head slopes [H] times k - q, causal: slopes as a capture.
// CHECK-LABEL: func.func @alibi_slopes
// CHECK: fa.attention %arg0, %arg1, %arg2 : {{[^(]+}} captures(%arg3 : tensor<4xf32>) {causal, scale = 1.000000e+00 : f32} -> tensor<2x4x16x8xf32> score_mod {
// CHECK: tensor.extract %{{.+}}[%{{.+}}] : tensor<4xf32>
// CHECK: arith.sitofp
// CHECK-NOT: mask_mod
func.func @alibi_slopes(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %sl: tensor<4xf32>) -> tensor<2x4x16x8xf32> {
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
    %hi = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %sj = tensor.extract %sl[%hi] : tensor<4xf32>
    %d = arith.subi %j, %i : index
    %di = arith.index_cast %d : index to i64
    %df = arith.sitofp %di : i64 to f32
    %b = arith.mulf %sj, %df : f32
    %y = arith.addf %in, %b : f32
    %past = arith.cmpi ule, %j, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %z = arith.select %past, %y, %ninf : f32
    linalg.yield %z : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, causal, score_mod)}}
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
// Prefix-LM: a function of the positions alone that is neither causal nor
// a window: mask_mod from the indices, nothing captured.
// CHECK-LABEL: func.func @prefix_lm
// CHECK: fa.attention %arg0, %arg1, %arg2 : {{[^(]+}} {scale = 1.000000e+00 : f32} -> tensor<2x4x16x8xf32> mask_mod {
// CHECK-NEXT: ^bb0(%{{.+}}: index, %{{.+}}: index, %[[I:.+]]: index, %[[J:.+]]: index):
// CHECK-NEXT: %[[P:.+]] = arith.cmpi ule, %[[J]], %[[I]] : index
// CHECK: %[[F:.+]] = arith.cmpi ult, %[[J]], %{{.+}} : index
// CHECK-NEXT: %[[V:.+]] = arith.ori %[[P]], %[[F]] : i1
// CHECK-NEXT: fa.yield %[[V]] : i1
func.func @prefix_lm(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
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
    %hi = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %past = arith.cmpi ule, %j, %i : index
    %c4 = arith.constant 4 : index
    %prefix = arith.cmpi ult, %j, %c4 : index
    %vis = arith.ori %past, %prefix : i1
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %vis, %in, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, mask_mod)}}
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
// A masking select with a finite fill on a data condition: the hidden
// score becomes the program's fill in score_mod (exact when a row has no
// visible key, where mask_mod's -inf is not).
// CHECK-LABEL: func.func @document_mask_select_finite
// CHECK: fa.attention %arg0, %arg1, %arg2 : {{[^(]+}} captures(%arg3 : tensor<2x16xi64>) {scale = 1.000000e+00 : f32} -> tensor<2x4x16x8xf32> score_mod {
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32,
// CHECK: %[[EQ:.+]] = arith.cmpi eq
// CHECK-NEXT: %[[FILL:.+]] = arith.constant -3.40282347E+38 : f32
// CHECK-NEXT: %[[R:.+]] = arith.select %[[EQ]], %[[S]], %[[FILL]] : f32
// CHECK-NEXT: fa.yield %[[R]] : f32
func.func @document_mask_select_finite(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %doc: tensor<2x16xi64>) -> tensor<2x4x16x8xf32> {
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
    %hi = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %di = tensor.extract %doc[%bi, %i] : tensor<2x16xi64>
    %dj = tensor.extract %doc[%bi, %j] : tensor<2x16xi64>
    %same = arith.cmpi eq, %di, %dj : i64
    %fmin = arith.constant -3.40282347E+38 : f32
    %y = arith.select %same, %in, %fmin : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00, score_mod)}}
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
// A [B, H, Sq, Sk] tensor the program takes as input, read at computed
// indices, is no region term (and not yet an operand: declined as before).
// CHECK-LABEL: func.func @bias_input_stays_operand
// CHECK-NOT: fa.attention
func.func @bias_input_stays_operand(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %bias: tensor<2x4x16x16xf32>) -> tensor<2x4x16x8xf32> {
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
    %hi = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %t = tensor.extract %bias[%bi, %hi, %i, %j] : tensor<2x4x16x16xf32>
    %y = arith.addf %in, %t : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x16x16xf32>) outs(%e_s : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e_o = tensor.empty() : tensor<2x4x16x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{attention not raised: a bias computed from tensors read in an unsupported way}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f_o : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

