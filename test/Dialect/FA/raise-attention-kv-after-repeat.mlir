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
