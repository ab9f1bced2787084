// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Ops that are identities by value on the way (issue 15, item 1): TOSA
// exports add zero tensors and multiply by ones tensors, some of a larger
// shape than the operand (then they broadcast: that is how K / V are
// repeated to the query heads, GQA). The pass looks through them without
// --canonicalize.

// Q + 0 and scores + 0 of the same shape.
// CHECK-LABEL: func.func @add_zero_same_shape
// CHECK-SAME: (%[[Q:.+]]: tensor<2x4x8xf32>, %[[K:.+]]: tensor<2x4x8xf32>, %[[V:.+]]: tensor<2x4x8xf32>)
// CHECK: %[[O:.+]] = fa.attention %{{.+}}, %{{.+}}, %{{.+}} : {{.+}} {scale = 1.250000e-01 : f32}
// CHECK-NOT: tosa.matmul
// CHECK-NOT: tosa.add
func.func @add_zero_same_shape(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zq = "tosa.const"() <{values = dense<0.0> : tensor<2x4x8xf32>}> : () -> tensor<2x4x8xf32>
  %zs = "tosa.const"() <{values = dense<0.0> : tensor<2x4x4xf32>}> : () -> tensor<2x4x4xf32>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %qz = tosa.add %q, %zq : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
  %s = tosa.matmul %qz, %kt, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x4xf32>
  %sz = tosa.add %zs, %s : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %ss = tosa.mul %sz, %scale, %shift : (tensor<2x4x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %d = tosa.sub %ss, %m : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
  %e = tosa.exp %d : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %r = tosa.reciprocal %l : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x4x4xf32>, tensor<2x4x1xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01)}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x4x4xf32>, tensor<2x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// K and V [1, 2 kv heads, 1, S, D] repeated to 4 query heads by adding a
// [1, 2, 2, S, D] zero tensor, then merged to [4, S, D]: GQA, no copies.
// CHECK-LABEL: func.func @gqa_add_zero_broadcast
// CHECK-SAME: %[[K:[^:]+]]: tensor<1x2x4x8xf32>, %[[V:[^:]+]]: tensor<1x2x4x8xf32>
// CHECK: fa.attention %{{.+}}, %[[K]], %[[V]] : tensor<1x4x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
// CHECK-NOT: tosa.add
func.func @gqa_add_zero_broadcast(%q: tensor<1x4x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<4x4x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zkv = "tosa.const"() <{values = dense<0.0> : tensor<1x2x2x4x8xf32>}> : () -> tensor<1x2x2x4x8xf32>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s3 = tosa.const_shape {values = dense<[4, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s5 = tosa.const_shape {values = dense<[1, 2, 1, 4, 8]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %q3 = tosa.reshape %q, %s3 : (tensor<1x4x4x8xf32>, !tosa.shape<3>) -> tensor<4x4x8xf32>
  %k5 = tosa.reshape %k, %s5 : (tensor<1x2x4x8xf32>, !tosa.shape<5>) -> tensor<1x2x1x4x8xf32>
  %kr = tosa.add %k5, %zkv : (tensor<1x2x1x4x8xf32>, tensor<1x2x2x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %k3 = tosa.reshape %kr, %s3 : (tensor<1x2x2x4x8xf32>, !tosa.shape<3>) -> tensor<4x4x8xf32>
  %v5 = tosa.reshape %v, %s5 : (tensor<1x2x4x8xf32>, !tosa.shape<5>) -> tensor<1x2x1x4x8xf32>
  %vr = tosa.add %zkv, %v5 : (tensor<1x2x2x4x8xf32>, tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %v3 = tosa.reshape %vr, %s3 : (tensor<1x2x2x4x8xf32>, !tosa.shape<3>) -> tensor<4x4x8xf32>
  %kt = tosa.transpose %k3 {perms = array<i32: 0, 2, 1>} : (tensor<4x4x8xf32>) -> tensor<4x8x4xf32>
  %s = tosa.matmul %q3, %kt, %zp, %zp : (tensor<4x4x8xf32>, tensor<4x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x4x4xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<4x4x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x4x4xf32>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<4x4x4xf32>) -> tensor<4x4x1xf32>
  %d = tosa.sub %ss, %m : (tensor<4x4x4xf32>, tensor<4x4x1xf32>) -> tensor<4x4x4xf32>
  %e = tosa.exp %d : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x4x4xf32>) -> tensor<4x4x1xf32>
  %r = tosa.reciprocal %l : (tensor<4x4x1xf32>) -> tensor<4x4x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<4x4x4xf32>, tensor<4x4x1xf32>, tensor<1xi8>) -> tensor<4x4x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 2 kv heads, scale 1.250000e-01)}}
  %o = tosa.matmul %p, %v3, %zp, %zp : (tensor<4x4x4xf32>, tensor<4x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x4x8xf32>
  return %o : tensor<4x4x8xf32>
}

// -----

// The row max and the row sum's reciprocal broadcast to the scores' shape
// by multiplying with a ones tensor.
// CHECK-LABEL: func.func @rows_times_ones
// CHECK: fa.attention {{.+}} {scale = 1.250000e-01 : f32}
// CHECK-NOT: tosa.mul
func.func @rows_times_ones(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ones = "tosa.const"() <{values = dense<1.0> : tensor<2x4x4xf32>}> : () -> tensor<2x4x4xf32>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x4xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x4x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %mb = tosa.mul %m, %ones, %shift : (tensor<2x4x1xf32>, tensor<2x4x4xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  %d = tosa.sub %ss, %mb : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e = tosa.exp %d : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %r = tosa.reciprocal %l : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %rb = tosa.mul %ones, %r, %shift : (tensor<2x4x4xf32>, tensor<2x4x1xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  %p = tosa.mul %e, %rb, %shift : (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01)}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x4x4xf32>, tensor<2x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}
