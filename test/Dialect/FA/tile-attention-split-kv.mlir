// RUN: fa-opt %s --fa-tile-attention="cores=64" --canonicalize --cse -split-input-file | FileCheck %s
// RUN: fa-opt %s --fa-decompose-attention -split-input-file | FileCheck %s --check-prefix=ORACLE

// num_splits = 4 over 300 keys (5 tiles of 64): the forall gets the split
// as its first dimension, split s walks key tiles [2s, 2s + 2) clamped to
// the 5 tiles, and writes f32 partials [4, 2, 8, 1(, 64)]; the merge is the
// fa.combine lowering: a max over the splits, the weighted sums with
// exp(lse - max), the normalisation.
// CHECK-LABEL: func.func @split_static
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C5:.+]] = arith.constant 5 : index
// CHECK:         scf.forall (%[[S:.+]], %{{.+}}, %{{.+}}) in (4, 2, 8) shared_outs(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<4x2x8x1x64xf32>, tensor<4x2x8x1xf32>)
// CHECK:           %[[LO:.+]] = arith.muli %[[S]], %[[C2]]
// CHECK:           %[[HI:.+]] = arith.addi %[[LO]], %[[C2]]
// CHECK:           %[[HIC:.+]] = arith.minsi %[[HI]], %[[C5]]
// CHECK:           scf.for %{{.+}} = %{{.+}} to %[[HIC]]
// CHECK:           tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[S]], %{{.+}}, %{{.+}}, 0, 0] [1, 1, 1, 1, 64]
// CHECK:         linalg.generic {{.+}} iterator_types = ["reduction", "parallel", "parallel", "parallel"]{{.+}} ins(%{{.+}} : tensor<4x2x8x1xf32>)
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.+}} iterator_types = ["reduction", "parallel", "parallel", "parallel", "parallel"]{{.+}} ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4x2x8x1x64xf32>, tensor<4x2x8x1xf32>, tensor<2x8x1xf32>)
// CHECK:           math.exp
// CHECK:         math.log
// CHECK-NOT:     fa.
// ORACLE-LABEL: func.func @split_static
// ORACLE-NOT:     scf.forall
// ORACLE-NOT:     fa.
func.func @split_static(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x300x64xf32>, %v: tensor<2x2x300x64xf32>) -> (tensor<2x8x1x64xf32>, tensor<2x8x1xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<2x8x1x64xf32>, tensor<2x2x300x64xf32>, tensor<2x2x300x64xf32> {num_splits = 4 : i64} -> tensor<2x8x1x64xf32>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x64xf32>, tensor<2x8x1xf32>
}

// -----

// num_splits = 0, static sizes: 64 cores over 2 x 4 x 1 (batch, heads,
// query tiles) = 8 items want 8 splits, capped by the 5 key tiles.
// CHECK-LABEL: func.func @split_heuristic_static
// CHECK:         scf.forall ({{.+}}) in (5, 2, 4)
func.func @split_heuristic_static(%q: tensor<2x4x1x64xf32>, %k: tensor<2x4x300x64xf32>, %v: tensor<2x4x300x64xf32>) -> tensor<2x4x1x64xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x4x1x64xf32>, tensor<2x4x300x64xf32>, tensor<2x4x300x64xf32> {num_splits = 0 : i64} -> tensor<2x4x1x64xf32>
  return %o : tensor<2x4x1x64xf32>
}

// -----

// num_splits = 0, dynamic batch and keys: the count is computed at run
// time, 64 / (batch * heads * query tiles) clamped to [1, min(key tiles, 64)].
// In bshd the bhsd-ordered merge is transposed back.
// CHECK-LABEL: func.func @split_heuristic_dynamic
// CHECK:         %[[W:.+]] = arith.divsi %c64, %{{.+}} : index
// CHECK:         arith.minsi %[[W]], %{{.+}}
// CHECK:         scf.forall
// CHECK:         linalg.transpose {{.+}} permutation = [0, 2, 1, 3]
func.func @split_heuristic_dynamic(%q: tensor<?x1x4x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> tensor<?x1x4x64xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x1x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> {layout = #fa<layout bshd>, causal, mask_alignment = #fa<mask_alignment bottom_right>, num_splits = 0 : i64} -> tensor<?x1x4x64xbf16>
  return %o : tensor<?x1x4x64xbf16>
}

// -----

// num_splits = 1 is the unsplit nest: no split dimension, no merge.
// CHECK-LABEL: func.func @one_split
// CHECK:         scf.forall ({{.+}}) in (2, 8) shared_outs
// CHECK-NOT:     reduction", "parallel", "parallel", "parallel"
func.func @one_split(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x300x64xf32>, %v: tensor<2x2x300x64xf32>) -> tensor<2x8x1x64xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x8x1x64xf32>, tensor<2x2x300x64xf32>, tensor<2x2x300x64xf32> {num_splits = 1 : i64} -> tensor<2x8x1x64xf32>
  return %o : tensor<2x8x1x64xf32>
}

// -----

// A user's fa.combine over any row rank is lowered by both passes.
// CHECK-LABEL: func.func @combine
// CHECK:         linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]{{.+}} ins(%{{.+}} : tensor<?x7xf32>)
// CHECK-NOT:     fa.combine
// ORACLE-LABEL: func.func @combine
// ORACLE-NOT:     fa.combine
func.func @combine(%po: tensor<?x7x16xf32>, %pl: tensor<?x7xf32>) -> (tensor<7x16xf16>, tensor<7xf32>) {
  %o, %l = fa.combine %po, %pl : tensor<?x7x16xf32>, tensor<?x7xf32> -> tensor<7x16xf16>, tensor<7xf32>
  return %o, %l : tensor<7x16xf16>, tensor<7xf32>
}
