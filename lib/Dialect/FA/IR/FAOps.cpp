//===- FAOps.cpp - fa dialect operations ----------------------------------===//
//
// The verifiers of fa.attention and fa.attention_grad. Both ops share one
// checker so that the forward and the backward accept exactly the same
// configurations; every message names the operand and what was expected.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/IR/FAOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fa;

LayoutDims mlir::fa::getLayoutDims(Layout layout) {
  switch (layout) {
  case Layout::bhsd:
    return {0, 1, 2, 3};
  case Layout::bshd:
    return {0, 2, 1, 3};
  }
  llvm_unreachable("unknown layout");
}

namespace {

const char *const kDimNames[] = {"batch", "heads", "seq", "head_dim"};

bool isSupportedElementType(Type t, bool allowFp8) {
  return t.isF32() || t.isF16() || t.isBF16() ||
         (allowFp8 && isa<Float8E4M3FNType>(t));
}

std::string describe(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("?") : std::to_string(size);
}

/// Checks one attention op's operands and attributes. `allowFp8` is false for
/// the backward, which has no FP8 form.
class AttentionChecker {
public:
  AttentionChecker(Operation *op, Layout layout)
      : op(op), ld(getLayoutDims(layout)) {}

  /// Q, K, V: ranks, element types, head dims, batch/heads/seq agreement and
  /// the GQA head ratio. Fills the problem sizes used by later checks.
  LogicalResult checkInputs(Value q, Value k, Value v, bool allowFp8);
  LogicalResult checkConfig(std::optional<APFloat> scale,
                            std::optional<APFloat> softcap,
                            std::optional<ArrayRef<int64_t>> window,
                            bool causal, bool hasAlignment);
  LogicalResult checkBias(Value bias);
  /// A [batch, heads_q, seq_q, head_dim_v] tensor in the op's layout.
  LogicalResult checkOutputShape(Type type, StringRef name);
  LogicalResult checkLse(Type type, StringRef name);
  LogicalResult checkSameType(Type actual, Type expected, StringRef name,
                              StringRef expectedName);

  Type elementType;
  int64_t batch = 0, headsQ = 0, headsKV = 0, seqQ = 0, seqK = 0;
  int64_t headDim = 0, headDimV = 0;

private:
  InFlightDiagnostic error() { return op->emitOpError(); }
  /// Reports `name`'s dimension `role` when it is static, differs from
  /// `expected` and `expected` is static.
  LogicalResult expectSize(StringRef name, unsigned dim, StringRef role,
                           int64_t actual, int64_t expected,
                           StringRef because);

  Operation *op;
  LayoutDims ld;
};

LogicalResult AttentionChecker::expectSize(StringRef name, unsigned dim,
                                           StringRef role, int64_t actual,
                                           int64_t expected,
                                           StringRef because) {
  if (ShapedType::isDynamic(actual) || ShapedType::isDynamic(expected) ||
      actual == expected)
    return success();
  return error() << "'" << name << "' dimension " << dim << " (" << role
                 << ") is " << actual << ", expected " << expected << " ("
                 << because << ")";
}

LogicalResult AttentionChecker::checkInputs(Value q, Value k, Value v,
                                            bool allowFp8) {
  auto qt = cast<RankedTensorType>(q.getType());
  auto kt = cast<RankedTensorType>(k.getType());
  auto vt = cast<RankedTensorType>(v.getType());
  for (auto [t, name] : {std::pair{qt, "query"}, {kt, "key"}, {vt, "value"}})
    if (t.getRank() != 4)
      return error() << "'" << name << "' must have rank 4 (batch, heads, "
                     << "seq, head_dim in the op's layout), got rank "
                     << t.getRank();

  elementType = qt.getElementType();
  if (!isSupportedElementType(elementType, allowFp8))
    return error() << "'query' element type must be f32, f16"
                   << (allowFp8 ? ", bf16 or f8E4M3FN" : " or bf16") << ", got "
                   << elementType;
  for (auto [t, name] : {std::pair{kt, "key"}, {vt, "value"}})
    if (t.getElementType() != elementType)
      return error() << "'" << name << "' element type must be "
                     << elementType << " (the type of 'query'), got "
                     << t.getElementType();

  for (auto [t, name] : {std::pair{qt, "query"}, {kt, "key"}, {vt, "value"}})
    if (t.isDynamicDim(ld.dim))
      return error() << "'" << name << "' head_dim (dimension " << ld.dim
                     << ") must be static";

  batch = qt.getDimSize(ld.batch);
  headsQ = qt.getDimSize(ld.heads);
  seqQ = qt.getDimSize(ld.seq);
  headDim = qt.getDimSize(ld.dim);
  headsKV = kt.getDimSize(ld.heads);
  seqK = kt.getDimSize(ld.seq);
  headDimV = vt.getDimSize(ld.dim);
  if (headDim <= 0 || headDimV <= 0)
    return error() << "head dims must be positive";

  if (failed(expectSize("key", ld.dim, "head_dim", kt.getDimSize(ld.dim),
                        headDim, "the head_dim of 'query'")))
    return failure();
  for (auto [t, name] : {std::pair{kt, "key"}, {vt, "value"}})
    if (failed(expectSize(name, ld.batch, "batch", t.getDimSize(ld.batch),
                          batch, "the batch of 'query'")))
      return failure();
  if (failed(expectSize("value", ld.heads, "heads", vt.getDimSize(ld.heads),
                        headsKV, "the heads of 'key'")) ||
      failed(expectSize("value", ld.seq, "seq", vt.getDimSize(ld.seq), seqK,
                        "the seq of 'key'")))
    return failure();
  if (ShapedType::isDynamic(headsKV))
    headsKV = vt.getDimSize(ld.heads);
  if (ShapedType::isDynamic(seqK))
    seqK = vt.getDimSize(ld.seq);
  if (ShapedType::isDynamic(batch))
    batch = ShapedType::isDynamic(kt.getDimSize(ld.batch))
                ? vt.getDimSize(ld.batch)
                : kt.getDimSize(ld.batch);

  if (!ShapedType::isDynamic(headsQ) && !ShapedType::isDynamic(headsKV) &&
      (headsKV == 0 || headsQ % headsKV != 0))
    return error() << "'key' heads (" << headsKV
                   << ") must divide 'query' heads (" << headsQ
                   << ") for grouped-query attention";
  return success();
}

LogicalResult AttentionChecker::checkConfig(
    std::optional<APFloat> scale, std::optional<APFloat> softcap,
    std::optional<ArrayRef<int64_t>> window, bool causal, bool hasAlignment) {
  if (scale) {
    double s = scale->convertToDouble();
    if (!std::isfinite(s) || s == 0.0)
      return error() << "'scale' must be finite and non-zero, got " << s;
  }
  if (softcap) {
    double c = softcap->convertToDouble();
    if (!std::isfinite(c) || c <= 0.0)
      return error() << "'softcap' must be finite and > 0, got " << c;
  }
  if (window) {
    if (window->size() != 2)
      return error() << "'window' must have 2 elements (left, right), got "
                     << window->size();
    if ((*window)[0] < 0 || (*window)[1] < 0)
      return error() << "'window' sizes must be >= 0, got ["
                     << (*window)[0] << ", " << (*window)[1] << "]";
  }
  if (hasAlignment && !causal && !window)
    return error() << "'mask_alignment' needs 'causal' or 'window'";
  return success();
}

LogicalResult AttentionChecker::checkBias(Value bias) {
  auto bt = cast<RankedTensorType>(bias.getType());
  if (bt.getRank() != 4)
    return error() << "'bias' must have rank 4 [batch|1, heads_q|1, seq_q, "
                   << "seq_k], got rank " << bt.getRank();
  Type et = bt.getElementType();
  if (!et.isF32() && et != elementType)
    return error() << "'bias' element type must be f32 or " << elementType
                   << " (the type of 'query'), got " << et;
  if (isa<Float8E4M3FNType>(et))
    return error() << "'bias' element type must not be f8E4M3FN";
  int64_t expected[] = {batch, headsQ, seqQ, seqK};
  const char *roles[] = {"batch", "heads_q", "seq_q", "seq_k"};
  for (unsigned i = 0; i < 4; ++i) {
    int64_t size = bt.getDimSize(i);
    bool broadcastable = i < 2 && size == 1;
    if (broadcastable || ShapedType::isDynamic(size) ||
        ShapedType::isDynamic(expected[i]) || size == expected[i])
      continue;
    return error() << "'bias' dimension " << i << " (" << roles[i] << ") is "
                   << size << ", expected " << expected[i]
                   << (i < 2 ? " or 1" : "");
  }
  return success();
}

LogicalResult AttentionChecker::checkOutputShape(Type type, StringRef name) {
  auto t = cast<RankedTensorType>(type);
  if (t.getRank() != 4)
    return error() << "'" << name << "' must have rank 4, got rank "
                   << t.getRank();
  int64_t expected[4];
  expected[ld.batch] = batch;
  expected[ld.heads] = headsQ;
  expected[ld.seq] = seqQ;
  expected[ld.dim] = headDimV;
  for (unsigned i = 0; i < 4; ++i) {
    int64_t size = t.getDimSize(i);
    if (ShapedType::isDynamic(size) || ShapedType::isDynamic(expected[i]) ||
        size == expected[i])
      continue;
    const char *role = kDimNames[i == ld.batch   ? 0
                                 : i == ld.heads ? 1
                                 : i == ld.seq   ? 2
                                                 : 3];
    return error() << "'" << name << "' dimension " << i << " (" << role
                   << ") is " << size << ", expected " << expected[i];
  }
  return success();
}

LogicalResult AttentionChecker::checkLse(Type type, StringRef name) {
  auto t = cast<RankedTensorType>(type);
  if (t.getRank() != 3 || !t.getElementType().isF32())
    return error() << "'" << name << "' must be a rank-3 f32 tensor "
                   << "[batch, heads_q, seq_q] = [" << describe(batch) << ", "
                   << describe(headsQ) << ", " << describe(seqQ) << "], got "
                   << type;
  int64_t expected[] = {batch, headsQ, seqQ};
  for (unsigned i = 0; i < 3; ++i) {
    int64_t size = t.getDimSize(i);
    if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(expected[i]) &&
        size != expected[i])
      return error() << "'" << name << "' dimension " << i << " is " << size
                     << ", expected " << expected[i];
  }
  return success();
}

LogicalResult AttentionChecker::checkSameType(Type actual, Type expected,
                                              StringRef name,
                                              StringRef expectedName) {
  if (actual == expected)
    return success();
  return error() << "'" << name << "' type must be " << expected << " ("
                 << expectedName << "), got " << actual;
}

std::optional<ArrayRef<int64_t>> asOptional(std::optional<ArrayRef<int64_t>> w) {
  return w;
}

template <typename OpT>
LogicalResult checkCommon(OpT op, AttentionChecker &checker, bool allowFp8) {
  if (failed(checker.checkInputs(op.getQuery(), op.getKey(), op.getValue(),
                                 allowFp8)) ||
      failed(checker.checkConfig(op.getScale(), op.getSoftcap(),
                                 asOptional(op.getWindow()), op.getCausal(),
                                 op.getMaskAlignment().has_value())))
    return failure();
  if (op.getBias() && failed(checker.checkBias(op.getBias())))
    return failure();
  return success();
}

template <typename OpT>
double effectiveScale(OpT op) {
  if (std::optional<APFloat> s = op.getScale())
    return s->convertToDouble();
  auto qt = cast<RankedTensorType>(op.getQuery().getType());
  int64_t d = qt.getDimSize(getLayoutDims(op.getLayout()).dim);
  return 1.0 / std::sqrt(static_cast<double>(d));
}

} // namespace

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

double AttentionOp::getEffectiveScale() { return effectiveScale(*this); }

MaskAlignment AttentionOp::getEffectiveMaskAlignment() {
  return getMaskAlignment().value_or(MaskAlignment::top_left);
}

LogicalResult AttentionOp::verify() {
  AttentionChecker checker(getOperation(), getLayout());
  if (failed(checkCommon(*this, checker, /*allowFp8=*/true)))
    return failure();

  bool isFp8 = isa<Float8E4M3FNType>(checker.elementType);
  Type outElt = getOutput().getType().getElementType();
  if (isFp8) {
    if (!outElt.isBF16() && !outElt.isF16() && !outElt.isF32())
      return emitOpError() << "'output' element type must be bf16, f16 or "
                           << "f32 for f8E4M3FN inputs, got " << outElt;
  } else if (outElt != checker.elementType) {
    return emitOpError() << "'output' element type must be "
                         << checker.elementType
                         << " (the type of 'query'), got " << outElt;
  }
  if (failed(checker.checkOutputShape(getOutput().getType(), "output")))
    return failure();
  if (getLse() && failed(checker.checkLse(getLse().getType(), "lse")))
    return failure();

  Value descales[] = {getQueryDescale(), getKeyDescale(), getValueDescale()};
  const char *names[] = {"query_descale", "key_descale", "value_descale"};
  if (!isFp8) {
    if (getQueryDescale())
      return emitOpError() << "descale operands are only for f8E4M3FN "
                           << "inputs, not " << checker.elementType;
    return success();
  }
  if (!getQueryDescale())
    return emitOpError() << "f8E4M3FN inputs need descale operands "
                         << "(query_descale, key_descale, value_descale)";
  for (auto [value, name] : llvm::zip(descales, names)) {
    auto t = cast<RankedTensorType>(value.getType());
    bool perTensor = t.getRank() == 0;
    bool perHead = t.getRank() == 2 &&
                   (t.isDynamicDim(0) || ShapedType::isDynamic(checker.batch) ||
                    t.getDimSize(0) == checker.batch) &&
                   (t.isDynamicDim(1) ||
                    ShapedType::isDynamic(checker.headsKV) ||
                    t.getDimSize(1) == checker.headsKV);
    if (!t.getElementType().isF32() || (!perTensor && !perHead))
      return emitOpError() << "'" << name << "' must be tensor<f32> or "
                           << "tensor<" << describe(checker.batch) << "x"
                           << describe(checker.headsKV)
                           << "xf32> [batch, heads_kv], got " << t;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionGradOp
//===----------------------------------------------------------------------===//

double AttentionGradOp::getEffectiveScale() { return effectiveScale(*this); }

MaskAlignment AttentionGradOp::getEffectiveMaskAlignment() {
  return getMaskAlignment().value_or(MaskAlignment::top_left);
}

LogicalResult AttentionGradOp::verify() {
  AttentionChecker checker(getOperation(), getLayout());
  if (failed(checkCommon(*this, checker, /*allowFp8=*/false)))
    return failure();
  Type outType = getOutput().getType();
  if (failed(checker.checkOutputShape(outType, "output")) ||
      cast<RankedTensorType>(outType).getElementType() != checker.elementType)
    return emitOpError() << "'output' must be the forward's output, of "
                         << "element type " << checker.elementType << ", got "
                         << outType;
  if (failed(checker.checkSameType(getGradOutput().getType(), outType,
                                   "grad_output", "the type of 'output'")) ||
      failed(checker.checkLse(getLse().getType(), "lse")) ||
      failed(checker.checkSameType(getGradQuery().getType(),
                                   getQuery().getType(), "grad_query",
                                   "the type of 'query'")) ||
      failed(checker.checkSameType(getGradKey().getType(), getKey().getType(),
                                   "grad_key", "the type of 'key'")) ||
      failed(checker.checkSameType(getGradValue().getType(),
                                   getValue().getType(), "grad_value",
                                   "the type of 'value'")))
    return failure();
  if (bool(getBias()) != bool(getGradBias()))
    return emitOpError() << "'grad_bias' must be returned exactly when "
                         << "'bias' is given";
  if (getBias())
    return checker.checkSameType(getGradBias().getType(), getBias().getType(),
                                 "grad_bias", "the type of 'bias'");
  return success();
}

#define GET_OP_CLASSES
#include "fa/Dialect/FA/IR/FAOps.cpp.inc"
