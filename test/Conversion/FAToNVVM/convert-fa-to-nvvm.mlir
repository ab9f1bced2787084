// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm | FileCheck %s
// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm="overlap=false" | FileCheck %s --check-prefix=SERIAL

// bf16, head dim 128, bshd, LSE: the FlashAttention-3 forward structure.
// Without a band mask the kernel is persistent: one CTA per SM below 4096
// query rows (each looping over tiles), one tile per CTA from there; the
// tile counts are three more i32 parameters and Q gets an "empty" barrier.
// CHECK: module attributes {fa.kernel_bundles = {fa_fwd_bf16_d128_bshd_lse_m128n128s2o = "{{.*}}\22grid\22: [\0A \22min(ceildiv(seq_q, 128) * heads_q * batch, max(num_sms, ceildiv(seq_q, 128) * heads_q * batch * min(1, seq_q / 4096)))\22,\0A 1,\0A 1\0A ]{{.*}}\22kernel\22: \22fa_fwd_bf16_d128_bshd_lse_m128n128s2o\22{{.*}}\22shared_memory_bytes\22: 164944{{.*}}"}, gpu.container_module}
// CHECK-LABEL: func.func @bf16_d128
// CHECK: fa.attention {{.*}}fa.kernel = @fa_fwd_bf16_d128_bshd_lse_m128n128s2o::@fa_fwd_bf16_d128_bshd_lse_m128n128s2o
// CHECK: gpu.module @fa_fwd_bf16_d128_bshd_lse_m128n128s2o [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
// CHECK: llvm.mlir.global external @[[SMEM:.+]]() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// Tensor maps by value as grid constants; output and LSE pointers; seq_q, seq_k, GQA group.
// CHECK: llvm.func @fa_fwd_bf16_d128_bshd_lse_m128n128s2o(%[[TMQ:.+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[TMK:.+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[TMV:.+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.+}}: !llvm.ptr {llvm.noalias}, %{{.+}}: !llvm.ptr {llvm.noalias}, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32)
// CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32}
// CHECK: llvm.mlir.addressof @[[SMEM]] : !llvm.ptr<3>
// CHECK-COUNT-10: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.barrier0
// Producer warpgroup: few registers, one thread issues the TMA copies.
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMQ]], %{{.+}}, box[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}]
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMK]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMV]]
// Consumer warpgroups: many registers; S = Q K^T by wgmma SS, K-major B.
// CHECK: nvvm.setmaxregister increase 240
// Above head dim 64 the warpgroup index stays per thread (made uniform, it
// makes some kernels spill).
// CHECK-NOT: nvvm.shfl.sync idx
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-7: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<3>
// Online softmax: quad shuffles, exp2.
// CHECK: nvvm.shfl.sync bfly
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// P to bf16 in registers.
// CHECK: llvm.fptrunc %{{.+}} : vector<2xf32> to vector<2xbf16>
// Steady state: QK^T of tile j and PV of tile j-1 in flight together.
// CHECK: scf.for
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.+}}B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// P V with P from registers (RS, inline PTX) and V MN-major (imm-trans-b = 1).
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.+}}, p, 1, 1, 1;\0A}\0A"
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// Epilogue: O / l, LSE.
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr

// Without the overlap, each tile waits for its own Q K^T and P V.
// SERIAL: gpu.module @fa_fwd_bf16_d128_bshd_lse_m128n128s2 [
// SERIAL: scf.for
// SERIAL: nvvm.wgmma.wait.group.sync.aligned 0
// SERIAL: llvm.inline_asm
// SERIAL: nvvm.wgmma.wait.group.sync.aligned 0
// SERIAL-NOT: nvvm.wgmma.wait.group.sync.aligned 1

func.func @bf16_d128(%q: tensor<?x?x16x128xbf16>, %k: tensor<?x?x16x128xbf16>, %v: tensor<?x?x16x128xbf16>) -> (tensor<?x?x16x128xbf16>, tensor<?x16x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x?x16x128xbf16>, tensor<?x?x16x128xbf16>, tensor<?x?x16x128xbf16> {layout = #fa<layout bshd>} -> tensor<?x?x16x128xbf16>, tensor<?x16x?xf32>
  return %o, %lse : tensor<?x?x16x128xbf16>, tensor<?x16x?xf32>
}

// -----

// f16, head dim 64, causal, GQA, no LSE: three consumer warpgroups (192
// query rows, 512 threads, a persistent grid over 192-row blocks, a 192-row
// Q box, the tile count, heads and batch as the last parameters); S is
// m64n128 (4 k-steps), O m64n64; only tiles crossing the diagonal or seq_k
// are masked.

// CHECK: \22block\22: [\0A 512,
// CHECK-SAME: \22grid\22: [\0A \22min(ceildiv(seq_q, 192) * heads_q * batch, max(num_sms,
// CHECK-SAME: \22box\22: [\0A 64,\0A 192\0A ],{{.*}}\22operand\22: \22query\22
// CHECK-SAME: \22value\22: \22ceildiv(seq_q, 192)\22{{.*}}\22value\22: \22heads_q\22{{.*}}\22value\22: \22batch\22
// CHECK-LABEL: func.func @f16_d64_causal
// CHECK: gpu.module @fa_fwd_f16_d64_bhsd_causal_m192n128s2o
// CHECK: llvm.func @fa_fwd_f16_d64_bhsd_causal_m192n128s2o(%{{.+}}: !llvm.ptr {{{.+}}}, %{{.+}}: !llvm.ptr {{{.+}}}, %{{.+}}: !llvm.ptr {{{.+}}}, %{{.+}}: !llvm.ptr {llvm.noalias}, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32)
// CHECK-SAME: nvvm.maxntid = array<i32: 512, 1, 1>
// CHECK: nvvm.setmaxregister  decrease 32
// CHECK: nvvm.setmaxregister  increase 160
// The warpgroup index from lane 0, in uniform registers (no spill at d64).
// CHECK: nvvm.shfl.sync  idx
// CHECK: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: llvm.fptrunc %{{.+}} : vector<2xf32> to vector<2xf16>
// CHECK: llvm.inline_asm {{.+}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT: lg2.approx
// The first block may start before row 0 (blocks end at seq_q): the
// epilogue stores rows in [0, seq_q) only.
// CHECK: %[[ROW_OK:.+]] = arith.cmpi sge, %{{.+}}, %{{.+}} : i32
// CHECK: arith.andi %{{.+}}, %[[ROW_OK]] : i1
// CHECK: llvm.store

func.func @f16_d64_causal(%q: tensor<2x32x?x64xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<2x32x?x64xf16> {
  %o = fa.attention %q, %k, %v : tensor<2x32x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16> {causal} -> tensor<2x32x?x64xf16>
  return %o : tensor<2x32x?x64xf16>
}
