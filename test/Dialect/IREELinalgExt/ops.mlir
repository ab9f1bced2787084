// RUN: fa-opt %s | fa-opt | FileCheck %s

// IREE's iree_linalg_ext.attention parses as iree-compile 3.x prints it
// (`<indexing_maps = [...]>`, ins with the scale and an optional mask, a
// score region) and prints the same way; other entries of the property
// list are kept as attributes.

// CHECK-LABEL: func.func @attention_mask
// CHECK: iree_linalg_ext.attention <indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}]> ins(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xi1>) outs(%{{.+}} : tensor<12x10x8xf32>) {{[{]$}}
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32):
// CHECK-NEXT: iree_linalg_ext.yield %[[S]] : f32
// CHECK-NEXT: } -> tensor<12x10x8xf32>
func.func @attention_mask(%q: tensor<12x10x8xf32>, %k: tensor<12x10x8xf32>, %v: tensor<12x10x8xf32>, %m: tensor<12x10x10xi1>) -> tensor<12x10x8xf32> {
  %s = arith.constant 0.353553385 : f32
  %0 = tensor.empty() : tensor<12x10x8xf32>
  %1 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v, %s, %m : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xi1>) outs(%0 : tensor<12x10x8xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<12x10x8xf32>
  return %1 : tensor<12x10x8xf32>
}

// CHECK-LABEL: func.func @attention_config
// CHECK: iree_linalg_ext.attention <indexing_maps = [{{.+}}]> {decomposition_config = {}} ins(
func.func @attention_config(%q: tensor<4x6x8xbf16>, %k: tensor<4x5x8xbf16>, %v: tensor<4x5x16xbf16>) -> tensor<4x6x16xbf16> {
  %s = arith.constant 1.250000e-01 : bf16
  %0 = tensor.empty() : tensor<4x6x16xbf16>
  %1 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>], decomposition_config = {}> ins(%q, %k, %v, %s : tensor<4x6x8xbf16>, tensor<4x5x8xbf16>, tensor<4x5x16xbf16>, bf16) outs(%0 : tensor<4x6x16xbf16>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<4x6x16xbf16>
  return %1 : tensor<4x6x16xbf16>
}
