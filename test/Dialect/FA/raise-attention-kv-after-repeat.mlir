// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// K or V computed after their repeat to the query heads (Falcon's new
// decoder architecture: RoPE applied to the broadcast K, per query head):
// the values do not vary along the group, which Raising/GroupInvariance.cpp
// proves through elementwise ops, slices, concatenations and views down to
// the kv-head tensors; the op then reads the first head of each group and
// has the kv heads the program repeated. What may vary along the group (a
// per-head factor, the head index) stays per query head.
// test/Execution/raise-unseen.py runs the raised ones against the original.

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, s, d) -> (b, h, s, d)>
#sd = affine_map<(b, h, s, d) -> (s, d)>
#hh = affine_map<(b, h, s, d) -> (h)>

// RoPE (a cos / sin table, rotate-half by slices and a concat) applied to
// the repeated K: 2 kv heads, K read at the first query head of each group.
// CHECK-LABEL: func.func @k_rope_after_repeat
// CHECK: %[[K:.+]] = tensor.extract_slice %{{.+}}[0, 0, 0, 0, 0] [1, 2, 2, 8, 4] [1, 1, 1, 1, 1] : tensor<2x2x2x8x4xf32> to tensor<2x2x8x4xf32>
// CHECK: fa.attention %arg0, %[[K]], %{{.+}} : tensor<2x4x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32> {scale = 1.000000e+00 : f32}
func.func @k_rope_after_repeat(%q: tensor<2x4x8x4xf32>, %kkv: tensor<2x2x8x4xf32>, %vkv: tensor<2x2x8x4xf32>, %cos: tensor<8x4xf32>) -> tensor<2x4x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<2x4x8x4xf32>
  %kr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %kr_b = linalg.broadcast ins(%kkv : tensor<2x2x8x4xf32>) outs(%kr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %vr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %vr_b = linalg.broadcast ins(%vkv : tensor<2x2x8x4xf32>) outs(%vr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %kc = linalg.generic {indexing_maps = [#id, #sd, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kr, %cos : tensor<2x4x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x4x8x4xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x4x8x4xf32>
  %lo = tensor.extract_slice %kr[0, 0, 0, 0] [2, 4, 8, 2] [1, 1, 1, 1] : tensor<2x4x8x4xf32> to tensor<2x4x8x2xf32>
  %hi = tensor.extract_slice %kr[0, 0, 0, 2] [2, 4, 8, 2] [1, 1, 1, 1] : tensor<2x4x8x4xf32> to tensor<2x4x8x2xf32>
  %e_half = tensor.empty() : tensor<2x4x8x2xf32>
  %nhi = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%hi : tensor<2x4x8x2xf32>) outs(%e_half : tensor<2x4x8x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<2x4x8x2xf32>
  %rot = tensor.concat dim(3) %nhi, %lo : (tensor<2x4x8x2xf32>, tensor<2x4x8x2xf32>) -> tensor<2x4x8x4xf32>
  %ks = linalg.generic {indexing_maps = [#id, #sd, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%rot, %cos : tensor<2x4x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x4x8x4xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %y = math.sin %c : f32
    %z = arith.mulf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<2x4x8x4xf32>
  %kk = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kc, %ks : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>) outs(%e4 : tensor<2x4x8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.addf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<2x4x8x4xf32>
  %vv = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %e_s = tensor.empty() : tensor<2x4x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kk : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>) outs(%f_s : tensor<2x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%qk : tensor<2x4x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4x8x4xf32>) -> tensor<2x4x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 2 kv heads, scale 1.000000e+00)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %vv : tensor<2x4x8x8xf32>, tensor<2x4x8x4xf32>) outs(%f_o : tensor<2x4x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x4xf32>
  return %o : tensor<2x4x8x4xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, s, d) -> (b, h, s, d)>
#sd = affine_map<(b, h, s, d) -> (s, d)>
#hh = affine_map<(b, h, s, d) -> (h)>

// K and V both computed after the repeat (each plus a [S, D] table): both
// read at the first head of each group.
// CHECK-LABEL: func.func @v_biased_after_repeat
// CHECK: fa.attention %arg0, {{[^ ]+}}, {{[^ ]+}} : tensor<2x4x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32> {scale = 1.000000e+00 : f32}
func.func @v_biased_after_repeat(%q: tensor<2x4x8x4xf32>, %kkv: tensor<2x2x8x4xf32>, %vkv: tensor<2x2x8x4xf32>, %cos: tensor<8x4xf32>) -> tensor<2x4x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<2x4x8x4xf32>
  %kr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %kr_b = linalg.broadcast ins(%kkv : tensor<2x2x8x4xf32>) outs(%kr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %vr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %vr_b = linalg.broadcast ins(%vkv : tensor<2x2x8x4xf32>) outs(%vr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %kk = linalg.generic {indexing_maps = [#id, #sd, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kr, %cos : tensor<2x4x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x4x8x4xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %y = arith.addf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x4x8x4xf32>
  %vv = linalg.generic {indexing_maps = [#id, #sd, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%vr, %cos : tensor<2x4x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x4x8x4xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %y = arith.subf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x4x8x4xf32>
  %e_s = tensor.empty() : tensor<2x4x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kk : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>) outs(%f_s : tensor<2x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%qk : tensor<2x4x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4x8x4xf32>) -> tensor<2x4x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 2 kv heads, scale 1.000000e+00)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %vv : tensor<2x4x8x8xf32>, tensor<2x4x8x4xf32>) outs(%f_o : tensor<2x4x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x4xf32>
  return %o : tensor<2x4x8x4xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, s, d) -> (b, h, s, d)>
#sd = affine_map<(b, h, s, d) -> (s, d)>
#hh = affine_map<(b, h, s, d) -> (h)>

// The repeated K times a per-head factor (an input read at the query
// head): K varies along the group, V is read per query head (MHA).
// CHECK-LABEL: func.func @k_per_head_factor
// CHECK: fa.attention %arg0, {{[^ ]+}}, {{[^ ]+}} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> {scale = 1.000000e+00 : f32}
func.func @k_per_head_factor(%q: tensor<2x4x8x4xf32>, %kkv: tensor<2x2x8x4xf32>, %vkv: tensor<2x2x8x4xf32>, %cos: tensor<8x4xf32>, %hs: tensor<4xf32>) -> tensor<2x4x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<2x4x8x4xf32>
  %kr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %kr_b = linalg.broadcast ins(%kkv : tensor<2x2x8x4xf32>) outs(%kr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %vr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %vr_b = linalg.broadcast ins(%vkv : tensor<2x2x8x4xf32>) outs(%vr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %kk = linalg.generic {indexing_maps = [#id, #hh, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kr, %hs : tensor<2x4x8x4xf32>, tensor<4xf32>) outs(%e4 : tensor<2x4x8x4xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x4x8x4xf32>
  %vv = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %e_s = tensor.empty() : tensor<2x4x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kk : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>) outs(%f_s : tensor<2x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%qk : tensor<2x4x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4x8x4xf32>) -> tensor<2x4x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %vv : tensor<2x4x8x8xf32>, tensor<2x4x8x4xf32>) outs(%f_o : tensor<2x4x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x4xf32>
  return %o : tensor<2x4x8x4xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, s, d) -> (b, h, s, d)>
#sd = affine_map<(b, h, s, d) -> (s, d)>
#hh = affine_map<(b, h, s, d) -> (h)>

// The repeated K plus its query head's index: varies along the group.
// CHECK-LABEL: func.func @k_head_index
// CHECK: fa.attention %arg0, {{[^ ]+}}, {{[^ ]+}} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> {scale = 1.000000e+00 : f32}
func.func @k_head_index(%q: tensor<2x4x8x4xf32>, %kkv: tensor<2x2x8x4xf32>, %vkv: tensor<2x2x8x4xf32>, %cos: tensor<8x4xf32>) -> tensor<2x4x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<2x4x8x4xf32>
  %kr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %kr_b = linalg.broadcast ins(%kkv : tensor<2x2x8x4xf32>) outs(%kr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %vr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %vr_b = linalg.broadcast ins(%vkv : tensor<2x2x8x4xf32>) outs(%vr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %kk = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kr : tensor<2x4x8x4xf32>) outs(%e4 : tensor<2x4x8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %h = linalg.index 1 : index
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %y = arith.addf %x, %hf : f32
    linalg.yield %y : f32
  } -> tensor<2x4x8x4xf32>
  %vv = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %e_s = tensor.empty() : tensor<2x4x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kk : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>) outs(%f_s : tensor<2x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%qk : tensor<2x4x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4x8x4xf32>) -> tensor<2x4x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %vv : tensor<2x4x8x8xf32>, tensor<2x4x8x4xf32>) outs(%f_o : tensor<2x4x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x4xf32>
  return %o : tensor<2x4x8x4xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, s, d) -> (b, h, s, d)>
#sd = affine_map<(b, h, s, d) -> (s, d)>
#hh = affine_map<(b, h, s, d) -> (h)>

// The repeated K shifted along the heads (a slice of the head dimension
// concatenated back): the slice cuts the group, so K may vary along it.
// CHECK-LABEL: func.func @k_slice_of_heads
// CHECK: fa.attention %arg0, {{[^ ]+}}, {{[^ ]+}} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> {scale = 1.000000e+00 : f32}
func.func @k_slice_of_heads(%q: tensor<2x4x8x4xf32>, %kkv: tensor<2x2x8x4xf32>, %vkv: tensor<2x2x8x4xf32>, %cos: tensor<8x4xf32>) -> tensor<2x4x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<2x4x8x4xf32>
  %kr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %kr_b = linalg.broadcast ins(%kkv : tensor<2x2x8x4xf32>) outs(%kr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %vr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %vr_b = linalg.broadcast ins(%vkv : tensor<2x2x8x4xf32>) outs(%vr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %h0 = tensor.extract_slice %kr[0, 0, 0, 0] [2, 1, 8, 4] [1, 1, 1, 1] : tensor<2x4x8x4xf32> to tensor<2x1x8x4xf32>
  %h1 = tensor.extract_slice %kr[0, 1, 0, 0] [2, 3, 8, 4] [1, 1, 1, 1] : tensor<2x4x8x4xf32> to tensor<2x3x8x4xf32>
  %kk = tensor.concat dim(1) %h1, %h0 : (tensor<2x3x8x4xf32>, tensor<2x1x8x4xf32>) -> tensor<2x4x8x4xf32>
  %vv = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %e_s = tensor.empty() : tensor<2x4x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kk : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>) outs(%f_s : tensor<2x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%qk : tensor<2x4x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4x8x4xf32>) -> tensor<2x4x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %vv : tensor<2x4x8x8xf32>, tensor<2x4x8x4xf32>) outs(%f_o : tensor<2x4x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x4xf32>
  return %o : tensor<2x4x8x4xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, s, d) -> (b, h, s, d)>
#sd = affine_map<(b, h, s, d) -> (s, d)>
#hh = affine_map<(b, h, s, d) -> (h)>

// The repeated K times a per-head constant that is equal within each group:
// the constant's elements are compared along the group, K does not vary.
// CHECK-LABEL: func.func @k_times_group_constant
// CHECK: fa.attention %arg0, {{[^ ]+}}, {{[^ ]+}} : tensor<2x4x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32> {scale = 1.000000e+00 : f32}
func.func @k_times_group_constant(%q: tensor<2x4x8x4xf32>, %kkv: tensor<2x2x8x4xf32>, %vkv: tensor<2x2x8x4xf32>, %cos: tensor<8x4xf32>) -> tensor<2x4x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<2x4x8x4xf32>
  %kr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %kr_b = linalg.broadcast ins(%kkv : tensor<2x2x8x4xf32>) outs(%kr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %vr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %vr_b = linalg.broadcast ins(%vkv : tensor<2x2x8x4xf32>) outs(%vr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %hc = arith.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %kk = linalg.generic {indexing_maps = [#id, #hh, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kr, %hc : tensor<2x4x8x4xf32>, tensor<4xf32>) outs(%e4 : tensor<2x4x8x4xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x4x8x4xf32>
  %vv = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %e_s = tensor.empty() : tensor<2x4x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kk : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>) outs(%f_s : tensor<2x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%qk : tensor<2x4x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4x8x4xf32>) -> tensor<2x4x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 2 kv heads, scale 1.000000e+00)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %vv : tensor<2x4x8x8xf32>, tensor<2x4x8x4xf32>) outs(%f_o : tensor<2x4x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x4xf32>
  return %o : tensor<2x4x8x4xf32>
}

// -----

#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, s, d) -> (b, h, s, d)>
#sd = affine_map<(b, h, s, d) -> (s, d)>
#hh = affine_map<(b, h, s, d) -> (h)>

// ... and one that differs within a group: K varies along it (MHA).
// CHECK-LABEL: func.func @k_times_head_constant
// CHECK: fa.attention %arg0, {{[^ ]+}}, {{[^ ]+}} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> {scale = 1.000000e+00 : f32}
func.func @k_times_head_constant(%q: tensor<2x4x8x4xf32>, %kkv: tensor<2x2x8x4xf32>, %vkv: tensor<2x2x8x4xf32>, %cos: tensor<8x4xf32>) -> tensor<2x4x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<2x4x8x4xf32>
  %kr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %kr_b = linalg.broadcast ins(%kkv : tensor<2x2x8x4xf32>) outs(%kr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %vr_e = tensor.empty() : tensor<2x2x2x8x4xf32>
  %vr_b = linalg.broadcast ins(%vkv : tensor<2x2x8x4xf32>) outs(%vr_e : tensor<2x2x2x8x4xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %hc = arith.constant dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %kk = linalg.generic {indexing_maps = [#id, #hh, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kr, %hc : tensor<2x4x8x4xf32>, tensor<4xf32>) outs(%e4 : tensor<2x4x8x4xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x4x8x4xf32>
  %vv = tensor.collapse_shape %vr_b [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x4xf32> into tensor<2x4x8x4xf32>
  %e_s = tensor.empty() : tensor<2x4x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kk : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>) outs(%f_s : tensor<2x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%qk : tensor<2x4x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4x8x4xf32>) -> tensor<2x4x8x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.000000e+00)}}
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%pr, %vv : tensor<2x4x8x8xf32>, tensor<2x4x8x4xf32>) outs(%f_o : tensor<2x4x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x4xf32>
  return %o : tensor<2x4x8x4xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#b0 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#sumg = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#tab = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// A training step whose K is computed after the repeat: its gradient is
// per query head in the program (summed over the group afterwards), which
// fa.attention_grad with kv heads does not give. Declined.
// CHECK-LABEL: func.func @gqa_fwd_bwd_k_after_repeat
// CHECK-NOT: fa.attention
func.func @gqa_fwd_bwd_k_after_repeat(%q: tensor<1x8x64x32xf32>, %kin: tensor<1x2x64x32xf32>, %vin: tensor<1x2x64x32xf32>, %do: tensor<1x8x64x32xf32>, %tab: tensor<64x32xf32>) -> (tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) {
  // repeat_kv, then K plus a [S, D] table
  %ku = tensor.expand_shape %kin [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 64, 32] : tensor<1x2x64x32xf32> into tensor<1x2x1x64x32xf32>
  %vu = tensor.expand_shape %vin [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 64, 32] : tensor<1x2x64x32xf32> into tensor<1x2x1x64x32xf32>
  %e5 = tensor.empty() : tensor<1x2x4x64x32xf32>
  %kx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%ku : tensor<1x2x1x64x32xf32>) outs(%e5 : tensor<1x2x4x64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x4x64x32xf32>
  %vx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%vu : tensor<1x2x1x64x32xf32>) outs(%e5 : tensor<1x2x4x64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x4x64x32xf32>
  %kr = tensor.collapse_shape %kx [[0], [1, 2], [3], [4]] : tensor<1x2x4x64x32xf32> into tensor<1x8x64x32xf32>
  %e_k = tensor.empty() : tensor<1x8x64x32xf32>
  %k = linalg.generic {indexing_maps = [#id4, #tab, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kr, %tab : tensor<1x8x64x32xf32>, tensor<64x32xf32>) outs(%e_k : tensor<1x8x64x32xf32>) {
  ^bb0(%x0: f32, %t0: f32, %out: f32):
    %r = arith.addf %x0, %t0 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x32xf32>
  %v = tensor.collapse_shape %vx [[0], [1, 2], [3], [4]] : tensor<1x2x4x64x32xf32> into tensor<1x8x64x32xf32>

  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c8 = arith.constant 8.0 : f64
  %e_t = tensor.empty() : tensor<1x8x32x64xf32>
  %e_s = tensor.empty() : tensor<1x8x64x64xf32>
  %e_s3 = tensor.empty() : tensor<8x64x64xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %e_q3 = tensor.empty() : tensor<8x64x32xf32>
  %f_q3 = linalg.fill ins(%zero : f32) outs(%e_q3 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %e_r4 = tensor.empty() : tensor<1x8x64x1xf32>
  %f_max = linalg.fill ins(%ninf : f32) outs(%e_r4 : tensor<1x8x64x1xf32>) -> tensor<1x8x64x1xf32>
  %f_sum = linalg.fill ins(%zero : f32) outs(%e_r4 : tensor<1x8x64x1xf32>) -> tensor<1x8x64x1xf32>
  // forward: softmax(q @ k.transpose(-2, -1) / 8) @ v
  %kt = linalg.transpose ins(%k : tensor<1x8x64x32xf32>) outs(%e_t : tensor<1x8x32x64xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x8x64x32xf32> into tensor<8x64x32xf32>
  %ktc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x8x32x64xf32> into tensor<8x32x64xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<8x64x32xf32>, tensor<8x32x64xf32>) outs(%f_s3 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 8, 64, 64] : tensor<8x64x64xf32> into tensor<1x8x64x64xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se : tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %t = arith.truncf %c8 : f64 to f32
    %r = arith.divf %x0, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x8x64x64xf32>) outs(%f_max : tensor<1x8x64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x1xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mx : tensor<1x8x64x64xf32>, tensor<1x8x64x1xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %d = arith.subf %x0, %x1 : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %l = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x8x64x64xf32>) outs(%f_sum : tensor<1x8x64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x8x64x64xf32>, tensor<1x8x64x1xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.divf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x8x64x64xf32> into tensor<8x64x64xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x8x64x32xf32> into tensor<8x64x32xf32>
  // expected-remark @+1 {{attention not raised: a backward through K or V computed per query head}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%f_q3 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 8, 64, 32] : tensor<8x64x32xf32> into tensor<1x8x64x32xf32>
  // backward: dV = p.transpose(-2, -1) @ do
  %pt = linalg.transpose ins(%p : tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) permutation = [0, 1, 3, 2]
  %ptc = tensor.collapse_shape %pt [[0, 1], [2], [3]] : tensor<1x8x64x64xf32> into tensor<8x64x64xf32>
  %doc = tensor.collapse_shape %do [[0, 1], [2], [3]] : tensor<1x8x64x32xf32> into tensor<8x64x32xf32>
  // The backward's P^T dO, left alone with the forward.
  // expected-remark @+1 {{attention not raised: P·V sums over a different dimension than the one the softmax normalizes}}
  %dv = linalg.batch_matmul ins(%ptc, %doc : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%f_q3 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %dve = tensor.expand_shape %dv [[0, 1], [2], [3]] output_shape [1, 8, 64, 32] : tensor<8x64x32xf32> into tensor<1x8x64x32xf32>
  // dP = do @ v.transpose(-2, -1)
  %vt = linalg.transpose ins(%v : tensor<1x8x64x32xf32>) outs(%e_t : tensor<1x8x32x64xf32>) permutation = [0, 1, 3, 2]
  %vtc = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<1x8x32x64xf32> into tensor<8x32x64xf32>
  %dp = linalg.batch_matmul ins(%doc, %vtc : tensor<8x64x32xf32>, tensor<8x32x64xf32>) outs(%f_s3 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %dpe = tensor.expand_shape %dp [[0, 1], [2], [3]] output_shape [1, 8, 64, 64] : tensor<8x64x64xf32> into tensor<1x8x64x64xf32>
  // _softmax_backward_data(dP, P): P * dP - P * sum(P * dP, -1, keepdim)
  %pdp = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%dpe, %p : tensor<1x8x64x64xf32>, tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%pdp : tensor<1x8x64x64xf32>) outs(%f_sum : tensor<1x8x64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x1xf32>
  %prs = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %rs : tensor<1x8x64x64xf32>, tensor<1x8x64x1xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %ds = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pdp, %prs : tensor<1x8x64x64xf32>, tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.subf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %dss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ds : tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %t = arith.truncf %c8 : f64 to f32
    %r = arith.divf %x0, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  // dQ = dS' @ k, dK = dS'.transpose(-2, -1) @ q
  %dssc = tensor.collapse_shape %dss [[0, 1], [2], [3]] : tensor<1x8x64x64xf32> into tensor<8x64x64xf32>
  %kc = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<1x8x64x32xf32> into tensor<8x64x32xf32>
  %dq = linalg.batch_matmul ins(%dssc, %kc : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%f_q3 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %dqe = tensor.expand_shape %dq [[0, 1], [2], [3]] output_shape [1, 8, 64, 32] : tensor<8x64x32xf32> into tensor<1x8x64x32xf32>
  %dsst = linalg.transpose ins(%dss : tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) permutation = [0, 1, 3, 2]
  %dsstc = tensor.collapse_shape %dsst [[0, 1], [2], [3]] : tensor<1x8x64x64xf32> into tensor<8x64x64xf32>
  %dk = linalg.batch_matmul ins(%dsstc, %qc : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%f_q3 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %dke = tensor.expand_shape %dk [[0, 1], [2], [3]] output_shape [1, 8, 64, 32] : tensor<8x64x32xf32> into tensor<1x8x64x32xf32>
  // the backward of repeat_kv: sum over the group
  %dk5 = tensor.expand_shape %dke [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 64, 32] : tensor<1x8x64x32xf32> into tensor<1x2x4x64x32xf32>
  %dv5 = tensor.expand_shape %dve [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 64, 32] : tensor<1x8x64x32xf32> into tensor<1x2x4x64x32xf32>
  %e_kv = tensor.empty() : tensor<1x2x64x32xf32>
  %f_kv = linalg.fill ins(%zero : f32) outs(%e_kv : tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32>
  %dks = linalg.generic {indexing_maps = [#id5, #sumg], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%dk5 : tensor<1x2x4x64x32xf32>) outs(%f_kv : tensor<1x2x64x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x64x32xf32>
  %dvs = linalg.generic {indexing_maps = [#id5, #sumg], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%dv5 : tensor<1x2x4x64x32xf32>) outs(%f_kv : tensor<1x2x64x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x64x32xf32>
  return %oe, %dqe, %dks, %dvs : tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>
}
