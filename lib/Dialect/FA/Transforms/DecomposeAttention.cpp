//===- DecomposeAttention.cpp - fa ops -> reference linalg ----------------===//
//
// The reference semantics of the fa dialect, as plain linalg on tensors.
// Everything is computed in f32 over the full seq_q x seq_k score matrix.
// Query-side tensors are viewed as [B, Hkv, G, S, X] (G = query heads per
// key/value head) so that grouped-query attention is plain broadcasting and
// dK/dV sum over G.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/Transforms/AttentionConfig.h"
#include "fa/Dialect/FA/Transforms/Float8.h"
#include "fa/Dialect/FA/Transforms/LowerCombine.h"
#include "fa/Dialect/FA/Transforms/LowerSequences.h"
#include "fa/Dialect/FA/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FADECOMPOSEATTENTION
#include "fa/Dialect/FA/Transforms/Passes.h.inc"
} // namespace mlir::fa

using namespace mlir;
using namespace mlir::fa;

namespace {

using utils::IteratorType;
constexpr IteratorType kPar = IteratorType::parallel;
constexpr IteratorType kRed = IteratorType::reduction;

/// Emits the reference computation for one op.
class Decomposer {
public:
  Decomposer(ImplicitLocOpBuilder &b, AttentionConfig config)
      : b(b), config(config) {}

  /// Reads the problem sizes; fails (with a diagnostic) when the group size
  /// cannot be formed.
  LogicalResult init(Operation *op, Value q, Value k);

  /// Q/O/dO [layout] -> f32 [B, Hkv, G, S, X]; `descale` may be null, and
  /// has blocks of `block` rows when per block.
  Value queryToGrouped(Value t, Value descale, int64_t block = 0);
  /// K/V [layout] -> f32 [B, Hkv, S, X].
  Value keyToF32(Value t, Value descale, int64_t block = 0);
  /// LSE [B, Hq, Sq] -> [B, Hkv, G, Sq].
  Value lseToGrouped(Value lse);
  /// [B, Hq, ...] -> [B, Hkv, G, ...].
  Value splitHeads(Value t);
  /// [B, Hkv, G, S, X] f32 -> `type` in the op's layout.
  Value groupedToOutput(Value t, RankedTensorType type);
  Value groupedLseToOutput(Value t);

  /// q . k for every (b, hk, g, i, j): [B, Hkv, G, Sq, Sk].
  Value products(Value q5, Value k4);
  /// Scores [B, Hkv, G, Sq, Sk] from `products`: score function and mask
  /// applied (-inf where hidden).
  Value scores(Value qk, Value bias);
  /// d score / d(scale qk + bias) [B, Hkv, G, Sq, Sk] (score_mod's and the
  /// softcap's derivatives).
  Value scoreDerivatives(Value qk, Value bias);

  // The forward.
  std::pair<Value, Value> softmaxAndOutput(Value s, Value v4);
  // The backward pieces.
  Value probabilitiesFromLse(Value s, Value lse5);
  Value gradBias(Value dS, RankedTensorType biasType);
  /// dSinks [Hq] = -sum over (b, i) of exp(sink - LSE) D (0 where LSE is
  /// -inf), from the grouped D and LSE [B, Hkv, G, Sq].
  Value gradSinks(Value rowD, Value lse5, RankedTensorType sinksType);

  /// sum over `reduced` loop dims of lhs * rhs, f32, as one linalg.generic.
  Value contract(Value lhs, AffineMap lhsMap, Value rhs, AffineMap rhsMap,
                 AffineMap outMap, ArrayRef<IteratorType> iterators,
                 ArrayRef<OpFoldResult> outSizes);
  Value elementwise(ValueRange ins, ArrayRef<AffineMap> inMaps,
                    ArrayRef<OpFoldResult> outSizes, Type elementType,
                    function_ref<Value(ValueRange)> body);
  Value reduce(Value in, AffineMap inMap, ArrayRef<OpFoldResult> outSizes,
               float init, function_ref<Value(Value, Value)> combine);
  /// The f32 sum of `in` (identity-indexed) into `outSizes` at `outMap`,
  /// over the `iterators` marked reduction.
  Value sumInto(Value in, ArrayRef<OpFoldResult> outSizes, AffineMap outMap,
                ArrayRef<IteratorType> iterators);

  ImplicitLocOpBuilder &b;
  AttentionConfig config;
  LayoutDims ld;
  OpFoldResult batch, headsKV, group, seqQ, seqK;
  int64_t headDim = 0, headDimV = 0;

  MLIRContext *ctx() { return b.getContext(); }
  AffineExpr d(unsigned i) { return getAffineDimExpr(i, ctx()); }
  AffineMap map(unsigned numDims, ArrayRef<AffineExpr> results) {
    return AffineMap::get(numDims, 0, results, ctx());
  }
  Value indexValue(OpFoldResult ofr) {
    return getValueOrCreateConstantIndexOp(b, b.getLoc(), ofr);
  }
  Value f32(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }
  Value emptyF32(ArrayRef<OpFoldResult> sizes) {
    return tensor::EmptyOp::create(b, sizes, b.getF32Type());
  }
  /// Transposes bshd to bhsd (an involution, so also back).
  Value swapSeqHeads(Value t);
  /// Extends to f32 and multiplies by the FP8 descale, which is per tensor,
  /// or indexed by the leading dimensions of `t`: per (batch, kv-head), or
  /// per (batch, head, row) from `rowDescales`.
  Value toF32(Value t, Value descale);
  /// A per-block descale [B, H, ceildiv(S, block)] -> per row [B, H, S].
  Value rowDescales(Value descale, OpFoldResult seq, int64_t block);
  /// An elementwise generic over the scores' [B, Hkv, G, Sq, Sk] with `qk`
  /// and the bias (f32, null without) at each element.
  Value overScores(Value qk, Value bias,
                   function_ref<Value(Value qk, Value bias)> body);
  /// The position of the element a score generic's body computes.
  ScorePosition position();
  /// In the body of a generic over [B, Hkv, G, ...]: the query head
  /// hk * G + g and its sink logit (config.sinks must be set).
  Value queryHead();
  Value sinkOfRow();
};

LogicalResult Decomposer::init(Operation *op, Value q, Value k) {
  ld = getLayoutDims(config.layout);
  SmallVector<OpFoldResult> qs = tensor::getMixedSizes(b, b.getLoc(), q);
  SmallVector<OpFoldResult> ks = tensor::getMixedSizes(b, b.getLoc(), k);
  batch = qs[ld.batch];
  seqQ = qs[ld.seq];
  seqK = ks[ld.seq];
  headsKV = ks[ld.heads];
  headDim = cast<RankedTensorType>(q.getType()).getDimSize(ld.dim);
  std::optional<int64_t> hq = getConstantIntValue(qs[ld.heads]);
  std::optional<int64_t> hkv = getConstantIntValue(headsKV);
  if (hq && hkv) {
    group = b.getIndexAttr(*hq / *hkv);
  } else {
    group = arith::DivUIOp::create(b, indexValue(qs[ld.heads]),
                                   indexValue(headsKV))
                .getResult();
  }
  return success();
}

Value Decomposer::swapSeqHeads(Value t) {
  if (config.layout == Layout::bhsd)
    return t;
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, b.getLoc(), t);
  std::swap(sizes[1], sizes[2]);
  Value init = tensor::EmptyOp::create(b, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, t, init,
                                     ArrayRef<int64_t>{0, 2, 1, 3})
      .getResult()[0];
}

Value Decomposer::toF32(Value t, Value descale) {
  auto type = cast<RankedTensorType>(t.getType());
  unsigned rank = type.getRank();
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx())};
  SmallVector<Value> ins = {t};
  if (descale) {
    ins.push_back(descale);
    auto dt = cast<RankedTensorType>(descale.getType());
    SmallVector<AffineExpr> leading;
    for (unsigned i = 0; i < dt.getRank(); ++i)
      leading.push_back(d(i));
    maps.push_back(map(rank, leading));
  }
  return elementwise(ins, maps, tensor::getMixedSizes(b, b.getLoc(), t),
                     b.getF32Type(), [&](ValueRange args) -> Value {
                       Value x = args[0];
                       // FP8 is decoded by bits: its arith.extf has no
                       // CPU lowering, and the oracle must run there.
                       if (isa<Float8E4M3FNType>(x.getType()))
                         x = decodeF8E4M3FN(b, x);
                       else if (!x.getType().isF32())
                         x = arith::ExtFOp::create(b, b.getF32Type(), x);
                       if (args.size() > 1)
                         x = arith::MulFOp::create(b, x, args[1]);
                       return x;
                     });
}

Value Decomposer::rowDescales(Value descale, OpFoldResult seq,
                              int64_t block) {
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(b, b.getLoc(), descale);
  sizes[2] = seq;
  return elementwise({}, {}, sizes, b.getF32Type(), [&](ValueRange) -> Value {
    Value blk = arith::DivUIOp::create(b, linalg::IndexOp::create(b, 2),
                                       indexValue(b.getIndexAttr(block)));
    return tensor::ExtractOp::create(
        b, descale,
        ValueRange{linalg::IndexOp::create(b, 0),
                   linalg::IndexOp::create(b, 1), blk});
  });
}

Value Decomposer::queryToGrouped(Value t, Value descale, int64_t block) {
  if (block)
    descale = splitHeads(rowDescales(descale, seqQ, block));
  return toF32(splitHeads(swapSeqHeads(t)), descale);
}

Value Decomposer::keyToF32(Value t, Value descale, int64_t block) {
  if (block)
    descale = rowDescales(descale, seqK, block);
  return toF32(swapSeqHeads(t), descale);
}

Value Decomposer::lseToGrouped(Value lse) { return splitHeads(lse); }

Value Decomposer::splitHeads(Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, b.getLoc(), t);
  SmallVector<OpFoldResult> outSizes = {sizes[0], headsKV, group};
  llvm::append_range(outSizes, ArrayRef(sizes).drop_front(2));
  SmallVector<int64_t> staticSizes;
  for (OpFoldResult s : outSizes)
    staticSizes.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
  auto outType = RankedTensorType::get(staticSizes, type.getElementType());
  if (type.isDynamicDim(1) && !ShapedType::isDynamic(staticSizes[1]) &&
      !ShapedType::isDynamic(staticSizes[2])) {
    // A dynamic head dim (a bias's) that splits into static (hk, g): make
    // it static first, as expand_shape requires.
    SmallVector<int64_t> shape(type.getShape());
    shape[1] = staticSizes[1] * staticSizes[2];
    t = tensor::CastOp::create(b, type.clone(shape), t);
  }
  SmallVector<ReassociationIndices> reassociation = {{0}, {1, 2}};
  for (int64_t i = 3, e = outSizes.size(); i < e; ++i)
    reassociation.push_back({i});
  if (!ShapedType::isDynamic(staticSizes[1]) ||
      !ShapedType::isDynamic(staticSizes[2]))
    return tensor::ExpandShapeOp::create(b, outType, t, reassociation,
                                         outSizes);
  // Both heads_kv and the group size are dynamic: expand_shape with two
  // dynamic sizes in one group does not lower through
  // expand-strided-metadata in MLIR 22, so gather instead:
  // out[b, hk, g, ...] = t[b, hk * G + g, ...].
  Value init = tensor::EmptyOp::create(b, outSizes, type.getElementType());
  Value groupSize = indexValue(group);
  unsigned rank = outSizes.size();
  return linalg::GenericOp::create(
             b, outType, ValueRange{}, ValueRange{init},
             ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx())},
             SmallVector<IteratorType>(rank, kPar), "", "",
             [&](OpBuilder &nb, Location loc, ValueRange) {
               ImplicitLocOpBuilder ib(loc, nb);
               SmallVector<Value> idx;
               for (unsigned i = 0; i < rank; ++i)
                 idx.push_back(linalg::IndexOp::create(ib, i));
               Value head = arith::AddIOp::create(
                   ib, arith::MulIOp::create(ib, idx[1], groupSize), idx[2]);
               SmallVector<Value> src = {idx[0], head};
               llvm::append_range(src, ArrayRef(idx).drop_front(3));
               linalg::YieldOp::create(
                   ib, ValueRange{tensor::ExtractOp::create(ib, t, src)});
             })
      .getResult(0);
}

Value Decomposer::groupedToOutput(Value t, RankedTensorType type) {
  Value bhsd = tensor::CollapseShapeOp::create(
      b, t, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  Type elementType = type.getElementType();
  if (!elementType.isF32())
    bhsd = elementwise({bhsd}, {AffineMap::getMultiDimIdentityMap(4, ctx())},
                       tensor::getMixedSizes(b, b.getLoc(), bhsd), elementType,
                       [&](ValueRange args) -> Value {
                         return arith::TruncFOp::create(b, elementType,
                                                        args[0]);
                       });
  Value result = swapSeqHeads(bhsd);
  if (result.getType() != type)
    result = tensor::CastOp::create(b, type, result);
  return result;
}

Value Decomposer::groupedLseToOutput(Value t) {
  return tensor::CollapseShapeOp::create(
      b, t, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}});
}

Value Decomposer::contract(Value lhs, AffineMap lhsMap, Value rhs,
                           AffineMap rhsMap, AffineMap outMap,
                           ArrayRef<IteratorType> iterators,
                           ArrayRef<OpFoldResult> outSizes) {
  Value init = linalg::FillOp::create(b, f32(0.0), emptyF32(outSizes))
                   .getResult(0);
  return linalg::GenericOp::create(
             b, init.getType(), ValueRange{lhs, rhs}, ValueRange{init},
             ArrayRef<AffineMap>{lhsMap, rhsMap, outMap}, iterators,
             /*doc=*/"", /*libraryCall=*/"",
             [](OpBuilder &nb, Location loc, ValueRange args) {
               ImplicitLocOpBuilder ib(loc, nb);
               Value prod = arith::MulFOp::create(ib, args[0], args[1]);
               linalg::YieldOp::create(
                   ib, ValueRange{arith::AddFOp::create(ib, args[2], prod)});
             })
      .getResult(0);
}

Value Decomposer::elementwise(ValueRange ins, ArrayRef<AffineMap> inMaps,
                              ArrayRef<OpFoldResult> outSizes,
                              Type elementType,
                              function_ref<Value(ValueRange)> body) {
  unsigned rank = outSizes.size();
  Value init = tensor::EmptyOp::create(b, outSizes, elementType);
  SmallVector<AffineMap> maps(inMaps);
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx()));
  SmallVector<IteratorType> iterators(rank, kPar);
  return linalg::GenericOp::create(
             b, init.getType(), ins, ValueRange{init}, maps, iterators, "",
             "",
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               OpBuilder::InsertionGuard guard(b);
               b.setInsertionPoint(nb.getInsertionBlock(),
                                   nb.getInsertionPoint());
               b.setLoc(loc);
               Value r = body(args.drop_back());
               linalg::YieldOp::create(b, ValueRange{r});
             })
      .getResult(0);
}

Value Decomposer::reduce(Value in, AffineMap inMap,
                         ArrayRef<OpFoldResult> outSizes, float init,
                         function_ref<Value(Value, Value)> combine) {
  unsigned numDims = inMap.getNumDims();
  Value acc = linalg::FillOp::create(b, f32(init), emptyF32(outSizes))
                  .getResult(0);
  SmallVector<AffineExpr> outExprs;
  for (unsigned i = 0; i + 1 < numDims; ++i)
    outExprs.push_back(d(i));
  SmallVector<IteratorType> iterators(numDims, kPar);
  iterators.back() = kRed;
  return linalg::GenericOp::create(
             b, acc.getType(), ValueRange{in}, ValueRange{acc},
             ArrayRef<AffineMap>{inMap, map(numDims, outExprs)}, iterators,
             "", "",
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               OpBuilder::InsertionGuard guard(b);
               b.setInsertionPoint(nb.getInsertionBlock(),
                                   nb.getInsertionPoint());
               b.setLoc(loc);
               linalg::YieldOp::create(b,
                                       ValueRange{combine(args[1], args[0])});
             })
      .getResult(0);
}

Value Decomposer::sumInto(Value in, ArrayRef<OpFoldResult> outSizes,
                          AffineMap outMap, ArrayRef<IteratorType> iterators) {
  Value acc =
      linalg::FillOp::create(b, f32(0), emptyF32(outSizes)).getResult(0);
  unsigned rank = cast<RankedTensorType>(in.getType()).getRank();
  return linalg::GenericOp::create(
             b, acc.getType(), ValueRange{in}, ValueRange{acc},
             ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx()),
                                 outMap},
             iterators, "", "",
             [](OpBuilder &nb, Location loc, ValueRange args) {
               ImplicitLocOpBuilder ib(loc, nb);
               linalg::YieldOp::create(
                   ib, ValueRange{arith::AddFOp::create(ib, args[1], args[0])});
             })
      .getResult(0);
}

Value Decomposer::products(Value q5, Value k4) {
  // (b, hk, g, i, j, d)
  SmallVector<OpFoldResult> sSizes = {batch, headsKV, group, seqQ, seqK};
  return contract(q5, map(6, {d(0), d(1), d(2), d(3), d(5)}), k4,
                  map(6, {d(0), d(1), d(4), d(5)}),
                  map(6, {d(0), d(1), d(2), d(3), d(4)}),
                  {kPar, kPar, kPar, kPar, kPar, kRed}, sSizes);
}

Value Decomposer::overScores(Value qk, Value bias,
                             function_ref<Value(Value, Value)> body) {
  SmallVector<OpFoldResult> sSizes = {batch, headsKV, group, seqQ, seqK};
  SmallVector<Value> ins = {qk};
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(5, ctx())};
  if (bias) {
    auto bt = cast<RankedTensorType>(bias.getType());
    AffineExpr zero = getAffineConstantExpr(0, ctx());
    AffineExpr bExpr = bt.getDimSize(0) == 1 ? zero : d(0);
    if (bt.getDimSize(1) == 1) {
      ins.push_back(bias);
      maps.push_back(map(5, {bExpr, zero, d(3), d(4)}));
    } else {
      // Per-head bias: view its heads as (hk, g) too.
      ins.push_back(splitHeads(bias));
      maps.push_back(map(5, {bExpr, d(1), d(2), d(3), d(4)}));
    }
  }
  return elementwise(ins, maps, sSizes, b.getF32Type(),
                     [&](ValueRange args) -> Value {
                       Value biasValue;
                       if (args.size() > 1) {
                         biasValue = args[1];
                         if (!biasValue.getType().isF32())
                           biasValue = arith::ExtFOp::create(
                               b, b.getF32Type(), biasValue);
                       }
                       return body(args[0], biasValue);
                     });
}

Value Decomposer::queryHead() {
  return arith::AddIOp::create(
      b,
      arith::MulIOp::create(b, linalg::IndexOp::create(b, 1),
                            indexValue(group)),
      linalg::IndexOp::create(b, 2));
}

Value Decomposer::sinkOfRow() {
  return tensor::ExtractOp::create(b, config.sinks, ValueRange{queryHead()});
}

ScorePosition Decomposer::position() {
  return {linalg::IndexOp::create(b, 0), queryHead(),
          linalg::IndexOp::create(b, 3), linalg::IndexOp::create(b, 4)};
}

Value Decomposer::scores(Value qk, Value bias) {
  Value sq = indexValue(seqQ), sk = indexValue(seqK);
  return overScores(qk, bias, [&](Value qkValue, Value biasValue) -> Value {
    std::optional<ScorePosition> pos;
    if (config.hasModifiers())
      pos = position();
    Value s = pos ? config.emitScore(b, qkValue, biasValue, *pos)
                  : config.emitScore(b, qkValue, biasValue);
    Value masked = config.emitIsMasked(b, linalg::IndexOp::create(b, 3),
                                       linalg::IndexOp::create(b, 4), sq, sk);
    if (Value hides = pos ? config.emitMaskModHides(b, *pos) : Value())
      masked = masked ? arith::OrIOp::create(b, masked, hides).getResult()
                      : hides;
    if (!masked)
      return s;
    return arith::SelectOp::create(
        b, masked, f32(-std::numeric_limits<double>::infinity()), s);
  });
}

Value Decomposer::scoreDerivatives(Value qk, Value bias) {
  return overScores(qk, bias, [&](Value qkValue, Value biasValue) -> Value {
    return config.emitScoreAndDerivative(b, qkValue, biasValue, position())
        .second;
  });
}

std::pair<Value, Value> Decomposer::softmaxAndOutput(Value s, Value v4) {
  SmallVector<OpFoldResult> rowSizes = {batch, headsKV, group, seqQ};
  AffineMap id5 = AffineMap::getMultiDimIdentityMap(5, ctx());
  AffineMap row5 = map(5, {d(0), d(1), d(2), d(3)});
  float negInf = -std::numeric_limits<float>::infinity();
  Value rowMax = reduce(s, id5, rowSizes, negInf, [&](Value acc, Value x) {
    return arith::MaximumFOp::create(b, acc, x);
  });
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx());
  // The sink joins every row's max and normalizer (it has no value row).
  if (config.sinks)
    rowMax = elementwise(
        {rowMax}, {id4}, rowSizes, b.getF32Type(), [&](ValueRange a) -> Value {
          return arith::MaximumFOp::create(b, a[0], sinkOfRow());
        });
  // A row with every key hidden has max -inf; subtracting 0 instead keeps
  // exp(-inf - 0) = 0 rather than NaN.
  Value safeMax = elementwise({rowMax}, {AffineMap::getMultiDimIdentityMap(4, ctx())},
                              rowSizes, b.getF32Type(),
                              [&](ValueRange a) -> Value {
                                Value isInf = arith::CmpFOp::create(
                                    b, arith::CmpFPredicate::OEQ, a[0],
                                    f32(negInf));
                                return arith::SelectOp::create(b, isInf,
                                                               f32(0.0), a[0]);
                              });
  SmallVector<OpFoldResult> sSizes = {batch, headsKV, group, seqQ, seqK};
  Value p = elementwise({s, safeMax}, {id5, row5}, sSizes, b.getF32Type(),
                        [&](ValueRange a) -> Value {
                          return math::ExpOp::create(
                              b, arith::SubFOp::create(b, a[0], a[1]));
                        });
  Value rowSum = reduce(p, id5, rowSizes, 0.0f, [&](Value acc, Value x) {
    return arith::AddFOp::create(b, acc, x);
  });
  if (config.sinks)
    rowSum = elementwise({rowSum, safeMax}, {id4, id4}, rowSizes,
                         b.getF32Type(), [&](ValueRange a) -> Value {
                           Value e = math::ExpOp::create(
                               b, arith::SubFOp::create(b, sinkOfRow(), a[1]));
                           return arith::AddFOp::create(b, a[0], e);
                         });
  // (b, hk, g, i, e, j)
  SmallVector<OpFoldResult> oSizes = {batch, headsKV, group, seqQ,
                                      b.getIndexAttr(headDimV)};
  Value unnormalized =
      contract(p, map(6, {d(0), d(1), d(2), d(3), d(5)}), v4,
               map(6, {d(0), d(1), d(5), d(4)}),
               map(6, {d(0), d(1), d(2), d(3), d(4)}),
               {kPar, kPar, kPar, kPar, kPar, kRed}, oSizes);
  Value out = elementwise(
      {unnormalized, rowSum}, {id5, row5}, oSizes, b.getF32Type(),
      [&](ValueRange a) -> Value {
        Value empty =
            arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, a[1], f32(0));
        return arith::SelectOp::create(b, empty, f32(0),
                                       arith::DivFOp::create(b, a[0], a[1]));
      });
  Value lse = elementwise(
      {safeMax, rowSum}, {id4, id4}, rowSizes, b.getF32Type(),
      [&](ValueRange a) -> Value {
        return arith::AddFOp::create(b, a[0], math::LogOp::create(b, a[1]));
      });
  return {out, lse};
}

Value Decomposer::probabilitiesFromLse(Value s, Value lse5) {
  SmallVector<OpFoldResult> sSizes = {batch, headsKV, group, seqQ, seqK};
  AffineMap id5 = AffineMap::getMultiDimIdentityMap(5, ctx());
  AffineMap row5 = map(5, {d(0), d(1), d(2), d(3)});
  return elementwise(
      {s, lse5}, {id5, row5}, sSizes, b.getF32Type(),
      [&](ValueRange a) -> Value {
        Value hidden = arith::CmpFOp::create(
            b, arith::CmpFPredicate::OEQ, a[0],
            f32(-std::numeric_limits<double>::infinity()));
        Value p = math::ExpOp::create(b, arith::SubFOp::create(b, a[0], a[1]));
        return arith::SelectOp::create(b, hidden, f32(0), p);
      });
}

Value Decomposer::gradBias(Value dS, RankedTensorType biasType) {
  // dS is [B, Hkv, G, Sq, Sk]; sum over the dimensions the bias broadcasts.
  bool sumBatch = biasType.getDimSize(0) == 1;
  bool sumHeads = biasType.getDimSize(1) == 1;
  SmallVector<IteratorType> iterators = {sumBatch ? kRed : kPar,
                                         sumHeads ? kRed : kPar,
                                         sumHeads ? kRed : kPar, kPar, kPar};
  AffineExpr zero = getAffineConstantExpr(0, ctx());
  AffineExpr bExpr = biasType.getDimSize(0) == 1 ? zero : d(0);
  SmallVector<OpFoldResult> biasSizes = {
      biasType.getDimSize(0) == 1 ? b.getIndexAttr(1) : batch,
      b.getIndexAttr(1), b.getIndexAttr(1), seqQ, seqK};
  AffineMap outMap = map(5, {bExpr, zero, zero, d(3), d(4)});
  if (!sumHeads) {
    biasSizes[1] = headsKV;
    biasSizes[2] = group;
    outMap = map(5, {bExpr, d(1), d(2), d(3), d(4)});
  }
  Value grad = sumInto(dS, biasSizes, outMap, iterators);
  Value bhsd = tensor::CollapseShapeOp::create(
      b, grad, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  Type elementType = biasType.getElementType();
  if (!elementType.isF32())
    bhsd = elementwise({bhsd}, {AffineMap::getMultiDimIdentityMap(4, ctx())},
                       tensor::getMixedSizes(b, b.getLoc(), bhsd), elementType,
                       [&](ValueRange a) -> Value {
                         return arith::TruncFOp::create(b, elementType, a[0]);
                       });
  if (bhsd.getType() != biasType)
    bhsd = tensor::CastOp::create(b, biasType, bhsd);
  return bhsd;
}

Value Decomposer::gradSinks(Value rowD, Value lse5,
                            RankedTensorType sinksType) {
  SmallVector<OpFoldResult> rowSizes = {batch, headsKV, group, seqQ};
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx());
  float negInf = -std::numeric_limits<float>::infinity();
  // -P_sink D per row; a row with LSE -inf (no sink, no visible key) has
  // D = 0 and must not give exp(-inf + inf) = NaN.
  Value perRow = elementwise(
      {rowD, lse5}, {id4, id4}, rowSizes, b.getF32Type(),
      [&](ValueRange a) -> Value {
        Value pSink =
            math::ExpOp::create(b, arith::SubFOp::create(b, sinkOfRow(), a[1]));
        Value none = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, a[1],
                                           f32(negInf));
        Value g =
            arith::NegFOp::create(b, arith::MulFOp::create(b, pSink, a[0]));
        return arith::SelectOp::create(b, none, f32(0), g);
      });
  // Sum over batch and rows: (b, hk, g, i) -> (hk, g).
  Value grad = sumInto(perRow, {headsKV, group}, map(4, {d(1), d(2)}),
                       {kRed, kPar, kPar, kRed});
  Value heads = tensor::CollapseShapeOp::create(
      b, grad, SmallVector<ReassociationIndices>{{0, 1}});
  if (heads.getType() != sinksType)
    heads = tensor::CastOp::create(b, sinksType, heads);
  return heads;
}

LogicalResult decompose(AttentionOp op, RewriterBase &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  Decomposer dec(b, AttentionConfig::get(op));
  if (failed(dec.init(op, op.getQuery(), op.getKey())))
    return failure();
  dec.headDimV = op.getOutput().getType().getDimSize(dec.ld.dim);
  // Only the per-block descales (rank 3) get their block size.
  auto block = [&](Value descale, unsigned i) -> int64_t {
    if (!descale || cast<RankedTensorType>(descale.getType()).getRank() != 3)
      return 0;
    return (*op.getDescaleBlock())[i];
  };
  Value qd = op.getQueryDescale(), kd = op.getKeyDescale(),
        vd = op.getValueDescale();
  Value q5 = dec.queryToGrouped(op.getQuery(), qd, block(qd, 0));
  Value k4 = dec.keyToF32(op.getKey(), kd, block(kd, 1));
  Value v4 = dec.keyToF32(op.getValue(), vd, block(vd, 1));
  Value s = dec.scores(dec.products(q5, k4), op.getBias());
  auto [out, lse] = dec.softmaxAndOutput(s, v4);
  SmallVector<Value> results = {
      dec.groupedToOutput(out, op.getOutput().getType())};
  if (op.getLse()) {
    Value l = dec.groupedLseToOutput(lse);
    if (l.getType() != op.getLse().getType())
      l = tensor::CastOp::create(b, op.getLse().getType(), l);
    results.push_back(l);
  }
  rewriter.replaceOp(op, results);
  return success();
}

LogicalResult decompose(AttentionGradOp op, RewriterBase &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  Decomposer dec(b, AttentionConfig::get(op));
  if (failed(checkScoreModDifferentiable(dec.config)) ||
      failed(dec.init(op, op.getQuery(), op.getKey())))
    return failure();
  dec.headDimV = op.getValue().getType().getDimSize(dec.ld.dim);
  auto d = [&](unsigned i) { return dec.d(i); };
  Value q5 = dec.queryToGrouped(op.getQuery(), nullptr);
  Value k4 = dec.keyToF32(op.getKey(), nullptr);
  Value v4 = dec.keyToF32(op.getValue(), nullptr);
  Value o5 = dec.queryToGrouped(op.getOutput(), nullptr);
  Value dO5 = dec.queryToGrouped(op.getGradOutput(), nullptr);
  Value lse5 = dec.lseToGrouped(op.getLse());

  Value qk = dec.products(q5, k4);
  Value s = dec.scores(qk, op.getBias());
  Value p = dec.probabilitiesFromLse(s, lse5);
  // With score_mod, d score / d(scale qk + bias) from the region's ops
  // (softcap's included); without, the softcap's from the score alone.
  Value derivatives =
      dec.config.scoreMod ? dec.scoreDerivatives(qk, op.getBias()) : Value();

  SmallVector<OpFoldResult> rowSizes = {dec.batch, dec.headsKV, dec.group,
                                        dec.seqQ};
  SmallVector<OpFoldResult> sSizes = {dec.batch, dec.headsKV, dec.group,
                                      dec.seqQ, dec.seqK};
  OpFoldResult dimQK = b.getIndexAttr(dec.headDim);
  OpFoldResult dimV = b.getIndexAttr(dec.headDimV);
  // D = rowsum(dO * O): (b, hk, g, i, e)
  Value rowD = dec.contract(dO5, dec.map(5, {d(0), d(1), d(2), d(3), d(4)}),
                            o5, dec.map(5, {d(0), d(1), d(2), d(3), d(4)}),
                            dec.map(5, {d(0), d(1), d(2), d(3)}),
                            {kPar, kPar, kPar, kPar, kRed}, rowSizes);
  // dV = Pᵀ dO summed over the group: (b, hk, j, e, g, i)
  Value dV = dec.contract(p, dec.map(6, {d(0), d(1), d(4), d(5), d(2)}), dO5,
                          dec.map(6, {d(0), d(1), d(4), d(5), d(3)}),
                          dec.map(6, {d(0), d(1), d(2), d(3)}),
                          {kPar, kPar, kPar, kPar, kRed, kRed},
                          {dec.batch, dec.headsKV, dec.seqK, dimV});
  // dP = dO Vᵀ: (b, hk, g, i, j, e)
  Value dP = dec.contract(dO5, dec.map(6, {d(0), d(1), d(2), d(3), d(5)}), v4,
                          dec.map(6, {d(0), d(1), d(4), d(5)}),
                          dec.map(6, {d(0), d(1), d(2), d(3), d(4)}),
                          {kPar, kPar, kPar, kPar, kPar, kRed}, sSizes);
  // dS = P (dP - D) times d score / d(scale*QKᵀ + bias) (score_mod's and
  // the softcap's): the gradient of the score before them.
  AffineMap id5 = AffineMap::getMultiDimIdentityMap(5, b.getContext());
  AffineMap row5 = dec.map(5, {d(0), d(1), d(2), d(3)});
  SmallVector<Value> dSIns = {p, dP, rowD, s};
  SmallVector<AffineMap> dSMaps = {id5, id5, row5, id5};
  if (derivatives) {
    dSIns.push_back(derivatives);
    dSMaps.push_back(id5);
  }
  Value dS = dec.elementwise(
      dSIns, dSMaps, sSizes, b.getF32Type(), [&](ValueRange a) -> Value {
        Value g = arith::MulFOp::create(b, a[0],
                                        arith::SubFOp::create(b, a[1], a[2]));
        Value deriv = derivatives ? a[4]
                                  : dec.config.emitScoreDerivative(b, a[3]);
        if (deriv) {
          // Hidden scores are -inf, where P is 0: keep 0 * inf out.
          Value hidden = arith::CmpFOp::create(
              b, arith::CmpFPredicate::OEQ, a[3],
              dec.f32(-std::numeric_limits<double>::infinity()));
          g = arith::SelectOp::create(b, hidden, dec.f32(0),
                                      arith::MulFOp::create(b, g, deriv));
        }
        return g;
      });
  double scale = dec.config.scale;
  auto scaled = [&](Value t) {
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, b.getLoc(), t);
    unsigned rank = sizes.size();
    return dec.elementwise({t}, {AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
                           sizes, b.getF32Type(), [&](ValueRange a) -> Value {
                             return arith::MulFOp::create(b, a[0],
                                                          dec.f32(scale));
                           });
  };
  // dQ = scale dS K: (b, hk, g, i, d, j)
  Value dQ = scaled(dec.contract(
      dS, dec.map(6, {d(0), d(1), d(2), d(3), d(5)}), k4,
      dec.map(6, {d(0), d(1), d(5), d(4)}),
      dec.map(6, {d(0), d(1), d(2), d(3), d(4)}),
      {kPar, kPar, kPar, kPar, kPar, kRed},
      {dec.batch, dec.headsKV, dec.group, dec.seqQ, dimQK}));
  // dK = scale dSᵀ Q summed over the group: (b, hk, j, d, g, i)
  Value dK = scaled(dec.contract(
      dS, dec.map(6, {d(0), d(1), d(4), d(5), d(2)}), q5,
      dec.map(6, {d(0), d(1), d(4), d(5), d(3)}),
      dec.map(6, {d(0), d(1), d(2), d(3)}),
      {kPar, kPar, kPar, kPar, kRed, kRed},
      {dec.batch, dec.headsKV, dec.seqK, dimQK}));

  auto keyToOutput = [&](Value t, RankedTensorType type) {
    Type elementType = type.getElementType();
    if (!elementType.isF32())
      t = dec.elementwise({t}, {AffineMap::getMultiDimIdentityMap(4, b.getContext())},
                          tensor::getMixedSizes(b, b.getLoc(), t), elementType,
                          [&](ValueRange a) -> Value {
                            return arith::TruncFOp::create(b, elementType,
                                                           a[0]);
                          });
    t = dec.swapSeqHeads(t);
    if (t.getType() != type)
      t = tensor::CastOp::create(b, type, t);
    return t;
  };
  SmallVector<Value> results = {
      dec.groupedToOutput(dQ, op.getGradQuery().getType()),
      keyToOutput(dK, op.getGradKey().getType()),
      keyToOutput(dV, op.getGradValue().getType())};
  if (op.getBias())
    results.push_back(dec.gradBias(dS, op.getBias().getType()));
  if (op.getSinks())
    results.push_back(dec.gradSinks(rowD, lse5, op.getSinks().getType()));
  rewriter.replaceOp(op, results);
  return success();
}

struct FADecomposeAttentionPass
    : public fa::impl::FADecomposeAttentionBase<FADecomposeAttentionPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Per-sequence fa.attention ops first; the walk below lowers them.
    lowerSequenceOps(getOperation(), rewriter);
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionGradOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      LogicalResult result =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case<AttentionOp, AttentionGradOp>(
                  [&](auto typed) { return decompose(typed, rewriter); });
      if (failed(result))
        return signalPassFailure();
    }
    // num_splits is a hint for the tiled lowering: the oracle never splits,
    // but merges the fa.combine ops it is given.
    lowerCombines(getOperation(), rewriter);
  }
};

} // namespace
