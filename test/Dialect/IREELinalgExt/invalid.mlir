// RUN: fa-opt %s -split-input-file -verify-diagnostics

// Verifier errors of iree_linalg_ext.attention name the operand or map.

func.func @three_inputs(%q: tensor<4x6x8xf32>, %k: tensor<4x5x8xf32>, %v: tensor<4x5x16xf32>, %m: tensor<4x6x5xf32>, %i: i32) -> tensor<4x6x16xf32> {
  %s = arith.constant 1.250000e-01 : f32
  %0 = tensor.empty() : tensor<4x6x16xf32>
  // expected-error @+1 {{expects ins (query, key, value, scale) or (query, key, value, scale, mask), got 3 inputs}}
  %1 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v : tensor<4x6x8xf32>, tensor<4x5x8xf32>, tensor<4x5x16xf32>) outs(%0 : tensor<4x6x16xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<4x6x16xf32>
  return %1 : tensor<4x6x16xf32>
}

// -----

func.func @scale_not_float(%q: tensor<4x6x8xf32>, %k: tensor<4x5x8xf32>, %v: tensor<4x5x16xf32>, %m: tensor<4x6x5xf32>, %i: i32) -> tensor<4x6x16xf32> {
  %s = arith.constant 1.250000e-01 : f32
  %0 = tensor.empty() : tensor<4x6x16xf32>
  // expected-error @+1 {{scale (input 3) must be a float scalar, got 'i32'}}
  %1 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v, %i : tensor<4x6x8xf32>, tensor<4x5x8xf32>, tensor<4x5x16xf32>, i32) outs(%0 : tensor<4x6x16xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<4x6x16xf32>
  return %1 : tensor<4x6x16xf32>
}

// -----

func.func @maps_count(%q: tensor<4x6x8xf32>, %k: tensor<4x5x8xf32>, %v: tensor<4x5x16xf32>, %m: tensor<4x6x5xf32>, %i: i32) -> tensor<4x6x16xf32> {
  %s = arith.constant 1.250000e-01 : f32
  %0 = tensor.empty() : tensor<4x6x16xf32>
  // expected-error @+1 {{expects 6 indexing maps, got 5}}
  %1 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v, %s, %m : tensor<4x6x8xf32>, tensor<4x5x8xf32>, tensor<4x5x16xf32>, f32, tensor<4x6x5xf32>) outs(%0 : tensor<4x6x16xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<4x6x16xf32>
  return %1 : tensor<4x6x16xf32>
}

// -----

func.func @mask_map(%q: tensor<4x6x8xf32>, %k: tensor<4x5x8xf32>, %v: tensor<4x5x16xf32>, %m: tensor<4x6x5xf32>, %i: i32) -> tensor<4x6x16xf32> {
  %s = arith.constant 1.250000e-01 : f32
  %0 = tensor.empty() : tensor<4x6x16xf32>
  // expected-error @+1 {{indexing map of the mask must be a projected permutation of 5 dims with 3 results, got affine_map<(d0, d1, d2, d3, d4) -> (d0, d4)>}}
  %1 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v, %s, %m : tensor<4x6x8xf32>, tensor<4x5x8xf32>, tensor<4x5x16xf32>, f32, tensor<4x6x5xf32>) outs(%0 : tensor<4x6x16xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<4x6x16xf32>
  return %1 : tensor<4x6x16xf32>
}

// -----

func.func @region_arg(%q: tensor<4x6x8xf32>, %k: tensor<4x5x8xf32>, %v: tensor<4x5x16xf32>, %m: tensor<4x6x5xf32>, %i: i32) -> tensor<4x6x16xf32> {
  %s = arith.constant 1.250000e-01 : f32
  %0 = tensor.empty() : tensor<4x6x16xf32>
  // expected-error @+1 {{region must take one float score}}
  %1 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v, %s : tensor<4x6x8xf32>, tensor<4x5x8xf32>, tensor<4x5x16xf32>, f32) outs(%0 : tensor<4x6x16xf32>) {
  ^bb0(%score: i32):
    iree_linalg_ext.yield %score : i32
  } -> tensor<4x6x16xf32>
  return %1 : tensor<4x6x16xf32>
}
