// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Promoted attention: Q, K and V extended from one low-precision type,
// attention computed in f32, the output truncated back (torch-mlir's
// decomposition of sdpa on bf16 inputs). With narrow-promoted (the
// default) the op is of the inputs' type and rounds P as the fused
// kernels do; the remark says so. raise-attention-precision.mlir
// @p_not_rounded has narrow-promoted=false.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
// linalg: extf generics on Q, K, V, linalg.softmax, truncf after P·V.
// CHECK-LABEL: func.func @sdpa_bf16_promoted
// CHECK: %[[O:.+]] = fa.attention {{.+}} : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> {scale = 1.250000e-01 : f32} -> tensor<1x2x16x64xbf16>
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @sdpa_bf16_promoted(%q: tensor<2x16x64xbf16>, %kt: tensor<2x64x16xbf16>, %v: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c = arith.constant 0.125 : f32
  %qfe = tensor.empty() : tensor<2x16x64xf32>
  %qf = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q : tensor<2x16x64xbf16>) outs(%qfe : tensor<2x16x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %r = arith.extf %in : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<2x16x64xf32>
  %kfe = tensor.empty() : tensor<2x64x16xf32>
  %kf = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%kt : tensor<2x64x16xbf16>) outs(%kfe : tensor<2x64x16xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %r = arith.extf %in : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<2x64x16xf32>
  %vfe = tensor.empty() : tensor<2x16x64xf32>
  %vf = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v : tensor<2x16x64xbf16>) outs(%vfe : tensor<2x16x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %r = arith.extf %in : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<2x16x64xf32>
  %es = tensor.empty() : tensor<2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.batch_matmul ins(%qf, %kf : tensor<2x16x64xf32>, tensor<2x64x16xf32>) outs(%fs : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %eo = tensor.empty() : tensor<2x16x64xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, narrowed to bf16: the program computes in f32 between its bf16 inputs and output, the op rounds P to bf16 (narrow-promoted))}}
  %o = linalg.batch_matmul ins(%p, %vf : tensor<2x16x16xf32>, tensor<2x16x64xf32>) outs(%fo : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %et = tensor.empty() : tensor<2x16x64xbf16>
  %ot = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%o : tensor<2x16x64xf32>) outs(%et : tensor<2x16x64xbf16>) {
  ^bb0(%in: f32, %x: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x16x64xbf16>
  return %ot : tensor<2x16x64xbf16>
}

// -----

// TOSA, f16: tosa.cast around an f32 attention.
// CHECK-LABEL: func.func @tosa_f16_promoted
// CHECK: fa.attention {{.+}} -> tensor<1x4x16x8xf16>
// CHECK-NOT: tosa.cast
func.func @tosa_f16_promoted(%q: tensor<4x16x8xf16>, %k: tensor<4x16x8xf16>, %v: tensor<4x16x8xf16>) -> tensor<4x16x8xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %sc = "tosa.const"() <{values = dense<0.35355339> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %qf = tosa.cast %q : (tensor<4x16x8xf16>) -> tensor<4x16x8xf32>
  %kf = tosa.cast %k : (tensor<4x16x8xf16>) -> tensor<4x16x8xf32>
  %vf = tosa.cast %v : (tensor<4x16x8xf16>) -> tensor<4x16x8xf32>
  %kt = tosa.transpose %kf {perms = array<i32: 0, 2, 1>} : (tensor<4x16x8xf32>) -> tensor<4x8x16xf32>
  %s = tosa.matmul %qf, %kt, %zp, %zp : (tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x16xf32>
  %ss = tosa.mul %s, %sc, %shift : (tensor<4x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %d = tosa.sub %ss, %m : (tensor<4x16x16xf32>, tensor<4x16x1xf32>) -> tensor<4x16x16xf32>
  %e = tosa.exp %d : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %r = tosa.reciprocal %l : (tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<4x16x16xf32>, tensor<4x16x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 3.535534e-01, narrowed to f16: the program computes in f32 between its f16 inputs and output, the op rounds P to f16 (narrow-promoted))}}
  %o = tosa.matmul %p, %vf, %zp, %zp : (tensor<4x16x16xf32>, tensor<4x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x8xf32>
  %ob = tosa.cast %o : (tensor<4x16x8xf32>) -> tensor<4x16x8xf16>
  return %ob : tensor<4x16x8xf16>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
// bf16 inputs, an f16 output: no one type to narrow to.
// CHECK-LABEL: func.func @truncated_to_other_type
// CHECK: fa.attention {{.+}} -> tensor<1x2x16x64xf32>
// CHECK: arith.truncf {{.+}} : f32 to f16
func.func @truncated_to_other_type(%q: tensor<2x16x64xbf16>, %kt: tensor<2x64x16xbf16>, %v: tensor<2x16x64xbf16>) -> tensor<2x16x64xf16> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c = arith.constant 0.125 : f32
  %qfe = tensor.empty() : tensor<2x16x64xf32>
  %qf = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q : tensor<2x16x64xbf16>) outs(%qfe : tensor<2x16x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %r = arith.extf %in : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<2x16x64xf32>
  %kfe = tensor.empty() : tensor<2x64x16xf32>
  %kf = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%kt : tensor<2x64x16xbf16>) outs(%kfe : tensor<2x64x16xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %r = arith.extf %in : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<2x64x16xf32>
  %vfe = tensor.empty() : tensor<2x16x64xf32>
  %vf = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v : tensor<2x16x64xbf16>) outs(%vfe : tensor<2x16x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %r = arith.extf %in : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<2x16x64xf32>
  %es = tensor.empty() : tensor<2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.batch_matmul ins(%qf, %kf : tensor<2x16x64xf32>, tensor<2x64x16xf32>) outs(%fs : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %eo = tensor.empty() : tensor<2x16x64xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, computed in f32)}}
  %o = linalg.batch_matmul ins(%p, %vf : tensor<2x16x16xf32>, tensor<2x16x64xf32>) outs(%fo : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %et = tensor.empty() : tensor<2x16x64xf16>
  %ot = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%o : tensor<2x16x64xf32>) outs(%et : tensor<2x16x64xf16>) {
  ^bb0(%in: f32, %x: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<2x16x64xf16>
  return %ot : tensor<2x16x64xf16>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
// V is an f32 tensor of the program: not every input is bf16.
// CHECK-LABEL: func.func @value_not_extended
// CHECK: fa.attention {{.+}} -> tensor<1x2x16x64xf32>
// CHECK: arith.truncf {{.+}} : f32 to bf16
func.func @value_not_extended(%q: tensor<2x16x64xbf16>, %kt: tensor<2x64x16xbf16>, %v: tensor<2x16x64xf32>) -> tensor<2x16x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c = arith.constant 0.125 : f32
  %qfe = tensor.empty() : tensor<2x16x64xf32>
  %qf = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q : tensor<2x16x64xbf16>) outs(%qfe : tensor<2x16x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %r = arith.extf %in : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<2x16x64xf32>
  %kfe = tensor.empty() : tensor<2x64x16xf32>
  %kf = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%kt : tensor<2x64x16xbf16>) outs(%kfe : tensor<2x64x16xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %r = arith.extf %in : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<2x64x16xf32>
  %es = tensor.empty() : tensor<2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.batch_matmul ins(%qf, %kf : tensor<2x16x64xf32>, tensor<2x64x16xf32>) outs(%fs : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %eo = tensor.empty() : tensor<2x16x64xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, computed in f32)}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x16x16xf32>, tensor<2x16x64xf32>) outs(%fo : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %et = tensor.empty() : tensor<2x16x64xbf16>
  %ot = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%o : tensor<2x16x64xf32>) outs(%et : tensor<2x16x64xbf16>) {
  ^bb0(%in: f32, %x: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x16x64xbf16>
  return %ot : tensor<2x16x64xbf16>
}
