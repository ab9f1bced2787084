// RUN: fa-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fa-cpu-lower-aggregates))' | FileCheck %s

// linalg.softmax (an aggregated op) is decomposed as upstream defines it:
// row max, exp of the difference, row sum, division.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT:     linalg.softmax
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.maxnumf
// CHECK:         linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK:           arith.divf
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// arith / math on whole tensors become linalg.generic; scalars stay.
// CHECK-LABEL: func.func @elementwise
// CHECK:         linalg.generic
// CHECK:           arith.addf %{{.+}}, %{{.+}} : f32
// CHECK:         linalg.generic
// CHECK:           math.exp %{{.+}} : f32
// CHECK:         arith.mulf %{{.+}}, %{{.+}} : f32
func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: f32) -> (tensor<4x8xf32>, f32) {
  %r = arith.addf %a, %b : tensor<4x8xf32>
  %t = math.exp %r : tensor<4x8xf32>
  %s = arith.mulf %c, %c : f32
  return %t, %s : tensor<4x8xf32>, f32
}
