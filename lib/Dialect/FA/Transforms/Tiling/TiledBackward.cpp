//===- TiledBackward.cpp - FlashAttention-2 backward loop nests -----------===//
//
// Three nests, all built from the forward's pieces (tile loops, MaskBounds,
// ScoreTile, OperandTiles), so that the backward recomputes exactly the
// forward's scores and skips exactly the forward's hidden tiles:
//
//   D = rowsum(dO * O)                        forall (b, h, query tile)
//
//   forall (b, kv head, key tile) {           dK, dV (and dBias)
//     for each query head g of the group, for each query tile that sees
//     the key tile {
//       S = scores(Q Kᵀ); P = exp2(S - log2(e) LSE)
//       dV += Pᵀ dO; dP = dO Vᵀ; dS = P (dP - D) S'(softcap)
//       dK += dSᵀ Q; dBias += dS
//     }
//     dK *= scale
//   }
//
//   forall (b, h, query tile) {               dQ (deterministic)
//     for each key tile the query tile sees: recompute P, dS; dQ += dS K
//     dQ *= scale
//   }
//
// With dq-accumulation=atomic the third nest is not built: the dK/dV nest
// also forms dS K for each (query tile, key tile) and adds it into an f32
// [B, Hq, Sq, D] buffer with memref.atomic_rmw (one recomputation of P
// instead of two; the summation order, and so the rounding, varies).
//
// Attention sinks change nothing in the nests (the sink has no value row,
// and P comes from the forward's LSE, which includes it); their gradient
// dSinks_h = -sum over (b, i) of exp(sink_h - LSE) D is one reduction of D
// and the LSE after the D nest.
//
// Grouped-query heads: the dK/dV nest owns a kv head and loops over the
// query heads sharing it, so the group sum needs no atomics. When the bias
// is broadcast over batch (or heads), dBias sums over them: the nest then
// keeps that dimension inside the iteration instead of parallel over it.
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
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::tiling;

namespace {
constexpr double kLog2E = 1.4426950408889634;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The recomputed probabilities and the gradient of the pre-softcap score
/// for one tile.
struct TileGrads {
  Value prob, dS;
};

/// Per query tile inputs of the backward.
struct QueryRows {
  Value q, gradOut, lse2, delta;
};

class BackwardNest : NestContext<AttentionGradOp> {
public:
  using NestContext::NestContext;

  SmallVector<Value> build();

private:
  Value rowDeltas();
  /// dSinks [heads_q] from D and the LSE (see the file comment).
  Value gradSinks(Value delta);
  /// dK, dV (and dBias); with `dqBuffer`, also adds dS K into it atomically.
  SmallVector<Value> keyNest(Value delta, Value dqBuffer);
  Value queryNest(Value delta);
  /// A zeroed f32 [B, Hq, Sq, D] memref for atomic dQ accumulation.
  Value atomicDQBuffer();
  /// buffer[bi, h, rows, :] += part, element by element, atomically.
  void atomicAddRows(Value buffer, Value part, Value bi, Value h, Span rows);
  /// dQ = scale * buffer, in the query's type and layout.
  Value dqFromBuffer(Value buffer);

  QueryRows queryRows(Value delta, Value bi, Value h, Span rows);
  TileGrads tileGrads(const QueryRows &rows, Value kT, Value vT, Value bias,
                      Span rowSpan, Span cols, TileHead at);
  std::pair<Value, Value> keyTileRange(Span rows);
  std::pair<Value, Value> queryTileRange(Span cols);
  /// Writes `acc * factor` into the region of `dest` (rank-reduced),
  /// converted to dest's element type. An f32 `acc` must already be that
  /// region (see `accumulator` in keyNest).
  Value storeScaled(Value dest, ArrayRef<OpFoldResult> offsets,
                    ArrayRef<OpFoldResult> sizes, Value acc, double factor);

};

SmallVector<Value> BackwardNest::build() {
  Value delta = rowDeltas();
  bool atomic = options.dqAccumulation == DQAccumulation::atomic;
  Value dqBuffer = atomic ? atomicDQBuffer() : Value();
  SmallVector<Value> keyGrads = keyNest(delta, dqBuffer);
  Value dQ = atomic ? dqFromBuffer(dqBuffer) : queryNest(delta);
  SmallVector<Value> results = {dQ, keyGrads[0], keyGrads[1]};
  if (op.getBias())
    results.push_back(keyGrads[2]);
  if (op.getSinks())
    results.push_back(gradSinks(delta));
  for (auto [result, expected] : llvm::zip(results, op.getResults()))
    if (result.getType() != expected.getType())
      result = tensor::CastOp::create(tb.b, expected.getType(), result);
  return results;
}

std::pair<Value, Value> BackwardNest::keyTileRange(Span rows) {
  if (bounds.hasMask())
    return modTiles.keyTiles(
        rows, bounds.tileRange(bounds.keyRange(rows), options.blockK));
  return modTiles.keyTiles(
      rows, {tb.index(0), arith::CeilDivSIOp::create(
                              tb.b, p.seqK, tb.index(options.blockK))});
}

std::pair<Value, Value> BackwardNest::queryTileRange(Span cols) {
  if (bounds.hasMask())
    return modTiles.queryTiles(
        cols, bounds.tileRange(bounds.queryRange(cols), options.blockQ));
  return modTiles.queryTiles(
      cols, {tb.index(0), arith::CeilDivSIOp::create(
                              tb.b, p.seqQ, tb.index(options.blockQ))});
}

Value BackwardNest::storeScaled(Value dest, ArrayRef<OpFoldResult> offsets,
                                ArrayRef<OpFoldResult> sizes, Value acc,
                                double factor) {
  ImplicitLocOpBuilder &b = tb.b;
  Type elt = cast<RankedTensorType>(dest.getType()).getElementType();
  if (elt.isF32()) {
    // `acc` already lives in dest's region: scale it in place.
    if (factor == 1.0)
      return acc;
    return tb.update(acc, {}, [&](ValueRange a) -> Value {
      return arith::MulFOp::create(b, a[0], tb.f32(factor));
    });
  }
  return tb.update(tb.extractRegion(dest, offsets, sizes), {acc},
                   [&](ValueRange a) -> Value {
                     Value x = a[0];
                     if (factor != 1.0)
                       x = arith::MulFOp::create(b, x, tb.f32(factor));
                     if (elt.isF32())
                       return x;
                     return arith::TruncFOp::create(b, elt, x);
                   });
}

Value BackwardNest::rowDeltas() {
  ImplicitLocOpBuilder &b = tb.b;
  Value numQTiles =
      arith::CeilDivSIOp::create(b, p.seqQ, tb.index(options.blockQ));
  return buildForall(
      tb, {p.batch, p.headsQ, numQTiles},
      {tb.emptyF32({p.batch, p.headsQ, p.seqQ})},
      [&](ValueRange ivs, ValueRange shared) -> SmallVector<TileWrite> {
        Value bi = ivs[0], h = ivs[1];
        Span rows = tb.block(ivs[2], options.blockQ, p.seqQ);
        TileWrite w{nullptr, 0, {bi, h, rows.start},
                    {b.getIndexAttr(1), b.getIndexAttr(1), rows.len}};
        Value dest = tb.extractRegion(shared[0], w.offsets, w.sizes);
        dest = linalg::FillOp::create(b, tb.f32(0), dest).getResult(0);
        w.source = tb.rowDot(
            tb.extractRows(op.getGradOutput(), p.ld, bi, h, rows),
            tb.extractRows(op.getOutput(), p.ld, bi, h, rows), dest);
        return {w};
      })[0];
}

Value BackwardNest::gradSinks(Value delta) {
  ImplicitLocOpBuilder &b = tb.b;
  MLIRContext *ctx = b.getContext();
  using utils::IteratorType;
  AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
  AffineMap head = AffineMap::get(3, 0, {getAffineDimExpr(1, ctx)}, ctx);
  Value init = tb.fillF32({p.headsQ}, 0.0);
  // (b, h, i): -exp(sink_h - LSE) D summed into [h]; a row with LSE -inf
  // (no sink, no visible key) has D = 0 and adds 0, not NaN.
  return tb.generic(
      {delta, op.getLse(), op.getSinks()}, init, {id3, id3, head, head},
      {IteratorType::reduction, IteratorType::parallel,
       IteratorType::reduction},
      [&](ValueRange a) -> Value {
        Value pSink =
            math::ExpOp::create(b, arith::SubFOp::create(b, a[2], a[1]));
        Value none = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, a[1],
                                           tb.f32(-kInf));
        Value term = arith::SelectOp::create(
            b, none, tb.f32(0), arith::MulFOp::create(b, pSink, a[0]));
        return arith::SubFOp::create(b, a[3], term);
      });
}

QueryRows BackwardNest::queryRows(Value delta, Value bi, Value h, Span rows) {
  ImplicitLocOpBuilder &b = tb.b;
  QueryRows r;
  r.q = tiles.rowsF32(op.getQuery(), bi, h, rows, nullptr);
  // dO and K in f32 (views where they are f32 already), so that the
  // contractions reading them are the vectorized f32 ones.
  r.gradOut = tiles.rowsF32(op.getGradOutput(), bi, h, rows, nullptr);
  Value lse = tb.extractRowVector(op.getLse(), bi, h, rows);
  // A fully hidden row has LSE -inf and scores -inf: subtract 0 instead so
  // that P = exp2(-inf) = 0, not NaN.
  r.lse2 = tb.map1d({lse}, lse, [&](ValueRange a) -> Value {
    Value none = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, a[0],
                                       tb.f32(-kInf));
    return arith::SelectOp::create(
        b, none, tb.f32(0), arith::MulFOp::create(b, a[0], tb.f32(kLog2E)));
  });
  r.delta = tb.extractRowVector(delta, bi, h, rows);
  return r;
}

TileGrads BackwardNest::tileGrads(const QueryRows &r, Value kT, Value vT,
                                  Value bias, Span rows, Span cols,
                                  TileHead at) {
  ImplicitLocOpBuilder &b = tb.b;
  Value qk = tb.matmul(r.q, kT, tb.fillF32({rows.len, cols.len}, 0.0));
  Value s = scores.scores(qk, bias, rows, cols, at);
  // With score_mod, d S / d(scale qk + bias) from the region's ops (the
  // softcap's included); without, the softcap's from S alone.
  Value derivs =
      config.scoreMod ? scores.derivatives(qk, bias, rows, cols, at) : Value();
  bool needScores = config.softcap || derivs;
  auto exp2Minus = [&](ValueRange a) -> Value {
    return math::Exp2Op::create(b, arith::SubFOp::create(b, a[0], a[1]));
  };
  // Without a softcap the scores are not needed after P: overwrite them.
  Value prob = needScores
                   ? tb.map2d({s, r.lse2}, s, exp2Minus)
                   : tb.update(s, {r.lse2}, [&](ValueRange a) {
                       return exp2Minus({a[1], a[0]});
                     });
  Value dP = tb.matmul(r.gradOut, vT, tb.fillF32({rows.len, cols.len}, 0.0));
  SmallVector<Value> ins = {prob, r.delta};
  if (needScores)
    ins.push_back(s);
  if (derivs)
    ins.push_back(derivs);
  Value dS = tb.update(dP, ins, [&](ValueRange a) -> Value {
    // a = (P, D, [S, [dS/dpre]], dP)
    Value dPv = a.back();
    Value g = arith::MulFOp::create(b, a[0], arith::SubFOp::create(b, dPv, a[1]));
    Value deriv = derivs ? a[3]
                         : scores.derivative(needScores ? a[2] : Value());
    if (deriv) {
      // Hidden scores are -inf where P is 0: keep 0 * inf out.
      Value hidden = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, a[2],
                                           tb.f32(-kInf));
      g = arith::SelectOp::create(b, hidden, tb.f32(0),
                                  arith::MulFOp::create(b, g, deriv));
    }
    return g;
  });
  return {prob, dS};
}

Value BackwardNest::atomicDQBuffer() {
  ImplicitLocOpBuilder &b = tb.b;
  SmallVector<OpFoldResult> sizes =
      tb.folded({p.batch, p.headsQ, p.seqQ, tb.index(p.headDim)});
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  for (OpFoldResult size : sizes) {
    std::optional<int64_t> c = getConstantIntValue(size);
    shape.push_back(c.value_or(ShapedType::kDynamic));
    if (!c)
      dynamic.push_back(cast<Value>(size));
  }
  Value buffer = memref::AllocOp::create(
      b, MemRefType::get(shape, b.getF32Type()), dynamic);
  linalg::FillOp::create(b, ValueRange{tb.f32(0)}, ValueRange{buffer});
  return buffer;
}

void BackwardNest::atomicAddRows(Value buffer, Value part, Value bi, Value h,
                                 Span rows) {
  ImplicitLocOpBuilder &b = tb.b;
  Value rowCount = getValueOrCreateConstantIndexOp(b, b.getLoc(), rows.len);
  Value rowStart = getValueOrCreateConstantIndexOp(b, b.getLoc(), rows.start);
  scf::ForOp::create(
      b, tb.index(0), rowCount, tb.index(1), ValueRange{},
      [&](OpBuilder &nb, Location loc, Value i, ValueRange) {
        scf::ForOp::create(
            nb, loc, tb.index(0), tb.index(p.headDim), tb.index(1),
            ValueRange{},
            [&](OpBuilder &ib, Location l, Value j, ValueRange) {
              ImplicitLocOpBuilder ilb(l, ib);
              Value v = tensor::ExtractOp::create(ilb, part, ValueRange{i, j});
              Value row = arith::AddIOp::create(ilb, rowStart, i);
              memref::AtomicRMWOp::create(ilb, arith::AtomicRMWKind::addf, v,
                                          buffer, ValueRange{bi, h, row, j});
              scf::YieldOp::create(ilb);
            });
        scf::YieldOp::create(nb, loc);
      });
}

Value BackwardNest::dqFromBuffer(Value buffer) {
  ImplicitLocOpBuilder &b = tb.b;
  auto bufferType = cast<MemRefType>(buffer.getType());
  Value all = bufferization::ToTensorOp::create(
      b, RankedTensorType::get(bufferType.getShape(), b.getF32Type()), buffer,
      /*restrict=*/true, /*writable=*/true);
  auto outType = cast<RankedTensorType>(op.getGradQuery().getType());
  Value init = tensor::EmptyOp::create(b, tb.sizesOf(op.getQuery()),
                                       outType.getElementType());
  // Output dimension i of the layout reads buffer dimension role(i).
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> read(4);
  read[0] = getAffineDimExpr(p.ld.batch, ctx);
  read[1] = getAffineDimExpr(p.ld.heads, ctx);
  read[2] = getAffineDimExpr(p.ld.seq, ctx);
  read[3] = getAffineDimExpr(p.ld.dim, ctx);
  Type elt = outType.getElementType();
  double scale = config.scale;
  return linalg::GenericOp::create(
             b, init.getType(), ValueRange{all}, ValueRange{init},
             ArrayRef<AffineMap>{AffineMap::get(4, 0, read, ctx),
                                 AffineMap::getMultiDimIdentityMap(4, ctx)},
             SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
             "", "",
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               ImplicitLocOpBuilder ib(loc, nb);
               Value x = arith::MulFOp::create(
                   ib, args[0],
                   arith::ConstantOp::create(ib, ib.getF32FloatAttr(scale)));
               if (!elt.isF32())
                 x = arith::TruncFOp::create(ib, elt, x);
               linalg::YieldOp::create(ib, ValueRange{x});
             })
      .getResult(0);
}

SmallVector<Value> BackwardNest::keyNest(Value delta, Value dqBuffer) {
  ImplicitLocOpBuilder &b = tb.b;
  Value bias = op.getBias();
  // A bias shared by all batches (heads) sums dBias over them: keep that
  // dimension inside one iteration rather than parallel.
  bool serialBatch = bias && OperandTiles::broadcastsBatch(bias);
  bool serialHeads = bias && OperandTiles::broadcastsHeads(bias);
  Value numKTiles =
      arith::CeilDivSIOp::create(b, p.seqK, tb.index(options.blockK));
  SmallVector<OpFoldResult> ubs = {
      serialBatch ? b.getIndexAttr(1) : OpFoldResult(p.batch),
      serialHeads ? b.getIndexAttr(1) : OpFoldResult(p.headsKV), numKTiles};

  SmallVector<Value> outputs = {
      tensor::EmptyOp::create(b, tb.sizesOf(op.getKey()),
                              op.getKey().getType().getElementType()),
      tensor::EmptyOp::create(b, tb.sizesOf(op.getValue()),
                              op.getValue().getType().getElementType())};
  if (bias)
    outputs.push_back(tensor::EmptyOp::create(
        b, tb.sizesOf(bias), cast<RankedTensorType>(bias.getType())
                                 .getElementType()));

  return buildForall(
      tb, ubs, outputs,
      [&](ValueRange ivs, ValueRange shared) -> SmallVector<TileWrite> {
        Span cols = tb.block(bounds.hasMask() || modTiles.active()
                                 ? tb.interleaved(ivs[2], numKTiles)
                                 : ivs[2],
                             options.blockK, p.seqK);
        Span batches = serialBatch ? Span{tb.index(0), p.batch}
                                   : Span{ivs[0], tb.index(1)};
        Span kvHeads = serialHeads ? Span{tb.index(0), p.headsKV}
                                   : Span{ivs[1], tb.index(1)};
        // The iteration's region of dK/dV: [batches, kvHeads, cols, :].
        auto keyRegion = [&](int64_t dim, Span bs, Span hs, Span ss) {
          SmallVector<OpFoldResult> offsets(4), sizes(4);
          offsets[p.ld.batch] = bs.start;
          sizes[p.ld.batch] = bs.len;
          offsets[p.ld.heads] = hs.start;
          sizes[p.ld.heads] = hs.len;
          offsets[p.ld.seq] = ss.start;
          sizes[p.ld.seq] = ss.len;
          offsets[p.ld.dim] = b.getIndexAttr(0);
          sizes[p.ld.dim] = b.getIndexAttr(dim);
          return std::make_pair(tb.folded(offsets), tb.folded(sizes));
        };
        auto [kOffsets, kSizes] = keyRegion(p.headDim, batches, kvHeads, cols);
        auto [vOffsets, vSizes] = keyRegion(p.headDimV, batches, kvHeads, cols);
        auto strides = SmallVector<OpFoldResult>(4, b.getIndexAttr(1));
        // An f32 gradient accumulates in its own region of the result (no copy
        // at the end); other types accumulate in f32 and convert once.
        auto accumulator = [&](Value strip, ArrayRef<OpFoldResult> offsets,
                               ArrayRef<OpFoldResult> sizes, int64_t dim,
                               Span cols) -> Value {
          if (cast<RankedTensorType>(strip.getType()).getElementType().isF32())
            return linalg::FillOp::create(
                       b, tb.f32(0), tb.extractRegion(strip, offsets, sizes))
                .getResult(0);
          return tb.fillF32({cols.len, b.getIndexAttr(dim)}, 0.0);
        };
        Value dKStrip = tensor::ExtractSliceOp::create(b, shared[0], kOffsets,
                                                       kSizes, strides);
        Value dVStrip = tensor::ExtractSliceOp::create(b, shared[1], vOffsets,
                                                       vSizes, strides);
        // dBias of this iteration: [batches|1, heads_q of kvHeads|1, seq_q,
        // cols] accumulated in f32.
        SmallVector<OpFoldResult> biasOffsets, biasSizes;
        Value dBiasStrip;
        if (bias) {
          Value headsQStart = tb.mul(kvHeads.start, p.group);
          biasOffsets = {serialBatch ? OpFoldResult(b.getIndexAttr(0))
                                     : OpFoldResult(batches.start),
                         serialHeads ? OpFoldResult(b.getIndexAttr(0))
                                     : OpFoldResult(headsQStart),
                         b.getIndexAttr(0), cols.start};
          biasSizes = {serialBatch ? OpFoldResult(b.getIndexAttr(1))
                                   : OpFoldResult(batches.len),
                       serialHeads ? OpFoldResult(b.getIndexAttr(1))
                                   : OpFoldResult(tb.mul(kvHeads.len, p.group)),
                       p.seqQ, cols.len};
          if (cast<RankedTensorType>(bias.getType()).getElementType().isF32())
            dBiasStrip = linalg::FillOp::create(
                             b, tb.f32(0),
                             tensor::ExtractSliceOp::create(
                                 b, shared[2], biasOffsets, biasSizes, strides)
                                 .getResult())
                             .getResult(0);
          else
            dBiasStrip = tb.fillF32(biasSizes, 0.0);
        }

        SmallVector<Value> init = {dKStrip, dVStrip};
        if (bias)
          init.push_back(dBiasStrip);
        SmallVector<Value> done = buildFor(
            tb, batches.start, tb.add(batches.start, batches.len), init,
            [&](Value bi, ValueRange c1) {
              return buildFor(
                  tb, kvHeads.start, tb.add(kvHeads.start, kvHeads.len), c1,
                  [&](Value hk, ValueRange c2) -> SmallVector<Value> {
                    Value kT = tiles.rowsF32Transposed(op.getKey(), bi, hk,
                                                       cols, nullptr);
                    Value vT = tiles.rowsF32Transposed(op.getValue(), bi, hk,
                                                       cols, nullptr);
                    // This (bi, hk)'s rows of the iteration's dK/dV strips.
                    Span one = {tb.sub(bi, batches.start), tb.index(1)};
                    Span oneHead = {tb.sub(hk, kvHeads.start), tb.index(1)};
                    Span allCols = {tb.index(0), cols.len};
                    auto [lkOff, lkSize] =
                        keyRegion(p.headDim, one, oneHead, allCols);
                    auto [lvOff, lvSize] =
                        keyRegion(p.headDimV, one, oneHead, allCols);
                    SmallVector<Value> accInit = {
                        accumulator(c2[0], lkOff, lkSize, p.headDim, cols),
                        accumulator(c2[1], lvOff, lvSize, p.headDimV, cols)};
                    if (bias)
                      accInit.push_back(c2[2]);
                    std::pair<Value, Value> queryTiles = queryTileRange(cols);
                    SmallVector<Value> acc = buildFor(
                        tb, tb.index(0), p.group, accInit,
                        [&](Value g, ValueRange c3) {
                          Value h = tb.add(tb.mul(hk, p.group), g);
                          return buildTileFor(
                              tb, queryTiles, options.blockQ, p.seqQ, c3,
                              [&](Span rows, ValueRange c4) {
                                return modTiles.unlessHidden(
                                    rows, cols, {bi, h}, c4,
                                    [&]() -> SmallVector<Value> {
                                      QueryRows r =
                                          queryRows(delta, bi, h, rows);
                                      Value biasTile = tiles.biasTile(
                                          bias, bi, h, rows, cols);
                                      TileGrads grads =
                                          tileGrads(r, kT, vT, biasTile, rows,
                                                    cols, {bi, h});
                                      if (dqBuffer) {
                                        Value k = tiles.rowsF32(
                                            op.getKey(), bi, hk, cols, nullptr);
                                        Value part = tb.matmul(
                                            grads.dS, k,
                                            tb.fillF32(
                                                {rows.len,
                                                 b.getIndexAttr(p.headDim)},
                                                0.0));
                                        atomicAddRows(dqBuffer, part, bi, h,
                                                      rows);
                                      }
                                      SmallVector<Value> next = {
                                          tb.matmul(grads.dS, r.q, c4[0], true),
                                          tb.matmul(grads.prob, r.gradOut,
                                                    c4[1], true)};
                                      if (bias) {
                                        SmallVector<OpFoldResult> offsets = {
                                            serialBatch
                                                ? OpFoldResult(
                                                      b.getIndexAttr(0))
                                                : OpFoldResult(tb.sub(
                                                      bi, batches.start)),
                                            serialHeads
                                                ? OpFoldResult(
                                                      b.getIndexAttr(0))
                                                : OpFoldResult(tb.sub(
                                                      h, tb.mul(kvHeads.start,
                                                                p.group))),
                                            rows.start, b.getIndexAttr(0)};
                                        SmallVector<OpFoldResult> sizes = {
                                            b.getIndexAttr(1),
                                            b.getIndexAttr(1), rows.len,
                                            cols.len};
                                        Value region = tb.extractRegion(
                                            c4[2], offsets, sizes);
                                        Value sum = tb.update(
                                            region, {grads.dS},
                                            [&](ValueRange a) -> Value {
                                              return arith::AddFOp::create(
                                                  b, a[1], a[0]);
                                            });
                                        next.push_back(
                                            tensor::InsertSliceOp::create(
                                                b, sum, c4[2], offsets, sizes,
                                                SmallVector<OpFoldResult>(
                                                    4, b.getIndexAttr(1))));
                                      }
                                      return next;
                                    });
                              });
                        });
                    Value dK =
                        storeScaled(c2[0], lkOff, lkSize, acc[0], config.scale);
                    Value dV = storeScaled(c2[1], lvOff, lvSize, acc[1], 1.0);
                    SmallVector<Value> next = {
                        tensor::InsertSliceOp::create(b, dK, c2[0], lkOff,
                                                      lkSize, strides),
                        tensor::InsertSliceOp::create(b, dV, c2[1], lvOff,
                                                      lvSize, strides)};
                    if (bias)
                      next.push_back(acc[2]);
                    return next;
                  });
            });
        SmallVector<TileWrite> writes = {{done[0], 0, kOffsets, kSizes},
                                         {done[1], 1, vOffsets, vSizes}};
        if (bias) {
          Type elt = cast<RankedTensorType>(bias.getType()).getElementType();
          Value dBias = done[2];
          if (!elt.isF32()) {
            Value dest = tensor::ExtractSliceOp::create(
                b, shared[2], biasOffsets, biasSizes, strides);
            dBias = tb.update(dest, {dBias}, [&](ValueRange a) -> Value {
              return arith::TruncFOp::create(b, elt, a[0]);
            });
          }
          writes.push_back({dBias, 2, biasOffsets, biasSizes});
        }
        return writes;
      });
}

Value BackwardNest::queryNest(Value delta) {
  ImplicitLocOpBuilder &b = tb.b;
  Value numQTiles =
      arith::CeilDivSIOp::create(b, p.seqQ, tb.index(options.blockQ));
  Value init = tensor::EmptyOp::create(b, tb.sizesOf(op.getQuery()),
                                       op.getQuery().getType().getElementType());
  return buildForall(
      tb, {p.batch, p.headsQ, numQTiles}, {init},
      [&](ValueRange ivs, ValueRange shared) -> SmallVector<TileWrite> {
        Value bi = ivs[0], h = ivs[1];
        Value hk = tiles.kvHead(h);
        Span rows = tb.block(bounds.hasMask() || modTiles.active()
                                 ? tb.interleaved(ivs[2], numQTiles)
                                 : ivs[2],
                             options.blockQ, p.seqQ);
        QueryRows r = queryRows(delta, bi, h, rows);
        TileWrite w{nullptr, 0, {}, {}};
        tb.rowsRegion(p.ld, bi, h, rows, p.headDim, w.offsets, w.sizes);
        Value acc0 =
            op.getQuery().getType().getElementType().isF32()
                ? linalg::FillOp::create(
                      b, tb.f32(0),
                      tb.extractRegion(shared[0], w.offsets, w.sizes))
                      .getResult(0)
                : tb.fillF32({rows.len, b.getIndexAttr(p.headDim)}, 0.0);
        Value acc = buildTileFor(
            tb, keyTileRange(rows), options.blockK, p.seqK, {acc0},
            [&](Span cols, ValueRange c) {
              return modTiles.unlessHidden(
                  rows, cols, {bi, h}, c, [&]() -> SmallVector<Value> {
                    Value kT = tiles.rowsF32Transposed(op.getKey(), bi, hk,
                                                       cols, nullptr);
                    Value vT = tiles.rowsF32Transposed(op.getValue(), bi, hk,
                                                       cols, nullptr);
                    TileGrads grads = tileGrads(
                        r, kT, vT,
                        tiles.biasTile(op.getBias(), bi, h, rows, cols), rows,
                        cols, {bi, h});
                    Value k = tiles.rowsF32(op.getKey(), bi, hk, cols, nullptr);
                    return {tb.matmul(grads.dS, k, c[0])};
                  });
            })[0];
        w.source = storeScaled(shared[0], w.offsets, w.sizes, acc,
                               config.scale);
        return {w};
      })[0];
}

} // namespace

LogicalResult mlir::fa::tiling::tileBackward(AttentionGradOp op,
                                             RewriterBase &rewriter,
                                             const TileOptions &options) {
  if (failed(checkScoreModDifferentiable(AttentionConfig::get(op))))
    return failure();
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  BackwardNest nest(op, b, options);
  rewriter.replaceOp(op, nest.build());
  return success();
}
