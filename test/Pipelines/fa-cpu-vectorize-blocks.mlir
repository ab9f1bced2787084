// RUN: fa-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fa-cpu-vectorize-blocks))' | FileCheck %s

// A marked block of static extents is vectorized at that size, unmasked, and
// loses its mark.

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @static_block
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     vector.mask
// CHECK:         vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK:         math.exp2 {{.*}} : vector<8x32xf32>
// CHECK:         vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// CHECK-NOT:     fa.cpu_block
func.func @static_block(%a: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x32xf32>) outs(%a : tensor<8x32xf32>) attrs = {fa.cpu_block = array<i64: 8, 32>} {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp2 %x : f32
    linalg.yield %e : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// A block smaller than the block sizes (a whole small tile) is vectorized at
// its own size.

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @small_tile
// CHECK:         vector.transfer_read {{.*}} : tensor<3x20xf32>, vector<3x20xf32>
// CHECK-NOT:     vector.mask
func.func @small_tile(%a: tensor<3x20xf32>) -> tensor<3x20xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<3x20xf32>) outs(%a : tensor<3x20xf32>) attrs = {fa.cpu_block = array<i64: 8, 32>} {
  ^bb0(%x: f32, %y: f32):
    %e = arith.negf %x : f32
    linalg.yield %e : f32
  } -> tensor<3x20xf32>
  return %r : tensor<3x20xf32>
}

// -----

// Dynamic extents (tile edges): masked at the block sizes.

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @edge_block
// CHECK:         vector.create_mask {{.*}} : vector<8x32xi1>
// CHECK:         vector.mask {{.*}} vector.transfer_read {{.*}} : tensor<?x?xf32>, vector<8x32xf32>
func.func @edge_block(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x?xf32>) outs(%a : tensor<?x?xf32>) attrs = {fa.cpu_block = array<i64: 8, 32>} {
  ^bb0(%x: f32, %y: f32):
    %e = arith.negf %x : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A blocked contraction (reduction dim 1) at a tile edge: the unit
// multi_reduction is not masked (its accumulator write is).

#lhs = affine_map<(i, k, j) -> (i, k)>
#rhs = affine_map<(i, k, j) -> (k, j)>
#acc = affine_map<(i, k, j) -> (i, j)>
// CHECK-LABEL: func.func @edge_contraction
// CHECK:         arith.mulf {{.*}} : vector<8x1x32xf32>
// CHECK-NOT:     vector.mask {{.*}} vector.multi_reduction
// CHECK:         vector.multi_reduction <add>, {{.*}} [1] : vector<8x1x32xf32> to vector<8x32xf32>
// CHECK:         vector.mask {{.*}} vector.transfer_write
func.func @edge_contraction(%a: tensor<?x1xf32>, %b: tensor<1x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<?x1xf32>, tensor<1x?xf32>) outs(%c : tensor<?x?xf32>) attrs = {fa.cpu_block = array<i64: 8, 1, 32>} {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A row max at a tile edge (a reduction over the key lanes): the lanes past
// the edge enter the max as -inf, through a select, not through a masked
// multi_reduction (upstream's LLVM lowering pads a masked max with the
// smallest negative denormal, so a row of scores all below it came out with
// a max of about 0).

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @edge_row_max
// CHECK:         [[MASK:%[a-z0-9_]+]] = vector.create_mask {{.*}} : vector<4x32xi1>
// CHECK:         [[READ:%[a-z0-9_]+]] = vector.mask [[MASK]] { vector.transfer_read {{.*}} : tensor<?x?xf32>, vector<4x32xf32> }
// CHECK:         [[NEG_INF:%[a-z0-9_]+]] = arith.constant dense<0xFF800000> : vector<4x32xf32>
// CHECK:         [[LANES:%[a-z0-9_]+]] = arith.select [[MASK]], [[READ]], [[NEG_INF]] : vector<4x32xi1>, vector<4x32xf32>
// CHECK-NOT:     vector.mask {{.*}} vector.multi_reduction
// CHECK:         vector.multi_reduction <maximumf>, [[LANES]], {{.*}} [1] : vector<4x32xf32> to vector<4xf32>
func.func @edge_row_max(%s: tensor<?x?xf32>, %m: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<?x?xf32>) outs(%m : tensor<?xf32>) attrs = {fa.cpu_block = array<i64: 4, 32>} {
  ^bb0(%x: f32, %y: f32):
    %e = arith.maximumf %y, %x : f32
    linalg.yield %e : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A row sum at a tile edge: the lanes past the edge add 0.

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @edge_row_sum
// CHECK:         [[MASK:%[a-z0-9_]+]] = vector.create_mask {{.*}} : vector<4x32xi1>
// CHECK:         [[READ:%[a-z0-9_]+]] = vector.mask [[MASK]] { vector.transfer_read {{.*}} : tensor<?x?xf32>, vector<4x32xf32> }
// CHECK:         [[ZERO:%[a-z0-9_]+]] = arith.constant dense<0.000000e+00> : vector<4x32xf32>
// CHECK:         [[LANES:%[a-z0-9_]+]] = arith.select [[MASK]], [[READ]], [[ZERO]] : vector<4x32xi1>, vector<4x32xf32>
// CHECK-NOT:     vector.mask {{.*}} vector.multi_reduction
// CHECK:         vector.multi_reduction <add>, [[LANES]], {{.*}} [1] : vector<4x32xf32> to vector<4xf32>
func.func @edge_row_sum(%s: tensor<?x?xf32>, %l: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<?x?xf32>) outs(%l : tensor<?xf32>) attrs = {fa.cpu_block = array<i64: 4, 32>} {
  ^bb0(%x: f32, %y: f32):
    %e = arith.addf %y, %x : f32
    linalg.yield %e : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Unmarked ops stay linalg.

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @unmarked
// CHECK:         linalg.generic
// CHECK-NOT:     vector.
func.func @unmarked(%a: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x32xf32>) outs(%a : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = arith.negf %x : f32
    linalg.yield %e : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
