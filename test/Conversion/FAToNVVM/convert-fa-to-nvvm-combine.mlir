// RUN: fa-opt %s --convert-fa-to-nvvm | FileCheck %s
// RUN: rm -rf %t && fa-compile %s -o %t --format=isa
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/fa_combine_d128_bf16.json
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/fa_combine_d72_f32.ptx

// A standalone fa.combine (ring attention's merge of per-device partials,
// docs/Inference.md "fa.combine"): one kernel per (dim, output type), a
// warp per row, the merge the split-KV `_combine` kernels share
// (Combine.cpp). Splits and rows are parameters, so one kernel serves
// static and dynamic sizes.

// CHECK: fa.kernel_bundles = {fa_combine_d128_bf16 = "{{.*}}\22op\22: \22combine\22
// CHECK: fa.combine {{.*}}fa.kernel = @fa_combine_d128_bf16::@fa_combine_d128_bf16
// CHECK: fa.combine {{.*}}fa.kernel = @fa_combine_d72_f32::@fa_combine_d72_f32
// The same configuration again: the same kernel.
// CHECK: fa.combine {{.*}}fa.kernel = @fa_combine_d72_f32::@fa_combine_d72_f32
// CHECK: fa.combine {{.*}}fa.kernel = @fa_combine_d1_f16::@fa_combine_d1_f16
// CHECK: fa.combine {{.*}}fa.kernel = @fa_combine_d512_f16::@fa_combine_d512_f16

// Four pointers, splits and rows, five strides.
// CHECK: gpu.module @fa_combine_d128_bf16
// CHECK: llvm.func @fa_combine_d128_bf16(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64)
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// The max of the partial LSEs, then the sum of their exponentials.
// CHECK: scf.for
// CHECK: arith.maxnumf
// CHECK: arith.cmpf oeq
// CHECK: scf.for
// CHECK: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: llvm.nvvm.lg2.approx.ftz.f
// A -inf partial is selected out, never multiplied (its O may be NaN).
// CHECK: scf.for
// CHECK: %[[SKIP:.+]] = arith.cmpf oeq
// CHECK: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: llvm.intr.fma
// CHECK-NEXT: arith.select %[[SKIP]]
// 128 columns: four per lane, rounded to bf16 once; the LSE from lane 0.
// CHECK-COUNT-4: arith.truncf %{{.+}} : f32 to bf16
// CHECK: llvm.store %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK: llvm.func @fa_combine_d72_f32(
// 72 columns: the third is stored by lanes 0-7 only, f32 as it is.
// CHECK-NOT: arith.truncf
// CHECK: llvm.store %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK: llvm.store %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK: arith.cmpi slt
// CHECK-NEXT: scf.if
// CHECK: llvm.store %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK: llvm.func @fa_combine_d1_f16(
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: llvm.func @fa_combine_d512_f16(

// JSON: "config": {
// JSON-NEXT: "dtype": "f32",
// JSON-NEXT: "head_dim": 128,
// JSON-NEXT: "out_dtype": "bf16",
// JSON-NEXT: "return_lse": true
// JSON-NEXT: },
// JSON: "cubin": "fa_combine_d128_bf16.ptx",
// JSON: "grid": [
// JSON-NEXT: "ceildiv(rows, 4)",
// JSON-NEXT: 1,
// JSON-NEXT: 1
// JSON: "kernel": "fa_combine_d128_bf16",
// JSON: "op": "combine",
// JSON: "operand": "partial_output"
// JSON: "operand": "partial_lse"
// JSON: "operand": "output"
// JSON: "operand": "lse"
// JSON: "value": "splits"
// JSON: "value": "rows"
// JSON: "value": "stride(partial_output, split)"
// JSON: "value": "stride(partial_output, row)"
// JSON: "value": "stride(partial_lse, split)"
// JSON: "value": "stride(partial_lse, row)"
// JSON: "value": "stride(output, row)"
// JSON: "shared_memory_bytes": 0,

// PTX: .target sm_90a
// PTX: .entry fa_combine_d72_f32(
// PTX: ex2.approx.ftz.f32
// PTX: lg2.approx.ftz.f32

func.func @dynamic(%po: tensor<?x?x128xf32>, %pl: tensor<?x?xf32>) -> (tensor<?x128xbf16>, tensor<?xf32>) {
  %o, %l = fa.combine %po, %pl : tensor<?x?x128xf32>, tensor<?x?xf32> -> tensor<?x128xbf16>, tensor<?xf32>
  return %o, %l : tensor<?x128xbf16>, tensor<?xf32>
}

func.func @static(%po: tensor<4x16x72xf32>, %pl: tensor<4x16xf32>) -> (tensor<16x72xf32>, tensor<16xf32>) {
  %o, %l = fa.combine %po, %pl : tensor<4x16x72xf32>, tensor<4x16xf32> -> tensor<16x72xf32>, tensor<16xf32>
  return %o, %l : tensor<16x72xf32>, tensor<16xf32>
}

func.func @static_again(%po: tensor<2x?x72xf32>, %pl: tensor<2x?xf32>) -> (tensor<?x72xf32>, tensor<?xf32>) {
  %o, %l = fa.combine %po, %pl : tensor<2x?x72xf32>, tensor<2x?xf32> -> tensor<?x72xf32>, tensor<?xf32>
  return %o, %l : tensor<?x72xf32>, tensor<?xf32>
}

func.func @one_column(%po: tensor<?x?x1xf32>, %pl: tensor<?x?xf32>) -> (tensor<?x1xf16>, tensor<?xf32>) {
  %o, %l = fa.combine %po, %pl : tensor<?x?x1xf32>, tensor<?x?xf32> -> tensor<?x1xf16>, tensor<?xf32>
  return %o, %l : tensor<?x1xf16>, tensor<?xf32>
}

func.func @widest(%po: tensor<?x?x512xf32>, %pl: tensor<?x?xf32>) -> (tensor<?x512xf16>, tensor<?xf32>) {
  %o, %l = fa.combine %po, %pl : tensor<?x?x512xf32>, tensor<?x?xf32> -> tensor<?x512xf16>, tensor<?xf32>
  return %o, %l : tensor<?x512xf16>, tensor<?xf32>
}
