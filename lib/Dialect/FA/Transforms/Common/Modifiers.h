//===- Modifiers.h - score_mod and mask_mod evaluated inline ----*- C++ -*-===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_COMMON_MODIFIERS_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_COMMON_MODIFIERS_H

#include "fa/Dialect/FA/Transforms/AttentionConfig.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Region.h"

#include <utility>

namespace mlir::fa {

/// Emits `region`'s ops at b's insertion point, its block arguments bound
/// to `leading` then `captures`; returns the value it yields. With a
/// `target`, the captures are the target's (`captures` is not read) and it
/// emits the ops that read them and any op it computes its own way.
Value emitModifier(ImplicitLocOpBuilder &b, Region &region, ValueRange leading,
                   ArrayRef<Value> captures, ModifierTarget *target = nullptr);

/// As emitModifier, also returning d(yielded) / d(first argument), built
/// alongside from each op's derivative rule. `region` must have passed
/// checkDifferentiable.
std::pair<Value, Value> emitModifierWithTangent(ImplicitLocOpBuilder &b,
                                                Region &region,
                                                ValueRange leading,
                                                ArrayRef<Value> captures,
                                                ModifierTarget *target = nullptr);

/// Fails, with an error at the op, when an op of `region` (named `name`)
/// depends on the first argument, has a float result and no derivative
/// rule.
LogicalResult checkDifferentiable(Region &region, StringRef name);

} // namespace mlir::fa

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_COMMON_MODIFIERS_H
