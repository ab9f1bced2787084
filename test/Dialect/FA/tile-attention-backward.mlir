// RUN: fa-opt %s --fa-tile-attention --canonicalize --cse -split-input-file | FileCheck %s

// The FlashAttention-2 backward: three parallel nests.
//  1. D = rowsum(dO * O) over (heads, query tiles);
//  2. dK, dV over (kv heads, key tiles): loops over the 2 query heads of
//     the group and over the query tiles that see the key tile (causal:
//     from floordiv(max(k0, 0), 64)), recomputing S and P = exp2(S - LSE);
//  3. dQ over (heads, query tiles) with the forward's key-tile bounds.
// Under the mask, nests 2 and 3 visit their tiles interleaved (0, n-1, 1, ...).
// CHECK-LABEL: func.func @backward_causal_gqa
// CHECK:         %[[D:.+]] = scf.forall (%{{.+}}, %{{.+}}) in (4, 5) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<1x4x300xf32>)
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           tensor.parallel_insert_slice
// CHECK:         %[[KV:.+]]:2 = scf.forall (%[[HK:.+]], %[[KT:.+]]) in (2, 5) shared_outs
// CHECK:           %[[HALF:.+]] = arith.divui %[[KT]], %c2
// CHECK:           %[[TILE:.+]] = arith.select %{{.+}}, %{{.+}}, %[[HALF]]
// CHECK:           %[[K0:.+]] = arith.muli %[[TILE]], %c64
// CHECK:           scf.for
// CHECK:             %[[LO:.+]] = arith.maxsi %[[K0]], %c0
// CHECK:             %[[FIRST:.+]] = arith.divsi %[[LO]], %c64
// CHECK:             scf.for %{{.+}} = %c0 to %c2 step %c1
// CHECK:               scf.for %{{.+}} = %[[FIRST]] to %{{.+}} step %c1
// CHECK:                 tensor.extract_slice %[[D]]
// CHECK:                 scf.if
// CHECK:                 math.exp2
// CHECK:         scf.forall (%{{.+}}, %[[QT:.+]]) in (4, 5) shared_outs
// CHECK:           arith.minsi %{{.+}}, %c5
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK:             math.exp2
// CHECK-NOT:     fa.attention_grad
func.func @backward_causal_gqa(%do: tensor<1x4x300x32xf32>, %q: tensor<1x4x300x32xf32>, %k: tensor<1x2x300x32xf32>, %v: tensor<1x2x300x32xf32>, %o: tensor<1x4x300x32xf32>, %lse: tensor<1x4x300xf32>) -> (tensor<1x4x300x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x4x300x32xf32>, tensor<1x4x300x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32>, tensor<1x4x300x32xf32>, tensor<1x4x300xf32> {causal} -> tensor<1x4x300x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32>
  return %dq, %dk, %dv : tensor<1x4x300x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32>
}

// -----

// A bias shared by all batches and heads: dBias sums over them, so the dK/dV
// nest is parallel over key tiles only and loops over batch and kv heads
// inside, accumulating a [1, 1, seq_q, key tile] strip. The softcap
// derivative 1 - (s/cap)^2 scales dS.
// CHECK-LABEL: func.func @backward_bias_broadcast
// CHECK:         scf.forall
// CHECK:         %{{.+}}:3 = scf.forall (%{{.+}}) in (2) shared_outs
// CHECK:           tensor.extract_slice %{{.+}}[0, 0, 0, %{{.+}}] [1, 1, 100, %{{.+}}]
// CHECK:           scf.for %{{.+}} = %c0 to %c2
// CHECK:             scf.for %{{.+}} = %c0 to %c2
// CHECK:               math.tanh
// CHECK:               arith.subf %cst{{.*}}, %{{.+}} : f32
// CHECK:               tensor.insert_slice
// CHECK:           tensor.parallel_insert_slice
// CHECK:           tensor.parallel_insert_slice
// CHECK:           tensor.parallel_insert_slice
func.func @backward_bias_broadcast(%do: tensor<2x2x100x16xf32>, %q: tensor<2x2x100x16xf32>, %k: tensor<2x2x100x16xf32>, %v: tensor<2x2x100x16xf32>, %o: tensor<2x2x100x16xf32>, %lse: tensor<2x2x100xf32>, %bias: tensor<1x1x100x100xf32>) -> (tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>, tensor<1x1x100x100xf32>) {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100xf32> bias(%bias : tensor<1x1x100x100xf32>) {softcap = 5.0 : f32} -> tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>, tensor<1x1x100x100xf32>
  return %dq, %dk, %dv, %db : tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>, tensor<1x1x100x100xf32>
}

// -----

// bf16: every tile contraction (QKᵀ, dO Vᵀ, dSᵀ Q, Pᵀ dO, dS K) reads f32
// tiles in loop order, the form fa-cpu-tile-blocks vectorizes: dO and K are
// converted per tile, and Pᵀ / dSᵀ are copied out instead of read
// transposed.
// CHECK-NOT:   affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-LABEL: func.func @backward_bf16
// CHECK-NOT:     "reduction", "parallel"]} ins({{.*}}bf16{{.*}}) outs
// CHECK:         return
func.func @backward_bf16(%do: tensor<1x2x100x32xbf16>, %q: tensor<1x2x100x32xbf16>, %k: tensor<1x2x100x32xbf16>, %v: tensor<1x2x100x32xbf16>, %o: tensor<1x2x100x32xbf16>, %lse: tensor<1x2x100xf32>) -> (tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100xf32> -> tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>
  return %dq, %dk, %dv : tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>
}
