// RUN: fa-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fa-cpu-peel-blocks),canonicalize)' | FileCheck %s

// A loop whose IV sizes a mask's lane dim is peeled: full blocks (the
// affine.min folds to 16 and the all-true mask away) and a partial last one.

#lanes = affine_map<(d0)[s0] -> (-d0 + s0, 16)>
// CHECK-LABEL: func.func @lanes
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK:         %[[FULL:.+]] = affine.apply
// CHECK:         scf.for %[[I:.+]] = %{{.+}} to %[[FULL]] step %[[C16]]
// CHECK-NEXT:      vector.transfer_write %{{.+}}, %{{.+}}[%[[I]]] {in_bounds = [true]}
// CHECK-NEXT:    }
// CHECK:         scf.for %[[J:.+]] = %[[FULL]] to %{{.+}} step %[[C16]]
// CHECK:           %[[LEN:.+]] = affine.apply #{{.+}}(%[[J]])
// CHECK:           %[[MASK:.+]] = vector.create_mask %[[LEN]] : vector<16xi1>
// CHECK:           vector.transfer_write %{{.+}}, %{{.+}}[%[[J]]], %[[MASK]]
func.func @lanes(%m: memref<?xf32>, %v: vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.for %j = %c0 to %n step %c16 {
    %len = affine.min #lanes(%j)[%n]
    %mask = vector.create_mask %len : vector<16xi1>
    vector.transfer_write %v, %m[%j], %mask {in_bounds = [true]} : vector<16xf32>, memref<?xf32>
  }
  return
}

// -----

// A loop that sizes a mask's rows is peeled too.

#rows = affine_map<(d0)[s0] -> (-d0 + s0, 4)>
// CHECK-LABEL: func.func @rows
// CHECK:         scf.for %[[I:.+]] = %{{.+}} to %[[FULL:.+]] step %{{.+}}
// CHECK-NEXT:      vector.transfer_write %{{.+}}, %{{.+}}[%[[I]], %{{.+}}] {in_bounds = [true, true]}
// CHECK-NEXT:    }
// CHECK:         scf.for %{{.+}} = %[[FULL]] to
// CHECK:           vector.create_mask
func.func @rows(%m: memref<?x16xf32>, %v: vector<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %m, %c0 : memref<?x16xf32>
  scf.for %i = %c0 to %n step %c4 {
    %len = affine.min #rows(%i)[%n]
    %mask = vector.create_mask %len, %c16 : vector<4x16xi1>
    vector.transfer_write %v, %m[%i, %c0], %mask {in_bounds = [true, true]} : vector<4x16xf32>, memref<?x16xf32>
  }
  return
}

// -----

// A loop that sizes no mask stays as it is.

// CHECK-LABEL: func.func @unmasked
// CHECK:         scf.for
// CHECK-NOT:     scf.for
func.func @unmasked(%m: memref<?xf32>, %v: vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c4 {
    vector.transfer_write %v, %m[%i] : vector<4xf32>, memref<?xf32>
  }
  return
}
