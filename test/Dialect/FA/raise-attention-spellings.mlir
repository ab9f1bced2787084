// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Softmax and scale spellings (issue 15, item 5): the log-sum-exp form,
// arith / math ops applied to whole tensors, a tensor.splat scale.

// exp(x - m - log(rowsum(exp(x - m)))), as log_softmax then exp spells it;
// the scale a tensor.splat of a constant.
// CHECK-LABEL: func.func @log_sum_exp
// CHECK: fa.attention {{.+}} {scale = 1.250000e-01 : f32}
// CHECK-NOT: tosa.log
func.func @log_sum_exp(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = arith.constant 0.125 : f32
  %scale = tensor.splat %c : tensor<2x4x4xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x4xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %d = tosa.sub %ss, %m : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
  %e = tosa.exp %d : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %lg = tosa.log %l : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %ls = tosa.sub %d, %lg : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
  %p = tosa.exp %ls : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01)}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x4x4xf32>, tensor<2x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// The elementwise steps as arith / math ops on whole tensors (what some
// exporters emit before convert-elementwise-to-linalg), reductions and
// contractions in linalg.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @math_on_tensors
// CHECK: fa.attention {{.+}} {scale = 1.250000e-01 : f32}
// CHECK-NOT: math.exp
func.func @math_on_tensors(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x4x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%fs : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %c = arith.constant dense<0.125> : tensor<2x4x4xf32>
  %ss = arith.mulf %s, %c : tensor<2x4x4xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %m = linalg.reduce ins(%ss : tensor<2x4x4xf32>) outs(%fm : tensor<2x4xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %mb = linalg.broadcast ins(%m : tensor<2x4xf32>) outs(%es : tensor<2x4x4xf32>) dimensions = [2]
  %d = arith.subf %ss, %mb : tensor<2x4x4xf32>
  %e = math.exp %d : tensor<2x4x4xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %l = linalg.reduce ins(%e : tensor<2x4x4xf32>) outs(%fl : tensor<2x4xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %lb = linalg.broadcast ins(%l : tensor<2x4xf32>) outs(%es : tensor<2x4x4xf32>) dimensions = [2]
  %p = arith.divf %e, %lb : tensor<2x4x4xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01)}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%fo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}
