// RUN: fa-opt %s -split-input-file | fa-opt -split-input-file | FileCheck %s
// RUN: fa-opt %s -split-input-file -mlir-print-op-generic | fa-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @plain
// CHECK: %[[O:.+]] = fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16> -> tensor<2x8x128x64xf16>
func.func @plain(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16> {
  %o = fa.attention %q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16> -> tensor<2x8x128x64xf16>
  return %o : tensor<2x8x128x64xf16>
}

// -----

// GQA, dynamic sequence lengths, V head dim != QK head dim, every attribute.
// CHECK-LABEL: func @everything
// CHECK: fa.attention {{.+}} bias(%{{.+}} : tensor<1x32x?x?xf32>) {causal, layout = #fa<layout bshd>, mask_alignment = #fa<mask_alignment bottom_right>, scale = 1.250000e-01 : f32, softcap = 3.000000e+01 : f32, window = array<i64: 256, 0>} -> tensor<2x?x32x96xbf16>, tensor<2x32x?xf32>
func.func @everything(%q: tensor<2x?x32x128xbf16>, %k: tensor<2x?x8x128xbf16>, %v: tensor<2x?x8x96xbf16>, %b: tensor<1x32x?x?xf32>) -> (tensor<2x?x32x96xbf16>, tensor<2x32x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<2x?x32x128xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x96xbf16> bias(%b : tensor<1x32x?x?xf32>) {layout = #fa<layout bshd>, scale = 0.125 : f32, causal, mask_alignment = #fa<mask_alignment bottom_right>, window = array<i64: 256, 0>, softcap = 30.0 : f32} -> tensor<2x?x32x96xbf16>, tensor<2x32x?xf32>
  return %o, %lse : tensor<2x?x32x96xbf16>, tensor<2x32x?xf32>
}

// -----

// FP8 with per-(batch, kv-head) descales; MQA.
// CHECK-LABEL: func @fp8
// CHECK: fa.attention {{.+}} descale(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4x1xf32>, tensor<4x1xf32>, tensor<f32>) -> tensor<4x16x512x128xbf16>
func.func @fp8(%q: tensor<4x16x512x128xf8E4M3FN>, %k: tensor<4x1x512x128xf8E4M3FN>, %v: tensor<4x1x512x128xf8E4M3FN>, %dq: tensor<4x1xf32>, %dk: tensor<4x1xf32>, %dv: tensor<f32>) -> tensor<4x16x512x128xbf16> {
  %o = fa.attention %q, %k, %v : tensor<4x16x512x128xf8E4M3FN>, tensor<4x1x512x128xf8E4M3FN>, tensor<4x1x512x128xf8E4M3FN> descale(%dq, %dk, %dv : tensor<4x1xf32>, tensor<4x1xf32>, tensor<f32>) -> tensor<4x16x512x128xbf16>
  return %o : tensor<4x16x512x128xbf16>
}

// -----

// CHECK-LABEL: func @grad
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} = fa.attention_grad %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : {{.+}} bias(%{{.+}} : tensor<2x1x?x?xf16>) {causal} -> tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x1x?x?xf16>
func.func @grad(%do: tensor<2x8x?x64xf16>, %q: tensor<2x8x?x64xf16>, %k: tensor<2x2x?x64xf16>, %v: tensor<2x2x?x64xf16>, %o: tensor<2x8x?x64xf16>, %lse: tensor<2x8x?xf32>, %b: tensor<2x1x?x?xf16>) -> (tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x1x?x?xf16>) {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?xf32> bias(%b : tensor<2x1x?x?xf16>) {causal} -> tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x1x?x?xf16>
  return %dq, %dk, %dv, %db : tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x1x?x?xf16>
}

// -----

// CHECK-LABEL: func @split_kv_hint
// CHECK: fa.attention {{.+}} {causal, mask_alignment = #fa<mask_alignment bottom_right>, num_splits = 0 : i64} -> tensor<2x8x1x64xf16>
func.func @split_kv_hint(%q: tensor<2x8x1x64xf16>, %k: tensor<2x2x?x64xf16>, %v: tensor<2x2x?x64xf16>) -> tensor<2x8x1x64xf16> {
  %o = fa.attention %q, %k, %v : tensor<2x8x1x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16> {causal, mask_alignment = #fa<mask_alignment bottom_right>, num_splits = 0 : i64} -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

// CHECK-LABEL: func @combine
// CHECK: %{{.+}}, %{{.+}} = fa.combine %{{.+}}, %{{.+}} : tensor<?x2x8x1x128xf32>, tensor<?x2x8x1xf32> -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
func.func @combine(%po: tensor<?x2x8x1x128xf32>, %pl: tensor<?x2x8x1xf32>) -> (tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>) {
  %o, %l = fa.combine %po, %pl : tensor<?x2x8x1x128xf32>, tensor<?x2x8x1xf32> -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
  return %o, %l : tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
}
