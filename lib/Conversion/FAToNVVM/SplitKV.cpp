//===- SplitKV.cpp - The split-KV merge kernel and the sequence's bundles --===//
//
// A split-KV forward is two kernels in one gpu.module: the attention kernel
// in split mode (`_partial`: one CTA per (split, packed query block, KV
// head, batch), writing f32 partial O and LSE) and `_combine`, which merges
// the partials with fa.combine's rule (Combine.cpp's mergePartialRow, which
// the standalone fa.combine kernel shares). With one split (the count is a
// run-time expression) the partial kernel writes O and the LSE itself and
// this kernel's grid is empty. One warp per output row, the lanes across
// the head dim; the partials are [splits, batch, heads_q, seq_q(, dv)] f32,
// dense, in the sequence's workspace.
//
//===----------------------------------------------------------------------===//
#include "KernelParts.h"
#include "KernelSignature.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;
using llvm::json::Array;
using llvm::json::Object;

namespace {

std::string combineName(const AttentionKernelConfig &cfg) { return cfg.kernelName() + "_combine"; }

struct CombineArgs {
  Value oPartial, lsePartial, out, lsePtr, numSplits, seqQ; // lsePtr: with the LSE only
};

/// The `_combine` kernel's parameters, declared once.
KernelSignature combineSignature(const AttentionKernelConfig &cfg, CombineArgs &a) {
  KernelSignature sig;
  sig.ptr(&a.oPartial, "o_partial");
  sig.ptr(&a.lsePartial, "lse_partial");
  sig.ptr(&a.out, "output");
  if (cfg.returnLse)
    sig.ptr(&a.lsePtr, "lse");
  sig.i32(&a.numSplits, TileScheduler::splitCount(cfg));
  sig.i32(&a.seqQ, sym::SeqQ);
  return sig;
}

/// One warp per (query, head, batch) row: blockIdx.x covers the queries,
/// y the heads, z the batch; the merge is Combine.cpp's.
void emitCombine(KernelBuilder &kb, LLVM::LLVMFuncOp fn, const AttentionKernelConfig &cfg) {
  CombineArgs a;
  combineSignature(cfg, a).bind(fn);
  Value oPartial = a.oPartial, lsePartial = a.lsePartial, out = a.out, lsePtr = a.lsePtr;
  Value numSplits = a.numSplits, seqQ = a.seqQ;

  Value tid = kb.threadIdX();
  Value lane = kb.andi(tid, kb.c32(31));
  Value query =
      kb.add(kb.mul(kb.blockIdX(), kb.c32(kCombineRowsPerCta)), kb.shru(tid, kb.c32(5)));
  Value head = kb.blockIdY(), batch = kb.blockIdZ();
  Value numHeads = kb.gridDimY(), numBatch = kb.gridDimZ();

  kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, query, seqQ), [&] {
    auto partialRow = [&](Value c) {
      return partialRowIndex(kb, c, numBatch, batch, numHeads, head, seqQ, query);
    };
    PartialRows partials{oPartial, lsePartial, numSplits, partialRow, [&](Value c) {
                           return kb.mul(partialRow(c), kb.c64(cfg.headDimV));
                         }};
    MergedRow merged = mergePartialRow(kb, partials, lane, cfg.headDimV);

    // O and LSE are dense in the layout (as the forward's epilogue writes).
    RowCoords rc{kb.ext64(batch), kb.ext64(head), kb.ext64(numHeads), kb.ext64(seqQ),
                 kb.ext64(query)};
    Value row = outputRowIndex(kb, cfg, rc);
    Type half = cfg.elem == ElemType::BF16 ? Type(kb.b.getBF16Type()) : Type(kb.b.getF16Type());
    storeMergedRow(kb, merged, lane, cfg.headDimV, out, kb.mul(row, kb.c64(cfg.headDimV)), half,
                   lsePtr, [&] { return lseIndex(kb, rc); });
  });
}

} // namespace

namespace {

std::string combineBundle(const AttentionKernelConfig &cfg, StringRef chip, StringRef cubinFile) {
  CombineArgs unbound;
  Array params = combineSignature(cfg, unbound).bundleParams();
  // No CTA (the runtime skips the launch) with one split: the partial
  // kernel wrote O and the LSE itself.
  Array grid{ceilDiv(sym::SeqQ, kCombineRowsPerCta) * minOf(1, TileScheduler::splitCount(cfg) - 1),
             sym::HeadsQ, sym::Batch};
  Object root = kernelBundleRoot(chip, cubinFile, combineName(cfg), "attention_combine",
                                 splitSequenceConfig(cfg), kCombineThreads, 0, std::move(grid),
                                 std::move(params));
  root["scratch"] = Array{splitScratchEntry(cfg, "o_partial", false),
                          splitScratchEntry(cfg, "lse_partial", false)};
  return printJson(std::move(root));
}

} // namespace

Value mlir::fa::nvvm_kernel::partialRowIndex(KernelBuilder &kb, Value split, Value numBatch,
                                             Value batch, Value numHeads, Value head, Value seqQ,
                                             Value query) {
  Value bh = kb.add(kb.mul(kb.add(kb.mul(split, numBatch), batch), numHeads), head);
  return kb.add(kb.mul(kb.ext64(bh), kb.ext64(seqQ)), kb.ext64(query));
}

void mlir::fa::nvvm_kernel::buildCombineKernel(OpBuilder &builder, Location loc,
                                               Block &moduleBody,
                                               const AttentionKernelConfig &cfg) {
  CombineArgs unbound;
  buildKernelFunction(builder, loc, moduleBody, combineName(cfg), combineSignature(cfg, unbound),
                      kCombineThreads, /*sharedMemory=*/false, /*noAliasPointers=*/false,
                      [&](KernelBuilder &kb, LLVM::LLVMFuncOp fn) { emitCombine(kb, fn, cfg); });
}

std::string mlir::fa::nvvm_kernel::splitSequenceJson(const AttentionKernelConfig &cfg,
                                                     StringRef chip, StringRef op) {
  Array kernels;
  if (cfg.append) // the new keys are in the caches before any split reads them
    kernels.push_back(appendKernelName(cfg) + ".json");
  kernels.push_back(cfg.attentionKernelName() + ".json");
  kernels.push_back(combineName(cfg) + ".json");
  Object root{{"format", "fa-kernel-sequence"},
              {"version", 1},
              {"chip", chip},
              {"op", op.str()},
              {"config", splitSequenceConfig(cfg)},
              {"workspace", Array{splitScratchEntry(cfg, "o_partial", true),
                                  splitScratchEntry(cfg, "lse_partial", true)}},
              {"kernels", std::move(kernels)}};
  return printJson(std::move(root));
}

std::vector<std::pair<std::string, std::string>>
mlir::fa::nvvm_kernel::splitBundleJsons(const AttentionKernelConfig &cfg, StringRef chip,
                                        StringRef op, StringRef cubinFile) {
  std::vector<std::pair<std::string, std::string>> bundles;
  if (cfg.append)
    bundles.emplace_back(appendKernelName(cfg), appendBundleJson(cfg, chip, cubinFile));
  bundles.emplace_back(cfg.attentionKernelName(), bundleJson(cfg, chip, cubinFile));
  bundles.emplace_back(combineName(cfg), combineBundle(cfg, chip, cubinFile));
  return bundles;
}
