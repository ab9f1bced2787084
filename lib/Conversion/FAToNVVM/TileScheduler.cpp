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
    return {bx, head, batch, row0, Value()};
  }
  // Causal: the longest rows (the last query blocks) first.
  Value mBlock = cfg.semantics.causal ? kb.sub(kb.sub(numBlocks, kb.c32(1)), bx) : bx;
  Value row0 = kb.mul(mBlock, kb.c32(cfg.blockM()));
  return {mBlock, head, batch, row0, Value()};
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

static Value loadI32(KernelBuilder &kb, Value ptr, Value index) {
  return LLVM::LoadOp::create(kb.b, kb.i32, kb.globalAt(ptr, kb.ext64(index), kb.i32), 4);
}

/// Query blocks of a sequence of `len` rows.
static Value blocksOf(KernelBuilder &kb, const AttentionKernelConfig &cfg, Value len) {
  return kb.divUI(kb.add(len, kb.c32(cfg.blockM() - 1)), kb.c32(cfg.blockM()));
}

namespace {
/// A sequence of a ragged batch as the searches find it: its index (-1:
/// none, a spare CTA), its first flat block and its bounds
/// cu_seqlens_q/k[seq], [seq + 1].
struct FoundSequence {
  Value seq, firstBlock, qLo, qHi, kLo, kHi;
  SmallVector<Value> values() const { return {seq, firstBlock, qLo, qHi, kLo, kHi}; }
  static FoundSequence of(ValueRange v) { return {v[0], v[1], v[2], v[3], v[4], v[5]}; }
};
} // namespace

/// Sequence `seq`'s bounds (index clamped into the arrays: with no sequence,
/// cu_seqlens[0] twice).
static FoundSequence boundsOf(KernelBuilder &kb, Value cuQ, Value cuK, Value numSeqs, Value seq,
                              Value firstBlock) {
  Value at = kb.minSI(seq, kb.maxSI(kb.sub(numSeqs, kb.c32(1)), kb.c32(0)));
  Value next = kb.minSI(kb.add(at, kb.c32(1)), numSeqs);
  return {seq, firstBlock, loadI32(kb, cuQ, at), loadI32(kb, cuQ, next), loadI32(kb, cuK, at),
          loadI32(kb, cuK, next)};
}

/// The tile of flat block x of head `head` in the found sequence.
static TileScheduler::VarlenTile varlenTileOf(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                                              Value x, Value head, const FoundSequence &f) {
  Value any = kb.cmp(arith::CmpIPredicate::sge, f.seq, kb.c32(0));
  TileScheduler::VarlenTile v;
  v.qStart = kb.select(any, f.qLo, kb.c32(0));
  v.kStart = kb.select(any, f.kLo, kb.c32(0));
  v.seqQ = kb.select(any, kb.sub(f.qHi, f.qLo), kb.c32(0));
  v.seqK = kb.select(any, kb.sub(f.kHi, f.kLo), kb.c32(0));
  Value bx = kb.select(any, kb.sub(x, f.firstBlock), kb.c32(0));
  Value numBlocks = kb.maxSI(blocksOf(kb, cfg, v.seqQ), kb.c32(1));
  v.tile = tileOf(kb, cfg, v.seqQ, bx, numBlocks, head, kb.c32(0));
  return v;
}

/// Warp-wide: the sequence holding flat block x, from sequence `from`
/// (whose first flat block is `fromBlock`) on, 32 sequences per step (lane l
/// loads sequence from + 32 i + l's bounds, one round trip; a prefix sum of
/// the block counts; the hit lane's values by ballot and shuffles). Returns
/// the sequence (or -1) and the cursor to resume from.
static FoundSequence warpFind(KernelBuilder &kb, const AttentionKernelConfig &cfg, Value cuQ,
                              Value cuK, Value numSeqs, Value x, Value from, Value fromBlock) {
  Value lane = kb.laneId();
  Value steps = kb.divUI(kb.add(kb.sub(numSeqs, from), kb.c32(31)), kb.c32(32));
  Value none = kb.c32(-1);
  SmallVector<Value> init{fromBlock, none, none, none, none, none, none};
  SmallVector<Value> st = kb.forLoop(kb.c32(0), steps, init, [&](Value i, ValueRange st) {
    Value seq = kb.add(kb.add(from, kb.mul(i, kb.c32(32))), lane);
    Value inRange = kb.cmp(arith::CmpIPredicate::slt, seq, numSeqs);
    FoundSequence b = boundsOf(kb, cuQ, cuK, numSeqs, seq, Value());
    Value blocks = kb.select(inRange, blocksOf(kb, cfg, kb.sub(b.qHi, b.qLo)), kb.c32(0));
    Value end = kb.add(st[0], warpInclusiveScan(kb, blocks, lane));
    Value start = kb.sub(end, blocks);
    Value hit = kb.andi(kb.cmp(arith::CmpIPredicate::sle, start, x),
                        kb.cmp(arith::CmpIPredicate::slt, x, end));
    Value ballot = NVVM::VoteSyncOp::create(kb.b, kb.i32, kb.c32(-1), hit,
                                            NVVM::VoteSyncKind::ballot);
    Value any = kb.cmp(arith::CmpIPredicate::ne, ballot, kb.c32(0));
    Value src = LLVM::CountTrailingZerosOp::create(kb.b, kb.i32, ballot,
                                                   kb.b.getBoolAttr(false));
    SmallVector<Value> next{shuffle(kb, end, kb.c32(31), NVVM::ShflKind::idx)};
    Value mine[6] = {seq, start, b.qLo, b.qHi, b.kLo, b.kHi};
    for (int64_t k = 0; k < 6; ++k)
      next.push_back(kb.select(any, shuffle(kb, mine[k], src, NVVM::ShflKind::idx), st[1 + k]));
    return next;
  });
  return FoundSequence::of(ValueRange(st).drop_front());
}

TileScheduler::VarlenTile TileScheduler::varlen(KernelBuilder &kb,
                                                const AttentionKernelConfig &cfg,
                                                Value cuSeqlensQ, Value cuSeqlensK,
                                                Value numSeqs) {
  Value x = kb.blockIdX();
  FoundSequence f =
      warpFind(kb, cfg, cuSeqlensQ, cuSeqlensK, numSeqs, x, kb.c32(0), kb.c32(0));
  return varlenTileOf(kb, cfg, x, kb.blockIdY(), f);
}

TileScheduler::VarlenTile TileScheduler::varlenAt(KernelBuilder &kb,
                                                  const AttentionKernelConfig &cfg,
                                                  Value cuSeqlensQ, Value cuSeqlensK,
                                                  Value numSeqs, Value x, Value head,
                                                  Value cursor[2], bool warpWide) {
  // Back to sequence 0 when x is before the cursor (a new head).
  Value back = kb.cmp(arith::CmpIPredicate::slt, x, cursor[1]);
  Value from = kb.select(back, kb.c32(0), cursor[0]);
  Value fromBlock = kb.select(back, kb.c32(0), cursor[1]);
  FoundSequence f;
  if (warpWide) {
    f = warpFind(kb, cfg, cuSeqlensQ, cuSeqlensK, numSeqs, x, from, fromBlock);
    Value any = kb.cmp(arith::CmpIPredicate::sge, f.seq, kb.c32(0));
    cursor[0] = kb.select(any, f.seq, from);
    cursor[1] = kb.select(any, f.firstBlock, fromBlock);
  } else {
    // One thread: walk the sequences, each step one round trip (the
    // producer, ahead of the consumers, hides it).
    FoundSequence at = boundsOf(kb, cuSeqlensQ, cuSeqlensK, numSeqs, from, fromBlock);
    SmallVector<Value> st = kb.whileLoop(
        at.values(),
        [&](ValueRange v) {
          FoundSequence c = FoundSequence::of(v);
          Value inRange = kb.cmp(arith::CmpIPredicate::slt, c.seq, numSeqs);
          Value end = kb.add(c.firstBlock, blocksOf(kb, cfg, kb.sub(c.qHi, c.qLo)));
          return kb.andi(inRange, kb.cmp(arith::CmpIPredicate::sge, x, end));
        },
        [&](ValueRange v) {
          FoundSequence c = FoundSequence::of(v);
          Value end = kb.add(c.firstBlock, blocksOf(kb, cfg, kb.sub(c.qHi, c.qLo)));
          return boundsOf(kb, cuSeqlensQ, cuSeqlensK, numSeqs, kb.add(c.seq, kb.c32(1)), end)
              .values();
        });
    f = FoundSequence::of(st);
    cursor[0] = f.seq;
    cursor[1] = f.firstBlock;
    f.seq = kb.select(kb.cmp(arith::CmpIPredicate::slt, f.seq, numSeqs), f.seq, kb.c32(-1));
  }
  return varlenTileOf(kb, cfg, x, head, f);
}

Value TileScheduler::persistentTile(KernelBuilder &kb, Value round) {
  Value x = kb.blockIdX(), stride = kb.gridDimX();
  Value odd = kb.cmp(arith::CmpIPredicate::ne, kb.andi(round, kb.c32(1)), kb.c32(0));
  Value inRound = kb.select(odd, kb.sub(kb.sub(stride, kb.c32(1)), x), x);
  return kb.add(kb.mul(round, stride), inRound);
}

Value TileScheduler::persistentTileCount(KernelBuilder &kb, Value total) {
  // A tile in each full round, and one in the partial last round if the
  // snake's position there is below total.
  Value full = kb.divUI(total, kb.gridDimX());
  Value inLast = kb.cmp(arith::CmpIPredicate::ult, persistentTile(kb, full), total);
  return kb.add(full, kb.select(inLast, kb.c32(1), kb.c32(0)));
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
