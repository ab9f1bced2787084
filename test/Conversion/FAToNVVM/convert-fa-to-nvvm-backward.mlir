// RUN: fa-opt %s --convert-fa-to-nvvm | FileCheck %s
// RUN: fa-opt %s --convert-fa-to-nvvm="deterministic=true" | FileCheck %s --check-prefix=DET
// RUN: fa-opt %s --convert-fa-to-nvvm="bwd-query-tile=64" | FileCheck %s --check-prefix=TILE64

// fa.attention_grad becomes one gpu.module with the three kernels of the
// backward and a kernel sequence (docs/HopperBackward.md). At head dim 64
// the main kernel takes 128 query rows per iteration (FA3's d64 tile): the
// workspace rows are padded to 128, the pre and post kernels run over
// their 64-row tiles.

// CHECK: fa.kernel_bundles = {fa_bwd_bf16_d64_bhsd_causal_m128n128s2 = {fa_bwd_bf16_d64_bhsd_causal_m128n128s2 = "
// CHECK-SAME: \22format\22: \22fa-kernel-sequence\22
// CHECK-SAME: \22kernels\22: [\0A    \22fa_bwd_bf16_d64_bhsd_causal_m128n128s2_pre.json\22,\0A    \22fa_bwd_bf16_d64_bhsd_causal_m128n128s2_main.json\22,\0A    \22fa_bwd_bf16_d64_bhsd_causal_m128n128s2_post.json\22
// CHECK-SAME: \22init\22: \22none\22,\0A      \22name\22: \22dq_accum\22,\0A      \22shape\22: [\0A        \22batch\22,\0A        \22heads_q\22,\0A        \22ceildiv(seq_q, 128) * 128\22,\0A        \2264\22
// CHECK-SAME: fa_bwd_bf16_d64_bhsd_causal_m128n128s2_main = "
// CHECK-SAME: \22ceildiv(seq_k, 128)\22,\0A    \22heads_kv\22
// Q and dO boxes of 128 rows, LSE2 and D boxes of 128.
// CHECK-SAME: \22box\22: [\0A        64,\0A        128\0A      ],{{[^}]*}}\22operand\22: \22query\22
// CHECK-SAME: \22box\22: [\0A        128\0A      ],{{[^}]*}}\22operand\22: \22lse_log2\22
// CHECK-SAME: \22shared_memory_bytes\22: 199720
// CHECK-SAME: fa_bwd_bf16_d64_bhsd_causal_m128n128s2_post = "
// CHECK-SAME: \22ceildiv(seq_q, 128) * 2\22,\0A    \22heads_q\22
// CHECK-SAME: fa_bwd_bf16_d64_bhsd_causal_m128n128s2_pre = "
// CHECK-SAME: \22ceildiv(seq_q, 128) * 2\22,\0A    \22heads_q\22
// CHECK: fa.attention_grad {{.*}}fa.kernel = @fa_bwd_bf16_d64_bhsd_causal_m128n128s2::@fa_bwd_bf16_d64_bhsd_causal_m128n128s2
// CHECK: gpu.module @fa_bwd_bf16_d64_bhsd_causal_m128n128s2 [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx81">]
// Pre-kernel: pointers and strides of O, dO, LSE; the workspace rows; it
// zeros the dQ accumulator's 64-row block (the workspace's "init" is
// "none": no memset by the runtime), 16 bytes per store.
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_causal_m128n128s2_pre({{.*}}, %{{.+}}: !llvm.ptr, %{{.+}}: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK: arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-COUNT-4: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK: nvvm.shfl.sync bfly
// Main kernel: Q, K, V, dO, LSE2, D by TMA (six grid-constant tensor maps).
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_causal_m128n128s2_main(%{{.+}}: !llvm.ptr {{{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr {{{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr {{{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr {{{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr {{{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr {{{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr,
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 240
// S^T = K Q^T and dP^T = V dO^T: m64 n128 (keys x queries), both operands
// K-major.
// CHECK: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: ex2.approx
// dS^T goes to shared memory transposed, visible to wgmma.
// CHECK-COUNT-8: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: fence.proxy.async.shared::cta
// dV += P^T dO and dK += dS^T Q from registers (RS), B MN-major.
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %{{.+}}
// dQ = dS K, B MN-major (each consumer 64 of the 128 rows, all 128 keys,
// after both consumers wrote dS), then one bulk reduce-add per consumer.
// CHECK: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: cp.async.bulk.wait_group.read 0
// CHECK: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], 16384;
// CHECK-NOT: red.global
// CHECK: cp.async.bulk.wait_group 0
// Post-kernel: dQ from the blocked accumulator.
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_causal_m128n128s2_post(
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// Where dQ's rows are 16-byte aligned, a row's four threads trade their
// packed pairs (four shuffle rounds per four chunks) and store whole
// 16-byte chunks; the 4-byte pair stores stay for the other rows.
// CHECK-COUNT-4: nvvm.shfl.sync  idx
// CHECK: llvm.store {{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
// CHECK-COUNT-4: nvvm.shfl.sync  idx
// CHECK: llvm.store {{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.store {{.+}} {alignment = 4 : i64} : i32, !llvm.ptr

// Deterministic: a semaphore per query tile orders the reduces.
// DET: fa_bwd_bf16_d64_bhsd_causal_m128n128s2_det = {
// DET: \22deterministic\22: true
// DET: dq_semaphore
// DET: ld.acquire.gpu.global.b32
// DET: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// DET: cp.async.bulk.wait_group 0
// DET: fence.acq_rel.gpu
// DET: red.release.gpu.global.add.s32

// The A/B knob keeps the 64-query tile: m64 n64 scores, four stmatrix, the
// workspace rows padded to 64.
// TILE64: fa_bwd_bf16_d64_bhsd_causal_m64n128s2 = {
// TILE64-SAME: \22ceildiv(seq_q, 64) * 64\22
// TILE64: llvm.func @fa_bwd_bf16_d64_bhsd_causal_m64n128s2_main(
// TILE64: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// TILE64-COUNT-4: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// TILE64-NOT: stmatrix
// TILE64: llvm.func @fa_bwd_bf16_d64_bhsd_causal_m64n128s2_post(

func.func @grad(%do: tensor<?x?x?x64xbf16>, %q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %o: tensor<?x?x?x64xbf16>, %l: tensor<?x?x?xf32>) -> (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?xf32> {causal} -> tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>
  return %dq, %dk, %dv : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>
}
