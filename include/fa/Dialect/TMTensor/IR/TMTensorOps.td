//===- TMTensorOps.td - torch-mlir's tm_tensor ops, as printed -*- tablegen -*-===//
//
// The two tm_tensor ops torch-mlir's linalg-on-tensors output holds for
// transformer models, defined here so that fa-opt reads such files without
// linking torch-mlir (docs/RaiseAttention.md, "Real frontends", says why):
// `tm_tensor.attention` (what a whole aten.scaled_dot_product_attention
// becomes) and `tm_tensor.scan` (cumsum: position ids, packed sequences).
// The assembly formats are torch-mlir's (TMTensorOps.td), so its printed IR
// parses as it is. Only the tensor forms torch-mlir emits on tensors are
// accepted; the ops exist to be raised (tm_tensor.attention ->
// fa.attention) or lowered (tm_tensor.scan -> scf / linalg) by
// fa-lower-tm-tensor.
//
//===----------------------------------------------------------------------===//
#ifndef FA_DIALECT_TMTENSOR_IR_TMTENSOROPS_TD
#define FA_DIALECT_TMTENSOR_IR_TMTENSOROPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def TMTensor_Dialect : Dialect {
  let name = "tm_tensor";
  let cppNamespace = "::mlir::fa::tm_tensor";
  let summary = "torch-mlir's tm_tensor attention and scan, for reading its output";
}

class TMTensor_Op<string mnemonic, list<Trait> traits = []>
    : Op<TMTensor_Dialect, mnemonic, traits>;

def TMTensor_AttentionOp : TMTensor_Op<"attention",
    [AttrSizedOperandSegments, Pure]> {
  let summary = "softmax(scale * Q Kᵀ + mask) V over [..., seq, dim] tensors";
  let description = [{
    `ins(Q, K, V[, mask])`, `outs(O)`: Q is `[..., M, K1]`, K `[..., K2, K1]`,
    V `[..., K2, N]`, the mask `[..., M, K2]` and O `[..., M, N]`, with the
    same leading (batch) dimensions. `scale` defaults to `1/sqrt(K1)`. A
    boolean mask keeps the scores where it is true (-inf elsewhere); a float
    mask is added to the scaled scores. This is PyTorch's
    `scaled_dot_product_attention`, which torch-mlir lowers to this op (after
    flattening batch and heads); rows whose every key is masked give 0, as
    in PyTorch.
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       Variadic<AnyRankedTensor>:$outputs,
                       OptionalAttr<F64Attr>:$scale);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    attr-dict
    `ins` `(` $inputs `:` type($inputs) `)`
    `outs` `(` $outputs `:` type($outputs) `)`
    (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    Value getQuery() { return getInputs()[0]; }
    Value getKey() { return getInputs()[1]; }
    Value getValue() { return getInputs()[2]; }
    /// The optional fourth input.
    Value getMask() {
      return getInputs().size() > 3 ? getInputs()[3] : Value();
    }
    /// The scale attribute, or 1/sqrt(head dim).
    double getScaleOrDefault();
  }];
  let hasVerifier = 1;
}

def TMTensor_ScanOp : TMTensor_Op<"scan",
    [AttrSizedOperandSegments, Pure, SingleBlock]> {
  let summary = "inclusive or exclusive scan along one dimension";
  let description = [{
    `ins(input)`, `outs(output, accumulator)`: with the region's binary
    combiner f(previous output, input element), for each position along
    `dimension`:
      inclusive: out[0] = in[0],      out[i] = f(out[i-1], in[i])
      exclusive: out[0] = acc_init,   out[i] = f(out[i-1], in[i-1])
    The second result is the last element the combiner computed (the
    accumulator operand where the dimension has size 1), of the input's
    shape without `dimension`. torch-mlir emits it for `cumsum`.
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       Variadic<AnyRankedTensor>:$outputs,
                       I64Attr:$dimension,
                       BoolAttr:$inclusive);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = [{
    `dimension` `(` $dimension `)`
    `inclusive` `(` $inclusive `)`
    attr-dict
    `ins` `(` $inputs `:` type($inputs) `)`
    `outs` `(` $outputs `:` type($outputs) `)`
    $region (`->` type($results)^)?
  }];
  let hasVerifier = 1;
}

def TMTensor_YieldOp : TMTensor_Op<"yield",
    [Pure, ReturnLike, Terminator, HasParent<"ScanOp">]> {
  let summary = "the combined value of a tm_tensor.scan step";
  let arguments = (ins Variadic<AnyType>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

#endif // FA_DIALECT_TMTENSOR_IR_TMTENSOROPS_TD
