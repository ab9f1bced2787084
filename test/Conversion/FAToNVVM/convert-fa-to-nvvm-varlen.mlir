// RUN: fa-opt %s --convert-fa-to-nvvm | FileCheck %s

// Ragged batches (docs/Inference.md, "Ragged batches on sm_90a"): one
// kernel over the packed tokens, passed as [1, total, heads, dim]. The grid
// is a flat list of every sequence's query blocks (at most ceildiv(total_q,
// blockM) + num_seqs); each CTA finds its sequence by a warp prefix sum over
// cu_seqlens_q and offsets its TMA rows by the sequence's start.

// Kernels up to head dim 128 (Q's = V's) without a band mask are
// persistent: one CTA per SM while the mean length is below 4096, over every
// (block, head) tile of the flat grid (bundles are listed by name).
// CHECK: fa.kernel_bundles = {fa_fwd_bf16_d128_bshd_lse_m128n128s2o_varlen = "
// CHECK-SAME: \22min((ceildiv(seq_q, 128) + num_seqs) * heads_q * batch, max(num_sms,

// Under a band mask, or above head dim 128, one CTA per block of the flat
// grid: the hardware's scheduler balances tiles whose cost varies with the
// lengths.
// CHECK-SAME: fa_fwd_bf16_d256_bshd_causal_lse_m128n80s2o_varlen = "
// CHECK-SAME: \22ceildiv(seq_q, 128) + num_seqs\22,\0A    \22heads_q\22,\0A    1
// CHECK-SAME: \22op\22: \22attention_varlen\22
// CHECK-SAME: \22operand\22: \22query\22
// CHECK-SAME: \22operand\22: \22key\22
// CHECK-SAME: \22operand\22: \22value\22
// CHECK-SAME: \22operand\22: \22output\22
// CHECK-SAME: \22operand\22: \22lse\22
// CHECK-SAME: \22operand\22: \22cu_seqlens_q\22
// CHECK-SAME: \22operand\22: \22cu_seqlens_k\22
// CHECK-SAME: \22value\22: \22seq_q\22
// CHECK-SAME: \22value\22: \22seq_k\22
// CHECK-SAME: \22value\22: \22heads_q / heads_kv\22
// CHECK-SAME: \22value\22: \22num_seqs\22

// A d64 kernel takes three consumers (192-row blocks).
// CHECK-SAME: fa_fwd_f16_d64_bshd_lse_m192n128s2o_varlen = "
// CHECK-SAME: \22min((ceildiv(seq_q, 192) + num_seqs) * heads_q * batch, max(num_sms, (ceildiv(seq_q, 192) + num_seqs) * heads_q * batch * min(1, seq_q / (num_seqs * 4096))))\22,\0A    1,\0A    1
// CHECK-SAME: \22value\22: \22num_seqs\22
// CHECK-SAME: \22value\22: \22ceildiv(seq_q, 192) + num_seqs\22

// The scan: shuffles up (the prefix sum), a ballot for the lane that holds
// the block, its sequence's bounds shuffled from it; rows offset by the
// sequence's start.
// CHECK: llvm.func @fa_fwd_bf16_d256_bshd_causal_lse_m128n80s2o_varlen(
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK: nvvm.shfl.sync up
// CHECK: nvvm.vote.sync ballot
// CHECK: llvm.intr.cttz
// CHECK: nvvm.shfl.sync idx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global

// The persistent kernel: with a CTA per tile (gridDim.x >= tiles) one
// tile's code, else the rounds; each searches from the cursor its last tile
// left: the producer's one thread walks the sequences (an scf.while), the
// consumers' warps scan them.
// CHECK: llvm.func @fa_fwd_bf16_d128_bshd_lse_m128n128s2o_varlen(
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: %[[GRID:.+]] = nvvm.read.ptx.sreg.nctaid.x
// CHECK: arith.cmpi uge, %[[GRID]]
// CHECK: scf.while
// CHECK: } else {
// CHECK: scf.for
// CHECK: scf.while
// CHECK: nvvm.setmaxregister  increase 240
// CHECK: nvvm.shfl.sync up
// CHECK: llvm.func @fa_fwd_f16_d64_bshd_lse_m192n128s2o_varlen(
// CHECK: scf.while
// CHECK: nvvm.shfl.sync up

func.func @varlen(%q: tensor<?x8x256xbf16>, %k: tensor<?x2x256xbf16>, %v: tensor<?x2x256xbf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> (tensor<?x8x256xbf16>, tensor<8x?xf32>) {
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<?x8x256xbf16>, tensor<?x2x256xbf16>, tensor<?x2x256xbf16>, tensor<?xi32>, tensor<?xi32> {causal, max_seqlen_q = 4096 : i64} -> tensor<?x8x256xbf16>, tensor<8x?xf32>
  return %o, %lse : tensor<?x8x256xbf16>, tensor<8x?xf32>
}

func.func @varlen_d128(%q: tensor<?x8x128xbf16>, %k: tensor<?x2x128xbf16>, %v: tensor<?x2x128xbf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> (tensor<?x8x128xbf16>, tensor<8x?xf32>) {
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>, tensor<?xi32>, tensor<?xi32> {max_seqlen_q = 4096 : i64} -> tensor<?x8x128xbf16>, tensor<8x?xf32>
  return %o, %lse : tensor<?x8x128xbf16>, tensor<8x?xf32>
}

func.func @varlen_d64(%q: tensor<?x4x64xf16>, %k: tensor<?x4x64xf16>, %v: tensor<?x4x64xf16>, %cq: tensor<5xi32>, %ck: tensor<5xi32>) -> (tensor<?x4x64xf16>, tensor<4x?xf32>) {
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<?x4x64xf16>, tensor<?x4x64xf16>, tensor<?x4x64xf16>, tensor<5xi32>, tensor<5xi32> -> tensor<?x4x64xf16>, tensor<4x?xf32>
  return %o, %lse : tensor<?x4x64xf16>, tensor<4x?xf32>
}
