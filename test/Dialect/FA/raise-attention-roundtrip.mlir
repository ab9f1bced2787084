// RUN: fa-opt %s --fa-decompose-attention --canonicalize --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Round trip through the oracle: fa-decompose-attention writes fa.attention
// as plain linalg (the grouped [B, Hkv, G, S, D] einsum form, the guarded
// row max, normalization after P·V with a guard for empty rows), and
// fa-raise-attention must recover the same op.

// CHECK-LABEL: func.func @causal
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32> {causal, scale = 0.176776{{[0-9]+}} : f32}
func.func @causal(%q: tensor<2x4x64x32xf32>, %k: tensor<2x4x64x32xf32>, %v: tensor<2x4x64x32xf32>) -> tensor<2x4x64x32xf32> {
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.767767e-01, causal)}}
  %o = fa.attention %q, %k, %v : tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32> {causal} -> tensor<2x4x64x32xf32>
  return %o : tensor<2x4x64x32xf32>
}

// -----

// CHECK-LABEL: func.func @gqa_bottom_right
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<1x8x16x64xf32>, tensor<1x2x48x64xf32>, tensor<1x2x48x64xf32> {causal, mask_alignment = #fa<mask_alignment bottom_right>, scale = 1.250000e-01 : f32}
func.func @gqa_bottom_right(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x48x64xf32>, %v: tensor<1x2x48x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 2 kv heads, scale 1.250000e-01, causal bottom_right)}}
  %o = fa.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x2x48x64xf32>, tensor<1x2x48x64xf32> {causal, mask_alignment = #fa<mask_alignment bottom_right>} -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @window_softcap_bshd
// CHECK: fa.attention {{.+}} {layout = #fa<layout bshd>, scale = 5.000000e-01 : f32, softcap = 3.000000e+01 : f32, window = array<i64: 4, 2>}
func.func @window_softcap_bshd(%q: tensor<2x32x4x16xf32>, %k: tensor<2x32x4x16xf32>, %v: tensor<2x32x4x16xf32>) -> tensor<2x32x4x16xf32> {
  // expected-remark @+1 {{raised to fa.attention (bshd, 4 query heads / 4 kv heads, scale 5.000000e-01, softcap 3.000000e+01, window [4, 2])}}
  %o = fa.attention %q, %k, %v : tensor<2x32x4x16xf32>, tensor<2x32x4x16xf32>, tensor<2x32x4x16xf32> {layout = #fa<layout bshd>, scale = 0.5 : f32, softcap = 30.0 : f32, window = array<i64: 4, 2>} -> tensor<2x32x4x16xf32>
  return %o : tensor<2x32x4x16xf32>
}

// -----

// bf16: the oracle computes in f32 between extf and a final truncf, which
// stays outside the raised op (it runs in f32).
// CHECK-LABEL: func.func @bias_bf16
// CHECK: fa.attention {{.+}} bias(%{{.+}} : tensor<1x4x16x24xf32>) {scale = 2.500000e-01 : f32} -> tensor<1x4x16x16xf32>
// CHECK: arith.truncf
func.func @bias_bf16(%q: tensor<1x4x16x16xbf16>, %k: tensor<1x4x24x16xbf16>, %v: tensor<1x4x24x16xbf16>, %b: tensor<1x4x16x24xf32>) -> tensor<1x4x16x16xbf16> {
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 2.500000e-01, bias, computed in f32)}}
  %o = fa.attention %q, %k, %v : tensor<1x4x16x16xbf16>, tensor<1x4x24x16xbf16>, tensor<1x4x24x16xbf16> bias(%b : tensor<1x4x16x24xf32>) -> tensor<1x4x16x16xbf16>
  return %o : tensor<1x4x16x16xbf16>
}
