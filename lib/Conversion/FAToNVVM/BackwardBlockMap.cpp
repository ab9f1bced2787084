//===- BackwardBlockMap.cpp - The backward's map pre-kernel ---------------===//
//
// BackwardBlockMap.h says what the map holds. The pre-kernel: one CTA of
// kMapThreads per (key block, kv head', batch'); for each query tile of
// the band's query range (MaskRule::queryRange, the tiles the dense
// backward visits) MapTileEvaluator evaluates mask_mod on the 64-query x
// 128-key tile, for every query head of the group where the region reads
// the head, and appends the tiles with a visible element.
//
//===----------------------------------------------------------------------===//
#include "BackwardBlockMap.h"
#include "RegionFragments.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;
using llvm::json::Array;
using llvm::json::Object;
using BK = BackwardKernelConfig;

namespace {

/// Entries per batch / per kv head: mask_mod reads its batch / head.
bool mapPerBatch(const BK &cfg) { return blockMapPerBatch(cfg.semantics); }
bool mapPerHead(const BK &cfg) { return blockMapPerHead(cfg.semantics); }

std::string mapKernelName(const BK &cfg) { return cfg.name() + "_block_map"; }

struct BackwardMapKernelArgs {
  BlockMapArgs map;
  std::vector<CaptureArgs> captures;
  Value seqQ, seqK, group;
};

KernelSignature mapSignature(const BK &cfg, BackwardMapKernelArgs &a) {
  KernelSignature sig;
  declareBackwardMapParams(sig, a.map);
  declareCaptureParams(sig, cfg.semantics, a.captures);
  sig.i32(&a.seqQ, sym::SeqQ);
  sig.i32(&a.seqK, sym::SeqK);
  sig.i32(&a.group, sym::HeadsQ / sym::HeadsKV);
  return sig;
}

/// One CTA: the list of key block blockIdx.x of (kv head blockIdx.y, batch
/// blockIdx.z), 0 where the map has no entry per head or batch.
void emitBackwardBlockMap(KernelBuilder &kb, LLVM::LLVMFuncOp fn, const BK &cfg) {
  BackwardMapKernelArgs a;
  mapSignature(cfg, a).bind(fn);
  Value tid = kb.threadIdX();
  Value nBlock = kb.blockIdX(), headKV = kb.blockIdY(), batch = kb.blockIdZ();
  Value n0 = kb.mul(nBlock, kb.c32(BK::kBlockN));
  MaskRule rule(kb, cfg.semantics, a.seqQ, a.seqK);
  auto [lo, hi] = rule.tileRange(rule.queryRange({n0, kb.c32(BK::kBlockN)}), cfg.blockM);
  KernelModifiers modifiers(cfg.semantics, a.captures);
  AttentionConfig semantics = KernelModifiers::withTarget(cfg.semantics, &modifiers);
  BlockList list = backwardQueryList(kb, cfg, a.map, batch, headKV, nBlock);
  MapTileEvaluator tiles(kb, {cfg.blockM, BK::kBlockN}, semantics, rule, tid, a.seqQ, a.seqK);
  bool perHead = mapPerHead(cfg);
  tiles.emitList(list, lo, kb.sub(hi, lo), [&](Value qTile) {
    Value row0 = kb.mul(qTile, kb.c32(cfg.blockM));
    if (!perHead)
      return tiles.evaluate(batch, headKV, row0, nBlock);
    // The group's query heads share the CTA's list: listed where one
    // sees a key, full where mask_mod keeps everything for all of them.
    Value no = arith::ConstantIntOp::create(kb.b, 0, 1);
    Value yes = arith::ConstantIntOp::create(kb.b, 1, 1);
    SmallVector<Value> facts =
        kb.forLoop(kb.c32(0), a.group, {no, yes}, [&](Value g, ValueRange acc) {
          Value head = kb.add(kb.mul(headKV, a.group), g);
          MapTileEvaluator::TileFacts f = tiles.evaluate(batch, head, row0, nBlock);
          return SmallVector<Value>{kb.ori(acc[0], f.anyVisible), kb.andi(acc[1], f.allKept)};
        });
    return MapTileEvaluator::TileFacts{facts[0], facts[1]};
  });
}

} // namespace

bool mlir::fa::nvvm_kernel::backwardBlockSparse(const BK &cfg) {
  return cfg.semantics.maskMod && !cfg.bias && !cfg.deterministic && !cfg.varlen;
}

Object mlir::fa::nvvm_kernel::backwardMapBuffer(StringRef name, const BK &cfg, bool withInit) {
  BundleExpr batches = mapPerBatch(cfg) ? sym::Batch : BundleExpr(1);
  BundleExpr heads = mapPerHead(cfg) ? sym::HeadsKV : BundleExpr(1);
  BundleExpr keyBlocks = ceilDiv(sym::SeqK, BK::kBlockN);
  Array dims{"batch", "head", "block"}, shape{batches, heads, keyBlocks};
  if (name == kBackwardMapIndices) {
    dims.push_back("query_block");
    shape.push_back(ceilDiv(sym::SeqQ, cfg.blockM));
  }
  Object o{{"name", name.str()},
           {"dtype", "i32"},
           {"dims", std::move(dims)},
           {"shape", std::move(shape)}};
  if (withInit) {
    // The pre-kernel writes every count and the listed entries, from the
    // captures and the lengths alone: a caller may keep them.
    o["init"] = "none";
    o["written_by"] = 0;
  }
  return o;
}

void mlir::fa::nvvm_kernel::declareBackwardMapParams(KernelSignature &sig, BlockMapArgs &map) {
  declareBlockMapParams(sig, map, kBackwardMapCount, kBackwardMapIndices);
}

BlockList mlir::fa::nvvm_kernel::backwardQueryList(KernelBuilder &kb, const BK &cfg,
                                                   const BlockMapArgs &map, Value batch,
                                                   Value headKV, Value nBlock) {
  return BlockList(kb, mapPerBatch(cfg), mapPerHead(cfg), map, batch, headKV, nBlock);
}

void mlir::fa::nvvm_kernel::buildBackwardBlockMapKernel(OpBuilder &builder, Location loc,
                                                        Block &moduleBody, const BK &cfg) {
  BackwardMapKernelArgs unbound;
  buildKernelFunction(
      builder, loc, moduleBody, mapKernelName(cfg), mapSignature(cfg, unbound), kMapThreads,
      /*sharedMemory=*/false, /*noAliasPointers=*/true,
      [&](KernelBuilder &kb, LLVM::LLVMFuncOp fn) { emitBackwardBlockMap(kb, fn, cfg); });
}

Array mlir::fa::nvvm_kernel::backwardBlockMapParams(const BK &cfg) {
  BackwardMapKernelArgs unbound;
  return mapSignature(cfg, unbound).bundleParams();
}

Array mlir::fa::nvvm_kernel::backwardBlockMapGrid(const BK &cfg) {
  return Array{ceilDiv(sym::SeqK, BK::kBlockN), mapPerHead(cfg) ? sym::HeadsKV : BundleExpr(1),
               mapPerBatch(cfg) ? sym::Batch : BundleExpr(1)};
}
