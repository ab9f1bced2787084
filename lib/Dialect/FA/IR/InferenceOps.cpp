//===- InferenceOps.cpp - Verifiers of the serving ops --------------------===//
//
// fa.attention_kvcache, fa.attention_varlen and fa.attention_varlen_grad:
// every size bound through one
// SizeTable per op, so that each message names the operand and the one that
// fixed the size first.
//
//===----------------------------------------------------------------------===//
#include "SizeTable.h"
#include "fa/Dialect/FA/IR/FAOps.h"

#include <cmath>
#include <tuple>

using namespace mlir;
using namespace mlir::fa;
using fa::verify::checkScoreConfig;
using fa::verify::describe;
using fa::verify::isSupportedElementType;

//===----------------------------------------------------------------------===//
// AttentionKVCacheOp
//===----------------------------------------------------------------------===//

namespace {
/// The sizes of a KV-cache problem. `cacheRows` is the caches' dim 0 (batch
/// when contiguous, num_pages when paged), `cacheSlots` their dim 1
/// (capacity, or page_size).
enum class CacheSize {
  batch, seqQ, headsQ, headsKV, headDim, headDimV, cacheRows, cacheSlots,
  seqNew, maxPages
};
constexpr unsigned kNumCacheSizes = 10;
const char *const kCacheSizeNames[kNumCacheSizes] = {
    "batch",     "seq_q",     "heads_q",     "heads_kv", "head_dim",
    "head_dim_v", "cache_rows", "cache_slots", "seq_new",  "max_pages"};
using CacheSizes = fa::verify::SizeTable<CacheSize, kNumCacheSizes>;

class KVCacheChecker {
public:
  explicit KVCacheChecker(AttentionKVCacheOp op)
      : op(op), sizes(op, kCacheSizeNames) {}
  LogicalResult check();

private:
  InFlightDiagnostic error() { return op.emitOpError(); }
  LogicalResult checkTensors();
  LogicalResult checkIndices();
  LogicalResult bindShapes();
  LogicalResult checkResults();

  AttentionKVCacheOp op;
  CacheSizes sizes;
  Type elementType;
};

LogicalResult KVCacheChecker::checkTensors() {
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  elementType = q.getElementType();
  if (!isSupportedElementType(elementType, /*allowFp8=*/false))
    return error() << "'query' element type must be f32, f16 or bf16, got "
                   << elementType;
  if (bool(op.getKey()) != bool(op.getValue()))
    return error() << "'key' and 'value' are appended together: give both "
                   << "or neither";
  std::pair<Value, const char *> tensors[] = {
      {op.getQuery(), "query"}, {op.getKeyCache(), "key_cache"},
      {op.getValueCache(), "value_cache"}, {op.getKey(), "key"},
      {op.getValue(), "value"}};
  for (auto [value, name] : tensors) {
    if (!value)
      continue;
    auto t = cast<RankedTensorType>(value.getType());
    if (t.getRank() != 4)
      return error() << "'" << name << "' must have rank 4, got rank "
                     << t.getRank();
    if (t.getElementType() != elementType)
      return error() << "'" << name << "' element type must be "
                     << elementType << " (the type of 'query'), got "
                     << t.getElementType();
    if (t.isDynamicDim(3) || t.getDimSize(3) <= 0)
      return error() << "'" << name << "' head dim (dimension 3) must be "
                     << "static and positive";
  }
  return success();
}

LogicalResult KVCacheChecker::checkIndices() {
  auto lens = cast<RankedTensorType>(op.getCacheSeqlens().getType());
  if (lens.getRank() != 1 || !lens.getElementType().isInteger(32))
    return error() << "'cache_seqlens' must be a rank-1 i32 tensor [batch], "
                   << "got " << lens;
  if (failed(sizes.bindAll(lens, "cache_seqlens", {CacheSize::batch})))
    return failure();
  if (!op.getBlockTable())
    return success();
  auto table = cast<RankedTensorType>(op.getBlockTable().getType());
  if (table.getRank() != 2 || !table.getElementType().isInteger(32))
    return error() << "'block_table' must be a rank-2 i32 tensor [batch, "
                   << "max_pages], got " << table;
  return sizes.bindAll(table, "block_table",
                       {CacheSize::batch, CacheSize::maxPages});
}

LogicalResult KVCacheChecker::bindShapes() {
  using S = CacheSize;
  S rows = op.getBlockTable() ? S::cacheRows : S::batch;
  if (failed(sizes.bindAll(op.getQuery().getType(), "query",
                           {S::batch, S::seqQ, S::headsQ, S::headDim})) ||
      failed(sizes.bindAll(op.getKeyCache().getType(), "key_cache",
                           {rows, S::cacheSlots, S::headsKV, S::headDim})) ||
      failed(sizes.bindAll(op.getValueCache().getType(), "value_cache",
                           {rows, S::cacheSlots, S::headsKV, S::headDimV})))
    return failure();
  if (op.getKey() &&
      (failed(sizes.bindAll(op.getKey().getType(), "key",
                            {S::batch, S::seqNew, S::headsKV, S::headDim})) ||
       failed(sizes.bindAll(op.getValue().getType(), "value",
                            {S::batch, S::seqNew, S::headsKV, S::headDimV}))))
    return failure();
  int64_t hq = sizes[S::headsQ], hkv = sizes[S::headsKV];
  if (hkv == 0 || (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) &&
                   hq % hkv != 0))
    return error() << "heads_kv (" << hkv << ", of '"
                   << sizes.source(S::headsKV) << "') must be positive and "
                   << "divide heads_q (" << describe(hq) << ")";
  if (op.getBlockTable() && sizes[S::cacheSlots] == 0)
    return error() << "page_size ('key_cache' dimension 1) must be positive";
  return success();
}

LogicalResult KVCacheChecker::checkResults() {
  using S = CacheSize;
  auto out = cast<RankedTensorType>(op.getOutput().getType());
  if (out.getRank() != 4 || out.getElementType() != elementType)
    return error() << "'output' must be a rank-4 " << elementType
                   << " tensor [batch, seq_q, heads_q, head_dim_v], got "
                   << out;
  auto lse = cast<RankedTensorType>(op.getLse().getType());
  if (lse.getRank() != 3 || !lse.getElementType().isF32())
    return error() << "'lse' must be a rank-3 f32 tensor [batch, heads_q, "
                   << "seq_q], got " << lse;
  if (failed(sizes.bindAll(out, "output",
                           {S::batch, S::seqQ, S::headsQ, S::headDimV})) ||
      failed(sizes.bindAll(lse, "lse", {S::batch, S::headsQ, S::seqQ})))
    return failure();
  bool appends = bool(op.getKey());
  if (appends != bool(op.getUpdatedKeyCache()) ||
      appends != bool(op.getUpdatedValueCache()))
    return error() << "the updated caches must be returned exactly when "
                   << "'key' and 'value' are appended";
  if (appends && (op.getUpdatedKeyCache().getType() != op.getKeyCache().getType() ||
                  op.getUpdatedValueCache().getType() != op.getValueCache().getType()))
    return error() << "the updated caches must have the caches' types";
  return success();
}

LogicalResult KVCacheChecker::check() {
  if (failed(checkTensors()) || failed(checkIndices()) ||
      failed(bindShapes()) || failed(checkResults()))
    return failure();
  return checkScoreConfig(op, op.getScale(), op.getSoftcap(), op.getWindow(),
                          op.getCausal(), /*hasAlignment=*/false);
}
} // namespace

double AttentionKVCacheOp::getEffectiveScale() {
  if (std::optional<APFloat> s = getScale())
    return s->convertToDouble();
  auto qt = cast<RankedTensorType>(getQuery().getType());
  return 1.0 / std::sqrt(static_cast<double>(qt.getDimSize(3)));
}

LogicalResult AttentionKVCacheOp::verify() { return KVCacheChecker(*this).check(); }

//===----------------------------------------------------------------------===//
// AttentionVarlenOp
//===----------------------------------------------------------------------===//

namespace {
enum class PackedSize {
  totalQ, totalK, headsQ, headsKV, headDim, headDimV, batchPlusOne
};
constexpr unsigned kNumPackedSizes = 7;
const char *const kPackedSizeNames[kNumPackedSizes] = {
    "total_q", "total_k", "heads_q", "heads_kv", "head_dim", "head_dim_v",
    "batch + 1"};
using PackedSizes = fa::verify::SizeTable<PackedSize, kNumPackedSizes>;

/// The checks fa.attention_varlen and fa.attention_varlen_grad share: the
/// packed tensors, the sequence bounds, the heads and the length bounds.
class VarlenChecker {
public:
  explicit VarlenChecker(Operation *op) : op(op), sizes(op, kPackedSizeNames) {}

  InFlightDiagnostic error() { return op->emitOpError(); }
  /// Q's element type must be one the ops take; returns it.
  FailureOr<Type> elementTypeOf(Value query);
  /// `value` is a rank-3 [tokens, heads, dim] tensor of `elementType` with
  /// a static head dim, its dims bound to `roles`.
  LogicalResult checkPacked(Value value, StringRef name, Type elementType,
                            ArrayRef<PackedSize> roles);
  LogicalResult bind(Value value, StringRef name, ArrayRef<PackedSize> roles) {
    return sizes.bindAll(value.getType(), name, roles);
  }
  /// Both bounds are rank-1 i32 [batch + 1] tensors.
  LogicalResult checkBounds(Value cuQ, Value cuK);
  /// The LSE is a rank-2 f32 [heads_q, total_q] tensor.
  LogicalResult checkLse(Value lse);
  /// heads_kv divides heads_q; max_seqlen_* fit the packed tokens.
  LogicalResult checkHeadsAndBounds(std::optional<uint64_t> maxQ,
                                    std::optional<uint64_t> maxK);

private:
  Operation *op;
  PackedSizes sizes;
};

FailureOr<Type> VarlenChecker::elementTypeOf(Value query) {
  Type elementType = cast<RankedTensorType>(query.getType()).getElementType();
  if (!isSupportedElementType(elementType, /*allowFp8=*/false))
    return error() << "'query' element type must be f32, f16 or bf16, got "
                   << elementType;
  return elementType;
}

LogicalResult VarlenChecker::checkPacked(Value value, StringRef name,
                                         Type elementType,
                                         ArrayRef<PackedSize> roles) {
  auto t = cast<RankedTensorType>(value.getType());
  if (t.getRank() != 3)
    return error() << "'" << name << "' must have rank 3 [tokens, heads, "
                   << "head_dim], got rank " << t.getRank();
  if (t.getElementType() != elementType)
    return error() << "'" << name << "' element type must be " << elementType
                   << " (the type of 'query'), got " << t.getElementType();
  if (t.isDynamicDim(2) || t.getDimSize(2) <= 0)
    return error() << "'" << name << "' head dim (dimension 2) must be "
                   << "static and positive";
  return sizes.bindAll(t, name, roles);
}

LogicalResult VarlenChecker::checkBounds(Value cuQ, Value cuK) {
  for (auto [value, name] :
       {std::pair{cuQ, "cu_seqlens_q"}, {cuK, "cu_seqlens_k"}}) {
    auto t = cast<RankedTensorType>(value.getType());
    if (t.getRank() != 1 || !t.getElementType().isInteger(32) ||
        t.getDimSize(0) == 0)
      return error() << "'" << name << "' must be a rank-1 i32 tensor "
                     << "[batch + 1] (at least 1 entry), got " << t;
    if (failed(sizes.bindAll(t, name, {PackedSize::batchPlusOne})))
      return failure();
  }
  return success();
}

LogicalResult VarlenChecker::checkLse(Value lse) {
  auto t = cast<RankedTensorType>(lse.getType());
  if (t.getRank() != 2 || !t.getElementType().isF32())
    return error() << "'lse' must be a rank-2 f32 tensor [heads_q, total_q], "
                   << "got " << t;
  return sizes.bindAll(t, "lse", {PackedSize::headsQ, PackedSize::totalQ});
}

LogicalResult VarlenChecker::checkHeadsAndBounds(std::optional<uint64_t> maxQ,
                                                 std::optional<uint64_t> maxK) {
  using S = PackedSize;
  int64_t hq = sizes[S::headsQ], hkv = sizes[S::headsKV];
  if (hkv == 0 || (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) &&
                   hq % hkv != 0))
    return error() << "heads_kv (" << hkv << ", of '"
                   << sizes.source(S::headsKV) << "') must be positive and "
                   << "divide heads_q (" << describe(hq) << ")";
  for (auto [bound, total, name] :
       {std::tuple{maxQ, sizes[S::totalQ], "max_seqlen_q"},
        {maxK, sizes[S::totalK], "max_seqlen_k"}})
    if (bound && !ShapedType::isDynamic(total) &&
        static_cast<int64_t>(*bound) > total)
      return error() << "'" << name << "' (" << *bound
                     << ") exceeds the packed tokens (" << total << ")";
  return success();
}

/// The score attributes of a ragged batch's op (forward or backward).
template <typename OpT> LogicalResult checkVarlenScores(OpT op) {
  return checkScoreConfig(op, op.getScale(), op.getSoftcap(), op.getWindow(),
                          op.getCausal(), op.getMaskAlignment().has_value());
}

LogicalResult checkVarlen(AttentionVarlenOp op) {
  using S = PackedSize;
  VarlenChecker check(op);
  FailureOr<Type> elementType = check.elementTypeOf(op.getQuery());
  if (failed(elementType))
    return failure();
  // The forward checked every operand's rank and type before any size.
  auto out = cast<RankedTensorType>(op.getOutput().getType());
  for (auto [value, name] : {std::pair{op.getQuery(), "query"},
                             {op.getKey(), "key"},
                             {op.getValue(), "value"}})
    if (failed(check.checkPacked(value, name, *elementType, {})))
      return failure();
  if (failed(check.checkBounds(op.getCuSeqlensQ(), op.getCuSeqlensK())))
    return failure();
  if (out.getRank() != 3 || out.getElementType() != *elementType)
    return check.error() << "'output' must be a rank-3 " << *elementType
                         << " tensor [total_q, heads_q, head_dim_v], got "
                         << out;
  auto lse = cast<RankedTensorType>(op.getLse().getType());
  if (lse.getRank() != 2 || !lse.getElementType().isF32())
    return check.error() << "'lse' must be a rank-2 f32 tensor [heads_q, "
                         << "total_q], got " << lse;
  if (failed(check.bind(op.getQuery(), "query",
                        {S::totalQ, S::headsQ, S::headDim})) ||
      failed(check.bind(op.getKey(), "key",
                        {S::totalK, S::headsKV, S::headDim})) ||
      failed(check.bind(op.getValue(), "value",
                        {S::totalK, S::headsKV, S::headDimV})) ||
      failed(check.bind(op.getOutput(), "output",
                        {S::totalQ, S::headsQ, S::headDimV})) ||
      failed(check.checkLse(op.getLse())) ||
      failed(check.checkHeadsAndBounds(op.getMaxSeqlenQ(), op.getMaxSeqlenK())))
    return failure();
  return checkVarlenScores(op);
}

/// The backward: the forward's operands, O and dO [total_q, heads_q,
/// head_dim_v], and the gradients with their inputs' types.
LogicalResult checkVarlenGrad(AttentionVarlenGradOp op) {
  using S = PackedSize;
  VarlenChecker check(op);
  FailureOr<Type> elementType = check.elementTypeOf(op.getQuery());
  if (failed(elementType))
    return failure();
  std::tuple<Value, const char *, SmallVector<S>> packed[] = {
      {op.getQuery(), "query", {S::totalQ, S::headsQ, S::headDim}},
      {op.getKey(), "key", {S::totalK, S::headsKV, S::headDim}},
      {op.getValue(), "value", {S::totalK, S::headsKV, S::headDimV}},
      {op.getOutput(), "output", {S::totalQ, S::headsQ, S::headDimV}},
      {op.getGradOutput(), "grad_output", {S::totalQ, S::headsQ, S::headDimV}},
      {op.getGradQuery(), "grad_query", {S::totalQ, S::headsQ, S::headDim}},
      {op.getGradKey(), "grad_key", {S::totalK, S::headsKV, S::headDim}},
      {op.getGradValue(), "grad_value", {S::totalK, S::headsKV, S::headDimV}}};
  for (auto &[value, name, roles] : packed)
    if (failed(check.checkPacked(value, name, *elementType, roles)))
      return failure();
  if (failed(check.checkBounds(op.getCuSeqlensQ(), op.getCuSeqlensK())) ||
      failed(check.checkLse(op.getLse())) ||
      failed(check.checkHeadsAndBounds(op.getMaxSeqlenQ(), op.getMaxSeqlenK())))
    return failure();
  return checkVarlenScores(op);
}
} // namespace

LogicalResult AttentionVarlenOp::verify() { return checkVarlen(*this); }

LogicalResult AttentionVarlenGradOp::verify() { return checkVarlenGrad(*this); }

// The modifier regions of the inference ops: fa.attention's, by the one
// verifier (ModifierRegions.cpp); what their index arguments mean per op is
// the lowerings' (docs/Modifiers.md, "On the inference ops").
LogicalResult AttentionKVCacheOp::verifyRegions() {
  return verifyModifierRegions(*this, getScoreMod(), getMaskMod(),
                               getCaptures());
}

LogicalResult AttentionVarlenOp::verifyRegions() {
  return verifyModifierRegions(*this, getScoreMod(), getMaskMod(),
                               getCaptures());
}

LogicalResult AttentionVarlenGradOp::verifyRegions() {
  return verifyModifierRegions(*this, getScoreMod(), getMaskMod(),
                               getCaptures());
}
