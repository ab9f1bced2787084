//===- FAOps.td - fa dialect operations --------------------*- tablegen -*-===//
#ifndef FA_DIALECT_FA_IR_FAOPS_TD
#define FA_DIALECT_FA_IR_FAOPS_TD

include "fa/Dialect/FA/IR/FADialect.td"
include "fa/Dialect/FA/IR/FAAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Attributes every attention op carries, forward and backward alike, so that
// the backward recomputes exactly the scores the forward saw.
defvar FA_AttentionConfigAttrs = (ins
  DefaultValuedAttr<FA_LayoutAttr, "::mlir::fa::Layout::bhsd">:$layout,
  OptionalAttr<F32Attr>:$scale,
  UnitAttr:$causal,
  OptionalAttr<FA_MaskAlignmentAttr>:$mask_alignment,
  OptionalAttr<DenseI64ArrayAttr>:$window,
  OptionalAttr<F32Attr>:$softcap
);

defvar FA_AttentionConfigDoc = [{
    Tensor layout. `layout` orders the four dimensions of Q, K, V and O:
    `bhsd` (batch, heads, seq, head_dim; the default, PyTorch's) or `bshd`
    (batch, seq, heads, head_dim; FlashAttention's). The log-sum-exp is
    always `[batch, heads_q, seq_q]` and the bias always
    `[batch|1, heads_q|1, seq_q, seq_k]`.

    Grouped-query attention: K and V have `heads_kv` heads, which must divide
    `heads_q`; query head `h` reads key/value head `h / (heads_q / heads_kv)`
    (MQA is `heads_kv = 1`). K and V share `seq_k`; V's head dim may differ
    from the QK head dim. Batch, heads and sequence lengths may be dynamic;
    head dims must be static. Every static size must agree across all
    operands and results, also where another operand has it dynamic. A
    bias's batch or heads dim broadcasts only when it is a static 1; a
    dynamic one is per-batch / per-head (its runtime size is batch /
    heads_q).

    Scores, for batch `b`, query head `h`, query row `i` and key column `j`:
    ```
    s = scale * dot(q_i, k_j) + bias[i, j]        (scale defaults to 1/sqrt(d))
    s = score_mod(s, b, h, i, j, captures...)     (when the region is given)
    s = softcap * tanh(s / softcap)               (when softcap is set)
    s = -inf where the mask hides (i, j) or mask_mod(b, h, i, j, captures...)
             is false
    ```
    With `off = 0` (`mask_alignment = top_left`, the default) or
    `off = seq_k - seq_q` (`bottom_right`), `causal` hides `j > i + off` and
    `window = array<i64: left, right>` hides `j < i + off - left` and
    `j > i + off + right`. Both may be combined. A row with every key hidden has
    output 0 and log-sum-exp -inf. Accumulation is always f32.

    Modifier regions (FlexAttention's `score_mod` and `mask_mod`), both
    optional, with `captures` (`captures(%slopes, %doc : tensor<8xf32>,
    tensor<2x512xi32>)`) as the values they read besides their arguments:
    - `score_mod`: `^bb0(%s: f32, %b: index, %h: index, %i: index,
      %j: index, <one argument per capture>)`, yields the new f32 score
      with `fa.yield`. It takes the place of the bias operand (a bias
      moved into it computes the same): after the scale and the bias,
      before the softcap.
    - `mask_mod`: `^bb0(%b: index, %h: index, %i: index, %j: index,
      <captures>)`, yields an i1: true keeps key `j` visible to query `i`,
      false hides it, in addition to `causal` and `window`.
    `h` is the query head; `i` and `j` count from 0 in Q and K (the
    alignment does not apply to them). The regions are isolated from
    above and hold only `arith` and `math` ops, `tensor.extract` and
    `tensor.dim` (of captures) and the `fa.yield`: pure scalar functions
    that every target evaluates per element. A capture is a scalar
    (integer, index or float) or a ranked tensor of them. The backward
    differentiates `score_mod` with respect to its score from its ops.

    Attention sinks (gpt-oss): `sinks(%s : tensor<heads_q x f32>)` adds one
    logit per query head to every row's softmax normalizer, with no value
    row: `LSE_i = log(exp(sink_h) + sum_j exp(s_ij))`, `O_i = sum_j
    exp(s_ij - LSE_i) v_j`. The sink is not scaled, modified or masked; the
    log-sum-exp includes it, and a row with every key hidden has output 0
    and log-sum-exp `sink_h`.
}];

// Every fa op refuses attributes it does not declare (a dialect's
// discardable `prefix.name` attributes aside): a misspelled or foreign
// attribute would otherwise verify and change nothing.
def FA_TakesOnlyDeclaredAttributes
    : NativeOpTrait<"TakesOnlyDeclaredAttributes"> {
  let cppNamespace = "::mlir::fa";
}

class FA_Op<string mnemonic, list<Trait> traits = []>
    : Op<FA_Dialect, mnemonic,
         !listconcat(traits, [FA_TakesOnlyDeclaredAttributes])>;

// What a modifier region may read besides its arguments.
def FA_CaptureType : AnyTypeOf<[AnyRankedTensor, AnySignlessIntegerOrIndex,
                                AnyFloat]>;

// FlexAttention's score_mod and mask_mod (see FA_AttentionConfigDoc).
defvar FA_ModifierRegions = (region MaxSizedRegion<1>:$score_mod,
                                    MaxSizedRegion<1>:$mask_mod);

def FA_YieldOp : FA_Op<"yield", [Pure, Terminator,
    ParentOneOf<["AttentionOp", "AttentionGradOp", "AttentionKVCacheOp",
                 "AttentionVarlenOp", "AttentionVarlenGradOp"]>]> {
  let summary = "the value of a score_mod or mask_mod region";
  let description = [{
    Ends a modifier region of an attention op (`fa.attention`,
    `fa.attention_grad`, `fa.attention_kvcache`, `fa.attention_varlen`,
    `fa.attention_varlen_grad`) with its value: the f32 score of
    `score_mod`, the i1 visibility of `mask_mod`.
  }];
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

def FA_AttentionOp : FA_Op<"attention",
    [Pure, AttrSizedOperandSegments, IsolatedFromAbove]> {
  let summary = "exact softmax attention: O = softmax(mask(scale * Q Kᵀ + bias)) V";
  let description = !strconcat([{
    Computes attention and, when a second result is asked for, the f32
    log-sum-exp of every query row's scores (what the backward needs).

    Element types: Q, K and V share one of f32, f16, bf16 or f8E4M3FN. The
    output has that type, except for f8E4M3FN inputs, whose output is bf16,
    f16 or f32. f8E4M3FN inputs need the three descale operands; the real
    Q, K and V are the stored values times their descale. Each descale is,
    independently of the others, one of:
    - per tensor: `tensor<f32>`;
    - per (batch, kv-head): `tensor<batch x heads_kv x f32>` (FA3's form,
      also for Q);
    - per block: Q's `tensor<batch x heads_q x ceildiv(seq_q, block_q) x f32>`
      (row `i` of query head `h` has descale `[b, h, i / block_q]`), K's and
      V's `tensor<batch x heads_kv x ceildiv(seq_k, block_k) x f32>` (key
      `j` has `[b, hk, j / block_k]`), with
      `descale_block = array<i64: block_q, block_k>`. The block sizes are an
      attribute, not inferred: `ceildiv(seq, block)` does not determine
      `block` (and the sequence may be dynamic). Q's per-block form has
      Q's heads because a block of rows of one head is the unit that block
      quantization scales.
    `descale_block` is present exactly when some descale is per block.
    Other element types take no descale.

    Split-KV (a lowering hint, not semantics): `num_splits = n` asks the
    tiled lowering to split the keys into `n` chunks that run in parallel,
    each producing a partial output and log-sum-exp, merged by
    `fa.combine`; `num_splits = 0` lets it pick the number from the shape
    and the core count. Without the attribute the keys are not split. Any
    choice gives the same result up to rounding.

  }], FA_AttentionConfigDoc, [{

    Example:
    ```mlir
    %o, %lse = fa.attention %q, %k, %v
        : tensor<2x32x1024x128xbf16>, tensor<2x8x1024x128xbf16>,
          tensor<2x8x1024x128xbf16>
        {causal} -> tensor<2x32x1024x128xbf16>, tensor<2x32x1024xf32>
    ```
  }]);

  let arguments = !con((ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    Optional<AnyRankedTensor>:$bias,
    Optional<AnyRankedTensor>:$query_descale,
    Optional<AnyRankedTensor>:$key_descale,
    Optional<AnyRankedTensor>:$value_descale,
    Optional<AnyRankedTensor>:$sinks,
    Variadic<FA_CaptureType>:$captures
  ), FA_AttentionConfigAttrs, (ins
    OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$num_splits,
    OptionalAttr<DenseI64ArrayAttr>:$descale_block
  ));
  let results = (outs
    AnyRankedTensor:$output,
    Optional<AnyRankedTensor>:$lse
  );

  let assemblyFormat = [{
    $query `,` $key `,` $value `:` type($query) `,` type($key) `,` type($value)
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`descale` `(` $query_descale^ `,` $key_descale `,` $value_descale `:`
        type($query_descale) `,` type($key_descale) `,` type($value_descale) `)`)?
    (`sinks` `(` $sinks^ `:` type($sinks) `)`)?
    (`captures` `(` $captures^ `:` type($captures) `)`)?
    attr-dict `->` type($output) (`,` type($lse)^)?
    (`score_mod` $score_mod^)? (`mask_mod` $mask_mod^)?
  }];
  let regions = FA_ModifierRegions;

  let extraClassDeclaration = [{
    /// The scale applied to Q Kᵀ: the attribute, or 1/sqrt(head_dim).
    double getEffectiveScale();
    ::mlir::fa::MaskAlignment getEffectiveMaskAlignment();
    /// Whether some descale operand is per block (rank 3).
    bool hasBlockDescales();

  private:
    ::mlir::LogicalResult verifyDescaleBlock();

  public:
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def FA_AttentionGradOp : FA_Op<"attention_grad",
    [Pure, AttrSizedOperandSegments, AttrSizedResultSegments,
     IsolatedFromAbove]> {
  let summary = "gradients of fa.attention: (dO, Q, K, V, O, LSE) -> (dQ, dK, dV[, dBias][, dSinks])";
  let description = !strconcat([{
    The backward of `fa.attention` with the same attributes: given the
    gradient of the output `dO`, the forward's inputs, its output `O` and its
    log-sum-exp, returns the gradients of Q, K and V, and of the bias when one
    is given (`dBias` has the bias's shape: broadcast dimensions are summed).
    dK and dV of a grouped key/value head sum over the query heads that share
    it. Element types f32, f16 and bf16; dQ, dK, dV have their inputs' types.
    With `sinks`, the last result is their gradient `grad_sinks` (the sinks'
    type); `lse` is then the forward's, which includes the sinks.

  }], FA_AttentionConfigDoc, [{

    Example:
    ```mlir
    %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse
        : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>,
          tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
        {causal}
        -> tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>
    ```
  }]);

  let arguments = !con((ins
    AnyRankedTensor:$grad_output,
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    AnyRankedTensor:$output,
    AnyRankedTensor:$lse,
    Optional<AnyRankedTensor>:$bias,
    Optional<AnyRankedTensor>:$sinks,
    Variadic<FA_CaptureType>:$captures
  ), FA_AttentionConfigAttrs);
  let results = (outs
    AnyRankedTensor:$grad_query,
    AnyRankedTensor:$grad_key,
    AnyRankedTensor:$grad_value,
    Optional<AnyRankedTensor>:$grad_bias,
    Optional<AnyRankedTensor>:$grad_sinks
  );

  let assemblyFormat = [{
    $grad_output `,` $query `,` $key `,` $value `,` $output `,` $lse `:`
    type($grad_output) `,` type($query) `,` type($key) `,` type($value) `,`
    type($output) `,` type($lse)
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`sinks` `(` $sinks^ `:` type($sinks) `)`)?
    (`captures` `(` $captures^ `:` type($captures) `)`)?
    attr-dict `->` type($grad_query) `,` type($grad_key) `,` type($grad_value)
    `` custom<GradExtraTypes>(ref($bias), ref($sinks), type($grad_bias),
                           type($grad_sinks))
    (`score_mod` $score_mod^)? (`mask_mod` $mask_mod^)?
  }];
  let regions = FA_ModifierRegions;

  let extraClassDeclaration = [{
    double getEffectiveScale();
    ::mlir::fa::MaskAlignment getEffectiveMaskAlignment();
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def FA_CombineOp : FA_Op<"combine", [Pure]> {
  let summary = "merges partial attention results by their log-sum-exp";
  let description = [{
    Attention over a key set split into chunks (split-KV decode, context
    parallelism) gives, per chunk `c`, a partial output `O_c` normalised over
    that chunk and its log-sum-exp `L_c`. The attention over all keys is
    ```
    L = log(sum_c exp(L_c))
    O = sum_c exp(L_c - L) * O_c
    ```
    `partial_output` is `[splits, rows..., dim]` (f32) and `partial_lse`
    `[splits, rows...]` (f32): the rows are any number of dimensions, and the
    output's dims are the partial output's without `splits`, the LSE's the
    partial LSE's without `splits`. A row whose every partial LSE is -inf
    (no chunk saw a key) gives output 0 and LSE -inf, never NaN; a chunk with
    LSE -inf contributes nothing, whatever its partial output holds. The
    output is f32, f16 or bf16 (rounded once, after the merge); sizes may be
    dynamic.

    Example:
    ```mlir
    %o, %lse = fa.combine %po, %plse
        : tensor<4x2x8x1x128xf32>, tensor<4x2x8x1xf32>
        -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$partial_output,
                       AnyRankedTensor:$partial_lse);
  let results = (outs AnyRankedTensor:$output, AnyRankedTensor:$lse);
  let assemblyFormat = [{
    $partial_output `,` $partial_lse `:` type($partial_output) `,`
    type($partial_lse) attr-dict `->` type($output) `,` type($lse)
  }];
  let hasVerifier = 1;
}

def FA_AttentionKVCacheOp : FA_Op<"attention_kvcache",
    [Pure, AttrSizedOperandSegments, AttrSizedResultSegments,
     IsolatedFromAbove]> {
  let summary = "attention of new query tokens over a KV cache, contiguous or paged";
  let description = [{
    Decode and chunked prefill (flash-attn's `flash_attn_with_kvcache`).
    `query` is `[batch, seq_q, heads_q, head_dim]` (bshd). The caches are
    contiguous, `[batch, capacity, heads_kv, head_dim(_v)]`, or paged when a
    `block_table` (`[batch, max_pages]` i32) is given: `[num_pages,
    page_size, heads_kv, head_dim(_v)]`, sequence b's key t in page
    `block_table[b, t / page_size]`, row `t % page_size`. `cache_seqlens`
    (`[batch]` i32) counts the keys already cached.

    With `append(%k, %v)` (`[batch, seq_new, heads_kv, head_dim(_v)]`) the
    new keys and values are written into the caches at positions
    `cache_seqlens[b] ..` first, and the updated caches are returned (two
    more results of the caches' types; bufferization writes them into the
    cache buffers in place when those are not read afterwards). Sequence b
    then attends over `cache_seqlens[b] + seq_new` keys.

    The queries are the last `seq_q` tokens of each sequence: `causal` and
    `window` align bottom-right per sequence (query i of sequence b sits at
    position `cache_seqlens[b] + seq_new - seq_q + i`). A sequence without
    keys gives output 0 and LSE -inf. Scores, scale, softcap and
    `num_splits` as in `fa.attention`. Element types f32, f16, bf16; the
    LSE is `[batch, heads_q, seq_q]` f32. The caller guarantees that the
    lengths fit the caches and that the block table's entries name pages of
    the cache (the Python API checks both).

    `score_mod`, `mask_mod` and `captures` as in `fa.attention`, with the
    positions of the cache: `b` is the sequence, `j` the key's position in
    it (0 .. cache_seqlens[b] + seq_new) and `i` the query's, `cache_seqlens[b]
    + seq_new - seq_q + i` (the position `causal` gives it: a `mask_mod`
    `j <= i` is `causal`).

    Example:
    ```mlir
    %o, %lse, %kc, %vc = fa.attention_kvcache %q, %k_cache, %v_cache, %lens
        : tensor<4x1x32x128xbf16>, tensor<512x64x8x128xbf16>,
          tensor<512x64x8x128xbf16>, tensor<4xi32>
        block_table(%table : tensor<4x128xi32>)
        append(%k, %v : tensor<4x1x8x128xbf16>, tensor<4x1x8x128xbf16>)
        {causal} -> tensor<4x1x32x128xbf16>, tensor<4x32x1xf32>,
                    tensor<512x64x8x128xbf16>, tensor<512x64x8x128xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key_cache,
    AnyRankedTensor:$value_cache,
    AnyRankedTensor:$cache_seqlens,
    Optional<AnyRankedTensor>:$block_table,
    Optional<AnyRankedTensor>:$key,
    Optional<AnyRankedTensor>:$value,
    Variadic<FA_CaptureType>:$captures,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$causal,
    OptionalAttr<DenseI64ArrayAttr>:$window,
    OptionalAttr<F32Attr>:$softcap,
    OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$num_splits
  );
  let results = (outs
    AnyRankedTensor:$output,
    AnyRankedTensor:$lse,
    Optional<AnyRankedTensor>:$updated_key_cache,
    Optional<AnyRankedTensor>:$updated_value_cache
  );
  let assemblyFormat = [{
    $query `,` $key_cache `,` $value_cache `,` $cache_seqlens `:`
    type($query) `,` type($key_cache) `,` type($value_cache) `,`
    type($cache_seqlens)
    (`block_table` `(` $block_table^ `:` type($block_table) `)`)?
    (`append` `(` $key^ `,` $value `:` type($key) `,` type($value) `)`)?
    (`captures` `(` $captures^ `:` type($captures) `)`)?
    attr-dict `->` type($output) `,` type($lse)
    (`,` type($updated_key_cache)^ `,` type($updated_value_cache))?
    (`score_mod` $score_mod^)? (`mask_mod` $mask_mod^)?
  }];
  let regions = FA_ModifierRegions;
  let extraClassDeclaration = [{
    double getEffectiveScale();
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def FA_AttentionVarlenOp : FA_Op<"attention_varlen",
    [Pure, IsolatedFromAbove]> {
  let summary = "attention over a ragged batch packed along the tokens";
  let description = [{
    flash-attn's varlen form. `query` is `[total_q, heads_q, head_dim]`,
    `key` and `value` `[total_k, heads_kv, head_dim(_v)]`; sequence b is
    rows `cu_seqlens_q[b] .. cu_seqlens_q[b+1]` of the query and
    `cu_seqlens_k[b] .. cu_seqlens_k[b+1]` of the keys and values
    (`cu_seqlens_*`: `[batch + 1]` i32, starting at 0, non-decreasing; the
    caller guarantees it). Empty sequences are allowed: no query, or no key
    (output 0, LSE -inf). Each sequence is an attention of its own, with the
    masks, scale, softcap and `num_splits` of `fa.attention` (alignments
    per sequence). The output is `[total_q, heads_q, head_dim_v]`, the LSE
    `[heads_q, total_q]` f32. `max_seqlen_q` / `max_seqlen_k`, when given,
    bound every sequence's length (targets that size a grid by them need
    them; the CPU lowering does not).

    `score_mod`, `mask_mod` and `captures` as in `fa.attention`, per
    sequence: `b` is the sequence (0 .. batch), `i` and `j` the query's and
    the key's position in it (from 0, as in the padded `[batch, max_seqlen]`
    form of the same batch).

    Example:
    ```mlir
    %o, %lse = fa.attention_varlen %q, %k, %v, %cu_q, %cu_k
        : tensor<?x32x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>,
          tensor<9xi32>, tensor<9xi32>
        {causal, max_seqlen_q = 4096 : i64, max_seqlen_k = 4096 : i64}
        -> tensor<?x32x128xbf16>, tensor<32x?xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    AnyRankedTensor:$cu_seqlens_q,
    AnyRankedTensor:$cu_seqlens_k,
    Variadic<FA_CaptureType>:$captures,
    OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$max_seqlen_q,
    OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$max_seqlen_k,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$causal,
    OptionalAttr<FA_MaskAlignmentAttr>:$mask_alignment,
    OptionalAttr<DenseI64ArrayAttr>:$window,
    OptionalAttr<F32Attr>:$softcap,
    OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$num_splits
  );
  let results = (outs AnyRankedTensor:$output, AnyRankedTensor:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $cu_seqlens_q `,` $cu_seqlens_k `:`
    type($query) `,` type($key) `,` type($value) `,` type($cu_seqlens_q) `,`
    type($cu_seqlens_k)
    (`captures` `(` $captures^ `:` type($captures) `)`)?
    attr-dict `->` type($output) `,` type($lse)
    (`score_mod` $score_mod^)? (`mask_mod` $mask_mod^)?
  }];
  let regions = FA_ModifierRegions;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def FA_AttentionVarlenGradOp : FA_Op<"attention_varlen_grad",
    [Pure, IsolatedFromAbove]> {
  let summary = "gradients of fa.attention_varlen: (dO, Q, K, V, O, LSE) -> (dQ, dK, dV)";
  let description = [{
    The backward of `fa.attention_varlen` with the same attributes (but
    `num_splits`, a forward hint): given the gradient of the output `dO`
    (`[total_q, heads_q, head_dim_v]`), the forward's packed inputs, its
    output `O` and its log-sum-exp (`[heads_q, total_q]` f32), returns the
    gradients of Q, K and V in their inputs' shapes and types. Each sequence
    is the backward of its own attention (`fa.attention_grad`, alignments
    per sequence); dK and dV of a grouped key/value head sum over the query
    heads that share it. Tokens of no sequence (past `cu_seqlens_*[batch]`),
    keys of sequences without queries and queries of sequences without keys
    get gradient 0. Element types f32, f16, bf16. `max_seqlen_q` /
    `max_seqlen_k`, when given, bound every sequence's length. The
    forward's `score_mod`, `mask_mod` and `captures`, with its positions.

    Example:
    ```mlir
    %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cu_q, %cu_k
        : tensor<?x32x128xbf16>, tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
          tensor<?x8x128xbf16>, tensor<?x32x128xbf16>, tensor<32x?xf32>,
          tensor<9xi32>, tensor<9xi32>
        {causal}
        -> tensor<?x32x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$grad_output,
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    AnyRankedTensor:$output,
    AnyRankedTensor:$lse,
    AnyRankedTensor:$cu_seqlens_q,
    AnyRankedTensor:$cu_seqlens_k,
    Variadic<FA_CaptureType>:$captures,
    OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$max_seqlen_q,
    OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$max_seqlen_k,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$causal,
    OptionalAttr<FA_MaskAlignmentAttr>:$mask_alignment,
    OptionalAttr<DenseI64ArrayAttr>:$window,
    OptionalAttr<F32Attr>:$softcap
  );
  let results = (outs
    AnyRankedTensor:$grad_query,
    AnyRankedTensor:$grad_key,
    AnyRankedTensor:$grad_value
  );
  let assemblyFormat = [{
    $grad_output `,` $query `,` $key `,` $value `,` $output `,` $lse `,`
    $cu_seqlens_q `,` $cu_seqlens_k `:`
    type($grad_output) `,` type($query) `,` type($key) `,` type($value) `,`
    type($output) `,` type($lse) `,` type($cu_seqlens_q) `,`
    type($cu_seqlens_k)
    (`captures` `(` $captures^ `:` type($captures) `)`)?
    attr-dict
    `->` type($grad_query) `,` type($grad_key) `,` type($grad_value)
    (`score_mod` $score_mod^)? (`mask_mod` $mask_mod^)?
  }];
  let regions = FA_ModifierRegions;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

#endif // FA_DIALECT_FA_IR_FAOPS_TD
