//===- InferenceOps.cpp - Verifiers of the serving ops --------------------===//
//
// fa.attention_kvcache and fa.attention_varlen: every size bound through one
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

LogicalResult checkVarlen(AttentionVarlenOp op) {
  using S = PackedSize;
  PackedSizes sizes(op, kPackedSizeNames);
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  Type elementType = q.getElementType();
  if (!isSupportedElementType(elementType, /*allowFp8=*/false))
    return op.emitOpError() << "'query' element type must be f32, f16 or "
                            << "bf16, got " << elementType;
  std::pair<Value, const char *> packed[] = {
      {op.getQuery(), "query"}, {op.getKey(), "key"}, {op.getValue(), "value"}};
  for (auto [value, name] : packed) {
    auto t = cast<RankedTensorType>(value.getType());
    if (t.getRank() != 3)
      return op.emitOpError() << "'" << name << "' must have rank 3 [tokens, "
                              << "heads, head_dim], got rank " << t.getRank();
    if (t.getElementType() != elementType)
      return op.emitOpError() << "'" << name << "' element type must be "
                              << elementType << " (the type of 'query'), got "
                              << t.getElementType();
    if (t.isDynamicDim(2) || t.getDimSize(2) <= 0)
      return op.emitOpError() << "'" << name << "' head dim (dimension 2) "
                              << "must be static and positive";
  }
  for (auto [value, name] : {std::pair{op.getCuSeqlensQ(), "cu_seqlens_q"},
                             {op.getCuSeqlensK(), "cu_seqlens_k"}}) {
    auto t = cast<RankedTensorType>(value.getType());
    if (t.getRank() != 1 || !t.getElementType().isInteger(32) ||
        t.getDimSize(0) == 0)
      return op.emitOpError() << "'" << name << "' must be a rank-1 i32 "
                              << "tensor [batch + 1] (at least 1 entry), got "
                              << t;
    if (failed(sizes.bindAll(t, name, {S::batchPlusOne})))
      return failure();
  }
  auto out = cast<RankedTensorType>(op.getOutput().getType());
  auto lse = cast<RankedTensorType>(op.getLse().getType());
  if (out.getRank() != 3 || out.getElementType() != elementType)
    return op.emitOpError() << "'output' must be a rank-3 " << elementType
                            << " tensor [total_q, heads_q, head_dim_v], got "
                            << out;
  if (lse.getRank() != 2 || !lse.getElementType().isF32())
    return op.emitOpError() << "'lse' must be a rank-2 f32 tensor [heads_q, "
                            << "total_q], got " << lse;
  if (failed(sizes.bindAll(q, "query", {S::totalQ, S::headsQ, S::headDim})) ||
      failed(sizes.bindAll(op.getKey().getType(), "key",
                           {S::totalK, S::headsKV, S::headDim})) ||
      failed(sizes.bindAll(op.getValue().getType(), "value",
                           {S::totalK, S::headsKV, S::headDimV})) ||
      failed(sizes.bindAll(out, "output",
                           {S::totalQ, S::headsQ, S::headDimV})) ||
      failed(sizes.bindAll(lse, "lse", {S::headsQ, S::totalQ})))
    return failure();
  int64_t hq = sizes[S::headsQ], hkv = sizes[S::headsKV];
  if (hkv == 0 || (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) &&
                   hq % hkv != 0))
    return op.emitOpError() << "heads_kv (" << hkv << ", of '"
                            << sizes.source(S::headsKV) << "') must be "
                            << "positive and divide heads_q (" << describe(hq)
                            << ")";
  for (auto [bound, total, name] :
       {std::tuple{op.getMaxSeqlenQ(), sizes[S::totalQ], "max_seqlen_q"},
        {op.getMaxSeqlenK(), sizes[S::totalK], "max_seqlen_k"}})
    if (bound && !ShapedType::isDynamic(total) &&
        static_cast<int64_t>(*bound) > total)
      return op.emitOpError() << "'" << name << "' (" << *bound
                              << ") exceeds the packed tokens (" << total
                              << ")";
  return checkScoreConfig(op, op.getScale(), op.getSoftcap(), op.getWindow(),
                          op.getCausal(), op.getMaskAlignment().has_value());
}
} // namespace

LogicalResult AttentionVarlenOp::verify() { return checkVarlen(*this); }

