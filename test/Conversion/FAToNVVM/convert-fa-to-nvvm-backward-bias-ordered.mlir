// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm="deterministic=true" | FileCheck %s
// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm | FileCheck %s --check-prefix=ATOMIC

// In deterministic mode dBias of a bias that broadcasts over batch or
// heads, in the inputs' type, is summed in a fixed order
// (docs/HopperBackward.md, "dBias of a broadcast bias summed in turn"):
// three kernels (no _dbias), dbias_accum not zeroed (its first turn
// stores), dbias_semaphore zeroed, the main kernel's turns (spin, f32
// blocks stored, added in L2 by the middle turns, read by the last one,
// which stores into grad_bias; release) and no f32 atomics outside a turn.
// Over heads the q heads of a group take turns in the CTA; the skipped
// query tiles' zeros are stored by the first contributing CTA only.
// Outside deterministic mode (ATOMIC) they take the f32 reductions into
// the zeroed dbias_accum and the _dbias kernel, no turns, but over batch
// alone at the 128-query tile: elsewhere on an H100 the turns' waits cost
// more than the zeroing and the kernel they save
// (BackwardKernelConfig::biasGradInOrder).

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
// ATOMIC-SAME: _dbias.json
// ATOMIC-SAME: \22init\22: \22zero\22,\0A      \22name\22: \22dbias_accum\22
// ATOMIC-NOT: dbias_semaphore
// ATOMIC: llvm.func @fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2_main(
// ATOMIC-NOT: ld.acquire.gpu.global.b32
// ATOMIC: "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};"
// ATOMIC-NOT: red.release.gpu
// ATOMIC: llvm.func @fa_bwd_bf16_d64_bhsd_causal_biasbf16_bch_m128n128s2_dbias(

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
// ATOMIC-SAME: _dbias.json
// ATOMIC-NOT: dbias_semaphore
// ATOMIC: llvm.func @fa_bwd_f16_d128_bhsd_biasf16_bcbh_m64n128s2_main(
// ATOMIC-NOT: ld.acquire.gpu.global.b32
// ATOMIC: "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};"
// ATOMIC: llvm.func @fa_bwd_f16_d128_bhsd_biasf16_bcbh_m64n128s2_dbias(

func.func @broadcast_both(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>, %o: tensor<?x?x?x128xf16>, %do: tensor<?x?x?x128xf16>, %lse: tensor<?x?x?xf32>, %b: tensor<1x1x?x?xf16>) -> tensor<1x1x?x?xf16> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?xf32> bias(%b : tensor<1x1x?x?xf16>) -> tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<1x1x?x?xf16>
  return %db : tensor<1x1x?x?xf16>
}

// -----

// Broadcast over batch (a static 1 where Q's batch is dynamic), a bias of
// the inputs' type: the CTAs of the batches add into one dBias block
// [query tile x 64 keys] in turn (docs/HopperBackward.md, "dBias of a
// broadcast bias summed in turn"): consumer c's leader spins on the
// block's semaphore in dbias_semaphore (zeroed by the runtime; not for turn
// 0), named barrier 12 + c lets its warpgroup go on; the first turn stores
// its f32 terms into dbias_accum (not zeroed: "init": "none"; blocks of
// whole query tiles and key blocks), the middle ones add theirs with
// red.global.add.v4.f32, and the last one reads the sum (its lines
// prefetched into L1 at once), adds and writes it in the bias's type into
// grad_bias; each but the last releases the semaphore after a barrier and
// a fence. No reduction before the turn, no fourth kernel.
// A 16-bit bias is read through the consumer's box of the dS buffers
// (docs/HopperBackward.md, "The bias tile in shared memory"): step 0's
// tile copied by cp.async before the loop, each step waiting for its copy
// (and the warpgroup's) before ldmatrix.trans puts it in S^T's order, and
// copying the next step's tile after dBias was taken from dS's box.
// CHECK-LABEL: fa.kernel_bundles = {fa_bwd_bf16_d64_bshd_biasbf16_bcb_m128n128s2_det = {
// CHECK: llvm.func @fa_bwd_bf16_d64_bshd_biasbf16_bcb_m128n128s2_det_main(
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK: "cp.async.wait_group 0;"
// CHECK: "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];"
// CHECK-NOT: red.global.add
// CHECK: ld.acquire.gpu.global.b32
// CHECK-COUNT-16: "prefetch.global.L1 [$0];"
// CHECK: "ld.global.v4.f32 {$0, $1, $2, $3}, [$4];"
// CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr{{$}}
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr{{$}}
// CHECK: "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};"
// CHECK: "fence.acq_rel.gpu;"
// CHECK: "red.release.gpu.global.add.s32 [$0], $1;"
// CHECK-NOT: red.global.add
// CHECK: llvm.func @fa_bwd_bf16_d64_bshd_biasbf16_bcb_m128n128s2_det_post(
// CHECK-NOT: _dbias(
// Over batch alone at the 128-query tile the turns are taken outside
// deterministic mode too (they measured faster there than the reductions).
// ATOMIC-LABEL: fa.kernel_bundles = {fa_bwd_bf16_d64_bshd_biasbf16_bcb_m128n128s2 = {
// ATOMIC-NOT: _dbias.json
// ATOMIC-SAME: dbias_semaphore
// ATOMIC: llvm.func @fa_bwd_bf16_d64_bshd_biasbf16_bcb_m128n128s2_main(
// ATOMIC-NOT: red.global.add
// ATOMIC: ld.acquire.gpu.global.b32
// ATOMIC: "red.release.gpu.global.add.s32 [$0], $1;"
// ATOMIC: llvm.func @fa_bwd_bf16_d64_bshd_biasbf16_bcb_m128n128s2_post(
// ATOMIC-NOT: _dbias(


func.func @broadcast_batch(%do: tensor<?x?x?x64xbf16>, %q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %o: tensor<?x?x?x64xbf16>, %l: tensor<?x?x?xf32>, %b: tensor<1x?x?x?xbf16>) -> tensor<1x?x?x?xbf16> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?xf32> bias(%b : tensor<1x?x?x?xbf16>) {layout = #fa<layout bshd>} -> tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<1x?x?x?xbf16>
  return %db : tensor<1x?x?x?xbf16>
}
