// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// IREE's iree_linalg_ext.attention raised to fa.attention
// (Raising/IREEAttention.cpp): the indexing maps say which loop dimension is
// batch, query row, value head, head or key; Q, K and V are traced through
// their views (the [B*H] flattening) and the mask is analyzed as for
// tm_tensor.attention. test/Frontends/raise-iree.test raises the corpus's
// IREE files, test/Frontends/numerics-iree.py runs them against PyTorch.

// [B, H, S, D] flattened to [B*H, S, D]: bhsd on the program's tensors.
// CHECK-LABEL: func.func @flattened_heads
// CHECK-SAME: (%[[Q:.+]]: tensor<2x4x10x8xf32>, %[[K:.+]]: tensor<2x4x10x8xf32>, %[[V:.+]]: tensor<2x4x10x8xf32>)
// CHECK: %[[O:.+]] = fa.attention %[[Q]], %[[K]], %[[V]] : {{.+}} {scale = 1.250000e-01 : f32} -> tensor<2x4x10x8xf32>
// CHECK-NOT: iree_linalg_ext
// CHECK: return %[[O]]
func.func @flattened_heads(%q: tensor<2x4x10x8xf32>, %k: tensor<2x4x10x8xf32>, %v: tensor<2x4x10x8xf32>) -> tensor<2x4x10x8xf32> {
  %s = arith.constant 1.250000e-01 : f32
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x10x8xf32> into tensor<8x10x8xf32>
  %kc = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<2x4x10x8xf32> into tensor<8x10x8xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x10x8xf32> into tensor<8x10x8xf32>
  %0 = tensor.empty() : tensor<8x10x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.250000e-01)}}
  %1 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%qc, %kc, %vc, %s : tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x8xf32>, f32) outs(%0 : tensor<8x10x8xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<8x10x8xf32>
  %2 = tensor.expand_shape %1 [[0, 1], [2], [3]] output_shape [2, 4, 10, 8] : tensor<8x10x8xf32> into tensor<2x4x10x8xf32>
  return %2 : tensor<2x4x10x8xf32>
}

// -----

// A boolean mask computed from the positions (visible where k <= q), V
// read transposed through its map ([B, N, K2]): causal.
// CHECK-LABEL: func.func @causal_mask_transposed_value
// CHECK: fa.attention {{.+}} {causal, scale = 2.500000e-01 : f32}
// CHECK-NOT: iree_linalg_ext
func.func @causal_mask_transposed_value(%q: tensor<4x10x8xf32>, %k: tensor<4x10x8xf32>, %vt: tensor<4x16x10xf32>) -> tensor<4x10x16xf32> {
  %s = arith.constant 2.500000e-01 : f32
  %em = tensor.empty() : tensor<4x10x10xi1>
  %m = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%em : tensor<4x10x10xi1>) {
  ^bb0(%o: i1):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c = arith.cmpi ule, %j, %i : index
    linalg.yield %c : i1
  } -> tensor<4x10x10xi1>
  %0 = tensor.empty() : tensor<4x10x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 2.500000e-01, causal)}}
  %1 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %vt, %s, %m : tensor<4x10x8xf32>, tensor<4x10x8xf32>, tensor<4x16x10xf32>, f32, tensor<4x10x10xi1>) outs(%0 : tensor<4x10x16xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<4x10x16xf32>
  return %1 : tensor<4x10x16xf32>
}

// -----

// A score region that changes the scores: declined, naming its op.
// CHECK-LABEL: func.func @score_region_modified
// CHECK: iree_linalg_ext.attention
// CHECK-NOT: fa.attention
func.func @score_region_modified(%q: tensor<4x10x8xf32>, %k: tensor<4x10x8xf32>, %v: tensor<4x10x8xf32>, %a: f32) -> tensor<4x10x8xf32> {
  %s = arith.constant 1.250000e-01 : f32
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-remark @+1 {{attention not raised: the op's score region modifies the scores ('math.tanh')}}
  %1 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v, %s : tensor<4x10x8xf32>, tensor<4x10x8xf32>, tensor<4x10x8xf32>, f32) outs(%0 : tensor<4x10x8xf32>) {
  ^bb0(%score: f32):
    %t = math.tanh %score : f32
    iree_linalg_ext.yield %t : f32
  } -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}

// -----

// A scale the program passes in: declined.
// CHECK-LABEL: func.func @scale_argument
// CHECK: iree_linalg_ext.attention
// CHECK-NOT: fa.attention
func.func @scale_argument(%q: tensor<4x10x8xf32>, %k: tensor<4x10x8xf32>, %v: tensor<4x10x8xf32>, %a: f32) -> tensor<4x10x8xf32> {
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-remark @+1 {{attention not raised: the scale (input 3) is not a constant}}
  %1 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v, %a : tensor<4x10x8xf32>, tensor<4x10x8xf32>, tensor<4x10x8xf32>, f32) outs(%0 : tensor<4x10x8xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}
