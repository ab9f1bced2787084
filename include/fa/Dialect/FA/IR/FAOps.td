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

    Scores, for query row `i` and key column `j`:
    ```
    s = scale * dot(q_i, k_j) + bias[i, j]        (scale defaults to 1/sqrt(d))
    s = softcap * tanh(s / softcap)               (when softcap is set)
    s = -inf where the mask hides (i, j)
    ```
    With `off = 0` (`mask_alignment = top_left`, the default) or
    `off = seq_k - seq_q` (`bottom_right`), `causal` hides `j > i + off` and
    `window = array<i64: left, right>` hides `j < i + off - left` and
    `j > i + off + right`. Both may be combined. A row with every key hidden has
    output 0 and log-sum-exp -inf. Accumulation is always f32.
}];

class FA_Op<string mnemonic, list<Trait> traits = []>
    : Op<FA_Dialect, mnemonic, traits>;

def FA_AttentionOp : FA_Op<"attention",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "exact softmax attention: O = softmax(mask(scale * Q Kᵀ + bias)) V";
  let description = !strconcat([{
    Computes attention and, when a second result is asked for, the f32
    log-sum-exp of every query row's scores (what the backward needs).

    Element types: Q, K and V share one of f32, f16, bf16 or f8E4M3FN. The
    output has that type, except for f8E4M3FN inputs, whose output is bf16,
    f16 or f32. f8E4M3FN inputs need the three descale operands (each
    `tensor<f32>` per tensor or `tensor<batch x heads_kv x f32>` per
    (batch, kv-head)); the real Q, K and V are the stored values times their
    descale. Other element types take no descale.

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
    Optional<AnyRankedTensor>:$value_descale
  ), FA_AttentionConfigAttrs, (ins
    OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$num_splits
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
    attr-dict `->` type($output) (`,` type($lse)^)?
  }];

  let extraClassDeclaration = [{
    /// The scale applied to Q Kᵀ: the attribute, or 1/sqrt(head_dim).
    double getEffectiveScale();
    ::mlir::fa::MaskAlignment getEffectiveMaskAlignment();
  }];
  let hasVerifier = 1;
}

def FA_AttentionGradOp : FA_Op<"attention_grad", [Pure]> {
  let summary = "gradients of fa.attention: (dO, Q, K, V, O, LSE) -> (dQ, dK, dV[, dBias])";
  let description = !strconcat([{
    The backward of `fa.attention` with the same attributes: given the
    gradient of the output `dO`, the forward's inputs, its output `O` and its
    log-sum-exp, returns the gradients of Q, K and V, and of the bias when one
    is given (`dBias` has the bias's shape: broadcast dimensions are summed).
    dK and dV of a grouped key/value head sum over the query heads that share
    it. Element types f32, f16 and bf16; dQ, dK, dV have their inputs' types.

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
    Optional<AnyRankedTensor>:$bias
  ), FA_AttentionConfigAttrs);
  let results = (outs
    AnyRankedTensor:$grad_query,
    AnyRankedTensor:$grad_key,
    AnyRankedTensor:$grad_value,
    Optional<AnyRankedTensor>:$grad_bias
  );

  let assemblyFormat = [{
    $grad_output `,` $query `,` $key `,` $value `,` $output `,` $lse `:`
    type($grad_output) `,` type($query) `,` type($key) `,` type($value) `,`
    type($output) `,` type($lse)
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    attr-dict `->` type($grad_query) `,` type($grad_key) `,` type($grad_value)
    (`,` type($grad_bias)^)?
  }];

  let extraClassDeclaration = [{
    double getEffectiveScale();
    ::mlir::fa::MaskAlignment getEffectiveMaskAlignment();
  }];
  let hasVerifier = 1;
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

#endif // FA_DIALECT_FA_IR_FAOPS_TD
