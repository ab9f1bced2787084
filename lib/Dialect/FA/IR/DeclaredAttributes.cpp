//===- DeclaredAttributes.cpp - fa ops take only their own attributes -----===//
//
// An attribute an op does not declare is kept by MLIR as a discardable
// attribute and ignored by every lowering, so `{casual}` or a KV-cache op's
// `mask_alignment = top_left` would verify and compute something else. Every
// fa op refuses them, naming the attribute, the closest declared name and,
// where a sibling op has the attribute, why this one has not. Other
// dialects' prefixed attributes are theirs; an `fa.` one must be one the
// dialect defines.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/IR/FAOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

using namespace mlir;

namespace {

/// Why an op lacks an attribute that other fa ops have.
struct MissingAttrReason {
  StringRef op, attr, reason;
};
const MissingAttrReason kReasons[] = {
    {"fa.attention_kvcache", "layout",
     "its query, caches and output are always bshd"},
    {"fa.attention_kvcache", "mask_alignment",
     "its masks always align bottom-right, per sequence"},
    {"fa.attention_varlen", "layout",
     "its tensors are packed [tokens, heads, head_dim]"},
    {"fa.attention_grad", "num_splits", "the backward does not split the keys"},
    {"fa.attention_grad", "descale_block", "the backward has no FP8 form"},
    {"fa.attention_varlen_grad", "layout",
     "its tensors are packed [tokens, heads, head_dim]"},
    {"fa.attention_varlen_grad", "num_splits",
     "the backward does not split the keys"},
};

/// The fa dialect's own discardable attributes (which pass sets each):
/// any other `fa.` name is a misspelling, e.g. `fa.causal`.
const StringRef kFADiscardable[] = {
    "fa.kernel",         // convert-fa-to-nvvm: the op's kernel
    "fa.kernel_bundles", // convert-fa-to-nvvm, on the module
    "fa.raise_glue",     // fa-raise-attention's glue ops
    "fa.cpu_block",      // fa-cpu-tile-blocks' register blocks
};

/// Attributes ODS adds for variadic operands/results: not the user's.
bool isStructural(StringRef name) {
  return name == "operandSegmentSizes" || name == "resultSegmentSizes";
}

/// A dialect's discardable attribute (`fa.kernel`, `llvm.emit_c_interface`)
/// is that dialect's business, not the op's.
bool hasDialectPrefix(StringRef name) {
  size_t dot = name.find('.');
  return dot != StringRef::npos && dot > 0;
}

/// The declared attribute `name` most likely misspells, if any.
std::optional<StringRef> closestDeclared(StringRef name,
                                         ArrayRef<StringRef> declared) {
  std::optional<StringRef> best;
  unsigned bestDistance = 3; // at most two edits
  for (StringRef candidate : declared) {
    if (isStructural(candidate))
      continue;
    unsigned distance = name.edit_distance(candidate, /*AllowReplacements=*/true,
                                           bestDistance);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best;
}

LogicalResult refuseFADiscardable(Operation *op, StringRef name,
                                  ArrayRef<StringRef> declared) {
  InFlightDiagnostic diag = op->emitOpError()
                            << "has unknown fa dialect attribute '" << name
                            << "'";
  StringRef bare = name.drop_front(StringRef("fa.").size());
  if (std::optional<StringRef> guess = closestDeclared(bare, declared))
    diag << " (did you mean '" << *guess << "'?)";
  diag << "; the fa dialect's discardable attributes are ";
  llvm::interleaveComma(kFADiscardable, diag,
                        [&](StringRef n) { diag << "'" << n << "'"; });
  return diag;
}

LogicalResult refuse(Operation *op, StringRef name,
                     ArrayRef<StringRef> declared) {
  InFlightDiagnostic diag = op->emitOpError()
                            << "does not take attribute '" << name << "'";
  StringRef opName = op->getName().getStringRef();
  for (const MissingAttrReason &r : kReasons)
    if (r.op == opName && r.attr == name)
      diag << ": " << r.reason;
  if (std::optional<StringRef> guess = closestDeclared(name, declared))
    diag << " (did you mean '" << *guess << "'?)";
  SmallVector<StringRef> takes(llvm::make_filter_range(
      declared, [](StringRef n) { return !isStructural(n); }));
  if (takes.empty())
    return diag << "; it takes no attributes";
  diag << "; it takes ";
  llvm::interleaveComma(takes, diag,
                        [&](StringRef n) { diag << "'" << n << "'"; });
  return diag;
}

} // namespace

LogicalResult mlir::fa::verifyDeclaredAttributes(Operation *op,
                                                 ArrayRef<StringRef> declared) {
  for (NamedAttribute attr : op->getAttrs()) {
    StringRef name = attr.getName().getValue();
    if (llvm::is_contained(declared, name) || isStructural(name))
      continue;
    if (name.starts_with("fa.")) {
      if (llvm::is_contained(kFADiscardable, name))
        continue;
      return refuseFADiscardable(op, name, declared);
    }
    if (hasDialectPrefix(name))
      continue;
    return refuse(op, name, declared);
  }
  return success();
}
