//===- LowerSequences.cpp - Ragged and cached attention per sequence ------===//
//
// fa.attention_kvcache:
//   caches = scf.for b, scf.for t < seq_new:            (with append only)
//              insert key[b, t] at (page, row) of position cache_seqlens[b] + t
//   scf.for b carrying (O, LSE):
//     n = cache_seqlens[b] + seq_new
//     K_b, V_b = cache[b, :n]                  (contiguous: a slice)
//              | scf.for page j < ceil(n / page_size): insert its rows
//     O[b], LSE[b] = fa.attention q[b], K_b, V_b {bshd, bottom_right masks}
//
// fa.attention_varlen:
//   scf.for b carrying (O, LSE):
//     O[cu_q[b]:cu_q[b+1]], LSE[:, cu_q[b]:cu_q[b+1]] =
//         fa.attention q[cu_q[b]:..], k[cu_k[b]:..], v[cu_k[b]:..] {bshd}
//
// fa.attention_varlen_grad:
//   scf.for b carrying (dQ, dK, dV), zero-filled first:
//     dQ[cu_q[b]:..], dK[cu_k[b]:..], dV[cu_k[b]:..] =
//         fa.attention_grad do[..], q[..], k[..], v[..], o[..], lse[:, ..]
//         {bshd}
//
// score_mod / mask_mod travel to the per-sequence op with the op's
// positions (docs/Modifiers.md, "On the inference ops"): the sequence index
// b and, for a KV cache, the queries' offset n - seq_q become two more
// index captures, and the cloned regions read b from the first and add the
// offset to their query index (SequenceModifiers::rebaseInto).
//
// A paged sequence's keys are gathered into one [1, n, heads_kv, dim]
// tensor: memory linear in the sequence, and the dense nest then walks its
// key tiles without knowing about pages (see docs/Inference.md).
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/Transforms/LowerSequences.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

/// A sequence op's score_mod and mask_mod regions and their captures, which
/// its per-sequence op takes with the positions of the sequence.
struct SequenceModifiers {
  Region &scoreMod, &maskMod;
  ValueRange captures;

  template <typename OpT> static SequenceModifiers of(OpT op) {
    return {op.getScoreMod(), op.getMaskMod(), op.getCaptures()};
  }
  bool empty() const { return scoreMod.empty() && maskMod.empty(); }
  /// The per-sequence op's captures: these, the sequence index and the row
  /// offset (when given); none without regions.
  SmallVector<Value> sequenceCaptures(Value bi, Value rowOffset) const;
  /// Clones the regions into `scoreModTo` / `maskModTo`, rebased: their
  /// batch argument is replaced by the sequence-index capture and their
  /// query index i by i + the row-offset capture (`withOffset`).
  void rebaseInto(OpBuilder &b, Region &scoreModTo, Region &maskModTo,
                  bool withOffset) const;
};

/// What both lowerings are written in: index scalars, i32 reads and tile
/// copies.
class SequenceBuilder {
public:
  explicit SequenceBuilder(ImplicitLocOpBuilder &b) : b(b) {}

protected:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value dim(Value t, int64_t d) {
    return getValueOrCreateConstantIndexOp(
        b, b.getLoc(), tensor::getMixedSize(b, b.getLoc(), t, d));
  }
  /// tensor.empty of `type`, its dynamic dims from `sizes` (one per dim).
  Value empty(RankedTensorType type, ArrayRef<Value> sizes) {
    SmallVector<Value> dynamic;
    for (auto [d, size] : llvm::enumerate(sizes))
      if (type.isDynamicDim(d))
        dynamic.push_back(size);
    return tensor::EmptyOp::create(b, type, dynamic);
  }
  /// Element `indices` of an i32 tensor, as an index.
  Value readIndex(Value t, ValueRange indices);
  /// `tile` into `into` at `offsets` (then zeros), with the tile's sizes.
  Value insert(Value tile, Value into, ValueRange offsets);
  /// An op's per-sequence results collected by `scf.for b < batch` into
  /// `outputs`; `body` returns each sequence's tiles and their offsets.
  SmallVector<Value> forEachSequence(
      Value batch, ValueRange outputs,
      function_ref<SmallVector<std::pair<Value, SmallVector<Value>>>(Value)>
          body);
  /// A bshd fa.attention with the op's score attributes and regions (`mods`),
  /// on one sequence: sequence `bi`, whose query row i sits at position
  /// `rowOffset` + i (null: i).
  AttentionOp attention(Operation *op, const SequenceModifiers &mods, Value q,
                        Value k, Value v, MaskAlignmentAttr alignment, Value bi,
                        Value rowOffset = Value());

  ImplicitLocOpBuilder &b;
};

class KVCacheLowering : SequenceBuilder {
public:
  KVCacheLowering(AttentionKVCacheOp op, ImplicitLocOpBuilder &b)
      : SequenceBuilder(b), op(op) {}

  SmallVector<Value> build();

private:
  /// (cache row, slot) of position `pos` of sequence `bi`.
  std::pair<Value, Value> slotOf(Value bi, Value pos);
  /// The region [d0, d1, 0, 0] of sizes [1, rows, heads, dim] of a rank-4
  /// tensor.
  Value slice(Value t, Value d0, Value d1, Value rows);
  /// The caches with seq_new tokens of every sequence written in.
  std::pair<Value, Value> append();
  /// [1, n, heads_kv, dim]: the first `n` keys (or values) of sequence bi.
  Value sequenceKeys(Value cache, Value bi, Value n);
  AttentionOp sequenceAttention(Value bi, Value kc, Value vc);

  AttentionKVCacheOp op;
};

/// What the ragged-batch lowerings share: a sequence's rows of the packed
/// tensors.
class PackedSequences : protected SequenceBuilder {
protected:
  using SequenceBuilder::SequenceBuilder;
  /// Rows [start, start + len) of a packed [tokens, heads, dim] tensor as
  /// a [1, len, heads, dim] one.
  Value sequence(Value packed, Value start, Value len);
  /// Sequence bi's first row and length in `cu` (cu[bi], cu[bi+1] - cu[bi]).
  std::pair<Value, Value> span(Value cu, Value bi);
  /// [len, ...] of a [1, len, ...] per-sequence result.
  Value dropUnitBatch(Value t);
  /// The batch: cu_seqlens' entries minus one.
  Value batchOf(Value cu) {
    return arith::SubIOp::create(b, dim(cu, 0), index(1));
  }
};

class VarlenLowering : PackedSequences {
public:
  VarlenLowering(AttentionVarlenOp op, ImplicitLocOpBuilder &b)
      : PackedSequences(b), op(op) {}

  SmallVector<Value> build();

private:
  AttentionVarlenOp op;
};

/// fa.attention_varlen_grad: one fa.attention_grad per sequence, its dQ,
/// dK, dV inserted into zero-filled packed gradients (tokens of no
/// sequence, and the keys of a sequence without queries, get 0).
class VarlenGradLowering : PackedSequences {
public:
  VarlenGradLowering(AttentionVarlenGradOp op, ImplicitLocOpBuilder &b)
      : PackedSequences(b), op(op) {}

  SmallVector<Value> build();

private:
  /// A zero tensor of result `r`'s type with the sizes of `like`.
  Value zeros(Value result, Value like);
  AttentionGradOp sequenceGrad(Value bi, Value q0, Value sq, Value k0,
                               Value sk);

  AttentionVarlenGradOp op;
};

Value SequenceBuilder::readIndex(Value t, ValueRange indices) {
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

Value SequenceBuilder::insert(Value tile, Value into, ValueRange offsets) {
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
  bool masked = op.getCausal() || op.getWindow();
  // The regions' query index: the queries are the last seq_q of the n
  // positions.
  SequenceModifiers mods = SequenceModifiers::of(op);
  Value rowOffset;
  if (!mods.empty())
    rowOffset = arith::SubIOp::create(b, n, dim(op.getQuery(), 1));
  return attention(op, mods, q, k, v,
                   masked ? MaskAlignmentAttr::get(b.getContext(),
                                                   MaskAlignment::bottom_right)
                          : MaskAlignmentAttr(),
                   bi, rowOffset);
}

SmallVector<Value> SequenceModifiers::sequenceCaptures(Value bi,
                                                       Value rowOffset) const {
  if (empty())
    return {};
  SmallVector<Value> out(captures);
  out.push_back(bi);
  if (rowOffset)
    out.push_back(rowOffset);
  return out;
}

/// `from` cloned into `to`; its argument `batchArg` replaced by the first
/// extra trailing argument (index) and `rowArg` by itself plus the second
/// (`withOffset`).
static void rebaseRegion(OpBuilder &b, Region &from, Region &to,
                         unsigned batchArg, unsigned rowArg, bool withOffset) {
  if (from.empty())
    return;
  IRMapping mapping;
  from.cloneInto(&to, mapping);
  Block &block = to.front();
  Location loc = to.getLoc();
  Value batch = block.addArgument(b.getIndexType(), loc);
  block.getArgument(batchArg).replaceAllUsesWith(batch);
  if (!withOffset)
    return;
  Value offset = block.addArgument(b.getIndexType(), loc);
  Value row = block.getArgument(rowArg);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&block);
  auto position = arith::AddIOp::create(b, loc, row, offset);
  row.replaceAllUsesExcept(position, position);
}

void SequenceModifiers::rebaseInto(OpBuilder &b, Region &scoreModTo,
                                   Region &maskModTo, bool withOffset) const {
  // score_mod(s, b, h, i, j, ...), mask_mod(b, h, i, j, ...).
  rebaseRegion(b, scoreMod, scoreModTo, 1, 3, withOffset);
  rebaseRegion(b, maskMod, maskModTo, 0, 2, withOffset);
}

AttentionOp SequenceBuilder::attention(Operation *op,
                                       const SequenceModifiers &mods, Value q,
                                       Value k, Value v,
                                       MaskAlignmentAttr alignment, Value bi,
                                       Value rowOffset) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto outType = RankedTensorType::get(
      {1, qType.getDimSize(1), qType.getDimSize(2),
       cast<RankedTensorType>(v.getType()).getDimSize(3)},
      qType.getElementType());
  auto lseType = RankedTensorType::get(
      {1, qType.getDimSize(2), qType.getDimSize(1)}, b.getF32Type());
  auto attr = [&](StringRef name) { return op->getAttr(name); };
  auto attn = AttentionOp::create(
      b, outType, lseType, q, k, v, Value(), Value(), Value(), Value(),
      /*sinks=*/Value(), mods.sequenceCaptures(bi, rowOffset), Layout::bshd,
      dyn_cast_or_null<FloatAttr>(attr("scale")), op->hasAttr("causal"),
      alignment, dyn_cast_or_null<DenseI64ArrayAttr>(attr("window")),
      dyn_cast_or_null<FloatAttr>(attr("softcap")),
      dyn_cast_or_null<IntegerAttr>(attr("num_splits")),
      /*descale_block=*/DenseI64ArrayAttr());
  mods.rebaseInto(b, attn.getScoreMod(), attn.getMaskMod(),
                  static_cast<bool>(rowOffset));
  return attn;
}

SmallVector<Value> SequenceBuilder::forEachSequence(
    Value batch, ValueRange outputs,
    function_ref<SmallVector<std::pair<Value, SmallVector<Value>>>(Value)>
        body) {
  auto loop = scf::ForOp::create(
      b, index(0), batch, index(1), outputs,
      [&](OpBuilder &, Location, Value bi, ValueRange acc) {
        SmallVector<Value> next;
        for (auto [tile, into] : llvm::zip(body(bi), acc))
          next.push_back(insert(tile.first, into, tile.second));
        scf::YieldOp::create(b, next);
      });
  return loop.getResults();
}

SmallVector<Value> KVCacheLowering::build() {
  Value kc = op.getKeyCache(), vc = op.getValueCache();
  if (op.getKey())
    std::tie(kc, vc) = append();
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  auto lseType = cast<RankedTensorType>(op.getLse().getType());
  Value batch = dim(op.getQuery(), 0), seqQ = dim(op.getQuery(), 1);
  Value headsQ = dim(op.getQuery(), 2);
  SmallVector<Value> results = forEachSequence(
      batch, {empty(outType, {batch, seqQ, headsQ}),
              empty(lseType, {batch, headsQ, seqQ})},
      [&](Value bi) -> SmallVector<std::pair<Value, SmallVector<Value>>> {
        AttentionOp attn = sequenceAttention(bi, kc, vc);
        return {{attn.getOutput(), {bi}}, {attn.getLse(), {bi}}};
      });
  if (op.getKey())
    results.append({kc, vc});
  return results;
}

} // namespace

Value PackedSequences::sequence(Value packed, Value start, Value len) {
  auto type = cast<RankedTensorType>(packed.getType());
  SmallVector<OpFoldResult> offsets = {start, b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {len, tensor::getMixedSize(b, b.getLoc(), packed, 1),
                                     b.getIndexAttr(type.getDimSize(2))};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  Value rows = tensor::ExtractSliceOp::create(b, packed, offsets, sizes, strides);
  auto rowsType = cast<RankedTensorType>(rows.getType());
  auto seqType = RankedTensorType::get(
      {1, rowsType.getDimSize(0), rowsType.getDimSize(1), rowsType.getDimSize(2)},
      type.getElementType());
  SmallVector<OpFoldResult> shape = {b.getIndexAttr(1)};
  shape.append(sizes);
  return tensor::ExpandShapeOp::create(b, seqType, rows,
                                       ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}},
                                       shape);
}

std::pair<Value, Value> PackedSequences::span(Value cu, Value bi) {
  Value start = readIndex(cu, {bi});
  Value end = readIndex(cu, {arith::AddIOp::create(b, bi, index(1))});
  return {start, arith::SubIOp::create(b, end, start)};
}

Value PackedSequences::dropUnitBatch(Value t) {
  int64_t rank = cast<RankedTensorType>(t.getType()).getRank();
  SmallVector<ReassociationIndices> groups = {{0, 1}};
  for (int64_t d = 2; d < rank; ++d)
    groups.push_back({d});
  return tensor::CollapseShapeOp::create(b, t, groups).getResult();
}

SmallVector<Value> VarlenLowering::build() {
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  auto lseType = cast<RankedTensorType>(op.getLse().getType());
  Value totalQ = dim(op.getQuery(), 0), headsQ = dim(op.getQuery(), 1);
  return forEachSequence(
      batchOf(op.getCuSeqlensQ()),
      {empty(outType, {totalQ, headsQ}), empty(lseType, {headsQ, totalQ})},
      [&](Value bi) -> SmallVector<std::pair<Value, SmallVector<Value>>> {
        auto [q0, sq] = span(op.getCuSeqlensQ(), bi);
        auto [k0, sk] = span(op.getCuSeqlensK(), bi);
        AttentionOp attn = attention(
            op, SequenceModifiers::of(op), sequence(op.getQuery(), q0, sq),
            sequence(op.getKey(), k0, sk), sequence(op.getValue(), k0, sk),
            op.getMaskAlignmentAttr(), bi);
        Value out = dropUnitBatch(attn.getOutput());
        // The LSE [1, heads, len] becomes [heads, len].
        Value lse = tensor::CollapseShapeOp::create(
            b, attn.getLse(), ArrayRef<ReassociationIndices>{{0, 1}, {2}});
        return {{out, {q0}}, {lse, {index(0), q0}}};
      });
}

Value VarlenGradLowering::zeros(Value result, Value like) {
  auto type = cast<RankedTensorType>(result.getType());
  Value init = empty(type, {dim(like, 0), dim(like, 1), dim(like, 2)});
  Value zero =
      arith::ConstantOp::create(b, b.getFloatAttr(type.getElementType(), 0.0));
  return linalg::FillOp::create(b, zero, init).getResult(0);
}

AttentionGradOp VarlenGradLowering::sequenceGrad(Value bi, Value q0, Value sq,
                                                 Value k0, Value sk) {
  Value q = sequence(op.getQuery(), q0, sq);
  Value k = sequence(op.getKey(), k0, sk), v = sequence(op.getValue(), k0, sk);
  Value o = sequence(op.getOutput(), q0, sq);
  Value dout = sequence(op.getGradOutput(), q0, sq);
  // LSE [heads, total_q] -> [1, heads, len].
  Value headsQ = dim(op.getLse(), 0);
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), q0};
  SmallVector<OpFoldResult> sizes = {headsQ, sq};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  Value rows =
      tensor::ExtractSliceOp::create(b, op.getLse(), offsets, sizes, strides);
  auto rowsType = cast<RankedTensorType>(rows.getType());
  auto lseType = RankedTensorType::get(
      {1, rowsType.getDimSize(0), rowsType.getDimSize(1)}, b.getF32Type());
  SmallVector<OpFoldResult> lseShape = {b.getIndexAttr(1), headsQ, sq};
  Value lse = tensor::ExpandShapeOp::create(
      b, lseType, rows, ArrayRef<ReassociationIndices>{{0, 1}, {2}}, lseShape);
  auto gradType = [](Value like) {
    return cast<RankedTensorType>(like.getType());
  };
  SequenceModifiers mods = SequenceModifiers::of(op);
  auto grad = AttentionGradOp::create(
      b, gradType(q), gradType(k), gradType(v), /*grad_bias=*/Type(),
      /*grad_sinks=*/Type(), dout, q, k, v, o, lse, /*bias=*/Value(),
      /*sinks=*/Value(), mods.sequenceCaptures(bi, Value()), Layout::bshd,
      op.getScaleAttr(), op.getCausal(), op.getMaskAlignmentAttr(),
      op.getWindowAttr(), op.getSoftcapAttr());
  mods.rebaseInto(b, grad.getScoreMod(), grad.getMaskMod(),
                  /*withOffset=*/false);
  return grad;
}

SmallVector<Value> VarlenGradLowering::build() {
  SmallVector<Value> grads = {zeros(op.getGradQuery(), op.getQuery()),
                              zeros(op.getGradKey(), op.getKey()),
                              zeros(op.getGradValue(), op.getValue())};
  return forEachSequence(
      batchOf(op.getCuSeqlensQ()), grads,
      [&](Value bi) -> SmallVector<std::pair<Value, SmallVector<Value>>> {
        auto [q0, sq] = span(op.getCuSeqlensQ(), bi);
        auto [k0, sk] = span(op.getCuSeqlensK(), bi);
        AttentionGradOp grad = sequenceGrad(bi, q0, sq, k0, sk);
        return {{dropUnitBatch(grad.getGradQuery()), {q0}},
                {dropUnitBatch(grad.getGradKey()), {k0}},
                {dropUnitBatch(grad.getGradValue()), {k0}}};
      });
}

template <typename OpT, typename LoweringT>
static void lowerAll(Operation *root, RewriterBase &rewriter) {
  SmallVector<OpT> ops;
  root->walk([&](OpT op) { ops.push_back(op); });
  for (OpT op : ops) {
    rewriter.setInsertionPoint(op);
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    LoweringT lowering(op, b);
    rewriter.replaceOp(op, lowering.build());
  }
}

void mlir::fa::lowerSequenceOps(Operation *root, RewriterBase &rewriter) {
  lowerAll<AttentionKVCacheOp, KVCacheLowering>(root, rewriter);
  lowerAll<AttentionVarlenOp, VarlenLowering>(root, rewriter);
  lowerAll<AttentionVarlenGradOp, VarlenGradLowering>(root, rewriter);
}
