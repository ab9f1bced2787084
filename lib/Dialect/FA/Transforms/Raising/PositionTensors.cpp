//===- PositionTensors.cpp - Tensors the program computes from constants --===//
//
// transformers builds its masks from position tensors that the program
// computes: `cache_position` and `kv_idx` are aranges (a linalg.generic
// yielding linalg.index), position ids are broadcast per batch element, and
// packed-sequence detection takes the cumulative sum (tm_tensor.scan) of
// `position_ids[:, 1:] - position_ids[:, :-1] != 1` through slices and a
// concatenation. A mask body reads them with tensor.extract at computed
// indices. None of this reads an input, so the mask evaluator folds such a
// tensor at compile time and reads it as a constant: every element is
// computed in the program's own arithmetic by the evaluator of Evaluate.cpp
// (the same integer widths, wrap-around and poison checks as the mask), and
// data movement (reshapes, slices, concatenations, pads) only moves bits.
//
// A tensor that reads a function argument, or goes through an op not
// modelled here, is not folded: it is data, which the mask analysis keeps
// as the program computes it (a key padding operand) and never assumes.
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "fa/Dialect/TMTensor/IR/TMTensor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fa-raise-attention"

using namespace mlir;
using namespace mlir::fa::raising;
namespace tm_tensor = mlir::fa::tm_tensor;

/// Folded tensors (a null attribute: not foldable) and which values read a
/// function argument, per analysis.
struct mlir::fa::raising::FoldCache {
  llvm::DenseMap<Value, DenseElementsAttr> folded;
  llvm::DenseMap<Value, bool> readsArguments;
};

namespace {

/// The most elements a folded tensor, and the most points a folded linalg
/// op's iteration domain, may have.
constexpr int64_t kMaxFoldElements = int64_t(1) << 22;

/// Elements as bit patterns (floats bitcast to integers), row-major.
using Bits = SmallVector<APInt>;

bool isFoldableElement(Type t) {
  if (auto it = dyn_cast<IntegerType>(t))
    return it.getWidth() <= 64;
  if (auto ft = dyn_cast<FloatType>(t))
    return ft.getWidth() <= 64 && !ft.isF80();
  return isa<IndexType>(t);
}

Bits toBits(DenseElementsAttr a) {
  Bits out;
  if (isa<FloatType>(a.getElementType())) {
    for (APFloat f : a.getValues<APFloat>())
      out.push_back(f.bitcastToAPInt());
    return out;
  }
  for (APInt i : a.getValues<APInt>())
    out.push_back(i);
  return out;
}

DenseElementsAttr fromBits(RankedTensorType t, ArrayRef<APInt> bits) {
  if (auto ft = dyn_cast<FloatType>(t.getElementType())) {
    SmallVector<APFloat> fs;
    for (const APInt &b : bits)
      fs.push_back(APFloat(ft.getFloatSemantics(), b));
    return DenseElementsAttr::get(t, fs);
  }
  return DenseElementsAttr::get(t, bits);
}

/// The bits of an evaluated value of element type `t`.
std::optional<APInt> scalarBits(const Scalar &s, Type t) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    if (s.isInt)
      return std::nullopt;
    // The evaluator rounds to the type, so the conversion is exact.
    APFloat f(s.f);
    bool lost = false;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return f.bitcastToAPInt();
  }
  unsigned width = isa<IndexType>(t) ? 64 : t.getIntOrFloatBitWidth();
  if (!s.isInt || s.i.getBitWidth() != width)
    return std::nullopt;
  return s.i;
}

/// A constant node holding `bits` of element type `t`.
ExprP constantNode(Type t, const APInt &bits) {
  auto e = std::make_shared<Expr>();
  e->type = t;
  if (auto ft = dyn_cast<FloatType>(t)) {
    e->kind = Expr::Const;
    e->fval = APFloat(ft.getFloatSemantics(), bits).convertToDouble();
  } else {
    e->kind = Expr::IConst;
    e->ival = bits.getSExtValue();
  }
  return e;
}

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Calls `f` with every index of `shape`, row-major.
void forEachIndex(ArrayRef<int64_t> shape,
                  llvm::function_ref<void(ArrayRef<int64_t>)> f) {
  int64_t n = ShapedType::getNumElements(shape);
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    f(idx);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

int64_t linearIndex(ArrayRef<int64_t> idx, ArrayRef<int64_t> strides) {
  int64_t k = 0;
  for (auto [i, s] : llvm::zip(idx, strides))
    k += i * s;
  return k;
}

/// Static offsets, sizes and strides of a slice op; nullopt if dynamic.
struct SliceBox {
  SmallVector<int64_t> offsets, sizes, strides;
};
std::optional<SliceBox> staticBox(OffsetSizeAndStrideOpInterface op) {
  SliceBox b{SmallVector<int64_t>(op.getStaticOffsets()),
             SmallVector<int64_t>(op.getStaticSizes()),
             SmallVector<int64_t>(op.getStaticStrides())};
  for (ArrayRef<int64_t> l : {ArrayRef<int64_t>(b.offsets),
                              ArrayRef<int64_t>(b.sizes),
                              ArrayRef<int64_t>(b.strides)})
    if (llvm::any_of(l, ShapedType::isDynamic))
      return std::nullopt;
  return b;
}

class TensorFolder {
public:
  explicit TensorFolder(ExprBuilder &eb) : eb(eb), cache(*eb.folds) {}

  /// The elements of `v`; null when it is data or not foldable.
  DenseElementsAttr fold(Value v);

private:
  DenseElementsAttr foldNew(Value v, RankedTensorType type);
  DenseElementsAttr foldLinalg(linalg::LinalgOp op, OpResult r);
  DenseElementsAttr foldScan(tm_tensor::ScanOp op, OpResult r);
  DenseElementsAttr foldExtractSlice(tensor::ExtractSliceOp op);
  DenseElementsAttr foldInsertSlice(tensor::InsertSliceOp op);
  DenseElementsAttr foldConcat(tensor::ConcatOp op);
  DenseElementsAttr foldPad(tensor::PadOp op);
  /// A scalar value computed from constants (a fill value, a pad value).
  std::optional<APInt> foldScalar(Value s);
  /// `tree` evaluated at a single point.
  std::optional<APInt> evaluateScalar(const ExprP &tree, Type t);
  bool readsArguments(Value v);

  ExprBuilder &eb;
  FoldCache &cache;
};

bool TensorFolder::readsArguments(Value v) {
  if (auto it = cache.readsArguments.find(v);
      it != cache.readsArguments.end())
    return it->second;
  bool reads = true;
  if (Operation *op = v.getDefiningOp()) {
    reads = llvm::any_of(op->getOperands(),
                         [&](Value o) { return readsArguments(o); });
    if (!reads && op->getNumRegions()) {
      // Values a body reads from outside (a tensor.extract's tensor).
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(op->getRegions(), above);
      reads = llvm::any_of(above, [&](Value o) { return readsArguments(o); });
    }
  }
  cache.readsArguments[v] = reads;
  return reads;
}

DenseElementsAttr TensorFolder::fold(Value v) {
  if (auto it = cache.folded.find(v); it != cache.folded.end())
    return it->second;
  DenseElementsAttr r;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (type && type.hasStaticShape() &&
      type.getNumElements() <= kMaxFoldElements &&
      isFoldableElement(type.getElementType()) && !readsArguments(v))
    r = foldNew(v, type);
  LLVM_DEBUG(if (!r) llvm::dbgs() << "not folded: " << v << "\n");
  cache.folded[v] = r;
  return r;
}

DenseElementsAttr TensorFolder::foldNew(Value v, RankedTensorType type) {
  if (DenseElementsAttr dense = constantElements(v))
    return dense;
  Operation *op = v.getDefiningOp();
  if (auto l = dyn_cast<linalg::LinalgOp>(op))
    return foldLinalg(l, cast<OpResult>(v));
  if (auto scan = dyn_cast<tm_tensor::ScanOp>(op))
    return foldScan(scan, cast<OpResult>(v));
  // Reshapes keep the row-major order of the elements.
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
          tosa::ReshapeOp>(op)) {
    DenseElementsAttr src = fold(op->getOperand(0));
    return src ? src.reshape(type) : DenseElementsAttr();
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return foldExtractSlice(slice);
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return foldInsertSlice(insert);
  if (auto concat = dyn_cast<tensor::ConcatOp>(op))
    return foldConcat(concat);
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return foldPad(pad);
  if (auto splat = dyn_cast<tensor::SplatOp>(op)) {
    std::optional<APInt> s = foldScalar(splat.getInput());
    return s ? fromBits(type, Bits(type.getNumElements(), *s))
             : DenseElementsAttr();
  }
  if (auto elements = dyn_cast<tensor::FromElementsOp>(op)) {
    Bits bits;
    for (Value e : elements.getElements()) {
      std::optional<APInt> s = foldScalar(e);
      if (!s)
        return {};
      bits.push_back(*s);
    }
    return fromBits(type, bits);
  }
  return {};
}

std::optional<APInt> TensorFolder::evaluateScalar(const ExprP &tree, Type t) {
  std::optional<APInt> out;
  std::string why;
  if (failed(evaluateEach(tree, {}, eb, why, [&](int64_t, const Scalar &s) {
        out = scalarBits(s, t);
      })))
    return std::nullopt;
  return out;
}

std::optional<APInt> TensorFolder::foldScalar(Value s) {
  if (readsArguments(s))
    return std::nullopt;
  return evaluateScalar(eb.fromScalar(s, {}), s.getType());
}

/// Every element through the body, evaluated over the loops at once: the
/// inputs are read through their indexing maps (and folded in turn when
/// they are not elementwise). Only all-parallel ops whose result indexes
/// every loop once: each element is written exactly once.
DenseElementsAttr TensorFolder::foldLinalg(linalg::LinalgOp op, OpResult r) {
  if (!op.hasPureTensorSemantics() || !op.getBlock() ||
      op.getNumParallelLoops() != op.getNumLoops())
    return {};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, [](int64_t n) {
        return ShapedType::isDynamic(n) || n < 1;
      }) ||
      ShapedType::getNumElements(ranges) > kMaxFoldElements)
    return {};
  SmallVector<AtomList> loops;
  AtomList grid;
  for (int64_t n : ranges) {
    loops.push_back(n == 1 ? AtomList{} : AtomList{eb.atoms.fresh(n)});
    grid.append(loops.back());
  }
  // The result's dimensions: each a distinct loop, or a unit dimension.
  auto type = cast<RankedTensorType>(r.getType());
  AffineMap outMap = op.getIndexingMapMatchingResult(r);
  SmallVector<int64_t> loopOfDim;
  llvm::SmallBitVector written(ranges.size());
  for (AffineExpr e : outMap.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (written.test(d.getPosition()))
        return {};
      written.set(d.getPosition());
      loopOfDim.push_back(d.getPosition());
      continue;
    }
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!c || c.getValue() != 0)
      return {};
    loopOfDim.push_back(-1);
  }
  for (auto [k, n] : llvm::enumerate(ranges))
    if (n != 1 && !written.test(k))
      return {};

  SmallVector<ExprP> args;
  for (OpOperand &o : op->getOpOperands()) {
    if (!isa<RankedTensorType>(o.get().getType())) {
      args.push_back(eb.fromScalar(o.get(), {})); // linalg.fill's value
      continue;
    }
    FailureOr<Access> a = operandAccess(op.getMatchingIndexingMap(&o), loops);
    if (failed(a))
      return {};
    ExprP c = splatExpr(o.get());
    args.push_back(c ? c : eb.leaf(o.get(), *a));
  }
  SmallVector<AtomList> saved = std::move(eb.loops);
  eb.loops = loops;
  ExprP tree = eb.fromScalar(
      op.getBlock()->getTerminator()->getOperand(r.getResultNumber()), args);
  eb.loops = std::move(saved);

  SmallVector<int64_t> strides = stridesOf(type.getShape());
  SmallVector<int64_t> gridLoops; // the loop of each grid atom
  for (auto [k, n] : llvm::enumerate(ranges))
    if (n != 1)
      gridLoops.push_back(k);
  Bits bits(type.getNumElements());
  bool ok = true;
  std::string why;
  SmallVector<int64_t> at(ranges.size(), 0);
  LogicalResult done = evaluateEach(
      tree, grid, eb, why, [&](int64_t k, const Scalar &s) {
        for (int g = static_cast<int>(gridLoops.size()) - 1; g >= 0; --g) {
          at[gridLoops[g]] = k % ranges[gridLoops[g]];
          k /= ranges[gridLoops[g]];
        }
        int64_t pos = 0;
        for (auto [d, l] : llvm::enumerate(loopOfDim))
          pos += l < 0 ? 0 : at[l] * strides[d];
        std::optional<APInt> b = scalarBits(s, type.getElementType());
        if (!b)
          ok = false;
        else
          bits[pos] = *b;
      });
  if (failed(done) || !ok) {
    LLVM_DEBUG(llvm::dbgs() << "linalg op not folded: " << why << "\n");
    return {};
  }
  return fromBits(type, bits);
}

/// torch-mlir's scan (LowerTMTensor.cpp's definition): along `dimension`,
/// out[0] = in[0] (inclusive) or the accumulator, then out[i] =
/// f(out[i-1], in[i]) (inclusive) or f(out[i-1], in[i-1]); the second
/// result is out[n-1] where n > 1, else the accumulator.
DenseElementsAttr TensorFolder::foldScan(tm_tensor::ScanOp op, OpResult r) {
  if (op.getInputs().size() != 1 || op.getOutputs().size() != 2)
    return {};
  Value in = op.getInputs()[0];
  auto inType = cast<RankedTensorType>(in.getType());
  auto accType = cast<RankedTensorType>(op.getOutputs()[1].getType());
  DenseElementsAttr inAttr = fold(in);
  DenseElementsAttr accAttr = fold(op.getOutputs()[1]);
  int64_t dim = op.getDimension();
  if (!inAttr || !accAttr || op.getOutputs()[0].getType() != inType ||
      dim < 0 || dim >= inType.getRank())
    return {};
  Bits input = toBits(inAttr), acc = toBits(accAttr);
  Type elt = inType.getElementType();
  Block &body = op.getRegion().front();
  Value combined = body.getTerminator()->getOperand(0);
  ArrayRef<int64_t> shape = inType.getShape();
  SmallVector<int64_t> strides = stridesOf(shape);
  int64_t n = shape[dim];
  SmallVector<int64_t> outer(shape);
  outer[dim] = 1;
  Bits out(input.size()), last(acc);
  bool ok = true;
  int64_t slice = 0; // row-major position in the accumulator
  forEachIndex(outer, [&](ArrayRef<int64_t> idx) {
    int64_t base = linearIndex(idx, strides);
    for (int64_t i = 0; i < n && ok; ++i) {
      int64_t at = base + i * strides[dim];
      if (i == 0) {
        out[at] = op.getInclusive() ? input[at] : acc[slice];
        continue;
      }
      int64_t x = op.getInclusive() ? at : at - strides[dim];
      ExprP tree = eb.fromScalar(
          combined, {constantNode(elt, out[at - strides[dim]]),
                     constantNode(elt, input[x])});
      std::optional<APInt> v = evaluateScalar(tree, elt);
      ok = v.has_value();
      if (ok)
        out[at] = *v;
    }
    if (n > 1)
      last[slice] = out[base + (n - 1) * strides[dim]];
    ++slice;
  });
  if (!ok)
    return {};
  return r.getResultNumber() == 0 ? fromBits(inType, out)
                                  : fromBits(accType, last);
}

/// The slice's elements, read in the row-major order of its (unreduced)
/// sizes, which rank reduction does not change.
DenseElementsAttr TensorFolder::foldExtractSlice(tensor::ExtractSliceOp op) {
  std::optional<SliceBox> box = staticBox(op);
  DenseElementsAttr src = fold(op.getSource());
  if (!box || !src)
    return {};
  Bits in = toBits(src), out;
  SmallVector<int64_t> srcStrides =
      stridesOf(op.getSourceType().getShape());
  forEachIndex(box->sizes, [&](ArrayRef<int64_t> idx) {
    int64_t k = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      k += (box->offsets[d] + idx[d] * box->strides[d]) * srcStrides[d];
    out.push_back(in[k]);
  });
  return fromBits(op.getType(), out);
}

DenseElementsAttr TensorFolder::foldInsertSlice(tensor::InsertSliceOp op) {
  std::optional<SliceBox> box = staticBox(op);
  DenseElementsAttr src = fold(op.getSource()), dst = fold(op.getDest());
  if (!box || !src || !dst)
    return {};
  Bits in = toBits(src), out = toBits(dst);
  SmallVector<int64_t> dstStrides = stridesOf(op.getDestType().getShape());
  int64_t next = 0;
  forEachIndex(box->sizes, [&](ArrayRef<int64_t> idx) {
    int64_t k = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      k += (box->offsets[d] + idx[d] * box->strides[d]) * dstStrides[d];
    out[k] = in[next++];
  });
  return fromBits(op.getType(), out);
}

DenseElementsAttr TensorFolder::foldConcat(tensor::ConcatOp op) {
  int64_t dim = op.getDim();
  auto type = cast<RankedTensorType>(op.getType());
  SmallVector<Bits> ins;
  SmallVector<int64_t> starts;
  int64_t start = 0;
  for (Value v : op.getInputs()) {
    DenseElementsAttr a = fold(v);
    if (!a)
      return {};
    ins.push_back(toBits(a));
    starts.push_back(start);
    start += cast<RankedTensorType>(v.getType()).getDimSize(dim);
  }
  Bits out;
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> idx) {
    unsigned k = llvm::upper_bound(starts, idx[dim]) - starts.begin() - 1;
    auto inType = cast<RankedTensorType>(op.getInputs()[k].getType());
    SmallVector<int64_t> local(idx);
    local[dim] -= starts[k];
    out.push_back(ins[k][linearIndex(local, stridesOf(inType.getShape()))]);
  });
  return fromBits(type, out);
}

DenseElementsAttr TensorFolder::foldPad(tensor::PadOp op) {
  Value padValue = op.getConstantPaddingValue();
  DenseElementsAttr src = fold(op.getSource());
  if (!padValue || !src || llvm::any_of(op.getStaticLow(), [](int64_t l) {
        return ShapedType::isDynamic(l) || l < 0;
      }))
    return {};
  std::optional<APInt> fill = foldScalar(padValue);
  if (!fill)
    return {};
  Bits in = toBits(src), out;
  ArrayRef<int64_t> srcShape = op.getSourceType().getShape();
  SmallVector<int64_t> srcStrides = stridesOf(srcShape);
  ArrayRef<int64_t> low = op.getStaticLow();
  forEachIndex(op.getResultType().getShape(), [&](ArrayRef<int64_t> idx) {
    int64_t k = 0;
    bool inside = true;
    for (size_t d = 0; d < idx.size(); ++d) {
      int64_t s = idx[d] - low[d];
      inside &= s >= 0 && s < srcShape[d];
      k += s * srcStrides[d];
    }
    out.push_back(inside ? in[k] : *fill);
  });
  return fromBits(op.getResultType(), out);
}

} // namespace

FailureOr<DenseElementsAttr>
mlir::fa::raising::foldPositionTensor(Value v, ExprBuilder &eb,
                                      std::string &why) {
  if (!eb.folds)
    eb.folds = std::make_shared<FoldCache>();
  if (DenseElementsAttr a = TensorFolder(eb).fold(v))
    return a;
  why = kDependsOnData;
  return failure();
}
