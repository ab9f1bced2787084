// RUN: fa-opt %s --pass-pipeline='builtin.module(fa-cpu-masked-bf16-as-i16)' | FileCheck %s

// Masked bf16 loads and stores move i16 lanes (the same bits); an f32
// masked load is left as it is.

// CHECK-LABEL: llvm.func @masked
// CHECK-SAME:    (%[[P:.+]]: !llvm.ptr, %[[M:.+]]: vector<16xi1>, %[[PT:.+]]: vector<16xbf16>, %[[F:.+]]: vector<16xf32>)
// CHECK:         %[[PTI:.+]] = llvm.bitcast %[[PT]] : vector<16xbf16> to vector<16xi16>
// CHECK:         %[[VI:.+]] = llvm.intr.masked.load %[[P]], %[[M]], %[[PTI]] {alignment = 2 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi16>) -> vector<16xi16>
// CHECK:         %[[V:.+]] = llvm.bitcast %[[VI]] : vector<16xi16> to vector<16xbf16>
// CHECK:         %[[SI:.+]] = llvm.bitcast %[[V]] : vector<16xbf16> to vector<16xi16>
// CHECK:         llvm.intr.masked.store %[[SI]], %[[P]], %[[M]] {alignment = 2 : i32} : vector<16xi16>, vector<16xi1> into !llvm.ptr
// CHECK:         llvm.intr.masked.load %[[P]], %[[M]], %[[F]] {alignment = 4 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
llvm.func @masked(%p: !llvm.ptr, %m: vector<16xi1>, %pt: vector<16xbf16>, %f: vector<16xf32>) -> vector<16xf32> {
  %v = llvm.intr.masked.load %p, %m, %pt {alignment = 2 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xbf16>) -> vector<16xbf16>
  llvm.intr.masked.store %v, %p, %m {alignment = 2 : i32} : vector<16xbf16>, vector<16xi1> into !llvm.ptr
  %g = llvm.intr.masked.load %p, %m, %f {alignment = 4 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
  llvm.return %g : vector<16xf32>
}
