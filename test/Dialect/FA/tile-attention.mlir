// RUN: fa-opt %s --fa-tile-attention --canonicalize --cse -split-input-file | FileCheck %s

// Forward, no mask: a parallel loop over (heads, query tiles) (the unit
// batch folds away), an online-softmax loop over all key tiles carrying
// (max, sum, acc), exp2 with log2(e) folded into the scale (0.125 * 1.4427),
// and no per-element mask.
// CHECK-LABEL: func.func @forward_plain
// CHECK-DAG:     %[[SCALE2:.+]] = arith.constant 0.180336878 : f32
// CHECK:         scf.forall (%[[H:.+]], %[[QT:.+]]) in (2, 3) shared_outs(%[[O:.+]] = %{{.+}}, %[[L:.+]] = %{{.+}})
// CHECK:           %[[Q:.+]] = tensor.extract_slice %arg0[0, %[[H]], %{{.+}}, 0] [1, 1, %{{.+}}, 64]
// CHECK:           scf.for %{{.+}} = %c0 to %c2 step %c1 iter_args(%[[M:.+]] = %{{.+}}, %[[SUM:.+]] = %{{.+}}, %[[ACC:.+]] = %{{.+}}) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x64xf32>)
// CHECK-NOT:       linalg.index
// CHECK-NOT:       scf.if
// CHECK:             arith.mulf %{{.+}}, %[[SCALE2]]
// CHECK:             arith.maximumf
// CHECK:             math.exp2
// CHECK:             math.exp2
// CHECK:             scf.yield
// CHECK:           math.log
// CHECK:           scf.forall.in_parallel
// CHECK:             tensor.parallel_insert_slice %{{.+}} into %[[O]]
// CHECK:             tensor.parallel_insert_slice %{{.+}} into %[[L]]
// CHECK-NOT:     fa.attention
func.func @forward_plain(%q: tensor<1x2x130x64xf32>, %k: tensor<1x2x100x64xf32>, %v: tensor<1x2x100x64xf32>) -> (tensor<1x2x130x64xf32>, tensor<1x2x130xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<1x2x130x64xf32>, tensor<1x2x100x64xf32>, tensor<1x2x100x64xf32> -> tensor<1x2x130x64xf32>, tensor<1x2x130xf32>
  return %o, %lse : tensor<1x2x130x64xf32>, tensor<1x2x130xf32>
}

// -----

// Causal (top-left): the key loop stops at the query tile's last row,
// min(ceil(seq_k / 64), (max(q0 + qlen, 0) + 63) / 64), so fully hidden tiles are never
// visited (about half the work); only a tile crossing the diagonal
// (last column > first row) computes the mask, under scf.if. The query
// tiles are visited interleaved (0, 15, 1, 14, ...), so that each thread's
// contiguous range of iterations holds as many long rows as short ones.
// CHECK-LABEL: func.func @forward_causal
// CHECK:         scf.forall (%{{.+}}, %[[QT:.+]]) in (2, 16)
// CHECK:           %[[HALF:.+]] = arith.divui %[[QT]], %c2
// CHECK:           %[[ODD:.+]] = arith.cmpi ne
// CHECK:           %[[LAST:.+]] = arith.subi %c15, %[[HALF]]
// CHECK:           %[[TILE:.+]] = arith.select %[[ODD]], %[[LAST]], %[[HALF]]
// CHECK:           %[[Q0:.+]] = arith.muli %[[TILE]], %c64
// CHECK:           %[[QLEN:.+]] = arith.minsi %{{.+}}, %c64
// CHECK:           %[[END:.+]] = arith.addi %[[Q0]], %[[QLEN]]
// CHECK:           %[[KPOS:.+]] = arith.maxsi %[[END]], %c0
// CHECK:           %[[KUP:.+]] = arith.addi %[[KPOS]], %c63
// CHECK:           %[[KT:.+]] = arith.divui %[[KUP]], %c64
// CHECK:           %[[HI:.+]] = arith.minsi %[[KT]], %c16
// CHECK:           scf.for %[[J:.+]] = %c0 to %[[HI]] step %c1
// CHECK:             %[[K0:.+]] = arith.muli %[[J]], %c64
// CHECK:             %[[LAST:.+]] = arith.subi %{{.+}}, %c1
// CHECK:             %[[VISIBLE:.+]] = arith.cmpi sle, %[[LAST]], %[[Q0]]
// CHECK:             scf.if %[[VISIBLE]] -> (tensor<?x?xf32>)
// CHECK-NOT:           linalg.index
// CHECK:             } else {
// CHECK:               linalg.index 0
// CHECK:               linalg.index 1
// CHECK:               arith.cmpi sgt
// CHECK:               arith.select
func.func @forward_causal(%q: tensor<1x2x1024x64xf32>, %k: tensor<1x2x1024x64xf32>, %v: tensor<1x2x1024x64xf32>) -> tensor<1x2x1024x64xf32> {
  %o = fa.attention %q, %k, %v : tensor<1x2x1024x64xf32>, tensor<1x2x1024x64xf32>, tensor<1x2x1024x64xf32> {causal} -> tensor<1x2x1024x64xf32>
  return %o : tensor<1x2x1024x64xf32>
}

// -----

// Bottom-right causal with seq_q != seq_k: the diagonal moves by
// seq_k - seq_q = 100 (folded into the bound); ceil(300 / 64) = 5 tiles at most.
// CHECK-LABEL: func.func @forward_causal_bottom_right
// CHECK:         scf.forall
// CHECK:           arith.addi %{{.+}}, %c100
// CHECK:           arith.minsi %{{.+}}, %c5
// CHECK:           scf.for
func.func @forward_causal_bottom_right(%q: tensor<1x1x200x32xf16>, %k: tensor<1x1x300x32xf16>, %v: tensor<1x1x300x32xf16>) -> tensor<1x1x200x32xf16> {
  %o = fa.attention %q, %k, %v : tensor<1x1x200x32xf16>, tensor<1x1x300x32xf16>, tensor<1x1x300x32xf16> {causal, mask_alignment = #fa<mask_alignment bottom_right>} -> tensor<1x1x200x32xf16>
  return %o : tensor<1x1x200x32xf16>
}

// -----

// Sliding window (left 100, right 10): the key loop starts at
// floordiv(max(0, q0 - 100), 64) and ends at ceildiv(min(q0 + qlen + 10,
// seq_k), 64); both edges of the band are checked for full visibility.
// CHECK-LABEL: func.func @forward_window
// CHECK:         scf.forall (%[[QT:.+]]) in (16)
// CHECK:           %[[TILE:.+]] = arith.select
// CHECK:           %[[Q0:.+]] = arith.muli %[[TILE]], %c64
// CHECK:           %[[LO:.+]] = arith.addi %[[Q0]], %c-100
// CHECK:           %[[LO0:.+]] = arith.maxsi %[[LO]], %c0
// CHECK:           %[[HI:.+]] = arith.addi %{{.+}}, %c10
// CHECK:           arith.minsi %[[HI]], %c1000
// CHECK:           %[[FIRST:.+]] = arith.divsi %[[LO0]], %c64
// CHECK:           scf.for %{{.+}} = %[[FIRST]] to %{{.+}} step %c1
// CHECK:             arith.cmpi sle
// CHECK:             arith.cmpi sle
// CHECK:             arith.andi
// CHECK:             scf.if
func.func @forward_window(%q: tensor<1x1x1000x32xbf16>, %k: tensor<1x1x1000x32xbf16>, %v: tensor<1x1x1000x32xbf16>) -> tensor<1x1x1000x32xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x1x1000x32xbf16>, tensor<1x1x1000x32xbf16>, tensor<1x1x1000x32xbf16> {window = array<i64: 100, 10>} -> tensor<1x1x1000x32xbf16>
  return %o : tensor<1x1x1000x32xbf16>
}

// -----

// Grouped-query attention: query head h reads kv head h / 4 by index
// arithmetic; K and V are sliced in place, never copied per query head.
// CHECK-LABEL: func.func @forward_gqa
// CHECK:         scf.forall (%{{.+}}, %[[H:.+]], %{{.+}}) in (2, 8, 2)
// CHECK:           %[[HK:.+]] = arith.divui %[[H]], %c4
// CHECK:           scf.for
// CHECK:             tensor.extract_slice %arg1[%{{.+}}, %[[HK]], %{{.+}}, 0]
// CHECK:             tensor.extract_slice %arg2[%{{.+}}, %[[HK]], %{{.+}}, 0]
// CHECK-NOT:     linalg.broadcast
func.func @forward_gqa(%q: tensor<2x8x100x16xf32>, %k: tensor<2x2x100x16xf32>, %v: tensor<2x2x100x16xf32>) -> tensor<2x8x100x16xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x8x100x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32> -> tensor<2x8x100x16xf32>
  return %o : tensor<2x8x100x16xf32>
}

// -----

// bshd layout and dynamic sizes: tiles are sliced along dimension 1.
// CHECK-LABEL: func.func @forward_bshd_dynamic
// CHECK-DAG:     %[[B:.+]] = tensor.dim %arg0, %c0
// CHECK-DAG:     %[[H:.+]] = tensor.dim %arg0, %c2
// CHECK:         scf.forall (%[[BI:.+]], %[[HI:.+]], %{{.+}}) in (%[[B]], %[[H]], %{{.+}})
// CHECK:           tensor.extract_slice %arg0[%[[BI]], %{{.+}}, %[[HI]], 0] [1, %{{.+}}, 1, 32]
func.func @forward_bshd_dynamic(%q: tensor<?x?x?x32xf32>, %k: tensor<?x?x?x32xf32>, %v: tensor<?x?x?x48xf32>) -> tensor<?x?x?x48xf32> {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x32xf32>, tensor<?x?x?x32xf32>, tensor<?x?x?x48xf32> {layout = #fa<layout bshd>, causal} -> tensor<?x?x?x48xf32>
  return %o : tensor<?x?x?x48xf32>
}

// -----

// Bias and softcap: bias added after the scale, then the softcap (tanh),
// then log2(e); the bias is read tile by tile, broadcast over batch.
// CHECK-LABEL: func.func @forward_bias_softcap
// CHECK:         scf.for
// CHECK:           %[[BT:.+]] = tensor.extract_slice %arg3[0, %{{.+}}, %{{.+}}, %{{.+}}] [1, 1, %{{.+}}, %{{.+}}]
// CHECK:           linalg.generic
// CHECK-SAME:        ins(%{{.+}}, %[[BT]] :
// CHECK:             arith.mulf
// CHECK:             arith.addf
// CHECK:             math.tanh
// CHECK:             arith.mulf
// CHECK:             arith.mulf %{{.+}}, %[[LOG2E:.+]] : f32
func.func @forward_bias_softcap(%q: tensor<2x2x70x16xf32>, %k: tensor<2x2x70x16xf32>, %v: tensor<2x2x70x16xf32>, %bias: tensor<1x2x70x70xf32>) -> tensor<2x2x70x16xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x2x70x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x16xf32> bias(%bias : tensor<1x2x70x70xf32>) {softcap = 30.0 : f32} -> tensor<2x2x70x16xf32>
  return %o : tensor<2x2x70x16xf32>
}

// -----

// FP8: tiles are decoded to f32 by bit manipulation (no CPU converts FP8)
// and the descales multiply them as they are converted (Q, K)
// and the output (V, constant per (batch, kv head)).
// CHECK-LABEL: func.func @forward_fp8
// CHECK:         scf.forall (%{{.+}}, %{{.+}}) in (2, 2)
// CHECK:           %[[QD:.+]] = tensor.extract %arg3[]
// CHECK:           linalg.generic
// CHECK:             arith.bitcast %{{.+}} : f8E4M3FN to i8
// CHECK:             arith.mulf %{{.+}}, %[[QD]]
// CHECK:           scf.for
// CHECK:             tensor.extract %arg4[%c0, %{{.+}}]
// CHECK:           tensor.extract %arg5[]
func.func @forward_fp8(%q: tensor<1x2x100x32xf8E4M3FN>, %k: tensor<1x1x100x32xf8E4M3FN>, %v: tensor<1x1x100x32xf8E4M3FN>, %dq: tensor<f32>, %dk: tensor<1x1xf32>, %dv: tensor<f32>) -> tensor<1x2x100x32xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x2x100x32xf8E4M3FN>, tensor<1x1x100x32xf8E4M3FN>, tensor<1x1x100x32xf8E4M3FN> descale(%dq, %dk, %dv : tensor<f32>, tensor<1x1xf32>, tensor<f32>) -> tensor<1x2x100x32xbf16>
  return %o : tensor<1x2x100x32xbf16>
}

// -----

// FP8 with per-block descales: each tile row reads its own descale,
// [b, h, row / block_q] for Q (the query head) and [b, hk, key / block_k]
// for K and V (the kv head), so 64-row tiles need not nest with 32-row
// descale blocks. V's per-block descale multiplies V's rows, not O.
// CHECK-LABEL: func.func @forward_fp8_blocks
// CHECK:         scf.forall (%[[B:.+]], %[[H:.+]], %{{.+}}) in
// CHECK:           %[[HK:.+]] = arith.divui %[[H]]
// CHECK:           %[[QD:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<?xf32>)
// CHECK:             arith.divui %{{.+}}, %c32
// CHECK:             tensor.extract %arg3[%[[B]], %[[H]], %{{.+}}] : tensor<2x2x4xf32>
// CHECK:           linalg.generic {{.+}} ins(%{{.+}}, %[[QD]] : tensor<?x32xf8E4M3FN>, tensor<?xf32>)
// CHECK:           scf.for
// CHECK:             %[[KD:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<?xf32>)
// CHECK:               tensor.extract %arg4[%[[B]], %[[HK]], %{{.+}}] : tensor<2x1x2xf32>
// CHECK:             linalg.generic {{.+}} ins(%{{.+}}, %[[KD]] : tensor<?x32xf8E4M3FN>, tensor<?xf32>) outs(%{{.+}} : tensor<32x?xf32>)
// CHECK:             %[[VD:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<?xf32>)
// CHECK:               tensor.extract %arg5[%[[B]], %[[HK]], %{{.+}}] : tensor<2x1x2xf32>
// CHECK:             linalg.generic {{.+}} ins(%{{.+}}, %[[VD]] : tensor<?x32xf8E4M3FN>, tensor<?xf32>) outs(%{{.+}} : tensor<?x32xf32>)
// CHECK-NOT:       tensor.extract %arg5
// CHECK:           scf.forall.in_parallel
func.func @forward_fp8_blocks(%q: tensor<2x2x100x32xf8E4M3FN>, %k: tensor<2x1x100x32xf8E4M3FN>, %v: tensor<2x1x100x32xf8E4M3FN>, %dq: tensor<2x2x4xf32>, %dk: tensor<2x1x2xf32>, %dv: tensor<2x1x2xf32>) -> tensor<2x2x100x32xbf16> {
  %o = fa.attention %q, %k, %v : tensor<2x2x100x32xf8E4M3FN>, tensor<2x1x100x32xf8E4M3FN>, tensor<2x1x100x32xf8E4M3FN> descale(%dq, %dk, %dv : tensor<2x2x4xf32>, tensor<2x1x2xf32>, tensor<2x1x2xf32>) {descale_block = array<i64: 32, 64>} -> tensor<2x2x100x32xbf16>
  return %o : tensor<2x2x100x32xbf16>
}

// -----

// bf16: the V tile is converted to f32 once per key tile, so that P V is an
// f32 contraction (which fa-cpu-tile-blocks vectorizes) rather than one that
// extends V in its body.
// CHECK-LABEL: func.func @forward_bf16
// CHECK:         scf.for
// CHECK:           %[[V:.+]] = tensor.extract_slice %arg2
// CHECK:           %[[VF:.+]] = linalg.generic {{.+}} ins(%[[V]] : tensor<?x32xbf16>) outs(%{{.+}} : tensor<?x32xf32>)
// CHECK:             arith.extf
// CHECK:           linalg.generic {{.+}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.+}}, %[[VF]] : tensor<?x?xf32>, tensor<?x32xf32>) outs(%{{.+}} : tensor<?x32xf32>)
// CHECK-NEXT:      ^bb0(%{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32):
func.func @forward_bf16(%q: tensor<1x1x100x32xbf16>, %k: tensor<1x1x100x32xbf16>, %v: tensor<1x1x100x32xbf16>) -> tensor<1x1x100x32xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x1x100x32xbf16>, tensor<1x1x100x32xbf16>, tensor<1x1x100x32xbf16> -> tensor<1x1x100x32xbf16>
  return %o : tensor<1x1x100x32xbf16>
}
