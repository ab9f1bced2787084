// RUN: fa-opt %s --convert-fa-to-nvvm | FileCheck %s
// RUN: fa-opt %s --convert-fa-to-nvvm="deterministic=true" | FileCheck %s --check-prefix=DET

// fa.attention_varlen_grad becomes the dense backward's three kernels in one
// kernel sequence of op attention_varlen_bwd (docs/Inference.md, *The
// ragged-batch backward on sm_90a*): grids and workspace over padded blocks
// (batch 1), each kernel taking cu_seqlens and num_seqs after its dense
// parameters and finding its sequence by a warp ballot.

// CHECK: fa.kernel_bundles = {fa_bwd_bf16_d64_bshd_varlen_causal_m64n128s2 = {fa_bwd_bf16_d64_bshd_varlen_causal_m64n128s2 = "
// CHECK-SAME: \22format\22: \22fa-kernel-sequence\22
// CHECK-SAME: \22op\22: \22attention_varlen_bwd\22
// CHECK-SAME: \22name\22: \22dq_accum\22,\0A      \22shape\22: [\0A        \221\22,\0A        \22heads_q\22,\0A        \22(ceildiv(seq_q, 64) + num_seqs + 1) * 64\22,\0A        \2264\22
// CHECK-SAME: \22name\22: \22lse_log2\22,\0A      \22shape\22: [\0A        \221\22,\0A        \22heads_q\22,\0A        \22(ceildiv(seq_q, 64) + num_seqs + 1) * 64\22
// CHECK-SAME: fa_bwd_bf16_d64_bshd_varlen_causal_m64n128s2_main = "
// CHECK-SAME: \22grid\22: [\0A    \22ceildiv(seq_k, 128) + num_seqs + 1\22,\0A    \22heads_kv\22,\0A    1\0A  ]
// CHECK-SAME: \22operand\22: \22cu_seqlens_q\22
// CHECK-SAME: \22operand\22: \22cu_seqlens_k\22
// CHECK-SAME: \22value\22: \22num_seqs\22
// CHECK-SAME: fa_bwd_bf16_d64_bshd_varlen_causal_m64n128s2_post = "
// CHECK-SAME: \22grid\22: [\0A    \22ceildiv(seq_q, 64) + num_seqs + 1\22,\0A    \22heads_q\22,\0A    1\0A  ]
// CHECK-SAME: fa_bwd_bf16_d64_bshd_varlen_causal_m64n128s2_pre = "
// CHECK-SAME: \22grid\22: [\0A    \22ceildiv(seq_q, 64) + num_seqs + 1\22,\0A    \22heads_q\22,\0A    1\0A  ]
// CHECK: fa.attention_varlen_grad {{.*}}fa.kernel = @fa_bwd_bf16_d64_bshd_varlen_causal_m64n128s2::@fa_bwd_bf16_d64_bshd_varlen_causal_m64n128s2
// Pre: the dense parameters, then cu_seqlens_q and num_seqs; the search.
// CHECK: llvm.func @fa_bwd_bf16_d64_bshd_varlen_causal_m64n128s2_pre({{.*}}, %{{.+}}: i32, %{{.+}}: !llvm.ptr, %{{.+}}: i32)
// CHECK: nvvm.vote.sync  ballot
// CHECK-NEXT: llvm.intr.ctpop
// Main: the six tensor maps as the dense kernel's; the two bounds and
// num_seqs last; the search before the roles split.
// CHECK: llvm.func @fa_bwd_bf16_d64_bshd_varlen_causal_m64n128s2_main({{.*}}, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i32)
// CHECK: nvvm.vote.sync  ballot
// CHECK-NEXT: llvm.intr.ctpop
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 240
// CHECK: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// Post: dQ from the padded accumulator.
// CHECK: llvm.func @fa_bwd_bf16_d64_bshd_varlen_causal_m64n128s2_post({{.*}}, %{{.+}}: i32, %{{.+}}: !llvm.ptr, %{{.+}}: i32)
// CHECK: nvvm.vote.sync  ballot

// Deterministic: the semaphores per padded query tile.
// DET: fa_bwd_bf16_d64_bshd_varlen_causal_m64n128s2_det = {
// DET: \22deterministic\22: true
// DET-SAME: \22name\22: \22dq_semaphore\22,\0A      \22shape\22: [\0A        \221\22,\0A        \22heads_q\22,\0A        \22ceildiv(seq_q, 64) + num_seqs + 1\22
// DET: ld.acquire.gpu.global.b32
// DET: red.release.gpu.global.add.s32

func.func @grad(%do: tensor<?x?x64xbf16>, %q: tensor<?x?x64xbf16>, %k: tensor<?x?x64xbf16>, %v: tensor<?x?x64xbf16>, %o: tensor<?x?x64xbf16>, %l: tensor<?x?xf32>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> (tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<?x?x64xbf16>) {
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %l, %cq, %ck : tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<?x?xf32>, tensor<?xi32>, tensor<?xi32> {causal} -> tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<?x?x64xbf16>
  return %dq, %dk, %dv : tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<?x?x64xbf16>
}
