// RUN: fa-opt %s -split-input-file --fa-decompose-attention | FileCheck %s

// A bias whose heads are dynamic splits into the static (heads_kv, group)
// once its head dim is cast static (expand_shape needs that).
// CHECK-LABEL: func.func @bias_dynamic_batch_heads
// CHECK:         %[[C:.+]] = tensor.cast %{{.+}} : tensor<?x?x16x20xf32> to tensor<?x4x16x20xf32>
// CHECK:         tensor.expand_shape %[[C]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [%{{.+}}, 2, 2, 16, 20] : tensor<?x4x16x20xf32> into tensor<?x2x2x16x20xf32>
// CHECK-NOT:     fa.attention
func.func @bias_dynamic_batch_heads(%q: tensor<2x4x16x8xf32>, %k: tensor<2x2x20x8xf32>, %v: tensor<2x2x20x8xf32>, %b: tensor<?x?x16x20xf32>) -> tensor<2x4x16x8xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x4x16x8xf32>, tensor<2x2x20x8xf32>, tensor<2x2x20x8xf32> bias(%b : tensor<?x?x16x20xf32>) -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// CHECK-LABEL: func.func @bias_dynamic_backward
// CHECK-NOT:     fa.attention_grad
// CHECK:         return
func.func @bias_dynamic_backward(%do: tensor<2x4x16x8xf32>, %q: tensor<2x4x16x8xf32>, %k: tensor<2x2x20x8xf32>, %v: tensor<2x2x20x8xf32>, %o: tensor<2x4x16x8xf32>, %l: tensor<2x4x16xf32>, %b: tensor<?x?x16x20xf32>) -> tensor<?x?x16x20xf32> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x2x20x8xf32>, tensor<2x2x20x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32> bias(%b : tensor<?x?x16x20xf32>) -> tensor<2x4x16x8xf32>, tensor<2x2x20x8xf32>, tensor<2x2x20x8xf32>, tensor<?x?x16x20xf32>
  return %db : tensor<?x?x16x20xf32>
}
