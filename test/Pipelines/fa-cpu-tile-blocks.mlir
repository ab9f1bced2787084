// RUN: fa-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fa-cpu-tile-blocks))' | FileCheck %s

// A tile contraction (parallel, reduction, parallel: rows x QK dim x keys)
// becomes 8 x 32 blocks with the reduction dim innermost, by 1.

#lhs = affine_map<(i, k, j) -> (i, k)>
#rhs = affine_map<(i, k, j) -> (k, j)>
#acc = affine_map<(i, k, j) -> (i, j)>
// CHECK-LABEL: func.func @contraction
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : index
// CHECK:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C8]]
// CHECK:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C32]]
// CHECK:             scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C1]]
// CHECK:               linalg.generic
// CHECK-SAME:            ins(%{{.+}}, %{{.+}} : tensor<8x1xf32>, tensor<1x?xf32>)
// CHECK-SAME:            fa.cpu_block = array<i64: 8, 1, 32>
func.func @contraction(%a: tensor<16x8xf32>, %b: tensor<8x20xf32>, %c: tensor<16x20xf32>) -> tensor<16x20xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x20xf32>) outs(%c : tensor<16x20xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x20xf32>
  return %r : tensor<16x20xf32>
}

// -----

// An elementwise row op: 8 rows x 32 columns.

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @elementwise
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             linalg.generic
// CHECK-SAME:          fa.cpu_block = array<i64: 8, 32>
func.func @elementwise(%a: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x64xf32>) outs(%a : tensor<16x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp2 %x : f32
    linalg.yield %e : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// -----

// Left alone: 16-bit element types, transposing maps (the K^T copy) and
// contractions in another loop order.

#id = affine_map<(i, j) -> (i, j)>
#t = affine_map<(i, j) -> (j, i)>
// CHECK-LABEL: func.func @not_blocked
// CHECK-NOT:     scf.for
// CHECK-NOT:     fa.cpu_block
// CHECK:         return
func.func @not_blocked(%a: tensor<16x64xbf16>, %b: tensor<64x16xf32>, %c: tensor<16x64xf32>,
                       %m: tensor<16x8xf32>, %n: tensor<8x20xf32>, %o: tensor<16x20xf32>)
    -> (tensor<16x64xbf16>, tensor<16x64xf32>, tensor<16x20xf32>) {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x64xbf16>) outs(%a : tensor<16x64xbf16>) {
  ^bb0(%x: bf16, %y: bf16):
    linalg.yield %x : bf16
  } -> tensor<16x64xbf16>
  %s = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<64x16xf32>) outs(%c : tensor<16x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<16x64xf32>
  %u = linalg.matmul ins(%m, %n : tensor<16x8xf32>, tensor<8x20xf32>) outs(%o : tensor<16x20xf32>) -> tensor<16x20xf32>
  return %r, %s, %u : tensor<16x64xbf16>, tensor<16x64xf32>, tensor<16x20xf32>
}
