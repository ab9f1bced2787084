// An fa.attention inside an scf.for whose result is the next iteration's
// query (a stack of layers): fa-cpu-pipeline bufferizes the loop-carried
// tensor (a new buffer per iteration) and computes what the unrolled
// program computes. Before, bufferization refused the loop ("Yield operand
// #0 is not equivalent to the corresponding iter bbArg").
// RUN: fa-opt %s --fa-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%mlir_runner_libs | FileCheck %s
// RUN: fa-opt %s --fa-cpu-pipeline="tiled=false" | mlir-runner -e main --entry-point-result=void --shared-libs=%mlir_runner_libs | FileCheck %s

func.func @layers(%x: tensor<1x1x2x2xf32>, %k: tensor<1x1x3x2xf32>, %v: tensor<1x1x3x2xf32>, %n: index) -> tensor<1x1x2x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x) -> (tensor<1x1x2x2xf32>) {
    %o = fa.attention %h, %k, %v : tensor<1x1x2x2xf32>, tensor<1x1x3x2xf32>, tensor<1x1x3x2xf32> {scale = 1.0 : f32, causal, mask_alignment = #fa<mask_alignment bottom_right>} -> tensor<1x1x2x2xf32>
    scf.yield %o : tensor<1x1x2x2xf32>
  }
  return %r : tensor<1x1x2x2xf32>
}

func.func @main() {
  %x = arith.constant dense<[[[[1.0, -1.0], [0.5, 2.0]]]]> : tensor<1x1x2x2xf32>
  %k = arith.constant dense<[[[[0.3, 1.0], [-1.0, 0.2], [2.0, 0.5]]]]> : tensor<1x1x3x2xf32>
  %v = arith.constant dense<[[[[1.0, 0.0], [0.0, 3.0], [-2.0, 1.0]]]]> : tensor<1x1x3x2xf32>
  %c3 = arith.constant 3 : index
  %looped = call @layers(%x, %k, %v, %c3) : (tensor<1x1x2x2xf32>, tensor<1x1x3x2xf32>, tensor<1x1x3x2xf32>, index) -> tensor<1x1x2x2xf32>
  %o1 = fa.attention %x, %k, %v : tensor<1x1x2x2xf32>, tensor<1x1x3x2xf32>, tensor<1x1x3x2xf32> {scale = 1.0 : f32, causal, mask_alignment = #fa<mask_alignment bottom_right>} -> tensor<1x1x2x2xf32>
  %o2 = fa.attention %o1, %k, %v : tensor<1x1x2x2xf32>, tensor<1x1x3x2xf32>, tensor<1x1x3x2xf32> {scale = 1.0 : f32, causal, mask_alignment = #fa<mask_alignment bottom_right>} -> tensor<1x1x2x2xf32>
  %o3 = fa.attention %o2, %k, %v : tensor<1x1x2x2xf32>, tensor<1x1x3x2xf32>, tensor<1x1x3x2xf32> {scale = 1.0 : f32, causal, mask_alignment = #fa<mask_alignment bottom_right>} -> tensor<1x1x2x2xf32>
  %a = tensor.cast %looped : tensor<1x1x2x2xf32> to tensor<*xf32>
  %b = tensor.cast %o3 : tensor<1x1x2x2xf32> to tensor<*xf32>
  %c = tensor.cast %o1 : tensor<1x1x2x2xf32> to tensor<*xf32>
  // CHECK: data =
  // CHECK-NEXT: [[ROW0:\[\[\[\[.*]]
  // CHECK-NEXT: [[ROW1: \[.*]]
  call @printMemrefF32(%a) : (tensor<*xf32>) -> ()
  // CHECK: data =
  // CHECK-NEXT: [[ROW0]]
  // CHECK-NEXT: [[ROW1]]
  call @printMemrefF32(%b) : (tensor<*xf32>) -> ()
  // One layer differs from three (the loop really iterates).
  // CHECK: data =
  // CHECK-NOT: [[ROW0]]
  // CHECK: ]]]]
  call @printMemrefF32(%c) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
