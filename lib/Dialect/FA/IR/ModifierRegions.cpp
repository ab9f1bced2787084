//===- ModifierRegions.cpp - Verifier of score_mod and mask_mod -----------===//
//
// The score_mod and mask_mod regions of fa.attention and fa.attention_grad
// are scalar functions every target evaluates per score element: their
// signatures are fixed, their trailing arguments are the op's captures, and
// they hold only ops that every target can emit inline (arith, math,
// tensor.extract/dim of captures). Each message names the region and the
// argument or op at fault.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/IR/FAOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

/// The scalar kinds a capture or a capture tensor's elements may have.
bool isCaptureScalar(Type t) {
  return t.isSignlessIntOrIndex() || isa<FloatType>(t);
}

LogicalResult verifyCaptures(Operation *op, ValueRange captures) {
  for (auto [i, capture] : llvm::enumerate(captures)) {
    Type t = capture.getType();
    if (auto tensor = dyn_cast<RankedTensorType>(t))
      t = tensor.getElementType();
    if (!isCaptureScalar(t))
      return op->emitOpError()
             << "capture #" << i << " must be an integer, index or float "
             << "scalar or a ranked tensor of them, got " << capture.getType();
  }
  return success();
}

/// Whether `op` may appear in a modifier region.
bool isAllowedInModifier(Operation &op) {
  StringRef dialect = op.getDialect() ? op.getDialect()->getNamespace() : "";
  if (dialect == "arith" || dialect == "math")
    return true;
  StringRef name = op.getName().getStringRef();
  return name == "tensor.extract" || name == "tensor.dim" ||
         name == "fa.yield";
}

/// `region` (named `name`): one block with arguments `leading` then one per
/// capture, allowed ops only, ending in an fa.yield of `result`.
LogicalResult verifyModifier(Operation *op, Region &region, StringRef name,
                             ArrayRef<Type> leading, StringRef leadingDoc,
                             Type result, ValueRange captures) {
  if (region.empty())
    return success();
  if (!region.hasOneBlock())
    return op->emitOpError() << "'" << name << "' must have one block";
  Block &block = region.front();
  size_t expected = leading.size() + captures.size();
  if (block.getNumArguments() != expected)
    return op->emitOpError()
           << "'" << name << "' must have " << expected << " arguments ("
           << leadingDoc << ", then one per capture), got "
           << block.getNumArguments();
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    Type want = i < leading.size() ? leading[i]
                                   : captures[i - leading.size()].getType();
    if (arg.getType() != want)
      return op->emitOpError()
             << "'" << name << "' argument #" << i << " must be " << want
             << (i < leading.size() ? "" : " (the type of its capture)")
             << ", got " << arg.getType();
  }
  for (Operation &inner : block) {
    if (!isAllowedInModifier(inner))
      return inner.emitOpError()
             << "is not allowed in '" << name << "': a modifier region holds "
             << "only arith and math ops, tensor.extract and tensor.dim";
    // Scalar code: tensors come only from the captures.
    for (Type t : inner.getResultTypes())
      if (!isCaptureScalar(t))
        return inner.emitOpError()
               << "in '" << name << "' must have scalar results (integer, "
               << "index or float), got " << t;
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << "'" << name << "' must end in fa.yield";
  if (yield.getValue().getType() != result)
    return yield.emitOpError()
           << "in '" << name << "' must yield " << result << ", got "
           << yield.getValue().getType();
  return success();
}

} // namespace

LogicalResult mlir::fa::verifyModifierRegions(Operation *op, Region &scoreMod,
                                              Region &maskMod,
                                              ValueRange captures) {
  if (failed(verifyCaptures(op, captures)))
    return failure();
  if (!captures.empty() && scoreMod.empty() && maskMod.empty())
    return op->emitOpError() << "has captures but no 'score_mod' or "
                             << "'mask_mod' region to read them";
  Builder b(op->getContext());
  Type index = b.getIndexType();
  if (failed(verifyModifier(op, scoreMod, "score_mod",
                            {b.getF32Type(), index, index, index, index},
                            "f32 score, index batch, head, query, key",
                            b.getF32Type(), captures)))
    return failure();
  return verifyModifier(op, maskMod, "mask_mod", {index, index, index, index},
                        "index batch, head, query, key", b.getI1Type(),
                        captures);
}
