//===- IREELinalgExt.cpp - IREE's attention op, as printed ----------------===//
//
// The syntax is IREE's as iree-compile prints it (3.x):
//   iree_linalg_ext.attention <indexing_maps = [...]> ins(...) outs(...)
//       { ^bb0(%score: f32): iree_linalg_ext.yield %score : f32 } -> type
// Verifiers name the operand or map that is wrong.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/IREELinalgExt/IR/IREELinalgExt.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::fa::iree_linalg_ext;

#include "fa/Dialect/IREELinalgExt/IR/IREELinalgExtDialect.cpp.inc"

void IREELinalgExtDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fa/Dialect/IREELinalgExt/IR/IREELinalgExtOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "fa/Dialect/IREELinalgExt/IR/IREELinalgExtOps.cpp.inc"

/// `<name = attr, ...>`: IREE prints the op's properties this way.
static ParseResult parsePropertyList(OpAsmParser &p, NamedAttrList &attrs) {
  if (p.parseLess())
    return failure();
  do {
    std::string name;
    Attribute value;
    if (p.parseKeywordOrString(&name) || p.parseEqual() ||
        p.parseAttribute(value))
      return failure();
    attrs.append(name, value);
  } while (succeeded(p.parseOptionalComma()));
  return p.parseGreater();
}

/// `keyword(operands : types)`.
static ParseResult
parseOperandGroup(OpAsmParser &p, StringRef keyword,
                  SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                  SmallVectorImpl<Type> &types) {
  return failure(p.parseKeyword(keyword) || p.parseLParen() ||
                 p.parseOperandList(operands) || p.parseColonTypeList(types) ||
                 p.parseRParen());
}

ParseResult AttentionOp::parse(OpAsmParser &p, OperationState &state) {
  SmallVector<OpAsmParser::UnresolvedOperand> ins, outs;
  SmallVector<Type> inTypes, outTypes, resultTypes;
  if (parsePropertyList(p, state.attributes) ||
      p.parseOptionalAttrDict(state.attributes) ||
      parseOperandGroup(p, "ins", ins, inTypes) ||
      parseOperandGroup(p, "outs", outs, outTypes) ||
      p.parseRegion(*state.addRegion(), /*arguments=*/{}))
    return failure();
  if (succeeded(p.parseOptionalArrow()) && p.parseTypeList(resultTypes))
    return failure();
  state.addTypes(resultTypes);
  state.addAttribute(
      "operandSegmentSizes",
      p.getBuilder().getDenseI32ArrayAttr({static_cast<int32_t>(ins.size()),
                                           static_cast<int32_t>(outs.size())}));
  llvm::SMLoc loc = p.getCurrentLocation();
  return failure(p.resolveOperands(ins, inTypes, loc, state.operands) ||
                 p.resolveOperands(outs, outTypes, loc, state.operands));
}

void AttentionOp::print(OpAsmPrinter &p) {
  p << " <indexing_maps = " << getIndexingMaps() << ">";
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {"indexing_maps", "operandSegmentSizes"});
  p << " ins(" << getInputs() << " : " << getInputs().getTypes() << ")";
  p << " outs(" << getOutputs() << " : " << getOutputs().getTypes() << ") ";
  p.printRegion(getRegion(), /*printEntryBlockArgs=*/true);
  if (!getResults().empty())
    p << " -> " << getResults().getTypes();
}

LogicalResult AttentionOp::verify() {
  unsigned n = getInputs().size();
  if (n != 4 && n != 5)
    return emitOpError("expects ins (query, key, value, scale) or (query, "
                       "key, value, scale, mask), got ")
           << n << " inputs";
  if (getOutputs().size() != 1 || getResults().size() != 1 ||
      getResults()[0].getType() != getOutputs()[0].getType())
    return emitOpError("expects one output and one result of its type");
  if (!isa<FloatType>(getScale().getType()))
    return emitOpError("scale (input 3) must be a float scalar, got ")
           << getScale().getType();
  if (getIndexingMaps().size() != n + 1)
    return emitOpError("expects ")
           << n + 1 << " indexing maps, got " << getIndexingMaps().size();
  static constexpr const char *names[] = {"query", "key", "value", "scale",
                                          "mask"};
  unsigned dims = getMap(0).getNumDims();
  for (unsigned i = 0; i <= n; ++i) {
    AffineMap m = getMap(i);
    Value v = i < n ? getInputs()[i] : getOutputs()[0];
    StringRef name = i < n ? names[i] : "output";
    auto t = dyn_cast<RankedTensorType>(v.getType());
    int64_t rank = t ? t.getRank() : 0;
    if (i != 3 && !t)
      return emitOpError() << name << " must be a ranked tensor";
    if (m.getNumDims() != dims || m.getNumSymbols() != 0 ||
        m.getNumResults() != rank || !m.isProjectedPermutation())
      return emitOpError("indexing map of the ")
             << name << " must be a projected permutation of " << dims
             << " dims with " << rank << " results, got "
             << AffineMapAttr::get(m);
  }
  Block &body = getRegion().front();
  if (body.getNumArguments() != 1 ||
      !isa<FloatType>(body.getArgument(0).getType()))
    return emitOpError("region must take one float score");
  return success();
}
