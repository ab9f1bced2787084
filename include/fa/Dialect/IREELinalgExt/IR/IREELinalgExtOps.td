//===- IREELinalgExtOps.td - IREE's attention op, as printed -*- tablegen -*-===//
//
// `iree_linalg_ext.attention` (what IREE's torch input conversion makes of a
// whole aten.scaled_dot_product_attention) with IREE's printed syntax, so
// that fa-opt reads IREE's IR without linking IREE (docs/RaiseAttention.md,
// "Real frontends", says why, as for tm_tensor). Only the tensor form is
// accepted; the op exists to be raised to fa.attention.
//
//===----------------------------------------------------------------------===//
#ifndef FA_DIALECT_IREELINALGEXT_IR_IREELINALGEXTOPS_TD
#define FA_DIALECT_IREELINALGEXT_IR_IREELINALGEXTOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def IREELinalgExt_Dialect : Dialect {
  let name = "iree_linalg_ext";
  let cppNamespace = "::mlir::fa::iree_linalg_ext";
  let summary = "IREE's iree_linalg_ext.attention, for reading IREE's IR";
}

class IREELinalgExt_Op<string mnemonic, list<Trait> traits = []>
    : Op<IREELinalgExt_Dialect, mnemonic, traits>;

def IREELinalgExt_AttentionOp : IREELinalgExt_Op<"attention",
    [AttrSizedOperandSegments, Pure, SingleBlock]> {
  let summary = "softmax(scale * Q Kᵀ + mask) V, dimensions by indexing maps";
  let description = [{
    `<indexing_maps = [Q, K, V, scale, (mask,) O]> ins(Q, K, V, scale[,
    mask]) outs(O) { ^bb0(%score): yield %score' } -> type(O)`. The maps'
    loop dimensions are batch dims (in every operand), M (Q, O), K1 (Q, K),
    K2 (K, V) and N (V, O). `scale` is a float scalar; the mask is added to
    the scaled scores (float) or keeps them where it is true (i1). The
    region modifies each score; IREE's torch conversion writes the
    identity. Other entries of the `<...>` property list (IREE's
    `decomposition_config`) are kept as attributes.
  }];
  let arguments = (ins Variadic<AnyType>:$inputs,
                       Variadic<AnyRankedTensor>:$outputs,
                       AffineMapArrayAttr:$indexing_maps);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    Value getQuery() { return getInputs()[0]; }
    Value getKey() { return getInputs()[1]; }
    Value getValue() { return getInputs()[2]; }
    Value getScale() { return getInputs()[3]; }
    /// The optional fifth input.
    Value getMask() {
      return getInputs().size() > 4 ? getInputs()[4] : Value();
    }
    /// The indexing map of input `i`, or of the output for i == inputs.
    AffineMap getMap(unsigned i) {
      return cast<AffineMapAttr>(getIndexingMaps()[i]).getValue();
    }
  }];
}

def IREELinalgExt_YieldOp : IREELinalgExt_Op<"yield",
    [Pure, ReturnLike, Terminator, HasParent<"AttentionOp">]> {
  let summary = "the modified score of an iree_linalg_ext.attention";
  let arguments = (ins Variadic<AnyType>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

#endif // FA_DIALECT_IREELINALGEXT_IR_IREELINALGEXTOPS_TD
