//===- FADialect.cpp - The fa dialect -------------------------------------===//
#include "fa/Dialect/FA/IR/FADialect.h"
#include "fa/Dialect/FA/IR/FAOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fa;

#include "fa/Dialect/FA/IR/FADialect.cpp.inc"
#include "fa/Dialect/FA/IR/FAEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fa/Dialect/FA/IR/FAAttrs.cpp.inc"

/// An enum attribute's body after its mnemonic: ` bshd` (from
/// `#fa<layout bshd>`, the printed form) or `<bshd>` (from
/// `#fa.layout<bshd>`).
template <typename AttrT, typename EnumT>
static Attribute parseEnumBody(AsmParser &parser) {
  bool angled = succeeded(parser.parseOptionalLess());
  FailureOr<EnumT> value = FieldParser<EnumT>::parse(parser);
  if (failed(value) || (angled && failed(parser.parseGreater())))
    return {};
  return AttrT::get(parser.getContext(), *value);
}

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  return parseEnumBody<LayoutAttr, Layout>(parser);
}
void LayoutAttr::print(AsmPrinter &printer) const {
  printer << ' ' << stringifyLayout(getValue());
}

Attribute MaskAlignmentAttr::parse(AsmParser &parser, Type) {
  return parseEnumBody<MaskAlignmentAttr, MaskAlignment>(parser);
}
void MaskAlignmentAttr::print(AsmPrinter &printer) const {
  printer << ' ' << stringifyMaskAlignment(getValue());
}

void FADialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fa/Dialect/FA/IR/FAAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "fa/Dialect/FA/IR/FAOps.cpp.inc"
      >();
}
