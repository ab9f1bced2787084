// RUN: fa-opt %s --convert-fa-to-nvvm="dynamic-tiles=true" | FileCheck %s
// RUN: fa-opt %s --convert-fa-to-nvvm | FileCheck %s --check-prefix=STATIC

// The dynamic tile scheduler (opt-in, and the default of a ragged batch under
// a mask; docs/HopperKernel.md, "Kernel parts"):
// a persistent kernel becomes a one-kernel sequence whose workspace is the
// tile counter (one i32 the runtime zeroes); its grid is one CTA per SM at
// most; the counter is one more pointer parameter.
// CHECK: fa.kernel_bundles = {fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o_dyn = {fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o_dyn = "
// CHECK-SAME: \22format\22: \22fa-kernel-sequence\22
// CHECK-SAME: \22kernels\22: [\0A    \22fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o_dyn_main.json\22\0A  ]
// CHECK-SAME: \22op\22: \22attention_fwd\22
// CHECK-SAME: \22workspace\22: [\0A    {\0A      \22dims\22: [\0A        \22slot\22\0A      ],\0A      \22dtype\22: \22i32\22,\0A      \22init\22: \22zero\22,\0A      \22name\22: \22tile_counter\22,\0A      \22shape\22: [\0A        1\0A      ]
// CHECK-SAME: fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o_dyn_main = "
// CHECK-SAME: \22grid\22: [\0A    \22min(ceildiv(seq_q, 128) * heads_q * batch, num_sms)\22,\0A    1,\0A    1\0A  ]
// CHECK-SAME: \22kind\22: \22ptr\22,\0A      \22operand\22: \22lse\22\0A    },\0A    {\0A      \22kind\22: \22ptr\22,\0A      \22operand\22: \22tile_counter\22
// CHECK-SAME: \22scratch\22: [\0A    {\0A      \22dims\22: [\0A        \22slot\22\0A      ],\0A      \22dtype\22: \22i32\22,\0A      \22name\22: \22tile_counter\22
// Two more barriers than the static persistent kernel's 10 (16 bytes) and
// the handed-over index (16 with its alignment).
// CHECK-SAME: \22shared_memory_bytes\22: 164976
// STATIC: fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o = "
// STATIC-SAME: \22shared_memory_bytes\22: 164944

// A ragged batch under a band mask is persistent with the dynamic scheduler
// (its search from sequence to sequence is the persistent scheduler's), and
// takes it without the option too: one CTA per block (the static choice)
// left the tiles' varying costs unbalanced (docs/Inference.md).
// CHECK-SAME: fa_fwd_bf16_d128_bshd_causal_lse_m128n128s2o_varlen_dyn = {
// CHECK-SAME: \22op\22: \22attention_varlen\22
// CHECK-SAME: \22grid\22: [\0A    \22min((ceildiv(seq_q, 128) + num_seqs) * heads_q * batch, num_sms)\22
// STATIC-SAME: fa_fwd_bf16_d128_bshd_causal_lse_m128n128s2o_varlen_dyn = {
// STATIC-SAME: \22grid\22: [\0A    \22min((ceildiv(seq_q, 128) + num_seqs) * heads_q * batch, num_sms)\22

// A kernel that is not persistent (a bias) and an FP8 one (a sequence with
// a pre-kernel) keep their static scheduler and names.
// CHECK-SAME: fa_fwd_f16_d64_bshd_causal_biasf16_lse_m128n128s2o = "
// CHECK-SAME: fa_fwd_f8e4m3fn_d128_bhsd_causal_obf16_lse_m128n224s2o = {

// The CTA's first tile is blockIdx.x; the producer takes the next one from
// the counter once the tile's loads are issued (+ gridDim.x), waits until
// the consumers read the previous index, stores it and arrives on the full
// barrier; each consumer thread waits on it, reads the index and arrives
// on the empty one. Both roles loop while the index is inside the tile space.
// CHECK: llvm.func @fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o_dyn_main(
// CHECK-SAME: %{{.+}}: !llvm.ptr {llvm.noalias}, %{{.+}}: !llvm.ptr {llvm.noalias}, %[[COUNTER:.+]]: !llvm.ptr {llvm.noalias}, %{{.+}}: i32,
// CHECK: %[[BASE:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[SLOT:.+]] = llvm.getelementptr %[[BASE]][163936]
// CHECK: %[[FULL:.+]] = llvm.getelementptr %[[BASE]][163920]
// CHECK: %[[EMPTY:.+]] = llvm.getelementptr %[[BASE]][163928]
// CHECK: nvvm.mbarrier.init %[[FULL]], %{{.+}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %[[EMPTY]], %c256_i32
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: scf.while
// CHECK: arith.cmpi ult
// CHECK: llvm.atomicrmw add %[[COUNTER]], %{{.+}} monotonic : !llvm.ptr, i32
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: nvvm.mbarrier.try_wait.parity %[[EMPTY]]
// CHECK: llvm.store %{{.+}}, %[[SLOT]] {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive %[[FULL]]
// CHECK: nvvm.setmaxregister  increase 240
// CHECK: scf.while
// CHECK: nvvm.mbarrier.try_wait.parity %[[FULL]]
// CHECK: llvm.load volatile %[[SLOT]]
// CHECK: nvvm.mbarrier.arrive %[[EMPTY]]
// CHECK-NOT: llvm.atomicrmw
// Under the mask the ragged batch's tiles go heads fastest (tile i is block
// i / heads of head i % heads; the tile-space parameters are blocks, heads,
// batch); without one (below) blocks fastest, K and V of one head shared in L2.
// CHECK: llvm.func @fa_fwd_bf16_d128_bshd_causal_lse_m128n128s2o_varlen_dyn_main(
// CHECK-SAME: %{{arg[0-9]+}}: i32, %[[VHEADS:arg[0-9]+]]: i32, %{{arg[0-9]+}}: i32) attributes
// CHECK: arith.divui %{{.+}}, %[[VHEADS]] : i32
// CHECK-NEXT: arith.remui %{{.+}}, %[[VHEADS]] : i32
// CHECK: llvm.atomicrmw add
// CHECK: llvm.func @fa_fwd_f16_d64_bshd_causal_biasf16_lse_m128n128s2o(
// CHECK-NOT: llvm.atomicrmw
// CHECK: llvm.func @fa_fwd_f8e4m3fn_d128_bhsd_causal_obf16_lse_m128n224s2o_main(
// CHECK-NOT: llvm.atomicrmw
// CHECK: llvm.func @fa_fwd_bf16_d128_bshd_lse_m128n128s2o_varlen_dyn_main(
// CHECK-SAME: %[[VBLOCKS:arg[0-9]+]]: i32, %{{arg[0-9]+}}: i32, %{{arg[0-9]+}}: i32) attributes
// CHECK: arith.remui %{{.+}}, %[[VBLOCKS]] : i32
// CHECK-NEXT: arith.divui %{{.+}}, %[[VBLOCKS]] : i32
// STATIC: llvm.func @fa_fwd_bf16_d128_bshd_lse_m128n128s2o_varlen(
// STATIC-SAME: %[[SBLOCKS:arg[0-9]+]]: i32, %{{arg[0-9]+}}: i32, %{{arg[0-9]+}}: i32) attributes
// STATIC: arith.remui %{{.+}}, %[[SBLOCKS]] : i32
// STATIC-NEXT: arith.divui %{{.+}}, %[[SBLOCKS]] : i32

func.func @causal(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> {causal} -> tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
}

func.func @varlen_causal(%q: tensor<?x8x128xbf16>, %k: tensor<?x2x128xbf16>, %v: tensor<?x2x128xbf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> (tensor<?x8x128xbf16>, tensor<8x?xf32>) {
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>, tensor<?xi32>, tensor<?xi32> {causal, max_seqlen_q = 4096 : i64} -> tensor<?x8x128xbf16>, tensor<8x?xf32>
  return %o, %lse : tensor<?x8x128xbf16>, tensor<8x?xf32>
}

func.func @bias(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>, %b: tensor<1x?x?x?xf16>) -> (tensor<?x?x?x64xf16>, tensor<?x?x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> bias(%b : tensor<1x?x?x?xf16>) {layout = #fa<layout bshd>, causal} -> tensor<?x?x?x64xf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x64xf16>, tensor<?x?x?xf32>
}

func.func @fp8(%q: tensor<?x8x?x128xf8E4M3FN>, %k: tensor<?x2x?x128xf8E4M3FN>, %v: tensor<?x2x?x128xf8E4M3FN>, %dq: tensor<f32>, %dk: tensor<f32>, %dv: tensor<f32>) -> (tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x8x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN> descale(%dq, %dk, %dv : tensor<f32>, tensor<f32>, tensor<f32>) {causal} -> tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
  return %o, %lse : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
}

func.func @varlen_full(%q: tensor<?x8x128xbf16>, %k: tensor<?x2x128xbf16>, %v: tensor<?x2x128xbf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> (tensor<?x8x128xbf16>, tensor<8x?xf32>) {
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<?x8x128xbf16>, tensor<?x2x128xbf16>, tensor<?x2x128xbf16>, tensor<?xi32>, tensor<?xi32> {max_seqlen_q = 4096 : i64} -> tensor<?x8x128xbf16>, tensor<8x?xf32>
  return %o, %lse : tensor<?x8x128xbf16>, tensor<8x?xf32>
}
