// RUN: fa-opt %s --fa-tile-attention --canonicalize --cse -split-input-file | FileCheck %s
// RUN: fa-opt %s --fa-decompose-attention -split-input-file | FileCheck %s --check-prefix=ORACLE

// Paged with append: the new tokens are inserted at (block_table[b, pos /
// 8], pos % 8) with pos = cache_seqlens[b] + t; then per sequence its
// ceil(n / 8) pages are gathered into a [1, n, 2, 16] tensor and a dense
// bshd attention (here split in 2) runs on it; no seq_q x seq_k tensor.
// CHECK-LABEL: func.func @paged_append
// CHECK:         %[[CACHES:.+]]:2 = scf.for %[[B:.+]] = %c0 to %c3 step %c1 iter_args(%{{.+}} = %arg1, %{{.+}} = %arg2)
// CHECK:           %[[LEN:.+]] = tensor.extract %arg3[%[[B]]] : tensor<3xi32>
// CHECK:           scf.for
// CHECK:             arith.divui %{{.+}}, %c8
// CHECK:             %[[PAGE:.+]] = tensor.extract %arg4[%[[B]], %{{.+}}] : tensor<3x5xi32>
// CHECK:             arith.remui %{{.+}}, %c8
// CHECK:             linalg.copy
// CHECK:         scf.for %{{.+}} = %c0 to %c3 step %c1 iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<3x2x4x16xf32>, tensor<3x4x2xf32>)
// CHECK:           arith.ceildivui %{{.+}}, %c8
// CHECK:           scf.for {{.+}} -> (tensor<1x?x2x16xf32>)
// CHECK:             tensor.extract %arg4
// CHECK:             tensor.extract_slice %[[CACHES]]#0
// CHECK:             linalg.copy
// CHECK:           scf.forall ({{.+}}) in (2, 4) {{.+}} -> (tensor<2x1x4x2x16xf32>, tensor<2x1x4x2xf32>)
// CHECK:           linalg.transpose
// CHECK:         return %{{.+}}, %{{.+}}, %[[CACHES]]#0, %[[CACHES]]#1
// CHECK-NOT:     fa.
// ORACLE-LABEL: func.func @paged_append
// ORACLE-NOT:     fa.
func.func @paged_append(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) -> (tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>) {
  %o, %lse, %kc2, %vc2 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) {causal, num_splits = 2 : i64} -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return %o, %lse, %kc2, %vc2 : tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
}

// -----

// Contiguous, no append: sequence b's keys are a slice of row b, no gather
// loop; the per-sequence attention is masked bottom-right.
// CHECK-LABEL: func.func @contiguous
// CHECK:         scf.for %[[B:.+]] = %c0 to %c2
// CHECK:           %[[N:.+]] = arith.index_cast %{{.+}} : i32 to index
// CHECK:           tensor.extract_slice %arg1[%[[B]], 0, 0, 0] [1, %[[N]], 2, 16]
// CHECK-NOT:       tensor.empty() : tensor<1x?x2x16xf32>
// CHECK:           scf.forall
// CHECK-NOT:     fa.
func.func @contiguous(%q: tensor<2x3x4x16xf32>, %kc: tensor<2x40x2x16xf32>, %vc: tensor<2x40x2x16xf32>, %lens: tensor<2xi32>) -> (tensor<2x3x4x16xf32>, tensor<2x4x3xf32>) {
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x3x4x16xf32>, tensor<2x40x2x16xf32>, tensor<2x40x2x16xf32>, tensor<2xi32> {causal} -> tensor<2x3x4x16xf32>, tensor<2x4x3xf32>
  return %o, %lse : tensor<2x3x4x16xf32>, tensor<2x4x3xf32>
}
