// RUN: fa-opt %s --fa-tile-attention --canonicalize --cse | FileCheck %s
// RUN: fa-opt %s --fa-decompose-attention | FileCheck %s --check-prefix=ORACLE

// A loop over the 5 sequences (6 offsets): sequence b is rows cu[b] to
// cu[b+1] of the packed tensors, expanded to [1, len, heads, dim]; its
// tiled nest (dynamic lengths) runs with the op's masks; its output and LSE
// are copied into their rows / columns of the packed results.
// CHECK-LABEL: func.func @varlen
// CHECK:         scf.for %[[B:.+]] = %c0 to %c5 step %c1 iter_args(%[[O:.+]] = %{{.+}}, %[[L:.+]] = %{{.+}}) -> (tensor<?x4x16xf32>, tensor<4x?xf32>)
// CHECK:           %[[Q0:.+]] = tensor.extract %arg3[%[[B]]] : tensor<6xi32>
// CHECK:           tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2], [3]] output_shape [1, %{{.+}}, 4, 16] : tensor<?x4x16xf32> into tensor<1x?x4x16xf32>
// CHECK:           scf.forall
// CHECK:           tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2], [3]] : tensor<1x?x4x16xf32> into tensor<?x4x16xf32>
// CHECK:           tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2]] : tensor<1x4x?xf32> into tensor<4x?xf32>
// CHECK:           linalg.copy
// CHECK:           linalg.copy
// CHECK-NOT:     fa.
// ORACLE-LABEL: func.func @varlen
// ORACLE:         scf.for
// ORACLE-NOT:     fa.
func.func @varlen(%q: tensor<?x4x16xf32>, %k: tensor<?x2x16xf32>, %v: tensor<?x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) -> (tensor<?x4x16xf32>, tensor<4x?xf32>) {
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<?x4x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<6xi32>, tensor<6xi32> {causal, mask_alignment = #fa<mask_alignment bottom_right>, max_seqlen_q = 70 : i64} -> tensor<?x4x16xf32>, tensor<4x?xf32>
  return %o, %lse : tensor<?x4x16xf32>, tensor<4x?xf32>
}
