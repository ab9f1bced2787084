//===- TileScheduler.cpp - CTA to work tile, and the grid -----------------===//
#include "KernelParts.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

/// Block `bx` of `numBlocks` query blocks, of (head, batch).
static TileScheduler::WorkTile tileOf(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                                      Value seqQ, Value bx, Value numBlocks, Value head,
                                      Value batch) {
  if (cfg.slabTiles()) {
    // Block bx ends at seq_q - bx * blockM: the last rows (the longest
    // under causal) first, the partial block last.
    Value row0 = kb.sub(seqQ, kb.mul(kb.add(bx, kb.c32(1)), kb.c32(cfg.blockM())));
    return {bx, head, batch, row0};
  }
  // Causal: the longest rows (the last query blocks) first.
  Value mBlock = cfg.semantics.causal ? kb.sub(kb.sub(numBlocks, kb.c32(1)), bx) : bx;
  Value row0 = kb.mul(mBlock, kb.c32(cfg.blockM()));
  return {mBlock, head, batch, row0};
}

TileScheduler::WorkTile TileScheduler::current(KernelBuilder &kb,
                                               const AttentionKernelConfig &cfg, Value seqQ,
                                               Value numSplits) {
  Value bx = kb.blockIdX();
  if (cfg.splitKv) {
    // The splits of a tile side by side; packed query blocks in order (no
    // causal reordering: a decode grid is one wave).
    Value mBlock = kb.divUI(bx, numSplits);
    return {mBlock, kb.blockIdY(), kb.blockIdZ(), kb.mul(mBlock, kb.c32(cfg.blockM())),
            kb.remu(bx, numSplits)};
  }
  // gridDimX is read only where it is used (keeps the PTX as before).
  Value numBlocks = cfg.semantics.causal && !cfg.slabTiles() ? kb.gridDimX() : Value();
  return tileOf(kb, cfg, seqQ, bx, numBlocks, kb.blockIdY(), kb.blockIdZ());
}

TileScheduler::WorkTile TileScheduler::decode(KernelBuilder &kb,
                                              const AttentionKernelConfig &cfg, Value seqQ,
                                              Value linear, Value numBlocks, Value numHeads) {
  Value bx = kb.remu(linear, numBlocks);
  Value rest = kb.divUI(linear, numBlocks);
  return tileOf(kb, cfg, seqQ, bx, numBlocks, kb.remu(rest, numHeads),
                kb.divUI(rest, numHeads));
}

/// i32 shuffles of one warp (all lanes take part).
static Value shuffle(KernelBuilder &kb, Value v, Value lane, NVVM::ShflKind kind) {
  // Clamp 0 for `up` (width 32), 0x1f for the others (PTX shfl.sync's c).
  int64_t clamp = kind == NVVM::ShflKind::up ? 0 : 0x1f;
  return NVVM::ShflOp::create(kb.b, kb.i32, kb.c32(-1), v, lane, kb.c32(clamp), kind, UnitAttr());
}

/// The inclusive prefix sum of `v` over the warp's lanes.
static Value warpInclusiveScan(KernelBuilder &kb, Value v, Value lane) {
  for (int64_t d = 1; d < 32; d *= 2) {
    Value up = shuffle(kb, v, kb.c32(d), NVVM::ShflKind::up);
    v = kb.select(kb.cmp(arith::CmpIPredicate::sge, lane, kb.c32(d)), kb.add(v, up), v);
  }
  return v;
}

static Value warpMax(KernelBuilder &kb, Value v) {
  for (int64_t d = 16; d >= 1; d /= 2)
    v = kb.maxSI(v, shuffle(kb, v, kb.c32(d), NVVM::ShflKind::bfly));
  return v;
}

static Value loadI32(KernelBuilder &kb, Value ptr, Value index) {
  return LLVM::LoadOp::create(kb.b, kb.i32, kb.globalAt(ptr, kb.ext64(index), kb.i32), 4);
}

/// Query blocks of a sequence of `len` rows.
static Value blocksOf(KernelBuilder &kb, const AttentionKernelConfig &cfg, Value len) {
  return kb.divUI(kb.add(len, kb.c32(cfg.blockM() - 1)), kb.c32(cfg.blockM()));
}

/// The tile of flat block x of head `head`, in sequence `seq` (-1: none,
/// a spare CTA) whose blocks start at flat block `firstBlock`.
static TileScheduler::VarlenTile varlenTileOf(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                                              Value cuSeqlensQ, Value cuSeqlensK, Value numSeqs,
                                              Value x, Value head, Value seq, Value firstBlock) {
  Value any = kb.cmp(arith::CmpIPredicate::sge, seq, kb.c32(0));
  // Spare CTAs read sequence 0's bounds (index 0 of an array of num_seqs + 1
  // entries) and take lengths 0.
  Value b = kb.maxSI(seq, kb.c32(0));
  Value next = kb.minSI(kb.add(b, kb.c32(1)), numSeqs);
  TileScheduler::VarlenTile v;
  v.qStart = loadI32(kb, cuSeqlensQ, b);
  v.kStart = loadI32(kb, cuSeqlensK, b);
  v.seqQ = kb.select(any, kb.sub(loadI32(kb, cuSeqlensQ, next), v.qStart), kb.c32(0));
  v.seqK = kb.select(any, kb.sub(loadI32(kb, cuSeqlensK, next), v.kStart), kb.c32(0));
  Value bx = kb.select(any, kb.sub(x, firstBlock), kb.c32(0));
  Value numBlocks = kb.maxSI(blocksOf(kb, cfg, v.seqQ), kb.c32(1));
  v.tile = tileOf(kb, cfg, v.seqQ, bx, numBlocks, head, kb.c32(0));
  return v;
}

TileScheduler::VarlenTile TileScheduler::varlen(KernelBuilder &kb,
                                                const AttentionKernelConfig &cfg,
                                                Value cuSeqlensQ, Value cuSeqlensK,
                                                Value numSeqs) {
  Value x = kb.blockIdX(), lane = kb.laneId();
  // 32 sequences per step: lane l takes sequence 32 i + l; the sequence
  // whose blocks [start, end) hold x, and its first block, are the warp's
  // max over the lanes (-1 elsewhere).
  Value steps = kb.divUI(kb.add(numSeqs, kb.c32(31)), kb.c32(32));
  Value last = kb.maxSI(kb.sub(numSeqs, kb.c32(1)), kb.c32(0));
  SmallVector<Value> found = kb.forLoop(
      kb.c32(0), steps, {kb.c32(0), kb.c32(-1), kb.c32(-1)}, [&](Value i, ValueRange st) {
        Value seq = kb.add(kb.mul(i, kb.c32(32)), lane);
        Value inRange = kb.cmp(arith::CmpIPredicate::slt, seq, numSeqs);
        Value at = kb.minSI(seq, last);
        Value len = kb.sub(loadI32(kb, cuSeqlensQ, kb.add(at, kb.c32(1))),
                           loadI32(kb, cuSeqlensQ, at));
        Value blocks = kb.select(inRange, blocksOf(kb, cfg, len), kb.c32(0));
        Value end = kb.add(st[0], warpInclusiveScan(kb, blocks, lane));
        Value start = kb.sub(end, blocks);
        Value hit = kb.andi(kb.cmp(arith::CmpIPredicate::sle, start, x),
                            kb.cmp(arith::CmpIPredicate::slt, x, end));
        Value seqHit = warpMax(kb, kb.select(hit, seq, kb.c32(-1)));
        Value startHit = warpMax(kb, kb.select(hit, start, kb.c32(-1)));
        Value total = shuffle(kb, end, kb.c32(31), NVVM::ShflKind::idx);
        return SmallVector<Value>{total, kb.maxSI(st[1], seqHit), kb.maxSI(st[2], startHit)};
      });
  return varlenTileOf(kb, cfg, cuSeqlensQ, cuSeqlensK, numSeqs, x, kb.blockIdY(), found[1],
                      found[2]);
}

TileScheduler::VarlenTile TileScheduler::varlenAt(KernelBuilder &kb,
                                                  const AttentionKernelConfig &cfg,
                                                  Value cuSeqlensQ, Value cuSeqlensK,
                                                  Value numSeqs, Value x, Value head,
                                                  Value cursor[2]) {
  // Back to sequence 0 when x is before the cursor (a new head).
  Value back = kb.cmp(arith::CmpIPredicate::slt, x, cursor[1]);
  SmallVector<Value> init{kb.select(back, kb.c32(0), cursor[0]),
                          kb.select(back, kb.c32(0), cursor[1])};
  auto blocksAt = [&](Value seq) { // (with no sequence, of cu_seqlens_q[0] only)
    Value next = kb.minSI(kb.add(seq, kb.c32(1)), numSeqs);
    return blocksOf(kb, cfg,
                    kb.sub(loadI32(kb, cuSeqlensQ, next), loadI32(kb, cuSeqlensQ, seq)));
  };
  SmallVector<Value> at = kb.whileLoop(
      init,
      [&](ValueRange st) {
        Value inRange = kb.cmp(arith::CmpIPredicate::slt, st[0], numSeqs);
        // The loads' index stays in range past the last sequence.
        Value seq = kb.minSI(st[0], kb.maxSI(kb.sub(numSeqs, kb.c32(1)), kb.c32(0)));
        Value past = kb.cmp(arith::CmpIPredicate::sge, x, kb.add(st[1], blocksAt(seq)));
        return kb.andi(inRange, past);
      },
      [&](ValueRange st) {
        return SmallVector<Value>{kb.add(st[0], kb.c32(1)), kb.add(st[1], blocksAt(st[0]))};
      });
  cursor[0] = at[0];
  cursor[1] = at[1];
  Value seq = kb.select(kb.cmp(arith::CmpIPredicate::slt, at[0], numSeqs), at[0], kb.c32(-1));
  return varlenTileOf(kb, cfg, cuSeqlensQ, cuSeqlensK, numSeqs, x, head, seq, at[1]);
}

std::string TileScheduler::gridBlocks(const AttentionKernelConfig &cfg) {
  // Ragged: sum_b ceildiv(len_b, blockM) <= ceildiv(total, blockM) + num_seqs.
  return cfg.varlen ? "(" + queryBlocks(cfg) + " + num_seqs)" : queryBlocks(cfg);
}

std::string TileScheduler::queryBlocks(const AttentionKernelConfig &cfg) {
  if (cfg.packGqa())
    return llvm::formatv("ceildiv(seq_q * (heads_q / heads_kv), {0})", cfg.blockM()).str();
  return llvm::formatv("ceildiv(seq_q, {0})", cfg.blockM()).str();
}

llvm::json::Array TileScheduler::grid(const AttentionKernelConfig &cfg) {
  // Persistent: one CTA per SM, each looping over tiles, below
  // kPersistentBelowSeqQ query rows; from there one tile per CTA (measured
  // +2..15 % at 512-2k, -2..4 % at 8k-16k with one CTA per SM):
  // min(total, max(num_sms, total * [seq_q >= threshold])).
  if (cfg.isPersistent()) {
    std::string total = "(" + gridBlocks(cfg) + " * heads_q * batch)";
    // Ragged: by the mean length (the launch knows no other).
    std::string longRows =
        llvm::formatv(cfg.varlen ? "min(1, seq_q / (num_seqs * {0}))" : "min(1, seq_q / {0})",
                      AttentionKernelConfig::kPersistentBelowSeqQ)
            .str();
    return llvm::json::Array{
        "min(" + total + ", max(num_sms, " + total + " * " + longRows + "))", 1, 1};
  }
  if (cfg.splitKv)
    return llvm::json::Array{queryBlocks(cfg) + " * " + cfg.splitCountExpr(), "heads_kv", "batch"};
  if (cfg.varlen)
    return llvm::json::Array{gridBlocks(cfg), "heads_q", 1};
  return llvm::json::Array{queryBlocks(cfg), "heads_q", "batch"};
}
