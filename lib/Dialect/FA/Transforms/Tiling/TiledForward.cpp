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
// A row whose keys are all hidden keeps m = -inf; its max is replaced by 0
// before subtracting, so that P = exp2(-inf) = 0 rather than NaN.
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
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::tiling;

namespace {
constexpr double kLn2 = 0.6931471805599453;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The online-softmax state of one query tile.
struct RunningSoftmax {
  Value max, sum, acc;
};

class ForwardNest : NestContext<AttentionOp> {
public:
  using NestContext::NestContext;

  SmallVector<Value> build();

private:
  SmallVector<TileWrite> queryTile(Value bi, Value h, Value qt,
                                   ValueRange shared);
  RunningSoftmax step(const RunningSoftmax &state, Value q, Value bi, Value h,
                      Value hk, Span rows, Span cols);

};

SmallVector<Value> ForwardNest::build() {
  ImplicitLocOpBuilder &b = tb.b;
  SmallVector<OpFoldResult> outSizes = tb.sizesOf(op.getQuery());
  outSizes[p.ld.dim] = b.getIndexAttr(p.headDimV);
  SmallVector<Value> outputs = {tensor::EmptyOp::create(
      b, outSizes, op.getOutput().getType().getElementType())};
  if (op.getLse())
    outputs.push_back(tb.emptyF32({p.batch, p.headsQ, p.seqQ}));
  Value numQTiles = arith::CeilDivSIOp::create(b, p.seqQ,
                                               tb.index(options.blockQ));
  SmallVector<Value> results = buildForall(
      tb, {p.batch, p.headsQ, numQTiles}, outputs,
      [&](ValueRange ivs, ValueRange shared) {
        Value qt = bounds.hasMask() ? tb.interleaved(ivs[2], numQTiles)
                                    : ivs[2];
        return queryTile(ivs[0], ivs[1], qt, shared);
      });
  for (auto [result, expected] : llvm::zip(results, op.getResults()))
    if (result.getType() != expected.getType())
      result = tensor::CastOp::create(b, expected.getType(), result);
  return results;
}

SmallVector<TileWrite> ForwardNest::queryTile(Value bi, Value h, Value qt,
                                              ValueRange shared) {
  ImplicitLocOpBuilder &b = tb.b;
  Value hk = tiles.kvHead(h);
  Span rows = tb.block(qt, options.blockQ, p.seqQ);
  Value q = tiles.rowsF32(op.getQuery(), bi, h, rows,
                          tiles.descale(op.getQueryDescale(), bi, hk));

  RunningSoftmax init = {
      tb.fillF32({rows.len}, -kInf), tb.fillF32({rows.len}, 0.0),
      tb.fillF32({rows.len, b.getIndexAttr(p.headDimV)}, 0.0)};
  std::pair<Value, Value> keyTiles =
      bounds.hasMask()
          ? bounds.tileRange(bounds.keyRange(rows), options.blockK)
          : std::pair<Value, Value>{
                tb.index(0), arith::CeilDivSIOp::create(
                                 b, p.seqK, tb.index(options.blockK))};
  SmallVector<Value> final = buildTileFor(
      tb, keyTiles, options.blockK, p.seqK, {init.max, init.sum, init.acc},
      [&](Span cols, ValueRange c) -> SmallVector<Value> {
        RunningSoftmax next = step({c[0], c[1], c[2]}, q, bi, h, hk, rows,
                                   cols);
        return {next.max, next.sum, next.acc};
      });
  Value max = final[0], sum = final[1], acc = final[2];

  // O = acc * descale_v / l, written straight into the output's region;
  // the V descale is constant over the tile.
  Value vScale = tiles.descale(op.getValueDescale(), bi, hk);
  Value rowFactor = tb.map1d({sum}, sum, [&](ValueRange a) -> Value {
    Value num = vScale ? vScale : tb.f32(1.0);
    Value empty =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, a[0], tb.f32(0));
    return arith::SelectOp::create(b, empty, tb.f32(0),
                                   arith::DivFOp::create(b, num, a[0]));
  });
  Type outElt = op.getOutput().getType().getElementType();
  TileWrite o{nullptr, 0, {}, {}};
  tb.rowsRegion(p.ld, bi, h, rows, p.headDimV, o.offsets, o.sizes);
  o.source = tb.update(tb.extractRegion(shared[0], o.offsets, o.sizes),
                       {acc, rowFactor}, [&](ValueRange a) -> Value {
                         Value x = arith::MulFOp::create(b, a[0], a[1]);
                         if (outElt.isF32())
                           return x;
                         return arith::TruncFOp::create(b, outElt, x);
                       });
  SmallVector<TileWrite> writes = {o};
  if (op.getLse()) {
    TileWrite l{nullptr, 1, {bi, h, rows.start},
                {b.getIndexAttr(1), b.getIndexAttr(1), rows.len}};
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

RunningSoftmax ForwardNest::step(const RunningSoftmax &state, Value q,
                                 Value bi, Value h, Value hk, Span rows,
                                 Span cols) {
  ImplicitLocOpBuilder &b = tb.b;
  Value kT = tiles.rowsF32Transposed(op.getKey(), bi, hk, cols,
                                     tiles.descale(op.getKeyDescale(), bi, hk));
  // V in f32 once per key tile, so that P V is an f32 contraction, which
  // fa-cpu-tile-blocks vectorizes (one reading bf16 or FP8 stays scalar).
  // Its descale is applied to O at the end.
  Value v = tiles.rowsF32(op.getValue(), bi, hk, cols, /*factor=*/nullptr);
  Value qk = tb.matmul(q, kT, tb.fillF32({rows.len, cols.len}, 0.0));
  Value s = scores.scores(
      qk, tiles.biasTile(op.getBias(), bi, h, rows, cols), rows, cols);

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
