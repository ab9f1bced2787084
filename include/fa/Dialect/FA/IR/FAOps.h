//===- FAOps.h - fa dialect operations --------------------------*- C++ -*-===//
#ifndef FA_DIALECT_FA_IR_FAOPS_H
#define FA_DIALECT_FA_IR_FAOPS_H

#include "fa/Dialect/FA/IR/FADialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fa/Dialect/FA/IR/FAEnums.h.inc"

namespace mlir::fa {
/// Positions of the batch, heads, seq and head_dim dimensions in a rank-4
/// Q, K, V or O tensor of the given layout.
struct LayoutDims {
  unsigned batch, heads, seq, dim;
};
LayoutDims getLayoutDims(Layout layout);

/// Refuses every attribute of `op` that is neither one of `declared` (the
/// op's ODS attributes) nor a dialect's discardable attribute (a name with a
/// dialect prefix, `fa.kernel`, `llvm.emit_c_interface`): an attribute an op
/// does not declare would be silently ignored, e.g. a misspelled `casual`.
LogicalResult verifyDeclaredAttributes(Operation *op,
                                       ArrayRef<StringRef> declared);

/// The score_mod and mask_mod regions (either may be empty) of an attention
/// op and the captures they read: signatures, ops, capture types.
LogicalResult verifyModifierRegions(Operation *op, Region &scoreMod,
                                    Region &maskMod, ValueRange captures);

/// The trait every fa op has: only its declared attributes.
template <typename ConcreteType>
class TakesOnlyDeclaredAttributes
    : public OpTrait::TraitBase<ConcreteType, TakesOnlyDeclaredAttributes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyDeclaredAttributes(op, ConcreteType::getAttributeNames());
  }
};
} // namespace mlir::fa

#define GET_ATTRDEF_CLASSES
#include "fa/Dialect/FA/IR/FAAttrs.h.inc"

#define GET_OP_CLASSES
#include "fa/Dialect/FA/IR/FAOps.h.inc"

#endif // FA_DIALECT_FA_IR_FAOPS_H
