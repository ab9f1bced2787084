// RUN: fa-opt %s --fa-raise-attention -verify-diagnostics | fa-opt --fa-cpu-pipeline | FileCheck %s

// Declined IR still compiles (issue 15, item 10): fa-cpu-pipeline lowers
// every op it is given, including a linalg.softmax the raise left (here a
// softmax over the queries, a near miss) and arith / math ops on whole
// tensors.

// CHECK-LABEL: llvm.func @softmax_over_queries
// CHECK-NOT: linalg.softmax
// CHECK-NOT: math.exp {{.*}}tensor
// CHECK-NOT: fa.attention
func.func @softmax_over_queries(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x4x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%fs : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %c = arith.constant dense<0.125> : tensor<2x4x4xf32>
  %ss = arith.mulf %s, %c : tensor<2x4x4xf32>
  %p = linalg.softmax dimension(1) ins(%ss : tensor<2x4x4xf32>) outs(%es : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: P·V sums over a different dimension than the one the softmax normalizes}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%fo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %t = math.tanh %o : tensor<2x4x8xf32>
  return %t : tensor<2x4x8xf32>
}
