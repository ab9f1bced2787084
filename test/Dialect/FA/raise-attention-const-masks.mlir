// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Masks built from constants (issue 15, item 3) are evaluated at compile
// time on the seq_q x seq_k grid and classified: causal (top-left or
// bottom-right), a sliding window, or no such mask (then the constant stays
// a bias). The spellings here: a slice of a constant lower-triangular buffer
// (HF GPT-2's `bias` cut to the sequence), index tensors compared and cast
// i1 -> i32 -> i8 -> i1 (MIGraphX), a band from two compares.

// -----

// The buffer's diagonal block: causal, top-left.
// CHECK-LABEL: func.func @buffer_slice_top_left
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
// CHECK-NOT: tosa.select
func.func @buffer_slice_top_left(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %buf = "tosa.const"() <{values = dense<[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]> : tensor<1x32x32xi1>}> : () -> tensor<1x32x32xi1>
  %mask = tensor.extract_slice %buf[0, 8, 8] [1, 16, 16] [1, 1, 1] : tensor<1x32x32xi1> to tensor<1x16x16xi1>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %sm = tosa.select %mask, %ss, %ninf : (tensor<1x16x16xi1>, tensor<2x16x16xf32>, tensor<1x1x1xf32>) -> tensor<2x16x16xf32>
  %m = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %d = tosa.sub %sm, %m : (tensor<2x16x16xf32>, tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %e = tosa.exp %d : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %r = tosa.reciprocal %l : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal)}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// bias[:, :, k - q : k, :k] with 8 new queries after 16 cached keys:
// causal aligned bottom-right.
// CHECK-LABEL: func.func @buffer_slice_bottom_right
// CHECK: fa.attention {{.+}} {causal, mask_alignment = #fa<mask_alignment bottom_right>, scale = 1.250000e-01 : f32}
func.func @buffer_slice_bottom_right(%q: tensor<2x8x8xf32>, %k: tensor<2x24x8xf32>, %v: tensor<2x24x8xf32>) -> tensor<2x8x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %buf = "tosa.const"() <{values = dense<[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]> : tensor<1x32x32xi1>}> : () -> tensor<1x32x32xi1>
  %mask = tensor.extract_slice %buf[0, 16, 0] [1, 8, 24] [1, 1, 1] : tensor<1x32x32xi1> to tensor<1x8x24xi1>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x24x8xf32>) -> tensor<2x8x24xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x8x8xf32>, tensor<2x8x24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x24xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x8x24xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x24xf32>
  %sm = tosa.select %mask, %ss, %ninf : (tensor<1x8x24xi1>, tensor<2x8x24xf32>, tensor<1x1x1xf32>) -> tensor<2x8x24xf32>
  %m = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<2x8x24xf32>) -> tensor<2x8x1xf32>
  %d = tosa.sub %sm, %m : (tensor<2x8x24xf32>, tensor<2x8x1xf32>) -> tensor<2x8x24xf32>
  %e = tosa.exp %d : (tensor<2x8x24xf32>) -> tensor<2x8x24xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x8x24xf32>) -> tensor<2x8x1xf32>
  %r = tosa.reciprocal %l : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x8x24xf32>, tensor<2x8x1xf32>, tensor<1xi8>) -> tensor<2x8x24xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal bottom_right)}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x8x24xf32>, tensor<2x24x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x8xf32>
  return %o : tensor<2x8x8xf32>
}

// -----

// MIGraphX: key index > query index hides, through a cast chain.
// CHECK-LABEL: func.func @index_compare_cast_chain
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
// CHECK-NOT: tosa.cast
func.func @index_compare_cast_chain(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %qi = "tosa.const"() <{values = dense<[[[0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15]]]> : tensor<1x16x1xi32>}> : () -> tensor<1x16x1xi32>
  %kj = "tosa.const"() <{values = dense<[[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]]> : tensor<1x1x16xi32>}> : () -> tensor<1x1x16xi32>
  %gt = tosa.greater %kj, %qi : (tensor<1x1x16xi32>, tensor<1x16x1xi32>) -> tensor<1x16x16xi1>
  %g32 = tosa.cast %gt : (tensor<1x16x16xi1>) -> tensor<1x16x16xi32>
  %g8 = tosa.cast %g32 : (tensor<1x16x16xi32>) -> tensor<1x16x16xi8>
  %hide = tosa.cast %g8 : (tensor<1x16x16xi8>) -> tensor<1x16x16xi1>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %sm = tosa.select %hide, %ninf, %ss : (tensor<1x16x16xi1>, tensor<1x1x1xf32>, tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %m = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %d = tosa.sub %sm, %m : (tensor<2x16x16xf32>, tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %e = tosa.exp %d : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %r = tosa.reciprocal %l : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal)}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// A band: keys more than 3 behind or any ahead are hidden.
// CHECK-LABEL: func.func @index_band_window
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32, window = array<i64: 3, 0>}
func.func @index_band_window(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %qi = "tosa.const"() <{values = dense<[[[0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15]]]> : tensor<1x16x1xi32>}> : () -> tensor<1x16x1xi32>
  %kj = "tosa.const"() <{values = dense<[[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]]> : tensor<1x1x16xi32>}> : () -> tensor<1x1x16xi32>
  %w = "tosa.const"() <{values = dense<3> : tensor<1x1x1xi32>}> : () -> tensor<1x1x1xi32>
  %future = tosa.greater %kj, %qi : (tensor<1x1x16xi32>, tensor<1x16x1xi32>) -> tensor<1x16x16xi1>
  %lo = tosa.sub %qi, %w : (tensor<1x16x1xi32>, tensor<1x1x1xi32>) -> tensor<1x16x1xi32>
  %old = tosa.greater %lo, %kj : (tensor<1x16x1xi32>, tensor<1x1x16xi32>) -> tensor<1x16x16xi1>
  %hide = tosa.logical_or %future, %old : (tensor<1x16x16xi1>, tensor<1x16x16xi1>) -> tensor<1x16x16xi1>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %sm = tosa.select %hide, %ninf, %ss : (tensor<1x16x16xi1>, tensor<1x1x1xf32>, tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %m = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %d = tosa.sub %sm, %m : (tensor<2x16x16xf32>, tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %e = tosa.exp %d : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %r = tosa.reciprocal %l : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal window [3, 0])}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// A constant that is no causal mask or window: kept as the bias.
// CHECK-LABEL: func.func @constant_bias_not_a_mask
// CHECK: %[[B:.+]] = "tosa.const"() <{values = dense<{{.+}}> : tensor<1x8x8xf32>}>
// CHECK: %[[B2:.+]] = tensor.expand_shape {{.+}} : tensor<8x8xf32> into tensor<1x1x8x8xf32>
// CHECK: fa.attention {{.+}} bias(%[[B2]] : tensor<1x1x8x8xf32>) {scale = 1.250000e-01 : f32}
func.func @constant_bias_not_a_mask(%q: tensor<2x8x8xf32>, %k: tensor<2x8x8xf32>, %v: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %bias = "tosa.const"() <{values = dense<[[[0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000], [0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0], [0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000], [0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0], [0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000], [0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0], [0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000], [0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0xFF800000, 0.0]]]> : tensor<1x8x8xf32>}> : () -> tensor<1x8x8xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x8xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x8xf32>
  %sm = tosa.add %ss, %bias : (tensor<2x8x8xf32>, tensor<1x8x8xf32>) -> tensor<2x8x8xf32>
  %m = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
  %d = tosa.sub %sm, %m : (tensor<2x8x8xf32>, tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
  %e = tosa.exp %d : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
  %r = tosa.reciprocal %l : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x8x8xf32>, tensor<2x8x1xf32>, tensor<1xi8>) -> tensor<2x8x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, constant bias (not causal or a window))}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x8xf32>
  return %o : tensor<2x8x8xf32>
}
