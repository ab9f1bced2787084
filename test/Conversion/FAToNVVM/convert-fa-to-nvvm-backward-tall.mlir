// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm="bwd-query-tile=80" | FileCheck %s

// The 80-query tile at head dim 128 without a mask (FA3's non-causal d128
// backward tile), asked for with bwd-query-tile=80.
// Its main kernel takes all 227 KB a CTA may have (232448 B with the 1 KB of
// base alignment): the barriers sit in the last query slot's padding (after
// the dQ stages it asked for 232488 and failed to launch).
// CHECK: fa_bwd_bf16_d128_bhsd_m80n128s2_main = "{{.*}}\22shared_memory_bytes\22: 232448,
// Pre kernel: the accumulator is seq_pad x 128 floats per head, zeroed only
// before seq_pad (its last 64-row CTA runs past a multiple of 80).
// CHECK-LABEL: llvm.func @fa_bwd_bf16_d128_bhsd_m80n128s2_pre(
// CHECK: arith.divui %{{.+}}, %c128_i32
// CHECK: arith.cmpi slt
// CHECK-NEXT: scf.if
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK-LABEL: llvm.func @fa_bwd_bf16_d128_bhsd_m80n128s2_main(
// The producer's row statistics: LSE after Q and dO (40960), D 128-byte
// aligned after LSE's 320 bytes (TMA destinations; at 41280 it faulted with a
// misaligned address on an H100).
// CHECK: llvm.getelementptr %{{.+}}[40960] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.addrspacecast
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NEXT: llvm.getelementptr %{{.+}}[41344] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// S^T and dP^T: 8 k-steps each over the head dim, n = 80 queries.
// CHECK-COUNT-16: <m = 64, n = 80, k = 16>, D[<f32>, <{{zero|one}}>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// dS^T stored transposed by 5 stmatrix calls, their row addresses built in
// the loop from opaque copies of the warp and lane (kept across it they
// spilled 44 bytes).
// CHECK: "mov.b32 $0, $1;", "=r,r"
// CHECK-NEXT: "mov.b32 $0, $1;", "=r,r"
// CHECK-COUNT-5: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// dV += P^T dO: 5 k-steps over the 80 queries (RS).
// CHECK-COUNT-5: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// Both consumers' dS written, then dQ^T = K^T dS^T: A (K's box) MN-major,
// all 128 keys.
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %c256_i32
// CHECK-COUNT-8: <m = 64, n = 80, k = 16>, D[<f32>, <{{zero|one}}>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
// dK += dS^T Q after dQ (RS, 5 k-steps).
// CHECK-COUNT-5: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// The partial [64 columns x 80 queries] reduced as one 20 KB block.
// CHECK: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], 20480;
// Post kernel: half an 8 x 8 square per thread (8 16-byte loads), then 8
// rows of 4 columns, 8 bytes each where dQ's rows allow it.
// CHECK-LABEL: llvm.func @fa_bwd_bf16_d128_bhsd_m80n128s2_post(
// CHECK-COUNT-8: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK-COUNT-8: llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr
func.func @grad(%do: tensor<?x?x?x128xbf16>, %q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>, %o: tensor<?x?x?x128xbf16>, %l: tensor<?x?x?xf32>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?xf32> -> tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>
  return %dq, %dk, %dv : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>
}

// -----

// A causal mask keeps the 64-query tile (as FA3 does) even when 80 is asked for.
// CHECK-LABEL: llvm.func @fa_bwd_bf16_d128_bhsd_causal_m64n128s2_main(
func.func @grad_causal(%do: tensor<?x?x?x128xbf16>, %q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>, %o: tensor<?x?x?x128xbf16>, %l: tensor<?x?x?xf32>) -> tensor<?x?x?x128xbf16> {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?xf32> {causal} -> tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>
  return %dq : tensor<?x?x?x128xbf16>
}

// -----

// At head dim 64 the request falls back to the compiler's choice, 128.
// CHECK-LABEL: llvm.func @fa_bwd_bf16_d64_bhsd_m128n128s2_main(
func.func @grad_d64(%do: tensor<?x?x?x64xbf16>, %q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %o: tensor<?x?x?x64xbf16>, %l: tensor<?x?x?xf32>) -> tensor<?x?x?x64xbf16> {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?xf32> -> tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>
  return %dq : tensor<?x?x?x64xbf16>
}
