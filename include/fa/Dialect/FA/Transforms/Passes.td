//===- Passes.td - fa dialect transformations --------------*- tablegen -*-===//
#ifndef FA_DIALECT_FA_TRANSFORMS_PASSES_TD
#define FA_DIALECT_FA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FADecomposeAttention : Pass<"fa-decompose-attention"> {
  let summary = "Rewrite fa ops into plain linalg: the reference semantics";
  let description = [{
    Replaces every `fa.attention` by the textbook computation on tensors:
    S = scale * Q Kᵀ (+ bias, softcap, mask), P = softmax(S) in f32, O = P V;
    and every `fa.attention_grad` by the analytic backward (P recomputed from
    the scores, dV = Pᵀ dO, dP = dO Vᵀ, dS = P ∘ (dP - rowsum(dO ∘ O)),
    dQ = scale dS K, dK = scale dSᵀ Q, with the softcap derivative; GQA heads
    summed). The full seq_q × seq_k score matrix is materialised: this pass is
    the oracle the optimized lowerings are tested against, written to be
    obviously right rather than fast. It never splits the keys
    (`num_splits` is a hint for `fa-tile-attention`); `fa.combine` ops are
    merged by the same lowering `fa-tile-attention` uses, and
    `fa.attention_kvcache` becomes the same per-sequence `fa.attention` ops
    (see `fa-tile-attention`), decomposed.

    Input: `fa` ops on ranked tensors. Output: `linalg`, `tensor`, `arith`
    and `math` ops; no `fa` op remains.

    Example:
    ```mlir
    %o = fa.attention %q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x6x8xf32>,
        tensor<1x1x6x8xf32> -> tensor<1x1x4x8xf32>
    // becomes linalg.generic contractions, reductions and elementwise ops.
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def FATileAttention : Pass<"fa-tile-attention"> {
  let summary = "Rewrite fa ops into FlashAttention loop nests over tiles";
  let description = [{
    Replaces every `fa.attention` by the FlashAttention forward: an
    `scf.forall` over (batch, query head, query tile) whose body runs an
    `scf.for` over key/value tiles carrying the running row max `m`, the
    running row sum `l` and the f32 output accumulator (online softmax,
    `exp2` with log2(e) folded into the scale). The seq_q x seq_k score
    matrix never exists: every value is at most a block-q x block-k tile.

    Replaces every `fa.attention_grad` by the FlashAttention-2 backward:
    D = rowsum(dO * O) per query row; an `scf.forall` over (batch, kv head,
    key tile) whose inner loops over the query heads of the group and the
    query tiles recompute the scores and P = exp(S - LSE) and accumulate
    dV += Pᵀ dO, dK += dSᵀ Q (and dBias); dQ += dS K in a separate
    `scf.forall` over query tiles (`dq-accumulation=deterministic`).

    Causal and sliding-window masks: key tiles that every row of a query
    tile cannot see (and, in the backward, query tiles that cannot see a key
    tile) are outside the loop bounds; only tiles crossing the mask boundary
    compute the per-element mask, under an `scf.if`. Scores, bias, softcap,
    masks and their derivative come from AttentionConfig, as in
    `fa-decompose-attention`. Grouped-query heads read their key/value head
    by index arithmetic. Tails are tiles with dynamic sizes.

    Split-KV: an `fa.attention` with `num_splits = n` (n != 1) gets a split
    dimension in its `scf.forall`; split c walks only its share of the key
    tiles and writes an f32 partial output and LSE, which `fa.combine`
    merges. `num_splits = 0` picks the number at run time:
    max(1, min(cores / (batch * heads_q * query tiles), key tiles, 64)).
    Every `fa.combine` becomes `linalg.generic` ops (see
    docs/Inference.md).

    KV caches: every `fa.attention_kvcache` first becomes `scf.for` loops
    that insert the appended keys/values into the caches, then, per
    sequence, a dense bshd `fa.attention` (bottom-right masks, the op's
    `num_splits`) on a slice of a contiguous cache or the sequence's pages
    gathered into one tensor; those are tiled like any other.

    Input: `fa` ops on ranked tensors. Output: `scf`, `linalg` (on 2-D
    tiles), `tensor`, `arith` and `math` ops; no `fa` op remains.

    Example:
    ```mlir
    %o = fa.attention %q, %k, %v : tensor<1x8x4096x64xf32>,
        tensor<1x8x4096x64xf32>, tensor<1x8x4096x64xf32> {causal}
        -> tensor<1x8x4096x64xf32>
    // becomes scf.forall (%b, %h, %t) in (1, 8, 64) { scf.for %kt = 0 to
    // min(...) { ...tensor<?x?xf32> tiles... } }
    ```
  }];
  let options = [
    Option<"blockQ", "block-q", "int64_t", /*default=*/"64",
           "Query rows per tile">,
    Option<"blockK", "block-k", "int64_t", /*default=*/"64",
           "Key/value rows per tile">,
    Option<"cores", "cores", "int64_t", /*default=*/"0",
           "Cores that split-KV (num_splits = 0) aims to occupy; 0: this "
           "host's hardware threads">,
    Option<"dqAccumulation", "dq-accumulation", "std::string",
           /*default=*/"\"deterministic\"",
           "How the backward sums dQ over key tiles: 'deterministic' (a "
           "separate loop nest over query tiles) or 'atomic' (memref "
           "atomics into an f32 buffer from the dK/dV nest)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def FARaiseAttention : Pass<"fa-raise-attention"> {
  let summary = "Recognize attention in framework IR and raise it to fa ops";
  let description = [{
    Finds attention written as generic ops (linalg from torch-mlir and
    TensorFlow-style lowerings, `linalg.softmax` or the decomposed
    max/sub/exp/sum/div chain, TOSA) and replaces it by `fa.attention`, and
    the training backward chain by `fa.attention_grad`. Raises only when the
    result is the same function; emits a remark for every raise and for every
    near miss it declines, saying why.

    Every dimension is given a role (batch, heads, seq_q, seq_k, head_dim)
    by following the loop indices through view ops (transposes, reshapes,
    broadcasts, permuting generics), so any layout, any collapsing of batch
    and heads, and K/V heads broadcast for grouped-query attention are
    recognized. Masks that depend only on the position (iota compares,
    constant triangles, additive -inf / -1e9 tensors) become `causal`,
    `mask_alignment` and `window`; data-dependent masks become the `bias`
    operand. The full list of forms and the soundness rules are in
    docs/RaiseAttention.md.

    Input: ranked tensors in linalg, tensor, arith, math and tosa (batch and
    sequence lengths may be dynamic, head dims static). Output: the same
    program with each recognized attention replaced by `fa.attention` (plus
    the transposes / reshapes / casts that connect it to the surrounding
    code); everything else is untouched.

    Example:
    ```mlir
    %s = linalg.batch_matmul ins(%q, %kt : ...) outs(%zero : ...)
    %p = linalg.softmax dimension(2) ins(%s : ...) outs(%e : ...)
    %o = linalg.batch_matmul ins(%p, %v : ...) outs(%zero2 : ...)
    // becomes
    %o = fa.attention %q4, %k4, %v4 : ... {scale = 1.0 : f32} -> ...
    ```
  }];
  let options = [
    Option<"narrowPromoted", "narrow-promoted", "bool", /*default=*/"true",
           "Raise attention computed wider between bf16 / f16 inputs and a "
           "truncation of its result to the same type as an op of that "
           "type, which rounds P as FlashAttention does (PyTorch's sdpa "
           "contract); false keeps the wider type">
  ];
  let dependentDialects = [
    "::mlir::fa::FADialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"
  ];
}

def FAFp8Quantize : Pass<"fa-fp8-quantize"> {
  let summary = "Rewrite fa.attention into FP8 (f8E4M3FN) attention: "
                "optional incoherent processing, quantization, descales";
  let description = [{
    Replaces every forward `fa.attention` on f32, f16 or bf16 by: an optional
    incoherent-processing transform of Q and K, their quantization (and V's)
    to f8E4M3FN, and an `fa.attention` on the FP8 tensors with the matching
    descales (FlashAttention-3's accuracy techniques as a compiler step, so
    that framework IR raised to `fa` gets them by a flag).

    Quantization: scale = amax / 448 (1 where amax = 0), x8 = round(x / scale)
    to nearest even, descale = scale, computed in IR (`linalg.generic`
    reductions and maps). Per tensor with `block = 0`, else per block of
    `block` rows of one head: Q's descales per (batch, query head, block),
    K's and V's per (batch, kv head, block), `descale_block = [block,
    block]`.

    Incoherent processing (`incoherent`): Q and K are multiplied along the
    head dim by M = diag(s) H / sqrt(n), H a Sylvester Hadamard matrix and s
    random signs (splitmix64 from `seed`, the sign of output i is its top
    bit). M is orthogonal, so (QM)(KM)ᵀ = QKᵀ and the scores are unchanged in
    exact arithmetic while outliers spread across the head dim before
    quantization. A head dim that is not a power of two gets a
    block-diagonal M, one Hadamard block per set bit of the head dim,
    largest first (96 = 64 + 32), each normalised by its own size: still
    orthogonal, outliers spread within each block. V is not transformed.

    FP8 ops stay as they are. Declined, with a remark saying why: ops with a
    bias whose element type is not f32 (the FP8 op takes only f32 biases),
    and ops whose results feed an `fa.attention_grad` (the backward would
    differentiate the quantized forward, not the original). A negative
    `block` is an error.

    Input: `fa.attention` ops. Output: the same program with each rewritten
    op preceded by `linalg`, `tensor` and `arith` ops on tensors and
    replaced by an f8E4M3FN `fa.attention` with the original output type.

    Example:
    ```mlir
    %o = fa.attention %q, %k, %v : tensor<1x4x1024x128xbf16>,
        tensor<1x4x1024x128xbf16>, tensor<1x4x1024x128xbf16>
        -> tensor<1x4x1024x128xbf16>
    // with block=128 incoherent=true becomes
    // %qh = linalg.generic (Q · M) ... %aq = linalg.generic (amax per block)
    // %q8 = linalg.generic (encode) ... -> tensor<1x4x1024x128xf8E4M3FN>
    %o = fa.attention %q8, %k8, %v8 : ... descale(%dq, %dk, %dv :
        tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>)
        {descale_block = array<i64: 128, 128>} -> tensor<1x4x1024x128xbf16>
    ```
  }];
  let options = [
    Option<"block", "block", "int64_t", /*default=*/"0",
           "Rows per quantization block (one scale per block of each head); "
           "0: one scale per tensor">,
    Option<"incoherent", "incoherent", "bool", /*default=*/"false",
           "Multiply Q and K by a random-sign Hadamard matrix along the "
           "head dim before quantizing">,
    Option<"seed", "seed", "uint64_t", /*default=*/"0",
           "Seed of the incoherent transform's random signs">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // FA_DIALECT_FA_TRANSFORMS_PASSES_TD
