// RUN: fa-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fa-cpu-vector-peepholes))' | FileCheck %s

// A contractable multiply-add becomes vector.fma, also through the 8x1x32 ->
// 8x32 shape_cast of a blocked contraction; a plain multiply does not.

// CHECK-LABEL: func.func @fma
// CHECK-SAME:    (%[[A:.+]]: vector<8x32xf32>, %[[B:.+]]: vector<8x32xf32>, %[[C:.+]]: vector<8x32xf32>
// CHECK:         %[[F:.+]] = vector.fma %[[A]], %[[B]], %[[C]] : vector<8x32xf32>
// CHECK:         %[[P:.+]] = arith.mulf %[[A]], %[[B]] : vector<8x32xf32>
// CHECK:         arith.addf %[[P]], %[[C]] : vector<8x32xf32>
func.func @fma(%a: vector<8x32xf32>, %b: vector<8x32xf32>, %c: vector<8x32xf32>) -> (vector<8x32xf32>, vector<8x32xf32>) {
  %p = arith.mulf %a, %b fastmath<contract> : vector<8x32xf32>
  %s = arith.addf %p, %c : vector<8x32xf32>
  %q = arith.mulf %a, %b : vector<8x32xf32>
  %t = arith.addf %q, %c : vector<8x32xf32>
  return %s, %t : vector<8x32xf32>, vector<8x32xf32>
}

// -----

// CHECK-LABEL: func.func @fma_through_shape_cast
// CHECK:         %[[L:.+]] = vector.shape_cast %{{.+}} : vector<8x1x32xf32> to vector<8x32xf32>
// CHECK:         %[[R:.+]] = vector.shape_cast %{{.+}} : vector<8x1x32xf32> to vector<8x32xf32>
// CHECK:         vector.fma %[[L]], %[[R]], %{{.+}} : vector<8x32xf32>
func.func @fma_through_shape_cast(%a: vector<8x1x32xf32>, %b: vector<8x1x32xf32>, %c: vector<8x32xf32>) -> vector<8x32xf32> {
  %p = arith.mulf %a, %b fastmath<contract> : vector<8x1x32xf32>
  %r = vector.shape_cast %p : vector<8x1x32xf32> to vector<8x32xf32>
  %s = arith.addf %c, %r : vector<8x32xf32>
  return %s : vector<8x32xf32>
}

// -----

// Row reductions become one horizontal reduction per row; exp2 becomes a
// polynomial (no libm call).

// CHECK-LABEL: func.func @row_max_and_exp2
// CHECK-NOT:     vector.multi_reduction
// CHECK-COUNT-2: vector.reduction <maxnumf>
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @row_max_and_exp2(%s: vector<2x32xf32>, %init: vector<2xf32>) -> (vector<2xf32>, vector<2x32xf32>) {
  %m = vector.multi_reduction <maxnumf>, %s, %init [1] : vector<2x32xf32> to vector<2xf32>
  %e = math.exp2 %s : vector<2x32xf32>
  return %m, %e : vector<2xf32>, vector<2x32xf32>
}
