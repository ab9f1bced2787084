//===- TiledForward.cpp - FlashAttention forward loop nest ----------------===//
//
//   scf.forall (b, h, query tile) {
//     Q tile -> f32; m = -inf, l = 0, acc = 0
//     scf.for key tile in the tiles some row of the query tile sees {
//       S = scores(Q Kᵀ)                  (log2 domain; mask on boundary tiles)
//       m' = max(m, rowmax S); P = exp2(S - m'); alpha = exp2(m - m')
//       l = alpha l + rowsum P; acc = alpha acc + P V
//     }
//     O = acc / l (0 where l = 0); LSE = ln2 m + ln l (-inf where l = 0)
//   }
//
// Attention sinks start the state at m = log2(e) sink_h, l = 1: the sink is
// one more key with no value row (under split-KV, in split 0 only).
//
// A row whose keys are all hidden keeps m = -inf; its max is replaced by 0
// before subtracting, so that P = exp2(-inf) = 0 rather than NaN.
//
// Split-KV (`num_splits`): the forall gets a fourth dimension, the split;
// split c walks only its share of the key tiles (the intersection with the
// tiles the mask leaves), and writes an f32 partial O and LSE into
// [splits, batch, heads_q, seq_q(, dim_v)] buffers that fa.combine merges.
// Key positions stay global, so the masks need no offset.
//
//===----------------------------------------------------------------------===//
#include "MaskBounds.h"
#include "NestContext.h"
#include "OperandTiles.h"
#include "ScoreTile.h"
#include "TileLoops.h"
#include "Tiling.h"

#include "fa/Dialect/FA/Transforms/AttentionConfig.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::tiling;

namespace {
constexpr double kLn2 = 0.6931471805599453;
constexpr double kLog2E = 1.4426950408889634;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The online-softmax state of one query tile.
struct RunningSoftmax {
  Value max, sum, acc;
};

/// The key tiles [index * tilesPerSplit, (index + 1) * tilesPerSplit) of
/// one split.
struct KeySplit {
  Value index, tilesPerSplit;
};

class ForwardNest : NestContext<AttentionOp> {
public:
  using NestContext::NestContext;

  SmallVector<Value> build();

private:
  SmallVector<Value> buildSplit(int64_t numSplits);
  /// The number of splits when the op leaves it to the lowering: enough
  /// (batch, head, query tile) items to occupy `options.cores` cores, at
  /// most one split per key tile and at most kMaxSplits.
  Value splitHeuristic(Value numQTiles);
  Value numKeyTiles();
  std::pair<Value, Value> keyTiles(Span rows, const KeySplit *split);
  SmallVector<TileWrite> queryTile(Value bi, Value h, Value qt,
                                   ValueRange shared,
                                   const KeySplit *split = nullptr);
  /// m = -inf, l = 0, acc = 0, or the sink's state (see the file comment).
  RunningSoftmax initialState(Value h, Span rows, const KeySplit *split);
  RunningSoftmax step(const RunningSoftmax &state, Value q, Value bi, Value h,
                      Value hk, Span rows, Span cols);
  /// Entry `i` of 'descale_block' (0: query, 1: key/value); 0 without it.
  int64_t descaleBlock(unsigned i) {
    std::optional<ArrayRef<int64_t>> blocks = op.getDescaleBlock();
    return blocks ? (*blocks)[i] : 0;
  }
};

SmallVector<Value> ForwardNest::build() {
  std::optional<uint64_t> numSplits = op.getNumSplits();
  if (numSplits && *numSplits != 1)
    return buildSplit(static_cast<int64_t>(*numSplits));
  ImplicitLocOpBuilder &b = tb.b;
  SmallVector<OpFoldResult> outSizes = tb.sizesOf(op.getQuery());
  outSizes[p.ld.dim] = b.getIndexAttr(p.headDimV);
  SmallVector<Value> outputs = {tensor::EmptyOp::create(
      b, outSizes, op.getOutput().getType().getElementType())};
  if (op.getLse())
    outputs.push_back(tb.emptyF32({p.batch, p.headsQ, p.seqQ}));
  Value numQTiles = arith::CeilDivSIOp::create(b, p.seqQ,
                                               tb.index(options.blockQ));
  SmallVector<Value> results =
      buildForall(tb, {p.batch, p.headsQ, numQTiles}, outputs,
                  [&](ValueRange ivs, ValueRange shared) {
                    Value qt = bounds.hasMask() || modTiles.active()
                                   ? tb.interleaved(ivs[2], numQTiles)
                                   : ivs[2];
                    return queryTile(ivs[0], ivs[1], qt, shared);
                  });
  for (auto [result, expected] : llvm::zip(results, op.getResults()))
    if (result.getType() != expected.getType())
      result = tensor::CastOp::create(b, expected.getType(), result);
  return results;
}

Value ForwardNest::numKeyTiles() {
  return arith::CeilDivSIOp::create(tb.b, p.seqK, tb.index(options.blockK));
}

Value ForwardNest::splitHeuristic(Value numQTiles) {
  constexpr int64_t kMaxSplits = 64;
  Value items = tb.mul(tb.mul(p.batch, p.headsQ), numQTiles);
  Value wanted = tb.divSI(tb.index(options.cores), tb.maxSI(items, tb.index(1)));
  Value cap = tb.minSI(numKeyTiles(), tb.index(kMaxSplits));
  return tb.maxSI(tb.minSI(wanted, cap), tb.index(1));
}

SmallVector<Value> ForwardNest::buildSplit(int64_t numSplits) {
  ImplicitLocOpBuilder &b = tb.b;
  Value numQTiles = arith::CeilDivSIOp::create(b, p.seqQ,
                                               tb.index(options.blockQ));
  Value splits = numSplits > 0 ? tb.index(numSplits) : splitHeuristic(numQTiles);
  Value tilesPerSplit = arith::CeilDivSIOp::create(b, numKeyTiles(), splits);
  SmallVector<Value> partials = {
      tb.emptyF32({splits, p.batch, p.headsQ, p.seqQ, b.getIndexAttr(p.headDimV)}),
      tb.emptyF32({splits, p.batch, p.headsQ, p.seqQ})};
  SmallVector<Value> merged = buildForall(
      tb, {splits, p.batch, p.headsQ, numQTiles}, partials,
      [&](ValueRange ivs, ValueRange shared) {
        KeySplit split{ivs[0], tilesPerSplit};
        return queryTile(ivs[1], ivs[2], ivs[3], shared, &split);
      });
  // The merged output in bhsd order, with the op's static sizes.
  RankedTensorType outType = op.getOutput().getType();
  Type outElt = outType.getElementType();
  SmallVector<int64_t> bhsd = {outType.getDimSize(p.ld.batch),
                               outType.getDimSize(p.ld.heads),
                               outType.getDimSize(p.ld.seq), p.headDimV};
  auto combine = CombineOp::create(
      b, RankedTensorType::get(bhsd, outElt),
      RankedTensorType::get(ArrayRef<int64_t>(bhsd).drop_back(), b.getF32Type()),
      merged[0], merged[1]);
  SmallVector<Value> results = {combine.getOutput()};
  if (p.ld.seq != 2) { // bshd: [batch, heads, seq, dim] -> [batch, seq, heads, dim]
    SmallVector<OpFoldResult> sizes = tb.sizesOf(op.getQuery());
    sizes[p.ld.dim] = b.getIndexAttr(p.headDimV);
    Value init = tensor::EmptyOp::create(b, sizes, outElt);
    results[0] = linalg::TransposeOp::create(b, results[0], init,
                                             ArrayRef<int64_t>{0, 2, 1, 3})
                     .getResult()[0];
  }
  if (op.getLse())
    results.push_back(combine.getLse());
  for (auto [result, expected] : llvm::zip(results, op.getResults()))
    if (result.getType() != expected.getType())
      result = tensor::CastOp::create(b, expected.getType(), result);
  return results;
}

std::pair<Value, Value> ForwardNest::keyTiles(Span rows, const KeySplit *split) {
  std::pair<Value, Value> range = modTiles.keyTiles(
      rows, bounds.hasMask()
                ? bounds.tileRange(bounds.keyRange(rows), options.blockK)
                : std::pair<Value, Value>{tb.index(0), numKeyTiles()});
  if (!split)
    return range;
  Value lo = tb.mul(split->index, split->tilesPerSplit);
  Value hi = tb.add(lo, split->tilesPerSplit);
  return {tb.maxSI(range.first, lo), tb.minSI(range.second, hi)};
}

SmallVector<TileWrite> ForwardNest::queryTile(Value bi, Value h, Value qt,
                                              ValueRange shared,
                                              const KeySplit *split) {
  ImplicitLocOpBuilder &b = tb.b;
  Value hk = tiles.kvHead(h);
  Span rows = tb.block(qt, options.blockQ, p.seqQ);
  Value q = tiles.rowsF32(op.getQuery(), bi, h, rows,
                          tiles.rowDescales(op.getQueryDescale(), bi, hk, h,
                                            rows, descaleBlock(0)));

  RunningSoftmax init = initialState(h, rows, split);
  SmallVector<Value> final =
      buildTileFor(tb, keyTiles(rows, split), options.blockK, p.seqK,
                   {init.max, init.sum, init.acc},
                   [&](Span cols, ValueRange c) -> SmallVector<Value> {
                     return modTiles.unlessHidden(
                         rows, cols, {bi, h}, c, [&]() -> SmallVector<Value> {
                           RunningSoftmax next = step({c[0], c[1], c[2]}, q, bi,
                                                      h, hk, rows, cols);
                           return {next.max, next.sum, next.acc};
                         });
                   });
  Value max = final[0], sum = final[1], acc = final[2];

  // O = acc * descale_v / l, written straight into the output's region;
  // a per-tensor or per-head V descale is constant over the tile (a
  // per-block one was applied to V's rows).
  Value vScale = tiles.descale(op.getValueDescale(), bi, hk);
  Value rowFactor = tb.map1d({sum}, sum, [&](ValueRange a) -> Value {
    Value num = vScale ? vScale : tb.f32(1.0);
    Value empty =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, a[0], tb.f32(0));
    return arith::SelectOp::create(b, empty, tb.f32(0),
                                   arith::DivFOp::create(b, num, a[0]));
  });
  Type outElt = split ? b.getF32Type()
                      : op.getOutput().getType().getElementType();
  TileWrite o{nullptr, 0, {}, {}};
  if (split) {
    o.offsets = {split->index, bi, h, rows.start, b.getIndexAttr(0)};
    o.sizes = {b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(1),
               rows.len, b.getIndexAttr(p.headDimV)};
  } else {
    tb.rowsRegion(p.ld, bi, h, rows, p.headDimV, o.offsets, o.sizes);
  }
  o.source = tb.update(tb.extractRegion(shared[0], o.offsets, o.sizes),
                       {acc, rowFactor}, [&](ValueRange a) -> Value {
                         Value x = arith::MulFOp::create(b, a[0], a[1]);
                         if (outElt.isF32())
                           return x;
                         return arith::TruncFOp::create(b, outElt, x);
                       });
  SmallVector<TileWrite> writes = {o};
  if (op.getLse() || split) {
    TileWrite l{nullptr, 1, {bi, h, rows.start},
                {b.getIndexAttr(1), b.getIndexAttr(1), rows.len}};
    if (split) {
      l.offsets.insert(l.offsets.begin(), split->index);
      l.sizes.insert(l.sizes.begin(), b.getIndexAttr(1));
    }
    l.source = tb.update(tb.extractRegion(shared[1], l.offsets, l.sizes),
                         {max, sum}, [&](ValueRange a) -> Value {
      Value empty =
          arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, a[1], tb.f32(0));
      Value v = arith::AddFOp::create(
          b, arith::MulFOp::create(b, a[0], tb.f32(kLn2)),
          math::LogOp::create(b, a[1]));
      return arith::SelectOp::create(b, empty, tb.f32(-kInf), v);
    });
    writes.push_back(l);
  }
  return writes;
}

RunningSoftmax ForwardNest::initialState(Value h, Span rows,
                                         const KeySplit *split) {
  ImplicitLocOpBuilder &b = tb.b;
  Value max = tb.f32(-kInf), sum = tb.f32(0.0);
  if (Value sinks = op.getSinks()) {
    Value sink = tensor::ExtractOp::create(b, sinks, ValueRange{h});
    max = arith::MulFOp::create(b, sink, tb.f32(kLog2E));
    // A sink of -inf is no sink: l = exp2(-inf - -inf) would be NaN.
    Value present = arith::CmpFOp::create(b, arith::CmpFPredicate::ONE, sink,
                                          tb.f32(-kInf));
    sum = arith::SelectOp::create(b, present, tb.f32(1.0), tb.f32(0.0));
    if (split) {
      Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                          split->index, tb.index(0));
      max = arith::SelectOp::create(b, first, max, tb.f32(-kInf));
      sum = arith::SelectOp::create(b, first, sum, tb.f32(0.0));
    }
  }
  return {tb.fillF32({rows.len}, max), tb.fillF32({rows.len}, sum),
          tb.fillF32({rows.len, b.getIndexAttr(p.headDimV)}, 0.0)};
}

RunningSoftmax ForwardNest::step(const RunningSoftmax &state, Value q,
                                 Value bi, Value h, Value hk, Span rows,
                                 Span cols) {
  ImplicitLocOpBuilder &b = tb.b;
  Value kT = tiles.rowsF32Transposed(
      op.getKey(), bi, hk, cols,
      tiles.rowDescales(op.getKeyDescale(), bi, hk, hk, cols,
                        descaleBlock(1)));
  // V in f32 once per key tile, so that P V is an f32 contraction, which
  // fa-cpu-tile-blocks vectorizes (one reading bf16 or FP8 stays scalar).
  // A per-block descale varies along the key rows, so it is applied here;
  // the others are applied to O at the end.
  Value vDescale = op.getValueDescale();
  Value v = tiles.rowsF32(
      op.getValue(), bi, hk, cols,
      OperandTiles::isPerBlock(vDescale)
          ? tiles.rowDescales(vDescale, bi, hk, hk, cols, descaleBlock(1))
          : nullptr);
  Value qk = tb.matmul(q, kT, tb.fillF32({rows.len, cols.len}, 0.0));
  Value s = scores.scores(
      qk, tiles.biasTile(op.getBias(), bi, h, rows, cols), rows, cols, {bi, h});

  Value tileMax = tb.reduceRows(s, -kInf, [&](Value acc, Value x) -> Value {
    return arith::MaximumFOp::create(b, acc, x);
  });
  // A row with every key hidden so far has max -inf: subtract 0 instead, so
  // that exp2(-inf - 0) = 0 rather than NaN.
  auto safe = [&](Value max) -> Value {
    Value none = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, max,
                                       tb.f32(-kInf));
    return arith::SelectOp::create(b, none, tb.f32(0), max);
  };
  // The loop-carried state is updated in place (reads of the old max come
  // first), so that it bufferizes into the loop's own buffers.
  Value alpha = tb.map1d({state.max, tileMax}, tileMax,
                         [&](ValueRange a) -> Value {
                           Value max = arith::MaximumFOp::create(b, a[0], a[1]);
                           return math::Exp2Op::create(
                               b, arith::SubFOp::create(b, a[0], safe(max)));
                         });
  Value max = tb.update(state.max, {tileMax}, [&](ValueRange a) -> Value {
    return arith::MaximumFOp::create(b, a[1], a[0]);
  });
  Value safeMax = tb.map1d({max}, max,
                           [&](ValueRange a) { return safe(a[0]); });
  Value prob = tb.update(s, {safeMax}, [&](ValueRange a) -> Value {
    return math::Exp2Op::create(b, arith::SubFOp::create(b, a[1], a[0]));
  });
  Value tileSum = tb.reduceRows(prob, 0.0, [&](Value acc, Value x) -> Value {
    return arith::AddFOp::create(b, acc, x);
  });
  Value sum = tb.update(state.sum, {alpha, tileSum}, [&](ValueRange a) -> Value {
    return arith::AddFOp::create(b, arith::MulFOp::create(b, a[2], a[0]), a[1]);
  });
  Value rescaled = tb.update(state.acc, {alpha}, [&](ValueRange a) -> Value {
    return arith::MulFOp::create(b, a[1], a[0]);
  });
  return {max, sum, tb.matmul(prob, v, rescaled)};
}

} // namespace

LogicalResult mlir::fa::tiling::tileForward(AttentionOp op,
                                            RewriterBase &rewriter,
                                            const TileOptions &options) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  ForwardNest nest(op, b, options);
  rewriter.replaceOp(op, nest.build());
  return success();
}
