// tm_tensor.scan lowered by fa-lower-tm-tensor (the first step of
// fa-cpu-pipeline) and run: torch-mlir's definition of the op,
//   inclusive: out[0] = in[0],    out[i] = f(out[i-1], in[i])
//   exclusive: out[0] = acc_init, out[i] = f(out[i-1], in[i-1])
// with the accumulator result the last out (acc_init for a size-1 scan).
// RUN: fa-opt %s --fa-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%mlir_runner_libs | FileCheck %s
func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 2.0, -1.0]]> : tensor<2x4xf32>
  %o = arith.constant dense<0.0> : tensor<2x4xf32>
  %a = arith.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %s:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<2x4xf32>) outs(%o, %a : tensor<2x4xf32>, tensor<2xf32>) {
  ^bb0(%p: f32, %i: f32):
    %r = arith.addf %p, %i : f32
    tm_tensor.yield %r : f32
  } -> tensor<2x4xf32>, tensor<2xf32>
  // CHECK: [1, 3, 6, 10]
  // CHECK: [0.5, 1, 3, 2]
  %s0 = tensor.cast %s#0 : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%s0) : (tensor<*xf32>) -> ()
  // CHECK: [10, 2]
  %s1 = tensor.cast %s#1 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%s1) : (tensor<*xf32>) -> ()
  // Exclusive along dim 0 (a product): column c starts at acc_init[c].
  %ax = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e:2 = tm_tensor.scan dimension(0) inclusive(false) ins(%x : tensor<2x4xf32>) outs(%o, %ax : tensor<2x4xf32>, tensor<4xf32>) {
  ^bb0(%p: f32, %i: f32):
    %r = arith.mulf %p, %i : f32
    tm_tensor.yield %r : f32
  } -> tensor<2x4xf32>, tensor<4xf32>
  // CHECK: [1, 2, 3, 4]
  // CHECK: [1, 4, 9, 16]
  %e0 = tensor.cast %e#0 : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%e0) : (tensor<*xf32>) -> ()
  // CHECK: [1, 4, 9, 16]
  %e1 = tensor.cast %e#1 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%e1) : (tensor<*xf32>) -> ()
  // A scan over a dimension of size 1 leaves the accumulator as it was.
  %z = arith.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %zo = arith.constant dense<0.0> : tensor<2x1xf32>
  %za = arith.constant dense<[-1.0, -2.0]> : tensor<2xf32>
  %w:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%z : tensor<2x1xf32>) outs(%zo, %za : tensor<2x1xf32>, tensor<2xf32>) {
  ^bb0(%p: f32, %i: f32):
    %r = arith.addf %p, %i : f32
    tm_tensor.yield %r : f32
  } -> tensor<2x1xf32>, tensor<2xf32>
  // CHECK: [5]
  // CHECK: [6]
  %w0 = tensor.cast %w#0 : tensor<2x1xf32> to tensor<*xf32>
  call @printMemrefF32(%w0) : (tensor<*xf32>) -> ()
  // CHECK: [-1, -2]
  %w1 = tensor.cast %w#1 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%w1) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
