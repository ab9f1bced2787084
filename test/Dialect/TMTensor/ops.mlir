// RUN: fa-opt %s | fa-opt | FileCheck %s

// torch-mlir's tm_tensor ops parse as torch-mlir prints them (its
// linalg-on-tensors output for sdpa kept whole and for cumsum) and print the
// same way.

// CHECK-LABEL: func.func @attention_mask_scale
// CHECK: tm_tensor.attention {scale = 1.250000e-01 : f64} ins(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x10xi1>) outs(%{{.+}} : tensor<12x10x8xf32>) -> tensor<12x10x8xf32>
func.func @attention_mask_scale(%q: tensor<12x10x8xf32>, %k: tensor<12x10x8xf32>, %v: tensor<12x10x8xf32>, %m: tensor<12x10x10xi1>) -> tensor<12x10x8xf32> {
  %0 = tensor.empty() : tensor<12x10x8xf32>
  %1 = tm_tensor.attention {scale = 0.125 : f64} ins(%q, %k, %v, %m : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x10xi1>) outs(%0 : tensor<12x10x8xf32>) -> tensor<12x10x8xf32>
  return %1 : tensor<12x10x8xf32>
}

// CHECK-LABEL: func.func @attention_plain
// CHECK: tm_tensor.attention ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<2x4x6x8xbf16>, tensor<2x4x5x8xbf16>, tensor<2x4x5x16xbf16>) outs(%{{.+}} : tensor<2x4x6x16xbf16>) -> tensor<2x4x6x16xbf16>
func.func @attention_plain(%q: tensor<2x4x6x8xbf16>, %k: tensor<2x4x5x8xbf16>, %v: tensor<2x4x5x16xbf16>) -> tensor<2x4x6x16xbf16> {
  %0 = tensor.empty() : tensor<2x4x6x16xbf16>
  %1 = tm_tensor.attention ins(%q, %k, %v : tensor<2x4x6x8xbf16>, tensor<2x4x5x8xbf16>, tensor<2x4x5x16xbf16>) outs(%0 : tensor<2x4x6x16xbf16>) -> tensor<2x4x6x16xbf16>
  return %1 : tensor<2x4x6x16xbf16>
}

// CHECK-LABEL: func.func @cumsum
// CHECK: %{{.+}}:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%{{.+}} : tensor<3x10xi64>) outs(%{{.+}}, %{{.+}} : tensor<3x10xi64>, tensor<3xi64>) {
// CHECK-NEXT: ^bb0(%[[A:.+]]: i64, %[[B:.+]]: i64):
// CHECK-NEXT: %[[S:.+]] = arith.addi %[[A]], %[[B]] : i64
// CHECK-NEXT: tm_tensor.yield %[[S]] : i64
// CHECK-NEXT: } -> tensor<3x10xi64>, tensor<3xi64>
func.func @cumsum(%x: tensor<3x10xi64>) -> (tensor<3x10xi64>, tensor<3xi64>) {
  %c0 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<3x10xi64>
  %1 = linalg.fill ins(%c0 : i64) outs(%0 : tensor<3x10xi64>) -> tensor<3x10xi64>
  %2 = tensor.empty() : tensor<3xi64>
  %3 = linalg.fill ins(%c0 : i64) outs(%2 : tensor<3xi64>) -> tensor<3xi64>
  %4:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<3x10xi64>) outs(%1, %3 : tensor<3x10xi64>, tensor<3xi64>) {
  ^bb0(%arg0: i64, %arg1: i64):
    %5 = arith.addi %arg0, %arg1 : i64
    tm_tensor.yield %5 : i64
  } -> tensor<3x10xi64>, tensor<3xi64>
  return %4#0, %4#1 : tensor<3x10xi64>, tensor<3xi64>
}
