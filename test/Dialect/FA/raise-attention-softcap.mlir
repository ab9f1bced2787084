// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Softcaps as frontends write them. fa.attention computes
// c * tanh(scale * qk / c); a program's f * tanh(x * a) is that with
// softcap f and scale a * f times x's own scale, exactly, whatever a is.
// TOSA divides by a constant as a multiplication by its reciprocal, which
// in bf16 is rounded (1/50 -> 0.02001953125): the op's scale takes the
// product (Gemma-2 bf16 through torch-mlir's TOSA).

// CHECK-LABEL: func.func @tosa_bf16_reciprocal
// CHECK: fa.attention {{.+}} {scale = 0.12512207 : f32, softcap = 5.000000e+01 : f32} -> tensor<1x4x16x8xbf16>
func.func @tosa_bf16_reciprocal(%q: tensor<4x16x8xbf16>, %k: tensor<4x16x8xbf16>, %v: tensor<4x16x8xbf16>) -> tensor<4x16x8xbf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %sc = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xbf16>}> : () -> tensor<1x1x1xbf16>
  %inv = "tosa.const"() <{values = dense<0.02> : tensor<1x1x1xbf16>}> : () -> tensor<1x1x1xbf16>
  %cap = "tosa.const"() <{values = dense<50.0> : tensor<1x1x1xbf16>}> : () -> tensor<1x1x1xbf16>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x16x8xbf16>) -> tensor<4x8x16xbf16>
  %s32 = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x16x8xbf16>, tensor<4x8x16xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<4x16x16xf32>
  %sb = tosa.cast %s32 : (tensor<4x16x16xf32>) -> tensor<4x16x16xbf16>
  %x1 = tosa.mul %sb, %sc, %shift : (tensor<4x16x16xbf16>, tensor<1x1x1xbf16>, tensor<1xi8>) -> tensor<4x16x16xbf16>
  %x2 = tosa.mul %x1, %inv, %shift : (tensor<4x16x16xbf16>, tensor<1x1x1xbf16>, tensor<1xi8>) -> tensor<4x16x16xbf16>
  %th = tosa.tanh %x2 : (tensor<4x16x16xbf16>) -> tensor<4x16x16xbf16>
  %t = tosa.mul %th, %cap, %shift : (tensor<4x16x16xbf16>, tensor<1x1x1xbf16>, tensor<1xi8>) -> tensor<4x16x16xbf16>
  %t32 = tosa.cast %t : (tensor<4x16x16xbf16>) -> tensor<4x16x16xf32>
  %m = tosa.reduce_max %t32 {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %d = tosa.sub %t32, %m : (tensor<4x16x16xf32>, tensor<4x16x1xf32>) -> tensor<4x16x16xf32>
  %e = tosa.exp %d : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %r = tosa.reciprocal %l : (tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<4x16x16xf32>, tensor<4x16x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %pb = tosa.cast %p : (tensor<4x16x16xf32>) -> tensor<4x16x16xbf16>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.251221e-01, softcap 5.000000e+01)}}
  %o = tosa.matmul %pb, %v, %zp, %zp : (tensor<4x16x16xbf16>, tensor<4x16x8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<4x16x8xf32>
  %ob = tosa.cast %o : (tensor<4x16x8xf32>) -> tensor<4x16x8xbf16>
  return %ob : tensor<4x16x8xbf16>
}

// -----

// The scale folded into the outer factor: 6.25 * tanh(qk / 400) is
// softcap 6.25 of 0.015625 * qk.
// CHECK-LABEL: func.func @outer_factor_folded
// CHECK: fa.attention {{.+}} {scale = 1.562500e-02 : f32, softcap = 6.250000e+00 : f32}
func.func @outer_factor_folded(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.0025> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %cap = "tosa.const"() <{values = dense<6.25> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x16x8xf32>) -> tensor<4x8x16xf32>
  %s32 = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x16xf32>
  %x1 = tosa.mul %s32, %inv, %shift : (tensor<4x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %th = tosa.tanh %x1 : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %t = tosa.mul %th, %cap, %shift : (tensor<4x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %m = tosa.reduce_max %t {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %d = tosa.sub %t, %m : (tensor<4x16x16xf32>, tensor<4x16x1xf32>) -> tensor<4x16x16xf32>
  %e = tosa.exp %d : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %r = tosa.reciprocal %l : (tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<4x16x16xf32>, tensor<4x16x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.562500e-02, softcap 6.250000e+00)}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<4x16x16xf32>, tensor<4x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

// -----

// tanh without an inner factor: softcap 2 of 2 * qk.
// CHECK-LABEL: func.func @tanh_unscaled
// CHECK: fa.attention {{.+}} {scale = 2.000000e+00 : f32, softcap = 2.000000e+00 : f32}
func.func @tanh_unscaled(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %cap = "tosa.const"() <{values = dense<2.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x16x8xf32>) -> tensor<4x8x16xf32>
  %s32 = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x16xf32>
  %th = tosa.tanh %s32 : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %t = tosa.mul %th, %cap, %shift : (tensor<4x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %m = tosa.reduce_max %t {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %d = tosa.sub %t, %m : (tensor<4x16x16xf32>, tensor<4x16x1xf32>) -> tensor<4x16x16xf32>
  %e = tosa.exp %d : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %r = tosa.reciprocal %l : (tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<4x16x16xf32>, tensor<4x16x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 2.000000e+00, softcap 2.000000e+00)}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<4x16x16xf32>, tensor<4x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

// -----

// A bias inside the tanh whose factor is not 1 / softcap: fa.attention
// would have to scale the bias too.
// CHECK-LABEL: func.func @bias_inside_scaled_softcap
// CHECK-NOT: fa.attention
func.func @bias_inside_scaled_softcap(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>, %bias: tensor<4x16x16xf32>) -> tensor<4x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.021> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %cap = "tosa.const"() <{values = dense<50.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x16x8xf32>) -> tensor<4x8x16xf32>
  %s32 = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x16xf32>
  %x0 = tosa.add %s32, %bias : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %x1 = tosa.mul %x0, %inv, %shift : (tensor<4x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %th = tosa.tanh %x1 : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %t = tosa.mul %th, %cap, %shift : (tensor<4x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %m = tosa.reduce_max %t {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %d = tosa.sub %t, %m : (tensor<4x16x16xf32>, tensor<4x16x1xf32>) -> tensor<4x16x16xf32>
  %e = tosa.exp %d : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %r = tosa.reciprocal %l : (tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<4x16x16xf32>, tensor<4x16x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  // expected-remark @+1 {{attention not raised: a bias inside the softcap scaled by 1.050000e+00 (the tanh's factor times the softcap is not 1): fa.attention adds its bias unscaled}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<4x16x16xf32>, tensor<4x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}
