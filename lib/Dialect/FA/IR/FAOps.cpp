//===- FAOps.cpp - fa dialect operations ----------------------------------===//
//
// The verifiers of fa.attention and fa.attention_grad. Both ops share one
// checker so that the forward and the backward accept exactly the same
// configurations; every message names the operand and what was expected.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/IR/FAOps.h"
#include "SizeTable.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <string>

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

using fa::verify::checkAddressable;
using fa::verify::describe;
using fa::verify::isSupportedElementType;

namespace {


/// The sizes of one attention problem.
enum class Size { batch, headsQ, headsKV, seqQ, seqK, headDim, headDimV };
constexpr unsigned kNumSizes = 7;
const char *const kSizeNames[kNumSizes] = {
    "batch", "heads_q", "heads_kv", "seq_q", "seq_k", "head_dim", "head_dim_v"};

using ProblemSizes = fa::verify::SizeTable<Size, kNumSizes>;

/// What a per-block descale operand is indexed by: its heads and the
/// sequence its blocks divide, and which entry of 'descale_block' sizes them.
struct DescaleRole {
  const char *name;
  Size heads, seq;
  unsigned blockEntry;
};
const DescaleRole kDescaleRoles[3] = {
    {"query_descale", Size::headsQ, Size::seqQ, 0},
    {"key_descale", Size::headsKV, Size::seqK, 1},
    {"value_descale", Size::headsKV, Size::seqK, 1}};
const char *const kBlockNames[2] = {"block_q", "block_k"};

/// Checks one attention op's operands and attributes. `allowFp8` is false for
/// the backward, which has no FP8 form.
class AttentionChecker {
public:
  AttentionChecker(Operation *op, Layout layout)
      : op(op), ld(getLayoutDims(layout)), sizes(op, kSizeNames) {}

  /// Q, K, V: ranks, element types, static and positive head dims; binds
  /// their sizes.
  LogicalResult checkInputs(Value q, Value k, Value v, bool allowFp8);
  LogicalResult checkConfig(std::optional<APFloat> scale,
                            std::optional<APFloat> softcap,
                            std::optional<ArrayRef<int64_t>> window,
                            bool causal, bool hasAlignment);
  LogicalResult checkBias(Value bias);
  /// A [batch, heads_q, seq_q, head_dim_v] tensor in the op's layout.
  LogicalResult checkOutputShape(Type type, StringRef name);
  LogicalResult checkLse(Type type, StringRef name);
  /// A [heads_q] f32 tensor: one sink logit per query head.
  LogicalResult checkSinks(Type type, StringRef name);
  /// A rank-0 per-tensor, a [batch, heads_kv] per-head or a [batch, heads,
  /// ceildiv(seq, block)] per-block f32 descale; `block` is null without a
  /// 'descale_block' attribute.
  LogicalResult checkDescale(Type type, const DescaleRole &role,
                             std::optional<int64_t> block);
  /// What needs every operand's sizes bound: the GQA head ratio, and the
  /// sequence lengths a window's arithmetic covers.
  LogicalResult checkProblem(bool hasWindow);
  LogicalResult checkSameType(Type actual, Type expected, StringRef name,
                              StringRef expectedName);

  Type elementType;

private:
  InFlightDiagnostic error() { return op->emitOpError(); }
  /// The roles of a Q/K/V/O tensor's dimensions in the op's layout.
  SmallVector<Size, 4> roles(Size heads, Size seq, Size dim) const {
    SmallVector<Size, 4> r(4);
    r[ld.batch] = Size::batch;
    r[ld.heads] = heads;
    r[ld.seq] = seq;
    r[ld.dim] = dim;
    return r;
  }

  Operation *op;
  LayoutDims ld;
  ProblemSizes sizes;
};

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
  if (qt.getDimSize(ld.dim) <= 0 || vt.getDimSize(ld.dim) <= 0)
    return error() << "head dims must be positive";

  if (failed(sizes.bindAll(qt, "query",
                           roles(Size::headsQ, Size::seqQ, Size::headDim))) ||
      failed(sizes.bindAll(kt, "key",
                           roles(Size::headsKV, Size::seqK, Size::headDim))) ||
      failed(sizes.bindAll(vt, "value",
                           roles(Size::headsKV, Size::seqK, Size::headDimV))))
    return failure();
  return success();
}

LogicalResult AttentionChecker::checkProblem(bool hasWindow) {
  // The lowering clamps window sides to 2^48 ("unbounded"), which is exact
  // only for shorter sequences.
  constexpr int64_t kMaxWindowedSeq = int64_t(1) << 48;
  for (Size seq : {Size::seqQ, Size::seqK})
    if (hasWindow && !ShapedType::isDynamic(sizes[seq]) &&
        sizes[seq] >= kMaxWindowedSeq)
      return error() << kSizeNames[static_cast<unsigned>(seq)] << " ("
                     << sizes[seq] << ", of '" << sizes.source(seq)
                     << "') must be below 2^48 with a 'window'";
  int64_t headsQ = sizes[Size::headsQ], headsKV = sizes[Size::headsKV];
  if (ShapedType::isDynamic(headsKV))
    return success();
  if (headsKV == 0)
    return error() << "heads_kv (0, of '" << sizes.source(Size::headsKV)
                   << "') must be positive: every query head reads one "
                   << "key/value head";
  if (!ShapedType::isDynamic(headsQ) && headsQ % headsKV != 0)
    return error() << "heads_kv (" << headsKV << ", of '"
                   << sizes.source(Size::headsKV) << "') must divide heads_q ("
                   << headsQ << ", of '" << sizes.source(Size::headsQ)
                   << "') for grouped-query attention";
  return success();
}

LogicalResult AttentionChecker::checkConfig(
    std::optional<APFloat> scale, std::optional<APFloat> softcap,
    std::optional<ArrayRef<int64_t>> window, bool causal, bool hasAlignment) {
  return fa::verify::checkScoreConfig(op, scale, softcap, window, causal,
                                      hasAlignment);
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
  return sizes.bindAll(bt, "bias",
                       {Size::batch, Size::headsQ, Size::seqQ, Size::seqK},
                       /*numBroadcastable=*/2);
}

LogicalResult AttentionChecker::checkOutputShape(Type type, StringRef name) {
  auto t = cast<RankedTensorType>(type);
  if (t.getRank() != 4)
    return error() << "'" << name << "' must have rank 4, got rank "
                   << t.getRank();
  return sizes.bindAll(t, name,
                       roles(Size::headsQ, Size::seqQ, Size::headDimV));
}

LogicalResult AttentionChecker::checkLse(Type type, StringRef name) {
  auto t = cast<RankedTensorType>(type);
  if (t.getRank() != 3 || !t.getElementType().isF32())
    return error() << "'" << name << "' must be a rank-3 f32 tensor "
                   << "[batch, heads_q, seq_q] = ["
                   << describe(sizes[Size::batch]) << ", "
                   << describe(sizes[Size::headsQ]) << ", "
                   << describe(sizes[Size::seqQ]) << "], got " << type;
  return sizes.bindAll(t, name, {Size::batch, Size::headsQ, Size::seqQ});
}

LogicalResult AttentionChecker::checkSinks(Type type, StringRef name) {
  auto t = cast<RankedTensorType>(type);
  if (t.getRank() != 1 || !t.getElementType().isF32())
    return error() << "'" << name << "' must be a rank-1 f32 tensor "
                   << "[heads_q] = [" << describe(sizes[Size::headsQ])
                   << "] (one sink logit per query head), got " << type;
  return sizes.bindAll(t, name, {Size::headsQ});
}

LogicalResult AttentionChecker::checkDescale(Type type,
                                             const DescaleRole &role,
                                             std::optional<int64_t> block) {
  auto t = cast<RankedTensorType>(type);
  StringRef name = role.name;
  const char *seqName = kSizeNames[static_cast<unsigned>(role.seq)];
  const char *blockName = kBlockNames[role.blockEntry];
  if (!t.getElementType().isF32() || t.getRank() > 3 || t.getRank() == 1)
    return error() << "'" << name << "' must be tensor<f32>, tensor<"
                   << describe(sizes[Size::batch]) << "x"
                   << describe(sizes[Size::headsKV])
                   << "xf32> [batch, heads_kv] or tensor<"
                   << describe(sizes[Size::batch]) << "x"
                   << describe(sizes[role.heads]) << "xceildiv(" << seqName
                   << ", " << blockName << ")xf32> per block, got " << t;
  if (t.getRank() == 0)
    return success();
  if (t.getRank() == 2)
    return sizes.bindAll(t, name, {Size::batch, Size::headsKV});
  if (!block)
    return error() << "'" << name << "' is per block (rank 3), which needs "
                   << "the 'descale_block' attribute";
  // Dimension 2 counts blocks, not a problem size: checked below.
  if (failed(sizes.bindAll(t, name, {Size::batch, role.heads})))
    return failure();
  int64_t seq = sizes[role.seq], blocks = t.getDimSize(2);
  if (ShapedType::isDynamic(seq) || ShapedType::isDynamic(blocks))
    return success();
  int64_t expected = llvm::divideCeil(seq, *block);
  if (blocks != expected)
    return error() << "'" << name << "' dimension 2 (blocks) is " << blocks
                   << ", expected ceildiv(" << seqName << ", " << blockName
                   << ") = ceildiv(" << seq << ", " << *block
                   << ") = " << expected;
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
  if (op.getSinks() &&
      failed(checker.checkSinks(op.getSinks().getType(), "sinks")))
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

  if (!isFp8) {
    if (getQueryDescale())
      return emitOpError() << "descale operands are only for f8E4M3FN "
                           << "inputs, not " << checker.elementType;
    if (getDescaleBlock())
      return emitOpError() << "'descale_block' is only for f8E4M3FN inputs "
                           << "with per-block descales";
    return checker.checkProblem(getWindow().has_value());
  }
  if (!getQueryDescale())
    return emitOpError() << "f8E4M3FN inputs need descale operands "
                         << "(query_descale, key_descale, value_descale)";
  if (failed(verifyDescaleBlock()))
    return failure();
  std::optional<ArrayRef<int64_t>> blocks = getDescaleBlock();
  Value descales[] = {getQueryDescale(), getKeyDescale(), getValueDescale()};
  for (auto [value, role] : llvm::zip(descales, kDescaleRoles)) {
    std::optional<int64_t> block;
    if (blocks)
      block = (*blocks)[role.blockEntry];
    if (failed(checker.checkDescale(value.getType(), role, block)))
      return failure();
  }
  return checker.checkProblem(getWindow().has_value());
}

LogicalResult AttentionOp::verifyRegions() {
  return verifyModifierRegions(*this, getScoreMod(), getMaskMod(),
                               getCaptures());
}

bool AttentionOp::hasBlockDescales() {
  return llvm::any_of(
      ValueRange{getQueryDescale(), getKeyDescale(), getValueDescale()},
      [](Value d) {
        return d && cast<RankedTensorType>(d.getType()).getRank() == 3;
      });
}

LogicalResult AttentionOp::verifyDescaleBlock() {
  std::optional<ArrayRef<int64_t>> blocks = getDescaleBlock();
  if (!blocks)
    return success();
  if (blocks->size() != 2 || (*blocks)[0] <= 0 || (*blocks)[1] <= 0) {
    InFlightDiagnostic diag = emitOpError()
                              << "'descale_block' must be [block_q, block_k], "
                              << "both positive, got [";
    llvm::interleaveComma(*blocks, diag);
    return diag << "]";
  }
  if (!hasBlockDescales())
    return emitOpError() << "'descale_block' is set but no descale operand "
                         << "is per block (rank 3)";
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
  if (cast<RankedTensorType>(outType).getElementType() != checker.elementType)
    return emitOpError() << "'output' must be the forward's output, of "
                         << "element type " << checker.elementType << ", got "
                         << outType;
  if (failed(checker.checkOutputShape(outType, "output")) ||
      failed(checker.checkSameType(getGradOutput().getType(), outType,
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
  if (getBias() &&
      failed(checker.checkSameType(getGradBias().getType(),
                                   getBias().getType(), "grad_bias",
                                   "the type of 'bias'")))
    return failure();
  if (bool(getSinks()) != bool(getGradSinks()))
    return emitOpError() << "'grad_sinks' must be returned exactly when "
                         << "'sinks' is given";
  if (getSinks() && failed(checker.checkSameType(
                        getGradSinks().getType(), getSinks().getType(),
                        "grad_sinks", "the type of 'sinks'")))
    return failure();
  return checker.checkProblem(getWindow().has_value());
}

LogicalResult AttentionGradOp::verifyRegions() {
  return verifyModifierRegions(*this, getScoreMod(), getMaskMod(),
                               getCaptures());
}

//===----------------------------------------------------------------------===//
// CombineOp
//===----------------------------------------------------------------------===//

/// `actual`'s shape must be `partial`'s without its leading (splits)
/// dimension.
static LogicalResult checkMerged(Operation *op, RankedTensorType actual,
                                 RankedTensorType partial, StringRef name,
                                 StringRef partialName) {
  ArrayRef<int64_t> expected = partial.getShape().drop_front();
  if (actual.getRank() != static_cast<int64_t>(expected.size()))
    return op->emitOpError()
           << "'" << name << "' must have rank " << expected.size() << " ('"
           << partialName << "' without its splits dimension), got rank "
           << actual.getRank();
  for (auto [dim, pair] : llvm::enumerate(llvm::zip(actual.getShape(), expected))) {
    auto [a, e] = pair;
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(e) && a != e)
      return op->emitOpError()
             << "'" << name << "' dimension " << dim << " is " << a
             << ", expected " << e << " (dimension " << dim + 1 << " of '"
             << partialName << "')";
  }
  return success();
}

LogicalResult CombineOp::verify() {
  auto po = cast<RankedTensorType>(getPartialOutput().getType());
  auto pl = cast<RankedTensorType>(getPartialLse().getType());
  auto o = cast<RankedTensorType>(getOutput().getType());
  auto l = cast<RankedTensorType>(getLse().getType());
  if (!po.getElementType().isF32() || !pl.getElementType().isF32())
    return emitOpError() << "'partial_output' and 'partial_lse' must be f32, "
                         << "got " << po.getElementType() << " and "
                         << pl.getElementType();
  if (po.getRank() < 2)
    return emitOpError() << "'partial_output' must have rank >= 2 [splits, "
                         << "rows..., dim], got rank " << po.getRank();
  if (pl.getRank() != po.getRank() - 1)
    return emitOpError() << "'partial_lse' must have rank " << po.getRank() - 1
                         << " ('partial_output' without its last dimension), "
                         << "got rank " << pl.getRank();
  for (int64_t dim = 0; dim < pl.getRank(); ++dim) {
    int64_t a = pl.getDimSize(dim), e = po.getDimSize(dim);
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(e) && a != e)
      return emitOpError() << "'partial_lse' dimension " << dim << " is " << a
                           << ", expected " << e << " (dimension " << dim
                           << " of 'partial_output')";
  }
  Type outElt = o.getElementType();
  if (!outElt.isF32() && !outElt.isF16() && !outElt.isBF16())
    return emitOpError() << "'output' element type must be f32, f16 or bf16, "
                         << "got " << outElt;
  if (!l.getElementType().isF32())
    return emitOpError() << "'lse' element type must be f32, got "
                         << l.getElementType();
  if (failed(checkMerged(*this, o, po, "output", "partial_output")))
    return failure();
  return checkMerged(*this, l, pl, "lse", "partial_lse");
}

//===----------------------------------------------------------------------===//
// fa.attention_grad's trailing result types
//===----------------------------------------------------------------------===//

/// `-> dQ, dK, dV[, dBias][, dSinks]`: after the three gradients, one type
/// per optional input present (`bias`, then `sinks`), in that order, so the
/// types need no keyword.
static ParseResult
parseGradExtraTypes(OpAsmParser &parser,
                    std::optional<OpAsmParser::UnresolvedOperand> bias,
                    std::optional<OpAsmParser::UnresolvedOperand> sinks,
                    Type &gradBias, Type &gradSinks) {
  auto parseGradient = [&](StringRef input, Type &type) -> ParseResult {
    if (succeeded(parser.parseOptionalComma()))
      return parser.parseType(type);
    return parser.emitError(parser.getCurrentLocation())
           << "expected ', ' and the type of 'grad_" << input << "': '" << input
           << "' is given, so its gradient is a result";
  };
  if (bias && parseGradient("bias", gradBias))
    return failure();
  if (sinks && parseGradient("sinks", gradSinks))
    return failure();
  return success();
}

static void printGradExtraTypes(OpAsmPrinter &printer, Operation *, Value bias,
                                Value sinks, Type gradBias, Type gradSinks) {
  if (gradBias)
    printer << ", " << gradBias;
  if (gradSinks)
    printer << ", " << gradSinks;
}

#define GET_OP_CLASSES
#include "fa/Dialect/FA/IR/FAOps.cpp.inc"
