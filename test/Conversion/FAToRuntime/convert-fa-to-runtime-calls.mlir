// RUN: fa-opt %s -split-input-file --fa-nvvm-pipeline=format=isa --convert-fa-to-runtime-calls -verify-diagnostics | FileCheck %s

// A compiled causal GQA attention with its LSE becomes one call of the
// runtime on host buffers; the bundle's JSON and image are embedded and the
// gpu.binary is gone.
// CHECK-NOT: gpu.binary
// CHECK-NOT: fa.kernel_bundles
// CHECK-DAG: memref.global "private" constant @__fa_fa_fwd_bf16_d64_bhsd_causal_lse_[[K:[a-z0-9_]+]]_json : memref<{{[0-9]+}}xi8> = dense<
// CHECK-DAG: memref.global "private" constant @__fa_fa_fwd_bf16_d64_bhsd_causal_lse_[[K]]_image : memref<{{[0-9]+}}xi8> = dense<
// "query,key,value,output,lse" and its NUL.
// CHECK-DAG: memref.global "private" constant @{{.+}}_site0_roles : memref<27xi8> = dense<[113, 117, 101, 114, 121, 44,
// CHECK-DAG: memref.global "private" @{{.+}}_site0_cache : memref<8xi8> = dense<0>
// CHECK-LABEL: func.func @attention
// CHECK-DAG: bufferization.to_buffer %arg0 read_only : tensor<2x8x512x64xbf16> to memref<2x8x512x64xbf16>
// CHECK-DAG: bufferization.to_buffer %arg1 read_only : tensor<2x2x512x64xbf16> to memref<2x2x512x64xbf16>
// CHECK-DAG: bufferization.to_buffer %arg2 read_only : tensor<2x2x512x64xbf16> to memref<2x2x512x64xbf16>
// CHECK-DAG: %[[O:.+]] = memref.alloc() : memref<2x8x512x64xbf16>
// CHECK-DAG: %[[L:.+]] = memref.alloc() : memref<2x8x512xf32>
// Five operands of 4 + 2 * rank words: 12, 12, 12, 12, 10.
// CHECK: memref.alloca() : memref<58xi64>
// CHECK: call @fa_launch_embedded_or_abort({{.+}}) : (!llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
// CHECK-DAG: bufferization.to_tensor %[[O]] restrict writable
// CHECK-DAG: bufferization.to_tensor %[[L]] restrict writable
// CHECK-NOT: fa.attention
// CHECK: func.func private @fa_launch_embedded_or_abort(!llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr)
func.func @attention(%q: tensor<2x8x512x64xbf16>, %k: tensor<2x2x512x64xbf16>, %v: tensor<2x2x512x64xbf16>) -> (tensor<2x8x512x64xbf16>, tensor<2x8x512xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<2x8x512x64xbf16>, tensor<2x2x512x64xbf16>, tensor<2x2x512x64xbf16> {causal} -> tensor<2x8x512x64xbf16>, tensor<2x8x512xf32>
  return %o, %lse : tensor<2x8x512x64xbf16>, tensor<2x8x512xf32>
}

// -----

func.func @dynamic(%q: tensor<?x8x512x64xbf16>, %k: tensor<?x2x512x64xbf16>, %v: tensor<?x2x512x64xbf16>) -> tensor<?x8x512x64xbf16> {
  // expected-error @+1 {{'query' has a dynamic shape ('tensor<?x8x512x64xbf16>'); only static shapes are lowered to runtime calls so far}}
  %o = fa.attention %q, %k, %v : tensor<?x8x512x64xbf16>, tensor<?x2x512x64xbf16>, tensor<?x2x512x64xbf16> {causal} -> tensor<?x8x512x64xbf16>
  return %o : tensor<?x8x512x64xbf16>
}

// -----

// Split-KV compiles to a kernel sequence (kernels and a merge).
func.func @splits(%q: tensor<2x8x1x64xbf16>, %k: tensor<2x2x4096x64xbf16>, %v: tensor<2x2x4096x64xbf16>) -> tensor<2x8x1x64xbf16> {
  // expected-error @+1 {{kernel 'fa_fwd_bf16_d64_bhsd_m64n128s2o_split4' is a kernel sequence; only plain bundles are lowered to runtime calls so far}}
  %o = fa.attention %q, %k, %v : tensor<2x8x1x64xbf16>, tensor<2x2x4096x64xbf16>, tensor<2x2x4096x64xbf16> {num_splits = 4} -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}

// -----

// Attention sinks are one more input of the call, by their role.
// "query,key,value,sinks,output,lse" and its NUL.
// CHECK-DAG: memref.global "private" constant @{{.+}}_site0_roles : memref<33xi8> = dense<[113, 117, 101, 114, 121, 44, 107, 101, 121, 44, 118, 97, 108, 117, 101, 44, 115, 105, 110, 107, 115, 44,
// CHECK-LABEL: func.func @sinks
// CHECK-DAG: bufferization.to_buffer %arg3 read_only : tensor<8xf32> to memref<8xf32>
// Six operands of 4 + 2 * rank words: 12, 12, 12, 6, 12, 10.
// CHECK: memref.alloca() : memref<64xi64>
// CHECK: call @fa_launch_embedded_or_abort(
func.func @sinks(%q: tensor<2x8x256x64xbf16>, %k: tensor<2x2x256x64xbf16>, %v: tensor<2x2x256x64xbf16>, %s: tensor<8xf32>) -> (tensor<2x8x256x64xbf16>, tensor<2x8x256xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<2x8x256x64xbf16>, tensor<2x2x256x64xbf16>, tensor<2x2x256x64xbf16> sinks(%s : tensor<8xf32>) {causal} -> tensor<2x8x256x64xbf16>, tensor<2x8x256xf32>
  return %o, %lse : tensor<2x8x256x64xbf16>, tensor<2x8x256xf32>
}
