// fa.attention compiled by fa-cpu-pipeline and run by the stock mlir-runner.
// RUN: fa-opt %s --fa-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%mlir_runner_libs | FileCheck %s
//
// Two keys, one query row per head, scale 1. Head 0: q.k = (0, ln 3), so the
// weights are (1/4, 3/4) and the output is 1/4*v0 + 3/4*v1 = (2.5, 0.25) with
// LSE ln(1 + 3) = 1.38629. Head 1: q.k = (0, 5), weights (1, e^5)/(1 + e^5),
// output 6.95984 in both columns, LSE ln(1 + e^5) = 5.00672. With causal
// (top-left) the single query row sees key 0 only: both heads give v0 = (1, 1).
func.func @main() {
  %q = arith.constant dense<[[[[1.0, 0.0]], [[0.0, 1.0]]]]> : tensor<1x2x1x2xf32>
  %k = arith.constant dense<[[[[0.0, 0.0], [1.0986123, 0.0]], [[0.0, 0.0], [0.0, 5.0]]]]> : tensor<1x2x2x2xf32>
  %v = arith.constant dense<[[[[1.0, 1.0], [3.0, 0.0]], [[1.0, 1.0], [7.0, 7.0]]]]> : tensor<1x2x2x2xf32>
  %o0, %l0 = fa.attention %q, %k, %v : tensor<1x2x1x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32> {scale = 1.0 : f32} -> tensor<1x2x1x2xf32>, tensor<1x2x1xf32>
  %o1, %l1 = fa.attention %q, %k, %v : tensor<1x2x1x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32> {scale = 1.0 : f32, causal} -> tensor<1x2x1x2xf32>, tensor<1x2x1xf32>
  %u0 = tensor.cast %o0 : tensor<1x2x1x2xf32> to tensor<*xf32>
  %v0 = tensor.cast %l0 : tensor<1x2x1xf32> to tensor<*xf32>
  %u1 = tensor.cast %o1 : tensor<1x2x1x2xf32> to tensor<*xf32>
  // CHECK: [2.5, 0.25]
  // CHECK: [6.95984, 6.95984]
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  // CHECK: [1.38629]
  // CHECK: [5.00672]
  call @printMemrefF32(%v0) : (tensor<*xf32>) -> ()
  // CHECK: [1, 1]
  // CHECK: [1, 1]
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
