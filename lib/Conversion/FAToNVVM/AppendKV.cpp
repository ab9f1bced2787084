//===- AppendKV.cpp - Writing new keys and values into the KV caches -------===//
//
// The first kernel of a KV-cache sequence with append (fa.attention_kvcache's
// k, v): row (b, t, h) of key_new / value_new goes to cache slot
// cache_seqlens[b] + t of sequence b, head h, in place: slot s of a
// contiguous cache [batch, capacity, heads_kv, d] is row s of batch b; of a
// paged one, row s % page_size of page block_table[b, s / page_size]. The
// attention kernel after it reads cache_seqlens[b] + seq_new keys.
//
// One warp per (token, head) row, a lane per 16 bytes (head dims <= 256 are
// at most 32 chunks); blockIdx.z picks K (0) or V (1). A slot past the cache
// (capacity, max_pages, or a page index outside [0, num_pages)) is not
// written: the Python API rejects such inputs, and the kernel never writes
// outside the caches whatever it is given.
//
//===----------------------------------------------------------------------===//
#include "KernelParts.h"
#include "KernelSignature.h"

#include "llvm/Support/FormatVariadic.h"

#include <tuple>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;
using llvm::json::Array;
using llvm::json::Object;

namespace {

constexpr int64_t kAppendThreads = 128;
constexpr int64_t kRowsPerCta = kAppendThreads / 32;

/// Strides (elements) of one rank-4 operand: outer (batch or page), row, head.
struct RowStrides {
  Value outer, row, head;
};

struct AppendArgs {
  Value source[2], dest[2]; // key_new / value_new; the K and V caches
  Value lengths, table;     // cache_seqlens; block_table (paged only)
  Value seqNew, headsKv, outerSlots; // outer: capacity, or num_pages when paged
  RowStrides sourceStrides[2], destStrides[2];
  Value maxPages, tableStride; // paged only
};

/// The append kernel's parameters, declared once: rows are read and
/// written 16 bytes at a time (aligned pointers).
KernelSignature appendSignature(const AttentionKernelConfig &cfg, AppendArgs &a) {
  const char *caches[2] = {cfg.keyRole(), cfg.valueRole()};
  const char *sources[2] = {"key_new", "value_new"};
  KernelSignature sig;
  for (int k = 0; k < 2; ++k)
    sig.ptr(&a.source[k], sources[k], /*aligned=*/true);
  for (int k = 0; k < 2; ++k)
    sig.ptr(&a.dest[k], caches[k], /*aligned=*/true);
  sig.ptr(&a.lengths, "cache_seqlens");
  if (cfg.paged())
    sig.ptr(&a.table, "block_table");
  sig.i32(&a.seqNew, sym::SeqNew);
  sig.i32(&a.headsKv, sym::HeadsKV);
  sig.i32(&a.outerSlots, cfg.paged() ? sym::NumPages : sym::SeqK);
  auto rowStrides = [&](RowStrides &r, StringRef operand, bool paged) {
    if (paged)
      sig.strides({&r.outer, &r.row, &r.head}, operand, {"page", "row", "head"});
    else
      sig.strides({&r.outer, &r.row, &r.head}, operand, {"batch", "seq", "head"});
  };
  for (int k = 0; k < 2; ++k)
    rowStrides(a.sourceStrides[k], sources[k], /*paged=*/false);
  for (int k = 0; k < 2; ++k)
    rowStrides(a.destStrides[k], caches[k], cfg.paged());
  if (cfg.paged()) {
    sig.i32(&a.maxPages, sym::MaxPages);
    sig.strides({&a.tableStride}, "block_table", {"batch"});
  }
  return sig;
}

/// Where slot `slot` of sequence `batch` lives: (outer index, row, valid).
std::tuple<Value, Value, Value> cacheSlot(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                                          const AppendArgs &a, Value batch, Value slot) {
  auto within = [&](Value v, Value end) {
    return kb.andi(kb.cmp(arith::CmpIPredicate::sge, v, kb.c32(0)),
                   kb.cmp(arith::CmpIPredicate::slt, v, end));
  };
  if (!cfg.paged())
    return {batch, slot, within(slot, a.outerSlots)};
  Value column = kb.divUI(slot, kb.c32(cfg.pageSize));
  Value columnOk = within(column, a.maxPages);
  Value safeColumn = kb.select(columnOk, column, kb.c32(0));
  Value entry = kb.add(kb.mul(kb.ext64(batch), a.tableStride), kb.ext64(safeColumn));
  Value page = LLVM::LoadOp::create(kb.b, kb.i32, kb.globalAt(a.table, entry, kb.i32), 4);
  Value row = kb.remu(slot, kb.c32(cfg.pageSize));
  return {page, row, kb.andi(columnOk, within(page, a.outerSlots))};
}

void emitAppend(KernelBuilder &kb, LLVM::LLVMFuncOp fn, const AttentionKernelConfig &cfg) {
  AppendArgs a;
  appendSignature(cfg, a).bind(fn);
  Value tid = kb.threadIdX();
  Value lane = kb.andi(tid, kb.c32(31));
  Value rowId = kb.add(kb.mul(kb.blockIdX(), kb.c32(kRowsPerCta)), kb.shru(tid, kb.c32(5)));
  Value batch = kb.blockIdY(), which = kb.blockIdZ();
  Value token = kb.divUI(rowId, a.headsKv), head = kb.remu(rowId, a.headsKv);
  Type half = cfg.elem == ElemType::BF16 ? Type(kb.b.getBF16Type()) : Type(kb.b.getF16Type());
  auto v4 = VectorType::get({4}, kb.i32);

  kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, token, a.seqNew), [&] {
    Value length = LLVM::LoadOp::create(kb.b, kb.i32,
                                        kb.globalAt(a.lengths, kb.ext64(batch), kb.i32), 4);
    Value outer, row, valid;
    std::tie(outer, row, valid) = cacheSlot(kb, cfg, a, batch, kb.add(length, token));
    kb.ifThen(valid, [&] {
      for (int k = 0; k < 2; ++k) {
        const int64_t chunks = (k == 0 ? cfg.headDim : cfg.headDimV) / 8;
        kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, which, kb.c32(k)), [&] {
          const RowStrides &s = a.sourceStrides[k], &d = a.destStrides[k];
          Value from = stridedRowOffset(kb, batch, head, token, s.outer, s.head, s.row);
          Value to = stridedRowOffset(kb, outer, head, row, d.outer, d.head, d.row);
          auto copy = [&] {
            Value col = kb.ext64(kb.mul(lane, kb.c32(8)));
            Value data = LLVM::LoadOp::create(
                kb.b, v4, kb.globalAt(a.source[k], kb.add(from, col), half), 16);
            LLVM::StoreOp::create(kb.b, data, kb.globalAt(a.dest[k], kb.add(to, col), half), 16);
          };
          if (chunks == 32)
            copy();
          else
            kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, lane, kb.c32(chunks)), copy);
        });
      }
    });
  });
}

} // namespace

std::string mlir::fa::nvvm_kernel::appendKernelName(const AttentionKernelConfig &cfg) {
  return cfg.kernelName() + "_write_kv";
}

void mlir::fa::nvvm_kernel::buildAppendKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                                              const AttentionKernelConfig &cfg) {
  AppendArgs unbound;
  buildKernelFunction(builder, loc, moduleBody, appendKernelName(cfg),
                      appendSignature(cfg, unbound), kAppendThreads, /*sharedMemory=*/false,
                      /*noAliasPointers=*/false,
                      [&](KernelBuilder &kb, LLVM::LLVMFuncOp fn) { emitAppend(kb, fn, cfg); });
}

std::string mlir::fa::nvvm_kernel::appendBundleJson(const AttentionKernelConfig &cfg,
                                                    StringRef chip, StringRef cubinFile) {
  AppendArgs unbound;
  Array params = appendSignature(cfg, unbound).bundleParams();
  Array grid{ceilDiv(sym::SeqNew * sym::HeadsKV, kRowsPerCta), sym::Batch, 2};
  return printJson(kernelBundleRoot(chip, cubinFile, appendKernelName(cfg), "kvcache_append",
                                    splitSequenceConfig(cfg), kAppendThreads, 0, std::move(grid),
                                    std::move(params)));
}
