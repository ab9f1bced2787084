// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Attention in TOSA (what TFLite / torch-mlir's TOSA backend / ONNX importers
// produce): tosa.reshape to 3-D, tosa.transpose, tosa.matmul (with zero
// points), tosa.mul (with its shift operand) by a constant, reduce_max, sub,
// exp, reduce_sum, reciprocal, mul, matmul, reshape back. Reductions keep
// their dimension with size 1 and operands broadcast implicitly.

// BERT-base shapes.
// CHECK-LABEL: func.func @tosa_attention
// CHECK-SAME: (%[[Q:.+]]: tensor<2x12x128x64xf32>, %[[K:.+]]: tensor<2x12x128x64xf32>, %[[V:.+]]: tensor<2x12x128x64xf32>)
// CHECK: %[[O:.+]] = fa.attention %[[Q]], %[[K]], %[[V]] : {{.+}} {scale = 1.250000e-01 : f32} -> tensor<2x12x128x64xf32>
// CHECK-NOT: tosa.
// CHECK: return %[[O]]
func.func @tosa_attention(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32> {
  %s3 = tosa.const_shape {values = dense<[24, 128, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s4 = tosa.const_shape {values = dense<[2, 12, 128, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %q3 = tosa.reshape %q, %s3 : (tensor<2x12x128x64xf32>, !tosa.shape<3>) -> tensor<24x128x64xf32>
  %k3 = tosa.reshape %k, %s3 : (tensor<2x12x128x64xf32>, !tosa.shape<3>) -> tensor<24x128x64xf32>
  %v3 = tosa.reshape %v, %s3 : (tensor<2x12x128x64xf32>, !tosa.shape<3>) -> tensor<24x128x64xf32>
  %kt = tosa.transpose %k3 {perms = array<i32: 0, 2, 1>} : (tensor<24x128x64xf32>) -> tensor<24x64x128xf32>
  %s = tosa.matmul %q3, %kt, %zp, %zp : (tensor<24x128x64xf32>, tensor<24x64x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<24x128x128xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<24x128x128xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<24x128x128xf32>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<24x128x128xf32>) -> tensor<24x128x1xf32>
  %d = tosa.sub %ss, %m : (tensor<24x128x128xf32>, tensor<24x128x1xf32>) -> tensor<24x128x128xf32>
  %e = tosa.exp %d : (tensor<24x128x128xf32>) -> tensor<24x128x128xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<24x128x128xf32>) -> tensor<24x128x1xf32>
  %r = tosa.reciprocal %l : (tensor<24x128x1xf32>) -> tensor<24x128x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<24x128x128xf32>, tensor<24x128x1xf32>, tensor<1xi8>) -> tensor<24x128x128xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01)}}
  %o = tosa.matmul %p, %v3, %zp, %zp : (tensor<24x128x128xf32>, tensor<24x128x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<24x128x64xf32>
  %o4 = tosa.reshape %o, %s4 : (tensor<24x128x64xf32>, !tosa.shape<4>) -> tensor<2x12x128x64xf32>
  return %o4 : tensor<2x12x128x64xf32>
}

// -----

// Decoder block: Q scaled before the matmul, a constant [1, S, S] additive
// causal mask, GPT-2-small head count.
// CHECK-LABEL: func.func @tosa_causal
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
func.func @tosa_causal(%q: tensor<1x12x16x64xf32>, %k: tensor<1x12x16x64xf32>, %v: tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32> {
  %s3 = tosa.const_shape {values = dense<[12, 16, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s4 = tosa.const_shape {values = dense<[1, 12, 16, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %mask = "tosa.const"() <{values = dense<[[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]> : tensor<1x16x16xf32>}> : () -> tensor<1x16x16xf32>
  %qs = tosa.mul %q, %scale, %shift : (tensor<1x12x16x64xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x12x16x64xf32>
  %q3 = tosa.reshape %qs, %s3 : (tensor<1x12x16x64xf32>, !tosa.shape<3>) -> tensor<12x16x64xf32>
  %k3 = tosa.reshape %k, %s3 : (tensor<1x12x16x64xf32>, !tosa.shape<3>) -> tensor<12x16x64xf32>
  %v3 = tosa.reshape %v, %s3 : (tensor<1x12x16x64xf32>, !tosa.shape<3>) -> tensor<12x16x64xf32>
  %kt = tosa.transpose %k3 {perms = array<i32: 0, 2, 1>} : (tensor<12x16x64xf32>) -> tensor<12x64x16xf32>
  %s = tosa.matmul %q3, %kt, %zp, %zp : (tensor<12x16x64xf32>, tensor<12x64x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<12x16x16xf32>
  %sm = tosa.add %s, %mask : (tensor<12x16x16xf32>, tensor<1x16x16xf32>) -> tensor<12x16x16xf32>
  %m = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<12x16x16xf32>) -> tensor<12x16x1xf32>
  %d = tosa.sub %sm, %m : (tensor<12x16x16xf32>, tensor<12x16x1xf32>) -> tensor<12x16x16xf32>
  %e = tosa.exp %d : (tensor<12x16x16xf32>) -> tensor<12x16x16xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<12x16x16xf32>) -> tensor<12x16x1xf32>
  %r = tosa.reciprocal %l : (tensor<12x16x1xf32>) -> tensor<12x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<12x16x16xf32>, tensor<12x16x1xf32>, tensor<1xi8>) -> tensor<12x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, causal)}}
  %o = tosa.matmul %p, %v3, %zp, %zp : (tensor<12x16x16xf32>, tensor<12x16x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<12x16x64xf32>
  %o4 = tosa.reshape %o, %s4 : (tensor<12x16x64xf32>, !tosa.shape<4>) -> tensor<1x12x16x64xf32>
  return %o4 : tensor<1x12x16x64xf32>
}
