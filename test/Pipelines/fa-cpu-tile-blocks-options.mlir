// RUN: fa-opt %s --pass-pipeline='builtin.module(func.func(fa-cpu-tile-blocks{block-rows=4 block-cols=16}))' | FileCheck %s
// RUN: not fa-opt %s --pass-pipeline='builtin.module(func.func(fa-cpu-tile-blocks{block-rows=0}))' 2>&1 | FileCheck %s --check-prefix=ERR

// block-rows and block-cols set the register blocks (fa_mlir picks 4 x 16 on
// AVX2 hosts).

#lhs = affine_map<(i, k, j) -> (i, k)>
#rhs = affine_map<(i, k, j) -> (k, j)>
#acc = affine_map<(i, k, j) -> (i, j)>
// CHECK-LABEL: func.func @contraction
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.+}}, %{{.+}} : tensor<4x1xf32>, tensor<1x16xf32>)
// CHECK-SAME:      fa.cpu_block = array<i64: 4, 1, 16>
// ERR: fa-cpu-tile-blocks: block-rows and block-cols must be positive, got 0 and 32
func.func @contraction(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%c : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
