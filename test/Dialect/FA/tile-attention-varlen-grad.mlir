// RUN: fa-opt %s --fa-tile-attention --canonicalize --cse | FileCheck %s
// RUN: fa-opt %s --fa-decompose-attention | FileCheck %s --check-prefix=ORACLE

// A loop over the 5 sequences (6 offsets) carrying the zero-filled packed
// gradients: sequence b's rows of dO, Q, K, V, O (expanded to [1, len,
// heads, dim]) and its LSE columns ([1, heads, len]) go through the dense
// backward's tiled nests; its dQ, dK, dV are copied into their rows.
// CHECK-LABEL: func.func @varlen_grad
// CHECK-COUNT-3: linalg.fill
// CHECK:         scf.for %[[B:.+]] = %c0 to %c5 step %c1 iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<?x4x16xf32>, tensor<?x2x16xf32>, tensor<?x2x8xf32>)
// CHECK:           tensor.extract %arg6[%[[B]]] : tensor<6xi32>
// CHECK:           tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2]] output_shape [1, 4, %{{.+}}] : tensor<4x?xf32> into tensor<1x4x?xf32>
// CHECK:           scf.forall
// CHECK:           tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2], [3]] : tensor<1x?x4x16xf32> into tensor<?x4x16xf32>
// CHECK-COUNT-3:   linalg.copy
// CHECK-NOT:     fa.
// ORACLE-LABEL: func.func @varlen_grad
// ORACLE:         scf.for
// ORACLE-NOT:     fa.
func.func @varlen_grad(%do: tensor<?x4x8xf32>, %q: tensor<?x4x16xf32>, %k: tensor<?x2x16xf32>, %v: tensor<?x2x8xf32>, %o: tensor<?x4x8xf32>, %lse: tensor<4x?xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) -> (tensor<?x4x16xf32>, tensor<?x2x16xf32>, tensor<?x2x8xf32>) {
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<?x4x8xf32>, tensor<?x4x16xf32>, tensor<?x2x16xf32>, tensor<?x2x8xf32>, tensor<?x4x8xf32>, tensor<4x?xf32>, tensor<6xi32>, tensor<6xi32> {causal, mask_alignment = #fa<mask_alignment bottom_right>} -> tensor<?x4x16xf32>, tensor<?x2x16xf32>, tensor<?x2x8xf32>
  return %dq, %dk, %dv : tensor<?x4x16xf32>, tensor<?x2x16xf32>, tensor<?x2x8xf32>
}
