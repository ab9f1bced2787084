// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm | FileCheck %s

// score_mod and mask_mod regions in the sm_90a forward (docs/Modifiers.md):
// evaluated per accumulator element in the consumers, the captures kernel
// parameters read by global loads.

// ALiBi (score_mod) and a document mask (mask_mod): the kernel is named by
// the regions; each tensor capture is a pointer and one stride per dim, in
// the bundle's params and its "captures" (role, dtype, dims). A document id
// read per key is planned like a bias tile (96-key tiles at d128).
// CHECK-LABEL: module attributes
// CHECK-SAME: fa_fwd_bf16_d128_bhsd_mod[[HASH:[0-9a-f]+]]_m128n96s2o
// CHECK-SAME: \22captures\22: [
// CHECK-SAME: \22dims\22: [\0A{{ *}}\22dim0\22\0A{{ *}}],\0A{{ *}}\22dtype\22: \22f32\22,\0A{{ *}}\22name\22: \22capture0\22
// CHECK-SAME: \22dims\22: [\0A{{ *}}\22dim0\22,\0A{{ *}}\22dim1\22\0A{{ *}}],\0A{{ *}}\22dtype\22: \22i32\22,\0A{{ *}}\22name\22: \22capture1\22
// CHECK-SAME: \22operand\22: \22capture0\22
// CHECK-SAME: \22value\22: \22stride(capture0, dim0)\22
// CHECK-SAME: \22operand\22: \22capture1\22
// CHECK-SAME: \22value\22: \22stride(capture1, dim0)\22
// CHECK-SAME: \22value\22: \22stride(capture1, dim1)\22
// The document mask makes the kernel block-sparse (a _block_map pre-kernel
// first: convert-fa-to-nvvm-block-sparse.mlir). The forward's signature: 3
// tensor maps, O, slopes (ptr, i64), document ids (ptr, i64, i64), the
// block map (2 ptrs, 5 strides), then the sizes.
// CHECK: llvm.func @fa_fwd_bf16_d128_bhsd_mod[[HASH]]_m128n96s2o_bsparse_main(%{{.*}}: !llvm.ptr {{.*}}, %{{.*}}: !llvm.ptr {{.*}}, %{{.*}}: !llvm.ptr {{.*}}, %{{.*}}: !llvm.ptr {llvm.noalias}, %[[SLOPES:.*]]: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %[[DOCS:.*]]: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32
// The consumers: the slope and the two document ids loaded per element,
// the distance converted, the comparison, and -inf where it is false.
// CHECK: nvvm.wgmma.mma_async
// CHECK: llvm.getelementptr %[[SLOPES]]
// CHECK: llvm.load {{.*}} -> f32
// CHECK: arith.sitofp {{.*}} : i64 to f32
// CHECK: llvm.getelementptr %[[DOCS]]
// CHECK: llvm.load {{.*}} -> i32
// CHECK: arith.cmpi eq, {{.*}} : i32
// CHECK: arith.select
func.func @alibi_document(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x4x?x128xbf16>, %v: tensor<?x4x?x128xbf16>, %slopes: tensor<4xf32>, %doc: tensor<?x?xi32>) -> tensor<?x4x?x128xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> captures(%slopes, %doc : tensor<4xf32>, tensor<?x?xi32>) -> tensor<?x4x?x128xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>, %d: tensor<?x?xi32>):
    %m = tensor.extract %sl[%h] : tensor<4xf32>
    %dist = arith.subi %j, %i : index
    %di = arith.index_cast %dist : index to i64
    %df = arith.sitofp %di : i64 to f32
    %bias = arith.mulf %m, %df : f32
    %r = arith.addf %s, %bias : f32
    fa.yield %r : f32
  } mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>, %d: tensor<?x?xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<?x?xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1
  }
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// A mask_mod that states causal is the causal attribute: the same kernel
// (one gpu.module for both ops), no region left, no captures.
// CHECK-LABEL: module attributes
// CHECK-NOT: _mod{{[0-9a-f]}}
// CHECK: fa.attention {{.*}}fa.kernel = @fa_fwd_bf16_d128_bhsd_causal_m128n128s2o::@fa_fwd_bf16_d128_bhsd_causal_m128n128s2o
// CHECK: fa.attention {{.*}}fa.kernel = @fa_fwd_bf16_d128_bhsd_causal_m128n128s2o::@fa_fwd_bf16_d128_bhsd_causal_m128n128s2o
// CHECK: gpu.module @fa_fwd_bf16_d128_bhsd_causal_m128n128s2o
// CHECK-NOT: gpu.module
func.func @causal_as_mask_mod(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>) {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c = arith.cmpi sle, %j, %i : index
    fa.yield %c : i1
  }
  %o2 = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> {causal} -> tensor<?x?x?x128xbf16>
  return %o, %o2 : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>
}

// -----

// A sliding window written as a mask_mod (j <= i and i - j < 256, i.e.
// j - i >= -255) is causal with window [255, 0]: its key tiles are skipped.
// CHECK-LABEL: module attributes
// CHECK: gpu.module @fa_fwd_bf16_d128_bhsd_causal_w255_0_m128n128s2o
func.func @window_as_mask_mod(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c256 = arith.constant 256 : index
    %causal = arith.cmpi uge, %i, %j : index
    %d = arith.subi %i, %j : index
    %near = arith.cmpi slt, %d, %c256 : index
    %keep = arith.andi %causal, %near : i1
    fa.yield %keep : i1
  }
  return %o : tensor<?x?x?x128xbf16>
}

// -----

// Causal and a document mask (packed sequences): the band is recognized (the
// causal key tiles are skipped) and the region stays for the documents. A
// document id per key is planned like a bias tile: two consumers at d64.
// The documents make it block-sparse within the causal band.
// CHECK-LABEL: module attributes
// CHECK: gpu.module @fa_fwd_bf16_d64_bshd_causal_mod{{[0-9a-f]+}}_m128n128s2o_bsparse
// CHECK: llvm.load {{.*}} -> i32
// CHECK: arith.cmpi eq
func.func @causal_document(%q: tensor<1x?x8x64xbf16>, %k: tensor<1x?x8x64xbf16>, %v: tensor<1x?x8x64xbf16>, %doc: tensor<1x?xi32>) -> tensor<1x?x8x64xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x?x8x64xbf16>, tensor<1x?x8x64xbf16>, tensor<1x?x8x64xbf16> captures(%doc : tensor<1x?xi32>) {layout = #fa.layout<bshd>} -> tensor<1x?x8x64xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<1x?xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<1x?xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<1x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    %causal = arith.cmpi sge, %i, %j : index
    %keep = arith.andi %causal, %same : i1
    fa.yield %keep : i1
  }
  return %o : tensor<1x?x8x64xbf16>
}

// -----

// A score_mod with math: exp and tanh become ex2.approx and tanh.approx (as
// the softmax's and the softcap's); a constant scalar capture is baked in;
// tensor.dim of a static dim is a constant. Two regions that differ in a
// constant get two kernels. A score_mod takes two consumers at d64 (its
// per-score code does not fit three's registers).
// CHECK-LABEL: module attributes
// CHECK: gpu.module @fa_fwd_f16_d64_bhsd_mod[[A:[0-9a-f]+]]_m128n128s2o
// CHECK: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: tanh.approx.f32
// CHECK: arith.constant 2.500000e-01 : f32
// CHECK: gpu.module @fa_fwd_f16_d64_bhsd_mod
// CHECK-NOT: [[A]]
// CHECK-SAME: _m128n128s2o
func.func @math(%q: tensor<1x2x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>, %t: tensor<8xf32>) -> (tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>) {
  %quarter = arith.constant 0.25 : f32
  %half = arith.constant 0.5 : f32
  %o = fa.attention %q, %k, %v : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16> captures(%quarter, %t : f32, tensor<8xf32>) -> tensor<1x2x?x64xf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %c: f32, %tab: tensor<8xf32>):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %tab, %c0 : tensor<8xf32>
    %last = arith.subi %n, %h : index
    %x = tensor.extract %tab[%last] : tensor<8xf32>
    %e = math.exp %x : f32
    %sc = arith.mulf %s, %c : f32
    %th = math.tanh %sc : f32
    %r = arith.addf %th, %e : f32
    fa.yield %r : f32
  }
  %o2 = fa.attention %q, %k, %v : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16> captures(%half, %t : f32, tensor<8xf32>) -> tensor<1x2x?x64xf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %c: f32, %tab: tensor<8xf32>):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %tab, %c0 : tensor<8xf32>
    %last = arith.subi %n, %h : index
    %x = tensor.extract %tab[%last] : tensor<8xf32>
    %e = math.exp %x : f32
    %sc = arith.mulf %s, %c : f32
    %th = math.tanh %sc : f32
    %r = arith.addf %th, %e : f32
    fa.yield %r : f32
  }
  return %o, %o2 : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>
}

// -----

// A T5-style table of any size, [heads, buckets], indexed by a bucket that
// may be negative (torch's wrap-around: bucket + buckets): the size of the
// dynamic dim the region reads is a kernel parameter, size(capture0, dim1),
// after the capture's strides; the dim it does not read gets none.
// CHECK-LABEL: module attributes
// CHECK-SAME: \22operand\22: \22capture0\22
// CHECK-SAME: \22value\22: \22stride(capture0, dim0)\22
// CHECK-SAME: \22value\22: \22stride(capture0, dim1)\22
// CHECK-SAME: \22kind\22: \22i32\22,\0A{{ *}}\22value\22: \22size(capture0, dim1)\22
// CHECK-NOT: size(capture0, dim0)
// CHECK: llvm.func @fa_fwd_bf16_d64_bhsd_mod{{[0-9a-f]+}}_{{[^(]*}}({{.*}}: !llvm.ptr {llvm.noalias}, %[[TABLE:[^:]*]]: !llvm.ptr {llvm.noalias}, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %[[BUCKETS:[^:]*]]: i32, %{{[^:]*}}: i32,
// CHECK: nvvm.wgmma.mma_async
// CHECK: arith.addi %{{.*}}, %[[BUCKETS]] : i32
// CHECK: llvm.getelementptr %[[TABLE]]
func.func @wrapped_bucket(%q: tensor<1x4x?x64xbf16>, %k: tensor<1x4x?x64xbf16>, %v: tensor<1x4x?x64xbf16>, %table: tensor<?x?xf32>) -> tensor<1x4x?x64xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16> captures(%table : tensor<?x?xf32>) -> tensor<1x4x?x64xbf16> score_mod {
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
  return %o : tensor<1x4x?x64xbf16>
}
