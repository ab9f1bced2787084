// RUN: fa-opt %s -split-input-file --fa-tile-attention | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-decompose-attention | FileCheck %s --check-prefix=REF

// The modifier regions are evaluated inline per score element, reading the
// captures at the element's (batch, query head, row, column).

// CHECK-LABEL: func @alibi_document
// CHECK-SAME: %[[SL:[^:]+]]: tensor<4xf32>, %[[DOC:[^:]+]]: tensor<2x64xi32>
// CHECK: scf.forall (%[[B:[^,]+]], %[[H:[^,]+]], %{{[^)]+}}) in
// CHECK: linalg.generic
// CHECK: tensor.extract %[[SL]][%[[H]]] : tensor<4xf32>
// CHECK: tensor.extract %[[DOC]][%[[B]], %{{.+}}] : tensor<2x64xi32>
// CHECK-NOT: fa.attention
// REF-LABEL: func @alibi_document
// REF: linalg.generic
// REF: %[[HK:.+]] = linalg.index 1 : index
// REF: tensor.extract %{{.+}}[%{{.+}}] : tensor<4xf32>
// REF: tensor.extract %{{.+}} : tensor<2x64xi32>
// REF-NOT: fa.attention
func.func @alibi_document(%q: tensor<2x4x64x32xf32>, %k: tensor<2x4x64x32xf32>, %v: tensor<2x4x64x32xf32>, %slopes: tensor<4xf32>, %doc: tensor<2x64xi32>) -> tensor<2x4x64x32xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32> captures(%slopes, %doc : tensor<4xf32>, tensor<2x64xi32>) -> tensor<2x4x64x32xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>, %d: tensor<2x64xi32>):
    %m = tensor.extract %sl[%h] : tensor<4xf32>
    %r = arith.addf %s, %m : f32
    fa.yield %r : f32
  } mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>, %d: tensor<2x64xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<2x64xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<2x64xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1
  }
  return %o : tensor<2x4x64x32xf32>
}
