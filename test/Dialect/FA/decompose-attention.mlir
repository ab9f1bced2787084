// RUN: fa-opt %s -split-input-file --fa-decompose-attention | FileCheck %s

// The reference materialises the full score matrix: grouped heads become a
// [B, Hkv, G, Sq, Sk] tensor, the softmax is max / exp / sum in f32, and the
// output is cast back to the input's type.
// CHECK-LABEL: func @gqa_causal
// CHECK-NOT: fa.attention
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 4, 128, 64] : tensor<1x8x128x64xbf16> into tensor<1x2x4x128x64xbf16>
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]{{.+}} outs(%{{.+}} : tensor<1x2x4x128x128xf32>)
// CHECK: arith.cmpi sgt
// CHECK: arith.select
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: math.log
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: tensor.collapse_shape
func.func @gqa_causal(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> (tensor<1x8x128x64xbf16>, tensor<1x8x128xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> {causal} -> tensor<1x8x128x64xbf16>, tensor<1x8x128xf32>
  return %o, %l : tensor<1x8x128x64xbf16>, tensor<1x8x128xf32>
}

// -----

// bshd inputs are transposed to bhsd and the output back; softcap is a tanh.
// CHECK-LABEL: func @bshd_softcap
// CHECK: linalg.transpose ins(%{{.+}} : tensor<2x?x4x32xf32>) outs(%{{.+}} : tensor<2x4x?x32xf32>) permutation = [0, 2, 1, 3]
// CHECK: math.tanh
// CHECK: linalg.transpose {{.+}} permutation = [0, 2, 1, 3]
func.func @bshd_softcap(%q: tensor<2x?x4x32xf32>, %k: tensor<2x?x4x32xf32>, %v: tensor<2x?x4x32xf32>) -> tensor<2x?x4x32xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x?x4x32xf32>, tensor<2x?x4x32xf32>, tensor<2x?x4x32xf32> {layout = #fa<layout bshd>, softcap = 20.0 : f32} -> tensor<2x?x4x32xf32>
  return %o : tensor<2x?x4x32xf32>
}

// -----

// The backward: dK and dV reduce over the group and query rows; the bias
// gradient sums over the broadcast batch and head dimensions.
// CHECK-LABEL: func @grad
// CHECK-NOT: fa.attention_grad
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: iterator_types = ["reduction", "reduction", "reduction", "parallel", "parallel"]{{.+}} outs(%{{.+}} : tensor<1x1x1x16x16xf32>)
func.func @grad(%do: tensor<2x4x16x8xf32>, %q: tensor<2x4x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %o: tensor<2x4x16x8xf32>, %lse: tensor<2x4x16xf32>, %b: tensor<1x1x16x16xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<1x1x16x16xf32>) {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32> bias(%b : tensor<1x1x16x16xf32>) -> tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<1x1x16x16xf32>
  return %dq, %dk, %dv, %db : tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<1x1x16x16xf32>
}

// -----

// FP8 per-block descales: spread to one descale per row ([b, h, i / block]),
// Q's over the query heads and then split into (kv head, group) like Q,
// K's (per tensor here) and V's (per block, kv heads) read directly.
// CHECK-LABEL: func.func @fp8_blocks
// CHECK:         %[[QROWS:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<1x4x100xf32>)
// CHECK:           %[[I:.+]] = linalg.index 2
// CHECK:           %[[BLK:.+]] = arith.divui %[[I]], %c32
// CHECK:           tensor.extract %arg3[%{{.+}}, %{{.+}}, %[[BLK]]] : tensor<1x4x4xf32>
// CHECK:         %[[QG:.+]] = tensor.expand_shape %[[QROWS]] {{.+}} into tensor<1x2x2x100xf32>
// CHECK:         linalg.generic {{.+}} ins(%{{.+}}, %[[QG]] : tensor<1x2x2x100x32xf8E4M3FN>, tensor<1x2x2x100xf32>)
// CHECK:         linalg.generic {{.+}} ins(%arg1, %arg4 : tensor<1x2x100x32xf8E4M3FN>, tensor<f32>)
// CHECK:         %[[VROWS:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<1x2x100xf32>)
// CHECK:           arith.divui %{{.+}}, %c64
// CHECK:           tensor.extract %arg5
// CHECK:         linalg.generic {{.+}} ins(%arg2, %[[VROWS]] : tensor<1x2x100x32xf8E4M3FN>, tensor<1x2x100xf32>)
func.func @fp8_blocks(%q: tensor<1x4x100x32xf8E4M3FN>, %k: tensor<1x2x100x32xf8E4M3FN>, %v: tensor<1x2x100x32xf8E4M3FN>, %dq: tensor<1x4x4xf32>, %dk: tensor<f32>, %dv: tensor<1x2x2xf32>) -> tensor<1x4x100x32xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x4x100x32xf8E4M3FN>, tensor<1x2x100x32xf8E4M3FN>, tensor<1x2x100x32xf8E4M3FN> descale(%dq, %dk, %dv : tensor<1x4x4xf32>, tensor<f32>, tensor<1x2x2xf32>) {descale_block = array<i64: 32, 64>} -> tensor<1x4x100x32xbf16>
  return %o : tensor<1x4x100x32xbf16>
}
