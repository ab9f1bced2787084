//===- RegionFragments.cpp - score_mod/mask_mod in the sm_90a kernels -----===//
#include "RegionFragments.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

static constexpr double kLog2E = 1.4426950408889634;
static constexpr double kLn2 = 0.6931471805599453;

std::string mlir::fa::nvvm_kernel::captureRole(unsigned i) {
  return "capture" + std::to_string(i);
}

/// The dim names of a capture operand: dim0, dim1, ... (outermost first).
static SmallVector<std::string> captureDims(RankedTensorType t) {
  SmallVector<std::string> dims;
  for (int64_t d = 0; d < t.getRank(); ++d)
    dims.push_back("dim" + std::to_string(d));
  return dims;
}

/// The runtime's dtype name of a capture tensor's elements, or null.
static const char *captureDTypeName(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isF64())
    return "f64";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(64))
    return "i64";
  if (t.isInteger(8))
    return "i8";
  return nullptr;
}

/// Whether `dim` names a dim of its source by a constant.
static bool namesADim(tensor::DimOp dim) {
  std::optional<int64_t> index = dim.getConstantIndex();
  auto t = dyn_cast<RankedTensorType>(dim.getSource().getType());
  return index && t && *index >= 0 && *index < t.getRank();
}

/// The dynamic dims of capture `capture` that `semantics`' regions read with
/// tensor.dim, ascending.
static SmallVector<int64_t> dynamicDimsRead(const AttentionConfig &semantics, unsigned capture) {
  auto t = cast<RankedTensorType>(semantics.captures[capture].getType());
  llvm::SmallSetVector<int64_t, 4> read;
  for (Region *region : {semantics.scoreMod, semantics.maskMod}) {
    if (!region)
      continue;
    Block &body = region->front();
    // The captures are the region's trailing arguments.
    unsigned first = body.getNumArguments() - semantics.captures.size();
    for (auto dim : body.getOps<tensor::DimOp>()) {
      auto arg = dyn_cast<BlockArgument>(dim.getSource());
      if (arg && arg.getOwner() == &body && arg.getArgNumber() == first + capture &&
          namesADim(dim) && t.isDynamicDim(*dim.getConstantIndex()))
        read.insert(*dim.getConstantIndex());
    }
  }
  SmallVector<int64_t> out(read.begin(), read.end());
  llvm::sort(out);
  return out;
}

void mlir::fa::nvvm_kernel::declareCaptureParams(KernelSignature &sig,
                                                 const AttentionConfig &semantics,
                                                 std::vector<CaptureArgs> &out) {
  out.assign(semantics.captures.size(), CaptureArgs());
  for (auto [i, capture] : llvm::enumerate(semantics.captures)) {
    auto t = dyn_cast<RankedTensorType>(capture.getType());
    if (!t)
      continue;
    std::string role = captureRole(i);
    sig.ptr(&out[i].ptr, role);
    out[i].strides.resize(t.getRank());
    SmallVector<Value *> slots;
    for (Value &stride : out[i].strides)
      slots.push_back(&stride);
    SmallVector<std::string> dims = captureDims(t);
    SmallVector<StringRef> dimRefs(dims.begin(), dims.end());
    sig.strides(slots, role, dimRefs);
    out[i].sizes.resize(t.getRank());
    for (int64_t d : dynamicDimsRead(semantics, i))
      sig.i32(&out[i].sizes[d], BundleExpr::size(role, dims[d]));
  }
}

llvm::json::Array mlir::fa::nvvm_kernel::captureBundleEntries(const AttentionConfig &semantics) {
  llvm::json::Array out;
  for (auto [i, capture] : llvm::enumerate(semantics.captures)) {
    auto t = dyn_cast<RankedTensorType>(capture.getType());
    if (!t)
      continue;
    llvm::json::Array dims;
    for (const std::string &d : captureDims(t))
      dims.push_back(d);
    out.push_back(llvm::json::Object{{"name", captureRole(i)},
                                     {"dtype", captureDTypeName(t.getElementType())},
                                     {"dims", std::move(dims)}});
  }
  return out;
}

/// A structural text of `region`: each op's name, attributes, operands (by
/// number) and result types, so that equal regions give equal text whatever
/// their SSA names.
static void printStructure(llvm::raw_ostream &os, StringRef name, Region *region) {
  if (!region)
    return;
  os << name << "{";
  DenseMap<Value, unsigned> ids;
  Block &body = region->front();
  for (BlockArgument arg : body.getArguments()) {
    ids[arg] = ids.size();
    os << arg.getType() << ",";
  }
  for (Operation &op : body) {
    os << op.getName() << op.getAttrDictionary() << "(";
    for (Value v : op.getOperands())
      os << ids.lookup(v) << ",";
    os << ")->(";
    for (Value r : op.getResults()) {
      ids[r] = ids.size();
      os << r.getType() << ",";
    }
    os << ");";
  }
  os << "}";
}

std::string mlir::fa::nvvm_kernel::modifiersTag(const AttentionConfig &semantics) {
  if (!semantics.hasModifiers())
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  printStructure(os, "score_mod", semantics.scoreMod);
  printStructure(os, "mask_mod", semantics.maskMod);
  for (Value capture : semantics.captures) {
    os << capture.getType() << ";";
    Attribute value;
    if (matchPattern(capture, m_Constant(&value)))
      os << value << ";"; // a scalar capture is baked in
  }
  return "_mod" + llvm::utohexstr(llvm::xxh3_64bits(text), /*LowerCase=*/true, /*Width=*/16);
}

/// Whether `region` extracts from a capture at an index computed from its
/// argument `arg`.
static bool extractsBy(Region *region, unsigned arg) {
  if (!region)
    return false;
  Block &body = region->front();
  llvm::SmallPtrSet<Value, 16> dependent = {body.getArgument(arg)};
  for (Operation &op : body) {
    bool fromKey =
        llvm::any_of(op.getOperands(), [&](Value v) { return dependent.contains(v); });
    if (!fromKey)
      continue;
    if (isa<tensor::ExtractOp>(op))
      return true;
    for (Value r : op.getResults())
      dependent.insert(r);
  }
  return false;
}

bool mlir::fa::nvvm_kernel::readsCaptureBy(const AttentionConfig &semantics, bool key) {
  // score_mod's arguments are (score, b, h, i, j), mask_mod's (b, h, i, j).
  unsigned maskArg = key ? 3 : 2;
  return extractsBy(semantics.scoreMod, maskArg + 1) || extractsBy(semantics.maskMod, maskArg);
}

/// Whether the kernel can evaluate `op` of a region, else an error at it.
static LogicalResult checkRegionOp(Operation &op, StringRef name) {
  auto fail = [&](const Twine &what) {
    return op.emitOpError() << "in '" << name << "': " << what, failure();
  };
  if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op))
    return fail("convert-fa-to-nvvm: the sm_90a kernels do not compute " +
                op.getName().getStringRef() + " (use divsi/divui and a select)");
  // A dynamic dim's size is a kernel parameter, declared per dim it names.
  if (auto dim = dyn_cast<tensor::DimOp>(op); dim && !namesADim(dim))
    return fail("convert-fa-to-nvvm: tensor.dim of a capture must name a constant dimension "
                "for the sm_90a kernels (they take the sizes of the dims a region reads "
                "as kernel parameters)");
  bool transcendental = isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op, math::TanhOp>(op);
  if (transcendental && !op.getResult(0).getType().isF32())
    return fail("convert-fa-to-nvvm: the sm_90a kernels compute " +
                op.getName().getStringRef() + " on f32 only");
  bool otherMath = op.getDialect() && isa<math::MathDialect>(op.getDialect()) &&
                   !transcendental &&
                   !isa<math::AbsFOp, math::FloorOp, math::CeilOp, math::TruncOp, math::RoundOp,
                        math::RoundEvenOp, math::FmaOp, math::SqrtOp, math::CopySignOp,
                        math::AbsIOp>(op);
  if (otherMath)
    return fail("convert-fa-to-nvvm: the sm_90a kernels do not compute " +
                op.getName().getStringRef() +
                " (they take math exp, exp2, log, log2, tanh on f32 and absf, absi, floor, "
                "ceil, trunc, round, roundeven, fma, sqrt, copysign)");
  return success();
}

LogicalResult mlir::fa::nvvm_kernel::checkKernelModifiers(Operation *op,
                                                          const AttentionConfig &semantics) {
  for (auto [i, capture] : llvm::enumerate(semantics.captures)) {
    auto fail = [&, i = i](const Twine &what) {
      return op->emitOpError("convert-fa-to-nvvm: capture #") << i << " " << what, failure();
    };
    auto t = dyn_cast<RankedTensorType>(capture.getType());
    if (!t) {
      if (!matchPattern(capture, m_Constant()))
        return fail("is a scalar that is not a constant: the sm_90a kernels take scalar "
                    "captures as constants only (pass it as a tensor<1x...> otherwise)");
      continue;
    }
    if (t.getRank() == 0)
      return fail("is a rank-0 tensor: the sm_90a kernels take captures of rank 1 or more "
                  "(pass it as a tensor<1x...>)");
    if (!captureDTypeName(t.getElementType()))
      return fail("has element type " + llvm::formatv("{0}", t.getElementType()).str() +
                  ", which the runtime cannot pass to the sm_90a kernels (f32, f16, bf16, f64, "
                  "i32, i64 or i8)");
  }
  for (auto [region, name] : {std::pair{semantics.scoreMod, "score_mod"},
                              std::pair{semantics.maskMod, "mask_mod"}})
    if (region)
      for (Operation &inner : region->front())
        if (failed(checkRegionOp(inner, name)))
          return failure();
  return success();
}

Value KernelModifiers::readCapture(ImplicitLocOpBuilder &b, unsigned capture, ValueRange indices,
                                   Type elementType) {
  const CaptureArgs &c = captures[capture];
  KernelBuilder kb(b);
  Value offset = kb.c64(0);
  for (auto [index, stride] : llvm::zip(indices, c.strides))
    offset = kb.add(offset, kb.mul(kb.ext64(index), stride)); // i32 indices

  unsigned bytes = std::max<unsigned>(1, elementType.getIntOrFloatBitWidth() / 8);
  return LLVM::LoadOp::create(b, elementType, kb.globalAt(c.ptr, offset, elementType), bytes);
}

Value KernelModifiers::captureDim(ImplicitLocOpBuilder &b, unsigned capture, Value dim) {
  // checkKernelModifiers admits constant dims only; declareCaptureParams
  // declared the size of each dynamic one a region reads.
  auto t = cast<RankedTensorType>(semantics.captures[capture].getType());
  std::optional<int64_t> index = getConstantIntValue(dim);
  assert(index && *index >= 0 && *index < t.getRank() && "a constant dim");
  if (!t.isDynamicDim(*index))
    return arith::ConstantOp::create(b, b.getI32IntegerAttr(t.getDimSize(*index)));
  Value size = captures[capture].sizes[*index];
  assert(size && "declareCaptureParams declares the dynamic dims a region reads");
  return size;
}

Value KernelModifiers::scalarCapture(ImplicitLocOpBuilder &b, unsigned capture) {
  // checkKernelModifiers admits constant scalars only.
  Attribute value;
  bool constant = matchPattern(semantics.captures[capture], m_Constant(&value));
  assert(constant && "a constant scalar capture");
  (void)constant;
  return arith::ConstantOp::materialize(b, value, semantics.captures[capture].getType(),
                                        b.getLoc());
}

/// `op` with its `index` values in i32 (the kernel's positions and sizes
/// are i32; 64-bit integer math would cost registers per score), or null
/// when it has none.
static Value emitIndexOpInI32(ImplicitLocOpBuilder &b, Operation &op, ValueRange operands) {
  Type i32 = b.getI32Type();
  auto isIndex = [](Type t) { return t.isIndex(); };
  bool indexResult = llvm::any_of(op.getResultTypes(), isIndex);
  bool indexOperand = llvm::any_of(op.getOperandTypes(), isIndex);
  if (!indexResult && !indexOperand)
    return {};
  // Casts between index and an integer type: extend or truncate the i32.
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op)) {
    Value in = operands[0];
    Type to = indexResult ? i32 : op.getResult(0).getType();
    unsigned from = in.getType().getIntOrFloatBitWidth(), width = to.getIntOrFloatBitWidth();
    if (from == width)
      return in;
    if (from > width)
      return arith::TruncIOp::create(b, to, in);
    if (isa<arith::IndexCastUIOp>(op))
      return arith::ExtUIOp::create(b, to, in);
    return arith::ExtSIOp::create(b, to, in);
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return arith::ConstantOp::create(
        b, b.getI32IntegerAttr(cast<IntegerAttr>(constant.getValue()).getInt()));
  if (!indexResult)
    return {}; // comparisons: their i1 result takes the i32 operands as cloned
  SmallVector<Type> types;
  for (Type t : op.getResultTypes())
    types.push_back(t.isIndex() ? i32 : t);
  OperationState state(b.getLoc(), op.getName(), operands, types, op.getAttrs());
  return b.create(state)->getResult(0);
}

Value KernelModifiers::emitOp(ImplicitLocOpBuilder &b, Operation &op, ValueRange operands) {
  if (Value v = emitIndexOpInI32(b, op, operands))
    return v;
  if (op.getNumResults() != 1 || !op.getResult(0).getType().isF32())
    return {};
  KernelBuilder kb(b);
  return TypeSwitch<Operation *, Value>(&op)
      .Case([&](math::ExpOp) { return kb.exp2(kb.fmul(operands[0], kb.cf32(kLog2E))); })
      .Case([&](math::Exp2Op) { return kb.exp2(operands[0]); })
      .Case([&](math::LogOp) { return kb.fmul(kb.log2(operands[0]), kb.cf32(kLn2)); })
      .Case([&](math::Log2Op) { return kb.log2(operands[0]); })
      .Case([&](math::TanhOp) { return kb.tanh(operands[0]); })
      .Default([](Operation *) { return Value(); });
}
