//===- LowerKVCache.cpp - fa.attention_kvcache as per-sequence ops --------===//
//
//   caches = scf.for b, scf.for t < seq_new:            (with append only)
//              insert key[b, t] at (page, row) of position cache_seqlens[b] + t
//   scf.for b carrying (O, LSE):
//     n = cache_seqlens[b] + seq_new
//     K_b, V_b = cache[b, :n]                  (contiguous: a slice)
//              | scf.for page j < ceil(n / page_size): insert its rows
//     O[b], LSE[b] = fa.attention q[b], K_b, V_b {bshd, bottom_right masks}
//
// A paged sequence's keys are gathered into one [1, n, heads_kv, dim]
// tensor: memory linear in the sequence, and the dense nest then walks its
// key tiles without knowing about pages (see docs/Inference.md).
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/Transforms/LowerKVCache.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

class KVCacheLowering {
public:
  KVCacheLowering(AttentionKVCacheOp op, ImplicitLocOpBuilder &b)
      : op(op), b(b) {}

  SmallVector<Value> build();

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value dim(Value t, int64_t d) {
    return getValueOrCreateConstantIndexOp(
        b, b.getLoc(), tensor::getMixedSize(b, b.getLoc(), t, d));
  }
  /// element `indices` of an i32 tensor, as an index.
  Value readIndex(Value t, ValueRange indices);
  /// (cache row, slot) of position `pos` of sequence `bi`.
  std::pair<Value, Value> slotOf(Value bi, Value pos);
  /// The region [d0, d1, 0, 0] of sizes [1, rows, heads, dim] of a rank-4
  /// tensor.
  Value slice(Value t, Value d0, Value d1, Value rows);
  /// `tile` into `into` at `offsets` (then zeros), with the tile's sizes.
  Value insert(Value tile, Value into, ValueRange offsets);
  /// The caches with seq_new tokens of every sequence written in.
  std::pair<Value, Value> append();
  /// [1, n, heads_kv, dim]: the first `n` keys (or values) of sequence bi.
  Value sequenceKeys(Value cache, Value bi, Value n);
  AttentionOp sequenceAttention(Value bi, Value kc, Value vc);

  AttentionKVCacheOp op;
  ImplicitLocOpBuilder &b;
};

Value KVCacheLowering::readIndex(Value t, ValueRange indices) {
  Value v = tensor::ExtractOp::create(b, t, indices);
  return arith::IndexCastOp::create(b, b.getIndexType(), v);
}

std::pair<Value, Value> KVCacheLowering::slotOf(Value bi, Value pos) {
  if (!op.getBlockTable())
    return {bi, pos};
  Value pageSize = dim(op.getKeyCache(), 1);
  Value page = readIndex(op.getBlockTable(),
                         {bi, arith::DivUIOp::create(b, pos, pageSize)});
  return {page, arith::RemUIOp::create(b, pos, pageSize)};
}

Value KVCacheLowering::slice(Value t, Value d0, Value d1, Value rows) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<OpFoldResult> offsets = {d0, d1, b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), rows,
                                     tensor::getMixedSize(b, b.getLoc(), t, 2),
                                     b.getIndexAttr(type.getDimSize(3))};
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, t, offsets, sizes, strides);
}

Value KVCacheLowering::insert(Value tile, Value into, ValueRange offsets) {
  auto rank = cast<RankedTensorType>(into.getType()).getRank();
  SmallVector<OpFoldResult> at(offsets.begin(), offsets.end());
  at.resize(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, b.getLoc(), tile);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  // Copied by a linalg op into the destination's own region, so that
  // bufferization writes it in place: a plain insert_slice of a strided
  // slice becomes memref.copy, which the CPU lowering leaves to a runtime
  // library call (memrefCopy).
  Value region = tensor::ExtractSliceOp::create(
      b, cast<RankedTensorType>(tile.getType()), into, at, sizes, strides);
  Value copied = linalg::CopyOp::create(b, tile, region).getResult(0);
  return tensor::InsertSliceOp::create(b, copied, into, at, sizes, strides);
}

std::pair<Value, Value> KVCacheLowering::append() {
  Value batch = dim(op.getQuery(), 0), seqNew = dim(op.getKey(), 1);
  auto outer = scf::ForOp::create(
      b, index(0), batch, index(1),
      ValueRange{op.getKeyCache(), op.getValueCache()},
      [&](OpBuilder &, Location, Value bi, ValueRange caches) {
        Value start = readIndex(op.getCacheSeqlens(), {bi});
        auto inner = scf::ForOp::create(
            b, index(0), seqNew, index(1), caches,
            [&](OpBuilder &, Location, Value t, ValueRange c) {
              auto [row, col] = slotOf(bi, arith::AddIOp::create(b, start, t));
              Value one = index(1);
              Value k = insert(slice(op.getKey(), bi, t, one), c[0], {row, col});
              Value v = insert(slice(op.getValue(), bi, t, one), c[1], {row, col});
              scf::YieldOp::create(b, ValueRange{k, v});
            });
        scf::YieldOp::create(b, inner.getResults());
      });
  return {outer.getResult(0), outer.getResult(1)};
}

Value KVCacheLowering::sequenceKeys(Value cache, Value bi, Value n) {
  if (!op.getBlockTable())
    return slice(cache, bi, index(0), n);
  auto type = cast<RankedTensorType>(cache.getType());
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), n,
                                     tensor::getMixedSize(b, b.getLoc(), cache, 2),
                                     b.getIndexAttr(type.getDimSize(3))};
  Value gathered = tensor::EmptyOp::create(b, sizes, type.getElementType());
  Value pageSize = dim(cache, 1);
  Value pages = arith::CeilDivUIOp::create(b, n, pageSize);
  auto loop = scf::ForOp::create(
      b, index(0), pages, index(1), ValueRange{gathered},
      [&](OpBuilder &, Location, Value j, ValueRange g) {
        Value first = arith::MulIOp::create(b, j, pageSize);
        Value rows = arith::MinUIOp::create(
            b, pageSize, arith::SubIOp::create(b, n, first));
        Value page = readIndex(op.getBlockTable(), {bi, j});
        Value tile = slice(cache, page, index(0), rows);
        scf::YieldOp::create(b, insert(tile, g[0], {index(0), first}));
      });
  return loop.getResult(0);
}

AttentionOp KVCacheLowering::sequenceAttention(Value bi, Value kc, Value vc) {
  Value seqNew = op.getKey() ? dim(op.getKey(), 1) : index(0);
  Value n = arith::AddIOp::create(b, readIndex(op.getCacheSeqlens(), {bi}),
                                  seqNew);
  Value q = slice(op.getQuery(), bi, index(0), dim(op.getQuery(), 1));
  Value k = sequenceKeys(kc, bi, n), v = sequenceKeys(vc, bi, n);
  auto qType = cast<RankedTensorType>(q.getType());
  auto outType = RankedTensorType::get(
      {1, qType.getDimSize(1), qType.getDimSize(2),
       cast<RankedTensorType>(v.getType()).getDimSize(3)},
      qType.getElementType());
  auto lseType = RankedTensorType::get(
      {1, qType.getDimSize(2), qType.getDimSize(1)}, b.getF32Type());
  bool masked = op.getCausal() || op.getWindow();
  return AttentionOp::create(
      b, outType, lseType, q, k, v, Value(), Value(), Value(), Value(),
      Layout::bshd, op.getScaleAttr(), op.getCausal(),
      masked ? MaskAlignmentAttr::get(b.getContext(), MaskAlignment::bottom_right)
             : MaskAlignmentAttr(),
      op.getWindowAttr(), op.getSoftcapAttr(), op.getNumSplitsAttr());
}

SmallVector<Value> KVCacheLowering::build() {
  Value kc = op.getKeyCache(), vc = op.getValueCache();
  if (op.getKey())
    std::tie(kc, vc) = append();
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  auto lseType = cast<RankedTensorType>(op.getLse().getType());
  Value batch = dim(op.getQuery(), 0), seqQ = dim(op.getQuery(), 1);
  Value headsQ = dim(op.getQuery(), 2);
  auto dynSizes = [&](RankedTensorType t, ArrayRef<Value> sizes) {
    SmallVector<Value> dyn;
    for (auto [d, size] : llvm::enumerate(sizes))
      if (t.isDynamicDim(d))
        dyn.push_back(size);
    return dyn;
  };
  Value out0 = tensor::EmptyOp::create(
      b, outType, dynSizes(outType, {batch, seqQ, headsQ}));
  Value lse0 = tensor::EmptyOp::create(
      b, lseType, dynSizes(lseType, {batch, headsQ, seqQ}));
  auto loop = scf::ForOp::create(
      b, index(0), batch, index(1), ValueRange{out0, lse0},
      [&](OpBuilder &, Location, Value bi, ValueRange acc) {
        AttentionOp attn = sequenceAttention(bi, kc, vc);
        Value o = insert(attn.getOutput(), acc[0], {bi});
        Value l = insert(attn.getLse(), acc[1], {bi});
        scf::YieldOp::create(b, ValueRange{o, l});
      });
  SmallVector<Value> results = {loop.getResult(0), loop.getResult(1)};
  if (op.getKey())
    results.append({kc, vc});
  return results;
}

} // namespace

void mlir::fa::lowerKVCacheOps(Operation *root, RewriterBase &rewriter) {
  SmallVector<AttentionKVCacheOp> ops;
  root->walk([&](AttentionKVCacheOp op) { ops.push_back(op); });
  for (AttentionKVCacheOp op : ops) {
    rewriter.setInsertionPoint(op);
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    KVCacheLowering lowering(op, b);
    rewriter.replaceOp(op, lowering.build());
  }
}
