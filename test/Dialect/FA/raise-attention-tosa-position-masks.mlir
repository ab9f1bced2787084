// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Masks as torch-mlir's TOSA output builds them from position ids and an
// attention_mask (issue 34 item 1): tosa.pad / slice / tile / concat /
// gather / reduce_sum are evaluated as reads at computed positions, so the
// causal part becomes the attribute and attention_mask[b, k] a mask_mod
// reading the [B, S] input at (batch, key), not a [B, 1, S, S] bias. (The frontends corpus runs the same
// ops in real models: llama, mistral, gemma2, gpt2, bert-padded.)

// -----

// sdpa-style: causal AND attention_mask[b, k], -inf.
// CHECK-LABEL: func.func @tosa_causal_padding_gather
// CHECK-NOT: tosa.gather
// CHECK: fa.attention {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} : {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} captures(%arg3 : tensor<2x8xi64>) {causal, scale = 5.000000e-01 : f32} -> tensor<2x2x8x4xf32> mask_mod {
// CHECK-NEXT: ^bb0(%[[B:[^:]+]]: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %[[J:[^:]+]]: index, %[[M:[^:]+]]: tensor<2x8xi64>):
// CHECK-NEXT: %[[X:.+]] = tensor.extract %[[M]][%[[B]], %[[J]]] : tensor<2x8xi64>
// CHECK: arith.cmpi ne, %[[X]]
func.func @tosa_causal_padding_gather(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %v: tensor<2x2x8x4xf32>, %am: tensor<2x8xi64>) -> tensor<4x8x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s3 = tosa.const_shape {values = dense<[4, 8, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %q, %s3 : (tensor<2x2x8x4xf32>, !tosa.shape<3>) -> tensor<4x8x4xf32>
  %k3 = tosa.reshape %k, %s3 : (tensor<2x2x8x4xf32>, !tosa.shape<3>) -> tensor<4x8x4xf32>
  %v3 = tosa.reshape %v, %s3 : (tensor<2x2x8x4xf32>, !tosa.shape<3>) -> tensor<4x8x4xf32>
  %kt = tosa.transpose %k3 {perms = array<i32: 0, 2, 1>} : (tensor<4x8x4xf32>) -> tensor<4x4x8xf32>
  %s = tosa.matmul %q3, %kt, %zp, %zp : (tensor<4x8x4xf32>, tensor<4x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<4x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
  // Positions: an arange, shifted right by a pad and back by a slice.
  %ar = "tosa.const"() <{values = dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>}> : () -> tensor<8xi64>
  %padding = tosa.const_shape {values = dense<[1, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %z64 = "tosa.const"() <{values = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %arp = tosa.pad %ar, %padding, %z64 : (tensor<8xi64>, !tosa.shape<2>, tensor<1xi64>) -> tensor<9xi64>
  %start = tosa.const_shape {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
  %size = tosa.const_shape {values = dense<8> : tensor<1xindex>} : () -> !tosa.shape<1>
  %kpos = tosa.slice %arp, %start, %size : (tensor<9xi64>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<8xi64>
  %sq4 = tosa.const_shape {values = dense<[1, 1, 8, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %sk4 = tosa.const_shape {values = dense<[1, 1, 1, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %q4 = tosa.reshape %ar, %sq4 : (tensor<8xi64>, !tosa.shape<4>) -> tensor<1x1x8x1xi64>
  %k4 = tosa.reshape %kpos, %sk4 : (tensor<8xi64>, !tosa.shape<4>) -> tensor<1x1x1x8xi64>
  %causal = tosa.greater_equal %q4, %k4 : (tensor<1x1x8x1xi64>, tensor<1x1x1x8xi64>) -> tensor<1x1x8x8xi1>
  // attention_mask[b, k] as torch-mlir's TOSA writes aten.index: the
  // linear index b * S + k (tile, concat, mul by the strides, reduce_sum),
  // then a gather from the flattened mask.
  %bcol = "tosa.const"() <{values = dense<[[[0]], [[1]]]> : tensor<2x1x1xi32>}> : () -> tensor<2x1x1xi32>
  %mb = tosa.const_shape {values = dense<[1, 8, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %bt = tosa.tile %bcol, %mb : (tensor<2x1x1xi32>, !tosa.shape<3>) -> tensor<2x8x1xi32>
  %ar32 = tosa.cast %kpos : (tensor<8xi64>) -> tensor<8xi32>
  %s13 = tosa.const_shape {values = dense<[1, 8, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %kcol = tosa.reshape %ar32, %s13 : (tensor<8xi32>, !tosa.shape<3>) -> tensor<1x8x1xi32>
  %mk = tosa.const_shape {values = dense<[2, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %kt2 = tosa.tile %kcol, %mk : (tensor<1x8x1xi32>, !tosa.shape<3>) -> tensor<2x8x1xi32>
  %pair = tosa.concat %bt, %kt2 {axis = 2 : i32} : (tensor<2x8x1xi32>, tensor<2x8x1xi32>) -> tensor<2x8x2xi32>
  %s2 = tosa.const_shape {values = dense<[16, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %pair2 = tosa.reshape %pair, %s2 : (tensor<2x8x2xi32>, !tosa.shape<2>) -> tensor<16x2xi32>
  %strides = "tosa.const"() <{values = dense<[[8, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %prod = tosa.mul %pair2, %strides, %shift : (tensor<16x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<16x2xi32>
  %lin = tosa.reduce_sum %prod {axis = 1 : i32} : (tensor<16x2xi32>) -> tensor<16x1xi32>
  %s1n = tosa.const_shape {values = dense<[1, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %lin2 = tosa.reshape %lin, %s1n : (tensor<16x1xi32>, !tosa.shape<2>) -> tensor<1x16xi32>
  %s1n1 = tosa.const_shape {values = dense<[1, 16, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %flat = tosa.reshape %am, %s1n1 : (tensor<2x8xi64>, !tosa.shape<3>) -> tensor<1x16x1xi64>
  %g = tosa.gather %flat, %lin2 : (tensor<1x16x1xi64>, tensor<1x16xi32>) -> tensor<1x16x1xi64>
  %sb4 = tosa.const_shape {values = dense<[2, 1, 1, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %g4 = tosa.reshape %g, %sb4 : (tensor<1x16x1xi64>, !tosa.shape<4>) -> tensor<2x1x1x8xi64>
  %keep = tosa.cast %g4 : (tensor<2x1x1x8xi64>) -> tensor<2x1x1x8xi1>
  %mask = tosa.logical_and %causal, %keep : (tensor<1x1x8x8xi1>, tensor<2x1x1x8xi1>) -> tensor<2x1x8x8xi1>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %fill = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %mf = tosa.select %mask, %zero, %fill : (tensor<2x1x8x8xi1>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<2x1x8x8xf32>
  %s4 = tosa.const_shape {values = dense<[2, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %ss4 = tosa.reshape %ss, %s4 : (tensor<4x8x8xf32>, !tosa.shape<4>) -> tensor<2x2x8x8xf32>
  %sm4 = tosa.add %ss4, %mf : (tensor<2x2x8x8xf32>, tensor<2x1x8x8xf32>) -> tensor<2x2x8x8xf32>
  %s3s = tosa.const_shape {values = dense<[4, 8, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x = tosa.reshape %sm4, %s3s : (tensor<2x2x8x8xf32>, !tosa.shape<3>) -> tensor<4x8x8xf32>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %d = tosa.sub %x, %m : (tensor<4x8x8xf32>, tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
  %e = tosa.exp %d : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %r = tosa.reciprocal %l : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<4x8x8xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 5.000000e-01, causal, key padding mask, mask_mod)}}
  %o = tosa.matmul %p, %v3, %zp, %zp : (tensor<4x8x8xf32>, tensor<4x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x4xf32>
  return %o : tensor<4x8x4xf32>
}

// -----

// eager without padding: the causal part alone, finfo.min, every row keeps a
// key.
// CHECK-LABEL: func.func @tosa_causal_only
// CHECK-NOT: bias(
// CHECK: fa.attention {{.+}} {causal, scale = 5.000000e-01 : f32}
func.func @tosa_causal_only(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %v: tensor<2x2x8x4xf32>, %am: tensor<2x8xi64>) -> tensor<4x8x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s3 = tosa.const_shape {values = dense<[4, 8, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %q, %s3 : (tensor<2x2x8x4xf32>, !tosa.shape<3>) -> tensor<4x8x4xf32>
  %k3 = tosa.reshape %k, %s3 : (tensor<2x2x8x4xf32>, !tosa.shape<3>) -> tensor<4x8x4xf32>
  %v3 = tosa.reshape %v, %s3 : (tensor<2x2x8x4xf32>, !tosa.shape<3>) -> tensor<4x8x4xf32>
  %kt = tosa.transpose %k3 {perms = array<i32: 0, 2, 1>} : (tensor<4x8x4xf32>) -> tensor<4x4x8xf32>
  %s = tosa.matmul %q3, %kt, %zp, %zp : (tensor<4x8x4xf32>, tensor<4x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<4x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
  // Positions: an arange, shifted right by a pad and back by a slice.
  %ar = "tosa.const"() <{values = dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>}> : () -> tensor<8xi64>
  %padding = tosa.const_shape {values = dense<[1, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %z64 = "tosa.const"() <{values = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %arp = tosa.pad %ar, %padding, %z64 : (tensor<8xi64>, !tosa.shape<2>, tensor<1xi64>) -> tensor<9xi64>
  %start = tosa.const_shape {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
  %size = tosa.const_shape {values = dense<8> : tensor<1xindex>} : () -> !tosa.shape<1>
  %kpos = tosa.slice %arp, %start, %size : (tensor<9xi64>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<8xi64>
  %sq4 = tosa.const_shape {values = dense<[1, 1, 8, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %sk4 = tosa.const_shape {values = dense<[1, 1, 1, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %q4 = tosa.reshape %ar, %sq4 : (tensor<8xi64>, !tosa.shape<4>) -> tensor<1x1x8x1xi64>
  %k4 = tosa.reshape %kpos, %sk4 : (tensor<8xi64>, !tosa.shape<4>) -> tensor<1x1x1x8xi64>
  %causal = tosa.greater_equal %q4, %k4 : (tensor<1x1x8x1xi64>, tensor<1x1x1x8xi64>) -> tensor<1x1x8x8xi1>
  // attention_mask[b, k] as torch-mlir's TOSA writes aten.index: the
  // linear index b * S + k (tile, concat, mul by the strides, reduce_sum),
  // then a gather from the flattened mask.
  %bcol = "tosa.const"() <{values = dense<[[[0]], [[1]]]> : tensor<2x1x1xi32>}> : () -> tensor<2x1x1xi32>
  %mb = tosa.const_shape {values = dense<[1, 8, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %bt = tosa.tile %bcol, %mb : (tensor<2x1x1xi32>, !tosa.shape<3>) -> tensor<2x8x1xi32>
  %ar32 = tosa.cast %kpos : (tensor<8xi64>) -> tensor<8xi32>
  %s13 = tosa.const_shape {values = dense<[1, 8, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %kcol = tosa.reshape %ar32, %s13 : (tensor<8xi32>, !tosa.shape<3>) -> tensor<1x8x1xi32>
  %mk = tosa.const_shape {values = dense<[2, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %kt2 = tosa.tile %kcol, %mk : (tensor<1x8x1xi32>, !tosa.shape<3>) -> tensor<2x8x1xi32>
  %pair = tosa.concat %bt, %kt2 {axis = 2 : i32} : (tensor<2x8x1xi32>, tensor<2x8x1xi32>) -> tensor<2x8x2xi32>
  %s2 = tosa.const_shape {values = dense<[16, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %pair2 = tosa.reshape %pair, %s2 : (tensor<2x8x2xi32>, !tosa.shape<2>) -> tensor<16x2xi32>
  %strides = "tosa.const"() <{values = dense<[[8, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %prod = tosa.mul %pair2, %strides, %shift : (tensor<16x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<16x2xi32>
  %lin = tosa.reduce_sum %prod {axis = 1 : i32} : (tensor<16x2xi32>) -> tensor<16x1xi32>
  %s1n = tosa.const_shape {values = dense<[1, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %lin2 = tosa.reshape %lin, %s1n : (tensor<16x1xi32>, !tosa.shape<2>) -> tensor<1x16xi32>
  %s1n1 = tosa.const_shape {values = dense<[1, 16, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %flat = tosa.reshape %am, %s1n1 : (tensor<2x8xi64>, !tosa.shape<3>) -> tensor<1x16x1xi64>
  %g = tosa.gather %flat, %lin2 : (tensor<1x16x1xi64>, tensor<1x16xi32>) -> tensor<1x16x1xi64>
  %sb4 = tosa.const_shape {values = dense<[2, 1, 1, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %g4 = tosa.reshape %g, %sb4 : (tensor<1x16x1xi64>, !tosa.shape<4>) -> tensor<2x1x1x8xi64>
  %keep = tosa.cast %g4 : (tensor<2x1x1x8xi64>) -> tensor<2x1x1x8xi1>
  %mask = tosa.logical_and %causal, %causal : (tensor<1x1x8x8xi1>, tensor<1x1x8x8xi1>) -> tensor<1x1x8x8xi1>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %fill = "tosa.const"() <{values = dense<-3.40282347E+38> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %mf = tosa.select %mask, %zero, %fill : (tensor<1x1x8x8xi1>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x8x8xf32>
  %s4 = tosa.const_shape {values = dense<[2, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %ss4 = tosa.reshape %ss, %s4 : (tensor<4x8x8xf32>, !tosa.shape<4>) -> tensor<2x2x8x8xf32>
  %sm4 = tosa.add %ss4, %mf : (tensor<2x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<2x2x8x8xf32>
  %s3s = tosa.const_shape {values = dense<[4, 8, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x = tosa.reshape %sm4, %s3s : (tensor<2x2x8x8xf32>, !tosa.shape<3>) -> tensor<4x8x8xf32>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %d = tosa.sub %x, %m : (tensor<4x8x8xf32>, tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
  %e = tosa.exp %d : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %r = tosa.reciprocal %l : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<4x8x8xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 5.000000e-01, causal)}}
  %o = tosa.matmul %p, %v3, %zp, %zp : (tensor<4x8x8xf32>, tensor<4x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x4xf32>
  return %o : tensor<4x8x4xf32>
}
