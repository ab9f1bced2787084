// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm="deterministic=true" | FileCheck %s
// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm | FileCheck %s --check-prefix=ATOMIC

// dBias of a bias that broadcasts over batch or heads, in the inputs'
// type, is summed in a fixed order (docs/HopperBackward.md, "dBias of a
// broadcast bias summed in turn"), so deterministic mode takes it: three
// kernels (no _dbias), dbias_accum not zeroed (its first turn stores),
// dbias_semaphore zeroed, the main kernel's turns (spin, f32 blocks stored,
// added in L2 by the middle turns, read by the last one, which stores into
// grad_bias; release) and no f32 atomics outside a turn. Over heads
// the q heads of a group take turns in the CTA; the skipped query tiles'
// zeros are stored by the first contributing CTA only.

// CHECK-LABEL: fa.kernel_bundles = {fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2_det = {fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2_det = "
// CHECK-SAME: \22bias_broadcast\22: [\0A      \22head\22\0A    ]
// CHECK-SAME: \22deterministic\22: true
// CHECK-SAME: \22kernels\22: [\0A    \22fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2_det_pre.json\22,\0A    \22fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2_det_main.json\22,\0A    \22fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2_det_post.json\22\0A  ]
// CHECK-SAME: \22name\22: \22dq_semaphore\22
// CHECK-SAME: \22init\22: \22none\22,\0A      \22name\22: \22dbias_accum\22,\0A      \22shape\22: [\0A        \22batch\22,\0A        \221\22,\0A        \22ceildiv(seq_q, 128) * 128\22,\0A        \22ceildiv(seq_k, 128) * 128\22
// CHECK-SAME: \22init\22: \22zero\22,\0A      \22name\22: \22dbias_semaphore\22,\0A      \22shape\22: [\0A        \22batch\22,\0A        \221\22,\0A        \22ceildiv(seq_q, 128)\22,\0A        \22ceildiv(seq_k, 128) * 2\22
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2_det_main(
// CHECK-NOT: red.global.add
// CHECK: ld.acquire.gpu.global.b32
// CHECK: "ld.global.v4.f32 {$0, $1, $2, $3}, [$4];"
// CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr{{$}}
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr{{$}}
// CHECK: "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};"
// CHECK: "red.release.gpu.global.add.s32 [$0], $1;"
// CHECK-NOT: red.global.add
// CHECK: llvm.store %{{.*}} {alignment = 2 : i64} : bf16, !llvm.ptr{{$}}
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2_det_post(
// CHECK-NOT: _dbias(
// ATOMIC-LABEL: fa.kernel_bundles = {fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2 = {
// ATOMIC-NOT: _dbias.json
// ATOMIC: llvm.func @fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2_main(
// ATOMIC-NOT: red.global.add
// ATOMIC: ld.acquire.gpu.global.b32
// ATOMIC: "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};"
// ATOMIC: "red.release.gpu.global.add.s32 [$0], $1;"
// ATOMIC-NOT: red.global.add
// ATOMIC: llvm.func @fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2_post(
// ATOMIC-NOT: _dbias(

func.func @broadcast_heads(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %o: tensor<?x?x?x64xbf16>, %do: tensor<?x?x?x64xbf16>, %lse: tensor<?x?x?xf32>, %b: tensor<?x1x?x?xbf16>) -> tensor<?x1x?x?xbf16> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?xf32> bias(%b : tensor<?x1x?x?xbf16>) {causal} -> tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x1x?x?xbf16>
  return %db : tensor<?x1x?x?xbf16>
}

// -----

// Over batch and heads at d128 (the 64-query tile): one dBias plane, its
// blocks [64 queries x 64 keys]; f16 stores.
// CHECK-LABEL: fa.kernel_bundles = {fa_bwd_f16_d128_bhsd_biasf16_bcbh_m64n128s2_det = {
// CHECK-SAME: \22init\22: \22none\22,\0A      \22name\22: \22dbias_accum\22,\0A      \22shape\22: [\0A        \221\22,\0A        \221\22,\0A        \22ceildiv(seq_q, 64) * 64\22,\0A        \22ceildiv(seq_k, 128) * 128\22
// CHECK: llvm.func @fa_bwd_f16_d128_bhsd_biasf16_bcbh_m64n128s2_det_main(
// CHECK-NOT: red.global.add
// CHECK: ld.acquire.gpu.global.b32
// CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr{{$}}
// CHECK: "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};"
// CHECK: "red.release.gpu.global.add.s32 [$0], $1;"
// CHECK-NOT: red.global.add
// CHECK: llvm.func @fa_bwd_f16_d128_bhsd_biasf16_bcbh_m64n128s2_det_post(
// CHECK-NOT: _dbias(
// ATOMIC-LABEL: fa.kernel_bundles = {fa_bwd_f16_d128_bhsd_biasf16_bcbh_m64n128s2 = {

func.func @broadcast_both(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>, %o: tensor<?x?x?x128xf16>, %do: tensor<?x?x?x128xf16>, %lse: tensor<?x?x?xf32>, %b: tensor<1x1x?x?xf16>) -> tensor<1x1x?x?xf16> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?xf32> bias(%b : tensor<1x1x?x?xf16>) -> tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<1x1x?x?xf16>
  return %db : tensor<1x1x?x?xf16>
}

