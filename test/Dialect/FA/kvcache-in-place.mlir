// RUN: fa-opt %s --fa-tile-attention --canonicalize --cse --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize | FileCheck %s

// The append writes into the cache buffers in place: a function that reads
// the caches and stores the updated ones back into the same buffers (what a
// serving step does) allocates no cache-sized buffer and copies no cache.
// CHECK-LABEL: func.func @step
// CHECK-NOT:     memref.alloc() {{.*}} : memref<12x8x2x16xf32>
// CHECK-NOT:     memref.copy %{{.+}} : memref<12x8x2x16xf32> to
// CHECK:         return
func.func @step(%q: memref<3x1x4x16xf32>, %kc: memref<12x8x2x16xf32>, %vc: memref<12x8x2x16xf32>, %lens: memref<3xi32>, %bt: memref<3x4xi32>, %k: memref<3x1x2x16xf32>, %v: memref<3x1x2x16xf32>, %o: memref<3x1x4x16xf32>, %lse: memref<3x4x1xf32>) attributes {llvm.emit_c_interface} {
  %qt = bufferization.to_tensor %q restrict : memref<3x1x4x16xf32> to tensor<3x1x4x16xf32>
  %kct = bufferization.to_tensor %kc restrict writable : memref<12x8x2x16xf32> to tensor<12x8x2x16xf32>
  %vct = bufferization.to_tensor %vc restrict writable : memref<12x8x2x16xf32> to tensor<12x8x2x16xf32>
  %lt = bufferization.to_tensor %lens restrict : memref<3xi32> to tensor<3xi32>
  %btt = bufferization.to_tensor %bt restrict : memref<3x4xi32> to tensor<3x4xi32>
  %kt = bufferization.to_tensor %k restrict : memref<3x1x2x16xf32> to tensor<3x1x2x16xf32>
  %vt = bufferization.to_tensor %v restrict : memref<3x1x2x16xf32> to tensor<3x1x2x16xf32>
  %or, %lr, %kc2, %vc2 = fa.attention_kvcache %qt, %kct, %vct, %lt : tensor<3x1x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%btt : tensor<3x4xi32>) append(%kt, %vt : tensor<3x1x2x16xf32>, tensor<3x1x2x16xf32>) {causal} -> tensor<3x1x4x16xf32>, tensor<3x4x1xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  bufferization.materialize_in_destination %or in restrict writable %o : (tensor<3x1x4x16xf32>, memref<3x1x4x16xf32>) -> ()
  bufferization.materialize_in_destination %lr in restrict writable %lse : (tensor<3x4x1xf32>, memref<3x4x1xf32>) -> ()
  bufferization.materialize_in_destination %kc2 in restrict writable %kc : (tensor<12x8x2x16xf32>, memref<12x8x2x16xf32>) -> ()
  bufferization.materialize_in_destination %vc2 in restrict writable %vc : (tensor<12x8x2x16xf32>, memref<12x8x2x16xf32>) -> ()
  return
}
