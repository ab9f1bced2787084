// The seq_q x seq_k score matrix never exists: on 4096 tokens no value of
// shape 4096x4096 (or batch x heads x 4096 x 4096) is left after the pass,
// forward or backward; every score tile is at most 64 x 64 (tensor<?x?xf32>).
// RUN: fa-opt %s --fa-tile-attention | FileCheck %s
// RUN: fa-opt %s --fa-tile-attention --canonicalize --cse | FileCheck %s
// RUN: fa-opt %s --fa-tile-attention --canonicalize --cse --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func.func @forward
// CHECK-NOT:     4096x4096
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             tensor<?x?xf32>
// CHECK-NOT:     4096x4096
// CHECK-LABEL: func.func @backward
// CHECK-NOT:     4096x4096
// CHECK:         return
// BUF-NOT:       memref<{{.*}}4096x4096
// BUF-NOT:       memref.alloc(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
func.func @forward(%q: tensor<2x4x4096x64xf16>, %k: tensor<2x4x4096x64xf16>, %v: tensor<2x4x4096x64xf16>) -> (tensor<2x4x4096x64xf16>, tensor<2x4x4096xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16> {causal} -> tensor<2x4x4096x64xf16>, tensor<2x4x4096xf32>
  return %o, %lse : tensor<2x4x4096x64xf16>, tensor<2x4x4096xf32>
}

func.func @backward(%do: tensor<2x4x4096x64xf16>, %q: tensor<2x4x4096x64xf16>, %k: tensor<2x4x4096x64xf16>, %v: tensor<2x4x4096x64xf16>, %o: tensor<2x4x4096x64xf16>, %lse: tensor<2x4x4096xf32>) -> (tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16>, tensor<2x4x4096xf32> {window = array<i64: 256, 0>} -> tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16>
  return %dq, %dk, %dv : tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16>, tensor<2x4x4096x64xf16>
}
