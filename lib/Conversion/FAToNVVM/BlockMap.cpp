//===- BlockMap.cpp - The block map pre-kernel and the forward's lists ----===//
//
// BlockMap.h says what the map holds. The pre-kernel: one CTA of kThreads
// per (query block, head', batch'); for each key tile of the band's range
// (MaskRule::keyRange, as the forward's KeyTiles) every thread evaluates
// mask_mod on its elements of the blockM x blockN tile (ThreadElements: 8
// adjacent columns, rows a stride apart), and two reducing
// barriers (bar.red.or, bar.red.and) decide whether the tile has a visible
// key and whether mask_mod keeps all of it. Thread 0 appends the listed
// tiles; the count is uniform (it comes from the barriers), so no other
// synchronisation is needed. Tiles go four per step, so that their capture
// loads are in flight together (a thread's per-query reads are loaded once
// for all tiles: its rows do not change). The cost is one region
// evaluation per element of the band: O(seq_q x seq_k) integer work,
// measured by test/Device/bench_modifiers.py.
//
//===----------------------------------------------------------------------===//
#include "BlockMap.h"
#include "RegionFragments.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;
using llvm::json::Array;
using llvm::json::Object;

namespace {

/// Tiles evaluated per step of a pre-kernel's loop.
constexpr int64_t kTilesPerStep = 4;

const char *const kNumBlocks = "kv_num_blocks";
const char *const kIndices = "kv_indices";

std::string blockMapName(const AttentionKernelConfig &cfg) {
  return cfg.kernelName() + "_block_map";
}

} // namespace

bool mlir::fa::nvvm_kernel::blockMapPerBatch(const AttentionConfig &semantics) {
  return semantics.maskMod && !semantics.maskMod->front().getArgument(0).use_empty();
}

bool mlir::fa::nvvm_kernel::blockMapPerHead(const AttentionConfig &semantics) {
  return semantics.maskMod && !semantics.maskMod->front().getArgument(1).use_empty();
}

bool mlir::fa::nvvm_kernel::blockMapPerBatch(const AttentionKernelConfig &cfg) {
  return blockMapPerBatch(cfg.semantics);
}

bool mlir::fa::nvvm_kernel::blockMapPerHead(const AttentionKernelConfig &cfg) {
  return blockMapPerHead(cfg.semantics);
}

void mlir::fa::nvvm_kernel::declareBlockMapParams(KernelSignature &sig, BlockMapArgs &a,
                                                  StringRef numName, StringRef indicesName) {
  sig.ptr(&a.numBlocks, numName);
  sig.ptr(&a.indices, indicesName);
  sig.strides({&a.numStride[0], &a.numStride[1]}, numName, {"batch", "head"});
  sig.strides({&a.indexStride[0], &a.indexStride[1], &a.indexStride[2]}, indicesName,
              {"batch", "head", "block"});
}

Array mlir::fa::nvvm_kernel::blockMapWorkspace(const AttentionKernelConfig &cfg, bool withInit) {
  BundleExpr batches = blockMapPerBatch(cfg) ? sym::Batch : BundleExpr(1);
  BundleExpr heads = blockMapPerHead(cfg) ? sym::HeadsQ : BundleExpr(1);
  BundleExpr blocks = TileScheduler::queryBlocks(cfg);
  Object num{{"name", kNumBlocks},
             {"dtype", "i32"},
             {"dims", Array{"batch", "head", "block"}},
             {"shape", Array{batches, heads, blocks}}};
  Object indices{{"name", kIndices},
                 {"dtype", "i32"},
                 {"dims", Array{"batch", "head", "block", "key_block"}},
                 {"shape", Array{batches, heads, blocks, ceilDiv(sym::SeqK, cfg.blockN)}}};
  if (withInit) { // the pre-kernel writes every count and the listed entries
    num["init"] = "none";
    indices["init"] = "none";
    // ... from the captures and the lengths alone: a caller that keeps the
    // map (create_block_mask) passes it, and the pre-kernel is skipped.
    num["written_by"] = 0;
    indices["written_by"] = 0;
  }
  return Array{std::move(num), std::move(indices)};
}

BlockList::BlockList(KernelBuilder &kb, const AttentionKernelConfig &cfg, const BlockMapArgs &map,
                     Value batch, Value head, Value mBlock)
    : BlockList(kb, blockMapPerBatch(cfg), blockMapPerHead(cfg), map, batch, head, mBlock) {}

BlockList::BlockList(KernelBuilder &kb, bool perBatch, bool perHead, const BlockMapArgs &map,
                     Value batch, Value head, Value block)
    : kb(kb) {
  Value b = kb.ext64(perBatch ? batch : kb.c32(0));
  Value h = kb.ext64(perHead ? head : kb.c32(0));
  Value q = kb.ext64(block);
  Value countAt = kb.add(kb.add(kb.mul(b, map.numStride[0]), kb.mul(h, map.numStride[1])), q);
  countPtr = kb.globalAt(map.numBlocks, countAt, kb.i32);
  Value rowAt = kb.add(kb.add(kb.mul(b, map.indexStride[0]), kb.mul(h, map.indexStride[1])),
                       kb.mul(q, map.indexStride[2]));
  rowPtr = kb.globalAt(map.indices, rowAt, kb.i32);
}

Value BlockList::entryAddress(Value t) const { return kb.globalAt(rowPtr, kb.ext64(t), kb.i32); }

Value BlockList::loadCount() const { return LLVM::LoadOp::create(kb.b, kb.i32, countPtr, 4); }

std::pair<Value, Value> BlockList::tileAt(Value t) const {
  Value entry = LLVM::LoadOp::create(kb.b, kb.i32, entryAddress(t), 4);
  Value partial = kb.cmp(arith::CmpIPredicate::eq, kb.andi(entry, kb.c32(1)), kb.c32(0));
  return {kb.shru(entry, kb.c32(1)), partial};
}

namespace {

/// bar.red.<kind> over the CTA of the i1 `pred`: the i1 result.
Value reduceOverCta(KernelBuilder &kb, NVVM::BarrierReduction kind, Value pred) {
  Value wide = arith::ExtUIOp::create(kb.b, kb.i32, pred);
  auto attr = NVVM::BarrierReductionAttr::get(kb.b.getContext(), kind);
  Value r = NVVM::BarrierOp::create(kb.b, kb.i32, Value(), Value(), attr, wide).getRes();
  return kb.cmp(arith::CmpIPredicate::ne, r, kb.c32(0));
}

} // namespace

MapTileEvaluator::MapTileEvaluator(KernelBuilder &kb, MapTile tile,
                                   const AttentionConfig &semantics, MaskRule &rule, Value tid,
                                   Value seqQ, Value seqK)
    : kb(kb), tile(tile), semantics(semantics), rule(rule), seqQ(seqQ), seqK(seqK),
      groups(tile.cols / kColumns), rowLanes(kMapThreads / groups),
      passes(llvm::divideCeil(tile.rows, rowLanes)) {
  column0 = kb.mul(kb.remu(tid, kb.c32(groups)), kb.c32(kColumns));
  firstRow = kb.divUI(tid, kb.c32(groups));
  // (kMapThreads % groups threads have no row lane)
  active = kb.cmp(arith::CmpIPredicate::slt, firstRow, kb.c32(rowLanes));
  isLeader = kb.cmp(arith::CmpIPredicate::eq, tid, kb.c32(0));
}

MapTileEvaluator::TileFacts MapTileEvaluator::evaluate(Value batch, Value head, Value row0,
                                                       Value keyTile) {
  const int64_t blockM = tile.rows;
  Value yes = arith::ConstantIntOp::create(kb.b, 1, 1);
  Value no = arith::ConstantIntOp::create(kb.b, 0, 1);
  Value lastRow = kb.sub(seqQ, kb.c32(1)), lastCol = kb.sub(seqK, kb.c32(1));
  Value col0 = kb.add(kb.mul(keyTile, kb.c32(tile.cols)), column0);
  SmallVector<Value> cols, colIn, readCols;
  for (int64_t c = 0; c < kColumns; ++c) {
    cols.push_back(kb.add(col0, kb.c32(c)));
    colIn.push_back(kb.andi(active, kb.cmp(arith::CmpIPredicate::slt, cols[c], seqK)));
    // Reads of captures stay inside them (as FragmentScores::position).
    readCols.push_back(kb.minSI(cols[c], lastCol));
  }
  SmallVector<Value> facts =
      kb.forLoop(kb.c32(0), kb.c32(passes), {no, yes}, [&](Value p, ValueRange acc) {
        Value r = kb.add(firstRow, kb.mul(p, kb.c32(rowLanes)));
        Value row = kb.add(row0, r);
        Value rowIn = kb.andi(kb.cmp(arith::CmpIPredicate::slt, r, kb.c32(blockM)),
                              kb.cmp(arith::CmpIPredicate::slt, row, seqQ));
        Value readRow = kb.maxSI(kb.minSI(row, lastRow), kb.c32(0));
        Value visible = acc[0], kept = acc[1];
        for (int64_t c = 0; c < kColumns; ++c) {
          Value counts = kb.andi(rowIn, colIn[c]);
          if (Value bandHides = rule.isMasked(row, cols[c]))
            counts = kb.andi(counts, kb.xori(bandHides, yes));
          Value hides = semantics.emitMaskModHides(kb.b, {batch, head, readRow, readCols[c]});
          visible = kb.ori(visible, kb.andi(counts, kb.xori(hides, yes)));
          kept = kb.andi(kept, kb.xori(kb.andi(counts, hides), yes));
        }
        return SmallVector<Value>{visible, kept};
      });
  return {facts[0], facts[1]};
}

void MapTileEvaluator::emitList(const BlockList &list, Value first, Value count,
                                function_ref<TileFacts(Value tile)> evaluateAt) {
  // kTilesPerStep tiles per step: their capture loads are issued together,
  // ahead of the step's reductions (a barrier orders the loads after it).
  Value steps = kb.divUI(kb.add(count, kb.c32(kTilesPerStep - 1)), kb.c32(kTilesPerStep));
  SmallVector<Value> listed =
      kb.forLoop(kb.c32(0), steps, {kb.c32(0)}, [&](Value step, ValueRange st) {
        SmallVector<Value> tiles, inRange;
        SmallVector<TileFacts> facts;
        for (int64_t k = 0; k < kTilesPerStep; ++k) {
          Value t = kb.add(kb.mul(step, kb.c32(kTilesPerStep)), kb.c32(k));
          tiles.push_back(kb.add(first, t));
          inRange.push_back(kb.cmp(arith::CmpIPredicate::slt, t, count));
          facts.push_back(evaluateAt(tiles[k]));
        }
        Value n = st[0];
        for (int64_t k = 0; k < kTilesPerStep; ++k) {
          Value any = reduceOverCta(kb, NVVM::BarrierReduction::OR,
                                    kb.andi(inRange[k], facts[k].anyVisible));
          Value full = reduceOverCta(kb, NVVM::BarrierReduction::AND, facts[k].allKept);
          kb.ifThen(kb.andi(isLeader, any), [&] {
            Value fullBit = arith::ExtUIOp::create(kb.b, kb.i32, full);
            LLVM::StoreOp::create(kb.b, kb.add(kb.shl(tiles[k], kb.c32(1)), fullBit),
                                  list.entryAddress(n), 4);
          });
          n = kb.add(n, arith::ExtUIOp::create(kb.b, kb.i32, any));
        }
        return SmallVector<Value>{n};
      });
  kb.ifThen(isLeader, [&] { LLVM::StoreOp::create(kb.b, listed[0], list.countAddress(), 4); });
}

namespace {

struct BlockMapKernelArgs {
  BlockMapArgs map;
  std::vector<CaptureArgs> captures;
  Value seqQ, seqK;
};

/// The pre-kernel's parameters, declared once.
KernelSignature blockMapSignature(const AttentionKernelConfig &cfg, BlockMapKernelArgs &a) {
  KernelSignature sig;
  declareBlockMapParams(sig, a.map);
  declareCaptureParams(sig, cfg.semantics, a.captures);
  sig.i32(&a.seqQ, sym::SeqQ);
  sig.i32(&a.seqK, sym::SeqK);
  return sig;
}

/// One CTA: the list of query block blockIdx.x of (head blockIdx.y, batch
/// blockIdx.z), which are 0 where the map has no entry per head or batch
/// (mask_mod does not read them).
void emitBlockMap(KernelBuilder &kb, LLVM::LLVMFuncOp fn, const AttentionKernelConfig &cfg) {
  BlockMapKernelArgs a;
  blockMapSignature(cfg, a).bind(fn);
  Value tid = kb.threadIdX();
  Value qBlock = kb.blockIdX(), head = kb.blockIdY(), batch = kb.blockIdZ();
  Value row0 = kb.mul(qBlock, kb.c32(cfg.blockM()));
  MaskRule rule(kb, cfg.semantics, a.seqQ, a.seqK);
  KeyTiles band = KeyTiles::get(kb, rule, row0, cfg.blockM(), cfg.blockN);
  KernelModifiers modifiers(cfg.semantics, a.captures);
  AttentionConfig semantics = KernelModifiers::withTarget(cfg.semantics, &modifiers);
  BlockList list(kb, cfg, a.map, batch, head, qBlock);
  MapTileEvaluator tiles(kb, {cfg.blockM(), cfg.blockN}, semantics, rule, tid, a.seqQ, a.seqK);
  tiles.emitList(list, band.first, band.count,
                 [&](Value keyTile) { return tiles.evaluate(batch, head, row0, keyTile); });
}

} // namespace

void mlir::fa::nvvm_kernel::buildBlockMapKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                                                const AttentionKernelConfig &cfg) {
  BlockMapKernelArgs unbound;
  buildKernelFunction(builder, loc, moduleBody, blockMapName(cfg), blockMapSignature(cfg, unbound),
                      kMapThreads, /*sharedMemory=*/false,
                      /*noAliasPointers=*/true,
                      [&](KernelBuilder &kb, LLVM::LLVMFuncOp fn) { emitBlockMap(kb, fn, cfg); });
}

std::string mlir::fa::nvvm_kernel::blockMapBundleJson(const AttentionKernelConfig &cfg,
                                                      StringRef chip, StringRef cubinFile) {
  BlockMapKernelArgs unbound;
  Array params = blockMapSignature(cfg, unbound).bundleParams();
  Array grid{TileScheduler::queryBlocks(cfg), blockMapPerHead(cfg) ? sym::HeadsQ : BundleExpr(1),
             blockMapPerBatch(cfg) ? sym::Batch : BundleExpr(1)};
  Object root = kernelBundleRoot(chip, cubinFile, blockMapName(cfg), "attention_fwd_block_map",
                                 forwardBundleConfig(cfg), kMapThreads, 0, std::move(grid),
                                 std::move(params));
  root["scratch"] = blockMapWorkspace(cfg, /*withInit=*/false);
  Array captures = captureBundleEntries(cfg.semantics);
  if (!captures.empty())
    root["captures"] = std::move(captures);
  return printJson(std::move(root));
}

std::string mlir::fa::nvvm_kernel::blockSparseSequenceJson(const AttentionKernelConfig &cfg,
                                                           StringRef chip) {
  return preKernelSequenceJson(cfg, chip, blockMapName(cfg),
                               blockMapWorkspace(cfg, /*withInit=*/true));
}
