// RUN: fa-opt %s --fa-tile-attention="dq-accumulation=atomic" --canonicalize --cse | FileCheck %s

// With atomic dQ accumulation there are two nests, not three: the dK/dV
// nest over key tiles also adds dS K into an f32 buffer with atomics, and
// dQ is that buffer scaled and cast.
// CHECK-LABEL: func.func @backward_atomic
// CHECK: scf.forall {{.+}} -> (tensor<1x4x300xf32>)
// CHECK: %[[BUF:.+]] = memref.alloc() : memref<1x4x300x32xf32>
// CHECK: linalg.fill {{.+}} outs(%[[BUF]] : memref<1x4x300x32xf32>)
// CHECK: scf.forall {{.+}} -> (tensor<1x2x300x32xbf16>, tensor<1x2x300x32xbf16>)
// CHECK: memref.atomic_rmw addf %{{.+}}, %[[BUF]][
// CHECK: %[[ALL:.+]] = bufferization.to_tensor %[[BUF]] restrict writable
// CHECK-NOT: scf.forall
// CHECK: linalg.generic {{.+}} ins(%[[ALL]] : tensor<1x4x300x32xf32>) outs(%{{.+}} : tensor<1x4x300x32xbf16>)
// CHECK: arith.truncf
func.func @backward_atomic(%do: tensor<1x4x300x32xbf16>, %q: tensor<1x4x300x32xbf16>, %k: tensor<1x2x300x32xbf16>, %v: tensor<1x2x300x32xbf16>, %o: tensor<1x4x300x32xbf16>, %lse: tensor<1x4x300xf32>) -> (tensor<1x4x300x32xbf16>, tensor<1x2x300x32xbf16>, tensor<1x2x300x32xbf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x4x300x32xbf16>, tensor<1x4x300x32xbf16>, tensor<1x2x300x32xbf16>, tensor<1x2x300x32xbf16>, tensor<1x4x300x32xbf16>, tensor<1x4x300xf32> {causal} -> tensor<1x4x300x32xbf16>, tensor<1x2x300x32xbf16>, tensor<1x2x300x32xbf16>
  return %dq, %dk, %dv : tensor<1x4x300x32xbf16>, tensor<1x2x300x32xbf16>, tensor<1x2x300x32xbf16>
}
