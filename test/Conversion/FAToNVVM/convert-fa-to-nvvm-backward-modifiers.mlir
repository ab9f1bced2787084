// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm | FileCheck %s

// score_mod and mask_mod regions in the sm_90a backward (docs/Modifiers.md,
// docs/HopperBackward.md): the main kernel recomputes S^T through the
// forward's evaluator (score_mod after the scale, mask_mod to -inf) and
// takes dS through d score_mod / d score, derived from the region's ops.
// The captures are parameters of the main kernel only, in its bundle's
// params and "captures" as in the forward's.

// A nonlinear score_mod (8 tanh(s / 8) plus ALiBi) and a document mask. The
// sequence and its kernels are named by the regions; the main kernel's
// bundle lists both captures.
// CHECK-LABEL: module attributes
// CHECK-SAME: fa_bwd_bf16_d64_bhsd_mod[[HASH:[0-9a-f]+]]_m64n128s2_bsparse = {
// CHECK-SAME: fa_bwd_bf16_d64_bhsd_mod[[HASH]]_m64n128s2_bsparse_main = "{
// CHECK-SAME: \22captures\22: [
// CHECK-SAME: \22dtype\22: \22f32\22,\0A{{ *}}\22name\22: \22capture0\22
// CHECK-SAME: \22dtype\22: \22i32\22,\0A{{ *}}\22name\22: \22capture1\22
// CHECK-SAME: \22operand\22: \22capture0\22
// CHECK-SAME: \22value\22: \22stride(capture0, dim0)\22
// CHECK-SAME: \22operand\22: \22capture1\22
// CHECK-SAME: \22value\22: \22stride(capture1, dim1)\22
// CHECK-SAME: fa_bwd_bf16_d64_bhsd_mod[[HASH]]_m64n128s2_bsparse_post = "{
// CHECK-SAME: fa_bwd_bf16_d64_bhsd_mod[[HASH]]_m64n128s2_bsparse_pre = "{
// CHECK: gpu.module @fa_bwd_bf16_d64_bhsd_mod[[HASH]]_m64n128s2_bsparse
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_mod[[HASH]]_m64n128s2_bsparse_pre(
// CHECK-NOT: llvm.func
// The main kernel's signature: six tensor maps, dK and dV with their
// strides, dq_accum, the sizes, the block map (the document mask makes the
// backward block-sparse: convert-fa-to-nvvm-backward-block-sparse.mlir),
// then slopes (ptr, i64) and document ids (ptr, i64, i64).
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_mod[[HASH]]_m64n128s2_bsparse_main({{.*}}nvvm.grid_constant}, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %[[SLOPES:[^:]*]]: !llvm.ptr, %{{[^:]*}}: i64, %[[DOCS:[^:]*]]: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64)
// The consumers, after S^T: the score function with score_mod (scale,
// tanh.approx) and its derivative (1/8) (1 - r^2) 8 next to it, the slope
// read per query head, the two document ids compared and the score set to
// -inf where they differ; then P = exp2(...) and dS = P (dP - D) times the
// derivative.
// CHECK: nvvm.wgmma.mma_async
// CHECK: %[[R:.*]] = llvm.inline_asm {{.*}}tanh.approx.f32
// CHECK: %[[RR:.*]] = arith.mulf %[[R]], %[[R]] : f32
// CHECK: %[[NRR:.*]] = arith.negf %[[RR]] : f32
// CHECK: %[[ONEM:.*]] = arith.addf %{{.*}}, %[[NRR]] : f32
// CHECK: %[[DT:.*]] = arith.mulf %{{.*}}, %[[ONEM]] : f32
// CHECK: %[[D:.*]] = arith.mulf %[[DT]], %{{.*}} : f32
// CHECK: llvm.getelementptr %[[SLOPES]]
// CHECK: llvm.load {{.*}} -> f32
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: llvm.getelementptr %[[DOCS]]
// CHECK: llvm.load {{.*}} -> i32
// CHECK: llvm.getelementptr %[[DOCS]]
// CHECK: llvm.load {{.*}} -> i32
// CHECK: %[[SAME:.*]] = arith.cmpi eq, {{.*}} : i32
// CHECK: %[[HIDES:.*]] = arith.xori %[[SAME]], %{{.*}} : i1
// CHECK: arith.select %[[HIDES]], %[[NEGINF]], %{{.*}} : f32
// CHECK: %[[P:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: %[[DPD:.*]] = arith.subf
// CHECK: %[[PDS:.*]] = arith.mulf %[[P]], %[[DPD]] : f32
// CHECK: arith.mulf %[[PDS]], %[[D]] : f32
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_mod[[HASH]]_m64n128s2_bsparse_post(
func.func @tanh_alibi_document(%do: tensor<?x4x?x64xbf16>, %q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>, %o: tensor<?x4x?x64xbf16>, %lse: tensor<?x4x?xf32>, %slopes: tensor<4xf32>, %doc: tensor<?x?xi32>) -> (tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?xf32> captures(%slopes, %doc : tensor<4xf32>, tensor<?x?xi32>) -> tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>, %d: tensor<?x?xi32>):
    %c8 = arith.constant 8.0 : f32
    %x = arith.divf %s, %c8 : f32
    %t = math.tanh %x : f32
    %capped = arith.mulf %t, %c8 : f32
    %m = tensor.extract %sl[%h] : tensor<4xf32>
    %dist = arith.subi %j, %i : index
    %di = arith.index_cast %dist : index to i64
    %df = arith.sitofp %di : i64 to f32
    %bias = arith.mulf %m, %df : f32
    %r = arith.addf %capped, %bias : f32
    fa.yield %r : f32
  } mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>, %d: tensor<?x?xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<?x?xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1
  }
  return %dq, %dk, %dv : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
}

// -----

// A mask_mod that states causal is the causal attribute in the backward
// too: one sequence for both ops, the attribute's, without captures.
// CHECK-LABEL: module attributes
// CHECK-NOT: _mod{{[0-9a-f]}}
// CHECK: fa.attention_grad {{.*}}fa.kernel = @fa_bwd_bf16_d128_bhsd_causal_m64n128s2::@fa_bwd_bf16_d128_bhsd_causal_m64n128s2
// CHECK: fa.attention_grad {{.*}}fa.kernel = @fa_bwd_bf16_d128_bhsd_causal_m64n128s2::@fa_bwd_bf16_d128_bhsd_causal_m64n128s2
// CHECK: gpu.module @fa_bwd_bf16_d128_bhsd_causal_m64n128s2
// CHECK-NOT: gpu.module
func.func @causal_as_mask_mod(%do: tensor<?x?x?x128xbf16>, %q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>, %o: tensor<?x?x?x128xbf16>, %lse: tensor<?x?x?xf32>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?xf32> -> tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c = arith.cmpi sle, %j, %i : index
    fa.yield %c : i1
  }
  %dq2, %dk2, %dv2 = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?xf32> {causal} -> tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>
  return %dq, %dq2 : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>
}

// -----

// Prefix-LM with a per-batch prefix length (causal or inside the prefix)
// and a T5-style bucketed bias read from a [heads, buckets] table, with a
// bias operand and GQA: the causal conjunct is not split off an `ori`, so
// every query tile is visited; the bucket's log is lg2.approx; the
// derivative of an added table entry is 1 (no tangent op beyond the
// score's). dBias (dS) is stored through grad_bias.
// CHECK-LABEL: module attributes
// CHECK: gpu.module @fa_bwd_f16_d128_bshd_mod{{[0-9a-f]+}}_biasf32_m64n128s2
// CHECK: llvm.func @fa_bwd_f16_d128_bshd_mod{{[0-9a-f]+}}_biasf32_m64n128s2_main(
// CHECK: lg2.approx
// CHECK: arith.fptosi
// CHECK: llvm.load {{.*}} -> f32
// CHECK: llvm.load {{.*}} -> i32
// CHECK: arith.cmpi sle
// CHECK: arith.ori
func.func @prefix_t5(%do: tensor<2x?x8x128xf16>, %q: tensor<2x?x8x128xf16>, %k: tensor<2x?x2x128xf16>, %v: tensor<2x?x2x128xf16>, %o: tensor<2x?x8x128xf16>, %lse: tensor<2x8x?xf32>, %bias: tensor<2x8x?x?xf32>, %table: tensor<8x32xf32>, %prefix: tensor<2xi32>) -> (tensor<2x?x8x128xf16>, tensor<2x8x?x?xf32>) {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x?x8x128xf16>, tensor<2x?x8x128xf16>, tensor<2x?x2x128xf16>, tensor<2x?x2x128xf16>, tensor<2x?x8x128xf16>, tensor<2x8x?xf32> bias(%bias : tensor<2x8x?x?xf32>) captures(%table, %prefix : tensor<8x32xf32>, tensor<2xi32>) {layout = #fa.layout<bshd>} -> tensor<2x?x8x128xf16>, tensor<2x?x2x128xf16>, tensor<2x?x2x128xf16>, tensor<2x8x?x?xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %tab: tensor<8x32xf32>, %p: tensor<2xi32>):
    %c1 = arith.constant 1 : index
    %c31 = arith.constant 31 : index
    %dist = arith.subi %i, %j : index
    %pos = arith.maxsi %dist, %c1 : index
    %pi = arith.index_cast %pos : index to i64
    %pf = arith.sitofp %pi : i64 to f32
    %lg = math.log2 %pf : f32
    %c4 = arith.constant 4.0 : f32
    %scaled = arith.mulf %lg, %c4 : f32
    %bi = arith.fptosi %scaled : f32 to i64
    %bk = arith.index_cast %bi : i64 to index
    %bucket = arith.minsi %bk, %c31 : index
    %e = tensor.extract %tab[%h, %bucket] : tensor<8x32xf32>
    %r = arith.addf %s, %e : f32
    fa.yield %r : f32
  } mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %tab: tensor<8x32xf32>, %p: tensor<2xi32>):
    %len = tensor.extract %p[%b] : tensor<2xi32>
    %li = arith.index_cast %len : i32 to index
    %inPrefix = arith.cmpi slt, %j, %li : index
    %causal = arith.cmpi sle, %j, %i : index
    %keep = arith.ori %causal, %inPrefix : i1
    fa.yield %keep : i1
  }
  return %dq, %db : tensor<2x?x8x128xf16>, tensor<2x8x?x?xf32>
}

// -----

// A table of any size indexed with torch's wrap-around (bucket + buckets
// when negative): the main kernel takes the size of the dim the region
// reads, size(capture0, dim1), after the capture's strides.
// CHECK-LABEL: module attributes
// CHECK-SAME: _main = "{
// CHECK-SAME: \22value\22: \22stride(capture0, dim1)\22
// CHECK-SAME: \22kind\22: \22i32\22,\0A{{ *}}\22value\22: \22size(capture0, dim1)\22
// CHECK-NOT: size(capture0, dim0)
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_mod{{[0-9a-f]+}}_m64n128s2_main({{.*}}: i32, %[[TABLE:[^:]*]]: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %[[BUCKETS:[^:]*]]: i32)
// CHECK: arith.addi %{{.*}}, %[[BUCKETS]] : i32
// CHECK: llvm.getelementptr %[[TABLE]]
func.func @wrapped_bucket(%do: tensor<1x4x?x64xbf16>, %q: tensor<1x4x?x64xbf16>, %k: tensor<1x4x?x64xbf16>, %v: tensor<1x4x?x64xbf16>, %o: tensor<1x4x?x64xbf16>, %lse: tensor<1x4x?xf32>, %table: tensor<?x?xf32>) -> tensor<1x4x?x64xbf16> {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?xf32> captures(%table : tensor<?x?xf32>) -> tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %tab: tensor<?x?xf32>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %dist = arith.subi %j, %i : index
    %neg = arith.cmpi slt, %dist, %c0 : index
    %n = tensor.dim %tab, %c1 : tensor<?x?xf32>
    %wrapped = arith.addi %dist, %n : index
    %bucket = arith.select %neg, %wrapped, %dist : index
    %e = tensor.extract %tab[%h, %bucket] : tensor<?x?xf32>
    %r = arith.addf %s, %e : f32
    fa.yield %r : f32
  }
  return %dq : tensor<1x4x?x64xbf16>
}
