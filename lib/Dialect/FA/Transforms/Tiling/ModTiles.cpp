//===- ModTiles.cpp - Tiles mask_mod skips or leaves unmasked -------------===//
#include "ModTiles.h"
#include "TileLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::tiling;

/// The static value of `v`, 0 when dynamic.
static int64_t staticOr0(Value v) { return getConstantIntValue(v).value_or(0); }

ModTiles::ModTiles(TileBuilder &tb, const AttentionConfig &config,
                   const Problem &p, const TileOptions &options)
    : tb(tb), blockQ(options.blockQ), blockK(options.blockK) {
  if (!config.maskMod)
    return;
  std::optional<int64_t> seqQ = getConstantIntValue(p.seqQ);
  std::optional<int64_t> seqK = getConstantIntValue(p.seqK);
  if (seqQ && seqK)
    mask =
        BlockMask::analyze(*config.maskMod, staticOr0(p.batch),
                           staticOr0(p.headsQ), *seqQ, *seqK, blockQ, blockK);
  if (mask && mask->decidesSome()) {
    buildStatic(*mask);
    return;
  }
  mask.reset();
  buildRuntime(config, p);
}

void ModTiles::buildStatic(const BlockMask &mask) {
  int64_t nq = mask.numQueryTiles(), nk = mask.numKeyTiles();
  SmallVector<int32_t> k(nq * nk), klo(nq), khi(nq), qlo(nk), qhi(nk);
  for (int64_t qt = 0; qt < nq; ++qt) {
    std::tie(klo[qt], khi[qt]) = mask.keyTiles(qt);
    for (int64_t kt = 0; kt < nk; ++kt)
      k[qt * nk + kt] = static_cast<int32_t>(mask.at(qt, kt));
  }
  for (int64_t kt = 0; kt < nk; ++kt)
    std::tie(qlo[kt], qhi[kt]) = mask.queryTiles(kt);
  kinds = table(k, {nq, nk});
  keyLo = table(klo, {nq});
  keyHi = table(khi, {nq});
  queryLo = table(qlo, {nk});
  queryHi = table(qhi, {nk});
}

void ModTiles::buildRuntime(const AttentionConfig &config, const Problem &p) {
  ImplicitLocOpBuilder &b = tb.b;
  Block &region = config.maskMod->front();
  perBatch = !region.getArgument(0).use_empty();
  perHead = !region.getArgument(1).use_empty();
  Value batches = perBatch ? p.batch : tb.index(1);
  Value heads = perHead ? p.headsQ : tb.index(1);
  // Static tile counts where the lengths are, so the map's type is static.
  auto numTiles = [&](Value seq, int64_t block) -> Value {
    if (std::optional<int64_t> n = getConstantIntValue(seq))
      return tb.index(llvm::divideCeil(*n, block));
    return arith::CeilDivSIOp::create(b, seq, tb.index(block));
  };
  Value numQ = numTiles(p.seqQ, blockQ);
  Value numK = numTiles(p.seqK, blockK);
  Value init = tensor::EmptyOp::create(
      b, tb.folded({batches, heads, numQ, numK}), b.getI32Type());
  // One (batch, head, query tile) per iteration: its row of the map.
  kinds = buildForall(
      tb, {batches, heads, numQ}, {init},
      [&](ValueRange ivs, ValueRange shared) -> SmallVector<TileWrite> {
        Span rows = tb.block(ivs[2], blockQ, p.seqQ);
        TileWrite w{nullptr,
                    0,
                    {ivs[0], ivs[1], ivs[2], b.getIndexAttr(0)},
                    tb.folded({b.getIndexAttr(1), b.getIndexAttr(1),
                               b.getIndexAttr(1), numK})};
        Value row = tb.extractRegion(shared[0], w.offsets, w.sizes);
        w.source =
            buildFor(tb, tb.index(0), numK, {row},
                     [&](Value kt, ValueRange c) -> SmallVector<Value> {
                       Span cols = tb.block(kt, blockK, p.seqK);
                       Value kind =
                           tileKind(config, ivs[0], ivs[1], rows, cols);
                       return {tensor::InsertOp::create(b, kind, c[0], kt)};
                     })[0];
        return {w};
      })[0];
}

Value ModTiles::tileKind(const AttentionConfig &config, Value bi, Value h,
                         Span rows, Span cols) {
  ImplicitLocOpBuilder &b = tb.b;
  Value zero = arith::ConstantOp::create(b, b.getI32IntegerAttr(0));
  Value one = arith::ConstantOp::create(b, b.getI32IntegerAttr(1));
  auto end = [&](Span s) { return tb.add(s.start, s.len); };
  // The number of elements mask_mod hides, by scalar loops.
  Value hiddenCount =
      buildFor(tb, rows.start, end(rows), {zero}, [&](Value i, ValueRange c1) {
        return buildFor(
            tb, cols.start, end(cols), c1,
            [&](Value j, ValueRange c2) -> SmallVector<Value> {
              Value hides = config.emitMaskModHides(b, {bi, h, i, j});
              return {
                  tb.add(c2[0], arith::SelectOp::create(b, hides, one, zero))};
            });
      })[0];
  Value total =
      arith::IndexCastOp::create(b, b.getI32Type(), tb.mul(rows.len, cols.len));
  auto kind = [&](TileMask m) {
    return arith::ConstantOp::create(
        b, b.getI32IntegerAttr(static_cast<int32_t>(m)));
  };
  Value none = tb.cmp(arith::CmpIPredicate::eq, hiddenCount, zero);
  Value all = tb.cmp(arith::CmpIPredicate::eq, hiddenCount, total);
  return tb.select(
      none, kind(TileMask::visible),
      tb.select(all, kind(TileMask::hidden), kind(TileMask::partial)));
}

Value ModTiles::table(ArrayRef<int32_t> values, ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, tb.b.getI32Type());
  return arith::ConstantOp::create(tb.b,
                                   DenseIntElementsAttr::get(type, values));
}

Value ModTiles::read(Value table, ValueRange indices) {
  Value v = tensor::ExtractOp::create(tb.b, table, indices);
  return arith::IndexCastOp::create(tb.b, tb.b.getIndexType(), v);
}

Value ModTiles::tileOf(Span span, int64_t block) {
  return tb.divSI(span.start, tb.index(block));
}

std::pair<Value, Value> ModTiles::narrow(std::pair<Value, Value> range,
                                         Value lo, Value hi, Value tile) {
  if (!mask)
    return range;
  return {tb.maxSI(range.first, read(lo, tile)),
          tb.minSI(range.second, read(hi, tile))};
}

std::pair<Value, Value> ModTiles::keyTiles(Span rows,
                                           std::pair<Value, Value> range) {
  return narrow(range, keyLo, keyHi, mask ? tileOf(rows, blockQ) : Value());
}

std::pair<Value, Value> ModTiles::queryTiles(Span cols,
                                             std::pair<Value, Value> range) {
  return narrow(range, queryLo, queryHi, mask ? tileOf(cols, blockK) : Value());
}

Value ModTiles::kindIs(Span rows, Span cols, TileHead at, TileMask kind) {
  SmallVector<Value> indices;
  if (!mask) // the run-time map's [B', H'] first
    indices = {perBatch ? at.batch : tb.index(0),
               perHead ? at.head : tb.index(0)};
  indices.push_back(tileOf(rows, blockQ));
  indices.push_back(tileOf(cols, blockK));
  return tb.cmp(arith::CmpIPredicate::eq, read(kinds, indices),
                tb.index(static_cast<int64_t>(kind)));
}

Value ModTiles::hidden(Span rows, Span cols, TileHead at) {
  if (!kinds || (mask && !mask->hasHiddenInside()))
    return nullptr;
  return kindIs(rows, cols, at, TileMask::hidden);
}

Value ModTiles::visible(Span rows, Span cols, TileHead at) {
  if (!kinds || (mask && !mask->hasVisible()))
    return nullptr;
  return kindIs(rows, cols, at, TileMask::visible);
}

SmallVector<Value>
ModTiles::unlessHidden(Span rows, Span cols, TileHead at, ValueRange carried,
                       function_ref<SmallVector<Value>()> body) {
  Value skip = hidden(rows, cols, at);
  if (!skip)
    return body();
  ImplicitLocOpBuilder &b = tb.b;
  auto ifOp = scf::IfOp::create(b, carried.getTypes(), skip,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, carried);
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, body());
  return SmallVector<Value>(ifOp.getResults());
}
