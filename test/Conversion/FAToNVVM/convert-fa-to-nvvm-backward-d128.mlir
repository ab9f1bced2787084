// RUN: fa-opt %s --convert-fa-to-nvvm | FileCheck %s
// RUN: fa-opt %s --convert-fa-to-nvvm="bwd-query-tile=128" | FileCheck %s --check-prefix=FORCED

// The 128-query tile needs head dims <= 64 (registers): asked for at 128 it
// keeps the 64-query tile.
// FORCED: llvm.func @fa_bwd_bf16_d128_bhsd_m64n128s2_main(

// Head dim 128 (no lookahead): dK goes after dQ, so that the dQ partial is
// staged and reduced while dK runs.
// Pre-kernel: O and dO rows read 16 bytes at a time where pointers and
// strides allow it (tested at run time), element by element otherwise.
// CHECK: llvm.func @fa_bwd_bf16_d128_bhsd_m64n128s2_pre(
// CHECK: llvm.ptrtoint %arg0
// CHECK: llvm.ptrtoint %arg4
// CHECK-COUNT-8: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr -> vector<8xbf16>
// CHECK: } else {
// CHECK-COUNT-64: llvm.load %{{.+}} {alignment = 2 : i64} : !llvm.ptr -> bf16
// CHECK: llvm.func @fa_bwd_bf16_d128_bhsd_m64n128s2_main(
// CHECK: nvvm.setmaxregister increase 240
// dV += P^T dO (RS, n128), then both consumers' dS written.
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %{{.+}}
// dQ = dS K: all 128 keys (8 k-steps), this consumer's 64-column box.
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 64, k = 16>, D[<f32>, {{.+}}], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// dK += dS^T Q (RS) after dQ.
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// dV and dQ done, dK in flight: stage and reduce dQ, then wait for dK.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: cp.async.bulk.wait_group.read 0
// CHECK: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], 16384;
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// Post-kernel: every accumulator load before the first store; dQ stored as
// bf16 pairs where its rows are 4-byte aligned, element by element otherwise.
// CHECK: llvm.func @fa_bwd_bf16_d128_bhsd_m64n128s2_post(
// CHECK-COUNT-16: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr -> vector<2xf32>
// CHECK-NOT: llvm.store
// CHECK: llvm.ptrtoint %arg1
// CHECK-COUNT-16: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: } else {
// CHECK-COUNT-32: llvm.store %{{.+}}, %{{.+}} {alignment = 2 : i64} : bf16, !llvm.ptr

func.func @grad(%do: tensor<?x?x?x128xbf16>, %q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>, %o: tensor<?x?x?x128xbf16>, %l: tensor<?x?x?xf32>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?xf32> -> tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>
  return %dq, %dk, %dv : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>
}
