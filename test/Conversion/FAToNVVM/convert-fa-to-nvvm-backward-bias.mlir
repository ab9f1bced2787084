// The bias paths of the 64-query tile (CHECK) and the tile each configuration
// takes by default (TILE): 128 query rows at d64 for a 16-bit bias of the
// inputs' type (measured faster, docs/HopperBackward.md), 64 for an f32 bias.
// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm="bwd-query-tile=64" | FileCheck %s
// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm | FileCheck %s --check-prefix=TILE

// A bias in the backward (docs/HopperBackward.md, "Bias and dBias"): the main
// kernel adds it to S^T; dS^T is its gradient. Per batch and head each
// element of grad_bias has one writer: the main kernel stores it directly
// (the bias's type, through grad_bias's strides) and zeros the rows the
// mask skips; three kernels, no dBias workspace. An f32 bias is read per
// S^T register and its gradient stored per register (no shared tile).

// TILE-LABEL: fa.kernel_bundles = {fa_bwd_bf16_d128_bhsd_causal_biasf32_m64n128s2 = {
// CHECK-LABEL: fa.kernel_bundles = {fa_bwd_bf16_d128_bhsd_causal_biasf32_m64n128s2 = {fa_bwd_bf16_d128_bhsd_causal_biasf32_m64n128s2 = "
// CHECK-SAME: \22bias\22: true
// CHECK-SAME: \22bias_broadcast\22: []
// CHECK-SAME: \22bias_dtype\22: \22f32\22
// CHECK-SAME: \22fa_bwd_bf16_d128_bhsd_causal_biasf32_m64n128s2_post.json\22\0A  ]
// CHECK-NOT: dbias_accum
// CHECK-SAME: fa_bwd_bf16_d128_bhsd_causal_biasf32_m64n128s2_main = "
// CHECK-SAME: \22operand\22: \22bias\22
// CHECK-SAME: \22value\22: \22stride(bias, seq_q)\22
// CHECK-SAME: \22operand\22: \22grad_bias\22
// CHECK-SAME: \22value\22: \22stride(grad_bias, seq_q)\22
// CHECK: llvm.func @fa_bwd_bf16_d128_bhsd_causal_biasf32_m64n128s2_main(
// CHECK-NOT: cp.async.cg
// CHECK-NOT: ldmatrix
// CHECK: ex2.approx
// CHECK-NOT: red.global.add.f32
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr
// CHECK: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: llvm.func @fa_bwd_bf16_d128_bhsd_causal_biasf32_m64n128s2_post(
// CHECK-NOT: _dbias(

func.func @per_batch_head(%do: tensor<?x?x?x128xbf16>, %q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>, %o: tensor<?x?x?x128xbf16>, %l: tensor<?x?x?xf32>, %b: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?xf32> bias(%b : tensor<?x?x?x?xf32>) {causal} -> tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x?xf32>
  return %db : tensor<?x?x?x?xf32>
}

// -----

// Broadcast over batch (a static 1 where Q's batch is dynamic): several
// CTAs add into one element, with red.global.add.f32 into the f32
// workspace dbias_accum, which a fourth kernel (_dbias) writes into
// grad_bias; the workspace and that kernel's grid have extent 1 there
// (prefix CHECK, the 64-query tile). At the 128-query tile (TILE) the CTAs of the
// batches add into one dBias block [query tile x 64 keys] in turn instead
// (docs/HopperBackward.md, "dBias of a broadcast bias summed in turn";
// BackwardKernelConfig::biasGradInOrder): consumer c's leader spins on the
// block's semaphore in dbias_semaphore, the first turn stores its f32
// terms, the middle ones add theirs with red.global.add.v4.f32, the last
// one reads the sum (its lines prefetched into L1) and writes grad_bias;
// each but the last releases the semaphore after a fence; no _dbias.
// A 16-bit bias is read through the consumer's box of the dS buffers
// (docs/HopperBackward.md, "The bias tile in shared memory"): step 0's
// tile copied by cp.async before the loop, each step waiting for its copy
// (and the warpgroup's) before ldmatrix.trans puts it in S^T's order, and
// copying the next step's tile after dS was written. dBias is added from
// dS's box after the consumer's dS barrier: 4 keys per thread and pass,
// red.global.add.v4.f32 (element reductions where seq_k % 4 != 0 or the
// chunk crosses seq_k), none per S^T register.
// TILE-LABEL: fa.kernel_bundles = {fa_bwd_bf16_d64_bshd_biasbf16_bcb_m128n128s2 = {
// TILE: llvm.func @fa_bwd_bf16_d64_bshd_biasbf16_bcb_m128n128s2_main(
// TILE: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// TILE: "cp.async.wait_group 0;"
// TILE: "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];"
// TILE-NOT: red.global.add
// TILE: ld.acquire.gpu.global.b32
// TILE-COUNT-16: "prefetch.global.L1 [$0];"
// TILE: "ld.global.v4.f32 {$0, $1, $2, $3}, [$4];"
// TILE: llvm.store %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr{{$}}
// TILE: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr{{$}}
// TILE: "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};"
// TILE: "fence.acq_rel.gpu;"
// TILE: "red.release.gpu.global.add.s32 [$0], $1;"
// TILE-NOT: red.global.add
// TILE: llvm.func @fa_bwd_bf16_d64_bshd_biasbf16_bcb_m128n128s2_post(
// TILE-NOT: _dbias(
// CHECK-LABEL: fa.kernel_bundles = {fa_bwd_bf16_d64_bshd_biasbf16_bcb_m64n128s2 = {fa_bwd_bf16_d64_bshd_biasbf16_bcb_m64n128s2 = "
// CHECK-SAME: \22bias_broadcast\22: [\0A      \22batch\22\0A    ]
// CHECK-SAME: \22bias_dtype\22: \22bf16\22
// CHECK-SAME: \22fa_bwd_bf16_d64_bshd_biasbf16_bcb_m64n128s2_post.json\22,\0A    \22fa_bwd_bf16_d64_bshd_biasbf16_bcb_m64n128s2_dbias.json\22
// CHECK-SAME: \22init\22: \22zero\22,\0A      \22name\22: \22dbias_accum\22,\0A      \22shape\22: [\0A        \221\22,\0A        \22heads_q\22,\0A        \22seq_q\22,\0A        \22seq_k\22
// CHECK-SAME: fa_bwd_bf16_d64_bshd_biasbf16_bcb_m64n128s2_dbias = "
// CHECK-SAME: \22grid\22: [\0A    \22seq_q\22,\0A    \22heads_q\22,\0A    \221\22\0A  ]
// CHECK-SAME: \22op\22: \22attention_bwd_dbias\22
// CHECK-SAME: \22operand\22: \22grad_bias\22
// CHECK-SAME: fa_bwd_bf16_d64_bshd_biasbf16_bcb_m64n128s2_main = "
// CHECK-SAME: \22operand\22: \22dbias_accum\22
// CHECK: llvm.func @fa_bwd_bf16_d64_bshd_biasbf16_bcb_m64n128s2_main(
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK: "cp.async.commit_group;"
// CHECK: scf.for
// CHECK: "cp.async.wait_group 0;"
// CHECK-NEXT: arith.constant 10 : i32
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];"
// CHECK: ex2.approx
// CHECK-NOT: red.global.add
// CHECK: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-NOT: red.global.add
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<4xbf16>
// CHECK: "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};"
// CHECK: "red.global.add.f32 [$0], $1;"
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK: llvm.func @fa_bwd_bf16_d64_bshd_biasbf16_bcb_m64n128s2_dbias(
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>

func.func @broadcast_batch(%do: tensor<?x?x?x64xbf16>, %q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %o: tensor<?x?x?x64xbf16>, %l: tensor<?x?x?xf32>, %b: tensor<1x?x?x?xbf16>) -> tensor<1x?x?x?xbf16> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?xf32> bias(%b : tensor<1x?x?x?xbf16>) {layout = #fa<layout bshd>} -> tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<1x?x?x?xbf16>
  return %db : tensor<1x?x?x?xbf16>
}

// -----

// A static 1 bias dim over a static 1 Q dim is not a broadcast: one writer.
// The bias has the inputs' type, so dBias = dS bit for bit: after the
// consumer's dS barrier, 16-byte shared loads of its box and 16-byte global
// stores (element stores where a chunk crosses seq_k or the rows are not
// 16-byte aligned), no per-register stores of the bias's type.
// TILE-LABEL: fa.kernel_bundles = {fa_bwd_f16_d64_bhsd_biasf16_m128n128s2 =
// TILE: llvm.func @fa_bwd_f16_d64_bhsd_biasf16_m128n128s2_main(
// TILE: "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];"
// TILE-NOT: red.global.add.f32
// TILE: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr{{$}}
// TILE-NOT: red.global.add.f32
// TILE: llvm.func @fa_bwd_f16_d64_bhsd_biasf16_m128n128s2_post(
// CHECK-LABEL: fa.kernel_bundles = {fa_bwd_f16_d64_bhsd_biasf16_m64n128s2 =
// CHECK-SAME: \22bias_broadcast\22: []
// CHECK: llvm.func @fa_bwd_f16_d64_bhsd_biasf16_m64n128s2_main(
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK: "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];"
// CHECK-NOT: red.global.add.f32
// CHECK-NOT: : f16, !llvm.ptr{{$}}
// CHECK: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-NOT: : f16, !llvm.ptr{{$}}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr{{$}}
// CHECK: llvm.store %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr{{$}}
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK-NOT: red.global.add.f32
// CHECK: llvm.func @fa_bwd_f16_d64_bhsd_biasf16_m64n128s2_post(

func.func @batch_one(%do: tensor<1x4x?x64xf16>, %q: tensor<1x4x?x64xf16>, %k: tensor<1x4x?x64xf16>, %v: tensor<1x4x?x64xf16>, %o: tensor<1x4x?x64xf16>, %l: tensor<1x4x?xf32>, %b: tensor<1x4x?x?xf16>) -> tensor<1x4x?x?xf16> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?xf32> bias(%b : tensor<1x4x?x?xf16>) -> tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x?xf16>
  return %db : tensor<1x4x?x?xf16>
}

// -----

// An f32 bias that broadcasts keeps the f32 atomics into the zeroed
// dbias_accum and the _dbias kernel (refused in deterministic mode, see
// convert-fa-to-nvvm-backward-bias-errors.mlir).
// TILE-LABEL: fa.kernel_bundles = {fa_bwd_bf16_d64_bhsd_biasf32_bcb_m64n128s2 = {
// TILE-SAME: _dbias.json
// TILE-SAME: \22init\22: \22zero\22,\0A      \22name\22: \22dbias_accum\22,\0A      \22shape\22: [\0A        \221\22,\0A        \22heads_q\22,\0A        \22seq_q\22,\0A        \22seq_k\22
// TILE-NOT: dbias_semaphore
// TILE: llvm.func @fa_bwd_bf16_d64_bhsd_biasf32_bcb_m64n128s2_main(
// TILE-NOT: ld.acquire.gpu.global.b32
// TILE: "red.global.add.f32 [$0], $1;"
// TILE: llvm.func @fa_bwd_bf16_d64_bhsd_biasf32_bcb_m64n128s2_dbias(

func.func @broadcast_batch_f32(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %o: tensor<?x?x?x64xbf16>, %do: tensor<?x?x?x64xbf16>, %lse: tensor<?x?x?xf32>, %b: tensor<1x?x?x?xf32>) -> tensor<1x?x?x?xf32> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?xf32> bias(%b : tensor<1x?x?x?xf32>) -> tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<1x?x?x?xf32>
  return %db : tensor<1x?x?x?xf32>
}
