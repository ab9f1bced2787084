//===- TileScheduler.cpp - CTA to work tile, and the grid -----------------===//
#include "TileScheduler.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

/// Block `bx` of `numBlocks` query blocks, of (head, batch).
static WorkTile tileOf(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                       Value seqQ, Value bx, Value numBlocks, Value head, Value batch) {
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

/// The inclusive prefix sum of `v` over the warp's lanes.
static Value warpInclusiveScan(KernelBuilder &kb, Value v, Value lane) {
  for (int64_t d = 1; d < 32; d *= 2) {
    Value up = warpShuffle(kb, v, kb.c32(d), NVVM::ShflKind::up);
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
static WorkTile varlenTileOf(KernelBuilder &kb, const AttentionKernelConfig &cfg, Value x,
                             Value head, const FoundSequence &f) {
  Value any = kb.cmp(arith::CmpIPredicate::sge, f.seq, kb.c32(0));
  Value qStart = kb.select(any, f.qLo, kb.c32(0));
  Value kStart = kb.select(any, f.kLo, kb.c32(0));
  Value seqQ = kb.select(any, kb.sub(f.qHi, f.qLo), kb.c32(0));
  Value seqK = kb.select(any, kb.sub(f.kHi, f.kLo), kb.c32(0));
  Value bx = kb.select(any, kb.sub(x, f.firstBlock), kb.c32(0));
  Value numBlocks = kb.maxSI(blocksOf(kb, cfg, seqQ), kb.c32(1));
  WorkTile tile = tileOf(kb, cfg, seqQ, bx, numBlocks, head, kb.c32(0));
  tile.qStart = qStart;
  tile.kStart = kStart;
  tile.seqQ = seqQ;
  tile.seqK = seqK;
  if (cfg.semantics.hasModifiers())
    tile.seq = kb.select(any, f.seq, kb.c32(0));
  return tile;
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
    SmallVector<Value> next{warpShuffle(kb, end, kb.c32(31), NVVM::ShflKind::idx)};
    Value mine[6] = {seq, start, b.qLo, b.qHi, b.kLo, b.kHi};
    for (int64_t k = 0; k < 6; ++k)
      next.push_back(kb.select(any, warpShuffle(kb, mine[k], src, NVVM::ShflKind::idx), st[1 + k]));
    return next;
  });
  return FoundSequence::of(ValueRange(st).drop_front());
}

/// The tile of flat block x (blockIdx.x) of a ragged batch: a warp-wide
/// search from sequence 0.
static WorkTile varlenTile(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                           const SchedulerArgs &a) {
  Value x = kb.blockIdX();
  FoundSequence f =
      warpFind(kb, cfg, a.cuSeqlensQ, a.cuSeqlensK, a.numSeqs, x, kb.c32(0), kb.c32(0));
  return varlenTileOf(kb, cfg, x, kb.blockIdY(), f);
}

/// A persistent CTA's tile: flat block x of `head`, searched from `cursor`
/// (sequence, its first flat block), which the CTA's previous tile left
/// (its tiles' x grow until the head changes; then the search restarts at
/// 0). Updates the cursor. `warpWide`: every lane of the warp calls it (the
/// consumers: the warp scan, one round trip per 32 sequences); else one
/// thread walks sequence by sequence (the producer, which runs ahead). Both
/// find the same tile.
static WorkTile varlenTileAt(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                             Value cuSeqlensQ, Value cuSeqlensK, Value numSeqs, Value x,
                             Value head, Value cursor[2], bool warpWide) {
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

/// A persistent CTA's tiles: round i of gridDim.x tiles gives CTA x tile i
/// gridDim.x + x in even rounds and i gridDim.x + gridDim.x - 1 - x in odd
/// ones (a snake), so that under a causal mask, where the tiles of a head
/// run from long to short, a CTA's long tile in one round is followed by a
/// short one: a simulated static round robin is 1.2-1.9x the mean load, the
/// snake 1.03-1.06x (a dynamic scheduler's 1.03-1.07x). Tiles stay in
/// increasing order per CTA.
static Value snakeTile(KernelBuilder &kb, Value round) {
  Value x = kb.blockIdX(), stride = kb.gridDimX();
  Value odd = kb.cmp(arith::CmpIPredicate::ne, kb.andi(round, kb.c32(1)), kb.c32(0));
  Value inRound = kb.select(odd, kb.sub(kb.sub(stride, kb.c32(1)), x), x);
  return kb.add(kb.mul(round, stride), inRound);
}

/// How many of the `total` tiles this CTA computes.
static Value snakeTileCount(KernelBuilder &kb, Value total) {
  // A tile in each full round, and one in the partial last round if the
  // snake's position there is below total.
  Value full = kb.divUI(total, kb.gridDimX());
  Value inLast = kb.cmp(arith::CmpIPredicate::ult, snakeTile(kb, full), total);
  return kb.add(full, kb.select(inLast, kb.c32(1), kb.c32(0)));
}

namespace {

/// One CTA per (query block, head, batch). Causal grids take the longest
/// query blocks first (CTAs start in blockIdx order); with `slabTiles` the
/// blocks end at seq_q, so the partial block is the first one (row0 < 0
/// there), which under a causal mask sees the fewest keys.
class StaticScheduler : public TileScheduler {
public:
  using TileScheduler::TileScheduler;
  llvm::json::Array gridShape() const override {
    return llvm::json::Array{queryBlocks(cfg), sym::HeadsQ, sym::Batch};
  }
  WorkTile currentTile(KernelBuilder &kb, const SchedulerArgs &a) const override {
    Value bx = kb.blockIdX();
    // gridDimX is read only where it is used (keeps the PTX as before).
    Value numBlocks = cfg.semantics.causal && !cfg.slabTiles() ? kb.gridDimX() : Value();
    return tileOf(kb, cfg, a.seqQ, bx, numBlocks, kb.blockIdY(), kb.blockIdZ());
  }
};

/// Split-KV: the `num_splits` CTAs of a work tile side by side in x, each
/// a chunk of its key tiles; packed query blocks in order (no causal
/// reordering: a decode grid is one wave); y the KV head.
class SplitKvScheduler : public TileScheduler {
public:
  using TileScheduler::TileScheduler;
  llvm::json::Array gridShape() const override {
    return llvm::json::Array{queryBlocks(cfg) * splitCount(cfg), sym::HeadsKV, sym::Batch};
  }
  WorkTile currentTile(KernelBuilder &kb, const SchedulerArgs &a) const override {
    Value bx = kb.blockIdX();
    Value mBlock = kb.divUI(bx, a.numSplits);
    return {mBlock, kb.blockIdY(), kb.blockIdZ(), kb.mul(mBlock, kb.c32(cfg.blockM())),
            kb.remu(bx, a.numSplits)};
  }
};

/// A ragged batch: blockIdx.x is the x-th query block of the concatenated
/// sequences (each ceildiv(length, blockM) blocks); a warp-wide prefix sum
/// over cu_seqlens_q finds its sequence (every warp computes it, no
/// barrier).
class VarlenScheduler : public TileScheduler {
public:
  using TileScheduler::TileScheduler;
  llvm::json::Array gridShape() const override {
    return llvm::json::Array{gridBlocks(cfg), sym::HeadsQ, 1};
  }
  WorkTile currentTile(KernelBuilder &kb, const SchedulerArgs &a) const override {
    return varlenTile(kb, cfg, a);
  }
};

/// FA3's static persistent scheduler: one CTA per SM below
/// kPersistentBelowSeqQ query rows, each looping over the work tiles of
/// numBlocks x numHeads x batch (query blocks fastest, so that CTAs running
/// together share K and V in L2) in snake order; from there one tile per
/// CTA (measured +2..15 % at 512-2k, -2..4 % at 8k-16k with one CTA per SM).
/// A ragged batch's numBlocks is the grid's bound: the tiles past its
/// sequences' blocks are empty.
class PersistentScheduler : public TileScheduler {
public:
  using TileScheduler::TileScheduler;
  llvm::json::Array gridShape() const override {
    // min(total, max(num_sms, total * [seq_q >= threshold])).
    BundleExpr total = gridBlocks(cfg) * sym::HeadsQ * sym::Batch;
    // Ragged: by the mean length (the launch knows no other).
    BundleExpr threshold = AttentionKernelConfig::kPersistentBelowSeqQ;
    BundleExpr longRows = minOf(1, sym::SeqQ / (cfg.varlen ? sym::NumSeqs * threshold : threshold));
    return llvm::json::Array{minOf(total, maxOf(sym::NumSMs, total * longRows)), 1, 1};
  }
  SmallVector<BundleExpr> tileSpaceParams() const override {
    return {gridBlocks(cfg), sym::HeadsQ, sym::Batch};
  }
  bool isPersistent() const override { return true; }
  WorkTile currentTile(KernelBuilder &, const SchedulerArgs &) const override {
    llvm_unreachable("a persistent CTA's tiles come from forEachTile");
  }
  void forEachTile(KernelBuilder &kb, const SchedulerArgs &a, bool warpWide,
                   TileBody body) const override;

protected:
  /// Tile `linear` of the tile space; a ragged batch's search resumes from
  /// `cursor` and updates it.
  WorkTile tileOfIndex(KernelBuilder &kb, const SchedulerArgs &a, Value linear, Value cursor[2],
                       bool warpWide) const {
    if (cfg.varlen) {
      // Under a mask, heads fastest: the heavy blocks of a sequence (its
      // last rows see the most keys) are taken for every head together, not
      // head by head with the last head's left to the end (+1..5 % causal,
      // -2..4 % without a mask, where K/V's L2 reuse across a head's blocks
      // wins; docs/Inference.md). x stays non-decreasing along a CTA's
      // tiles either way, as varlenTileAt's cursor needs.
      bool headsFastest = cfg.maskedRaggedBatch();
      Value x = headsFastest ? kb.divUI(linear, a.numHeads) : kb.remu(linear, a.numBlocks);
      Value head = headsFastest ? kb.remu(linear, a.numHeads) : kb.divUI(linear, a.numBlocks);
      return varlenTileAt(kb, cfg, a.cuSeqlensQ, a.cuSeqlensK, a.numSeqs, x, head, cursor,
                          warpWide);
    }
    Value bx = kb.remu(linear, a.numBlocks);
    Value rest = kb.divUI(linear, a.numBlocks);
    return tileOf(kb, cfg, a.seqQ, bx, a.numBlocks, kb.remu(rest, a.numHeads),
                  kb.divUI(rest, a.numHeads));
  }
};

/// FA3's DynamicPersistentTileScheduler: one CTA per SM; CTA x computes
/// tile x first, then the producer thread takes the next index from the
/// global counter (atomic add, + gridDim.x) once it has issued the current
/// tile's loads, so that the CTA that frees up first takes the next tile,
/// and hands it to the consumers through a shared-memory slot (full
/// barrier: one arrival; empty: every consumer thread's). The tile space
/// is PersistentScheduler's: query blocks fastest, the longest first under
/// causal, so the last tiles taken are the short ones.
class DynamicScheduler : public PersistentScheduler {
public:
  using PersistentScheduler::PersistentScheduler;
  llvm::json::Array gridShape() const override {
    BundleExpr total = gridBlocks(cfg) * sym::HeadsQ * sym::Batch;
    return llvm::json::Array{minOf(total, sym::NumSMs), 1, 1};
  }
  llvm::json::Array workspace(bool withInit) const override {
    llvm::json::Object counter{{"name", kTileCounter},
                               {"dtype", "i32"},
                               {"dims", llvm::json::Array{"slot"}},
                               {"shape", llvm::json::Array{1}}};
    if (withInit)
      counter["init"] = "zero"; // every launch counts from 0
    return llvm::json::Array{std::move(counter)};
  }
  SchedulerShared reserveShared(SharedLayout &layout) const override;
  void forEachTile(KernelBuilder &kb, const SchedulerArgs &a, bool warpWide,
                   TileBody body) const override;

private:
  /// The producer thread: the next tile's index for the CTA's `handover`-th
  /// handover, taken from the counter and published to the consumers.
  Value claimNext(KernelBuilder &kb, const SchedulerArgs &a, Value handover) const;
  /// Each consumer thread: the index the producer published.
  Value receiveNext(KernelBuilder &kb, const SchedulerArgs &a, Value handover) const;
};

} // namespace

SchedulerShared DynamicScheduler::reserveShared(SharedLayout &layout) const {
  SchedulerShared s;
  s.handoverBarriers = layout.reserveBarriers("tile scheduler", "tile handover barriers", 2);
  // One i32 in 16 bytes (what the kernel requested before the parts
  // reserved their own regions: the bundles stay byte-identical).
  s.tileSlot = layout.reserve("tile scheduler", "tile slot", 16, 4);
  return s;
}

Value DynamicScheduler::claimNext(KernelBuilder &kb, const SchedulerArgs &a, Value handover) const {
  Value taken = LLVM::AtomicRMWOp::create(kb.b, LLVM::AtomicBinOp::add, a.tileCounter, kb.c32(1),
                                          LLVM::AtomicOrdering::monotonic);
  Value next = kb.add(taken, kb.gridDimX());
  // The slot is free once the consumers read the previous handover (a
  // fresh barrier counts as phase -1 done).
  mbarrierWait(kb, a.tileEmpty, kb.xori(kb.andi(handover, kb.c32(1)), kb.c32(1)));
  LLVM::StoreOp::create(kb.b, next, a.tileSlot, 4);
  mbarrierArrive(kb, a.tileFull);
  return next;
}

Value DynamicScheduler::receiveNext(KernelBuilder &kb, const SchedulerArgs &a,
                                    Value handover) const {
  mbarrierWait(kb, a.tileFull, kb.andi(handover, kb.c32(1)));
  Value next = LLVM::LoadOp::create(kb.b, kb.i32, a.tileSlot, 4, /*isVolatile=*/true);
  mbarrierArrive(kb, a.tileEmpty);
  return next;
}

void DynamicScheduler::forEachTile(KernelBuilder &kb, const SchedulerArgs &a, bool warpWide,
                                   TileBody body) const {
  Value total = kb.mul(kb.mul(a.numBlocks, a.numHeads), a.batch);
  // (tile index, ring, Q loads, handovers, a ragged batch's cursor)
  SmallVector<Value> init{kb.blockIdX(), kb.c32(0), kb.c32(0), kb.c32(0)};
  if (cfg.varlen)
    init.append({kb.c32(0), kb.c32(0)});
  kb.whileLoop(
      init, [&](ValueRange st) { return kb.cmp(arith::CmpIPredicate::ult, st[0], total); },
      [&](ValueRange st) {
        Value index = st[0], ring = st[1], qLoads = st[2], handover = st[3];
        Value cursor[2];
        if (cfg.varlen) {
          cursor[0] = st[4];
          cursor[1] = st[5];
        }
        Value keyTiles = body(tileOfIndex(kb, a, index, cursor, warpWide), ring, qLoads);
        // A tile without key tiles loads no Q (every role sees the same count).
        Value loaded =
            kb.select(kb.cmp(arith::CmpIPredicate::sgt, keyTiles, kb.c32(0)), kb.c32(1), kb.c32(0));
        Value next = warpWide ? receiveNext(kb, a, handover) : claimNext(kb, a, handover);
        SmallVector<Value> out{next, kb.add(ring, keyTiles), kb.add(qLoads, loaded),
                               kb.add(handover, kb.c32(1))};
        if (cfg.varlen)
          out.append({cursor[0], cursor[1]});
        return out;
      });
}

void PersistentScheduler::forEachTile(KernelBuilder &kb, const SchedulerArgs &a, bool warpWide,
                                      TileBody body) const {
  Value total = kb.mul(kb.mul(a.numBlocks, a.numHeads), a.batch);
  // One tile per CTA (long sequences: the grid covers every tile): the
  // code of a one-tile kernel, ring and Q loads constant 0 (the loop's
  // state cost 2-5 % there, docs/HopperKernel.md).
  kb.ifThenElse(
      kb.cmp(arith::CmpIPredicate::uge, kb.gridDimX(), total),
      [&] {
        Value x = kb.blockIdX();
        kb.ifThen(kb.cmp(arith::CmpIPredicate::ult, x, total), [&] {
          Value cursor[2] = {kb.c32(0), kb.c32(0)};
          body(tileOfIndex(kb, a, x, cursor, warpWide), kb.c32(0), kb.c32(0));
        });
      },
      [&] {
        Value mine = snakeTileCount(kb, total);
        SmallVector<Value> init{kb.c32(0), kb.c32(0)};
        if (cfg.varlen)
          init.append({kb.c32(0), kb.c32(0)});
        kb.forLoop(kb.c32(0), mine, init, [&](Value i, ValueRange st) {
          Value ring = st[0], qLoads = st[1];
          Value cursor[2];
          if (cfg.varlen) {
            cursor[0] = st[2];
            cursor[1] = st[3];
          }
          Value keyTiles =
              body(tileOfIndex(kb, a, snakeTile(kb, i), cursor, warpWide), ring, qLoads);
          // A tile without key tiles loads no Q (every role sees the same count).
          Value loaded = kb.select(kb.cmp(arith::CmpIPredicate::sgt, keyTiles, kb.c32(0)),
                                   kb.c32(1), kb.c32(0));
          SmallVector<Value> next{kb.add(ring, keyTiles), kb.add(qLoads, loaded)};
          if (cfg.varlen)
            next.append({cursor[0], cursor[1]});
          return next;
        });
      });
}

TileScheduler::~TileScheduler() = default;

void TileScheduler::forEachTile(KernelBuilder &kb, const SchedulerArgs &args, bool,
                                TileBody body) const {
  body(currentTile(kb, args), Value(), kb.c32(0));
}

std::unique_ptr<TileScheduler> TileScheduler::forConfig(const AttentionKernelConfig &cfg) {
  if (cfg.hasDynamicScheduler())
    return std::make_unique<DynamicScheduler>(cfg);
  if (cfg.isPersistent())
    return std::make_unique<PersistentScheduler>(cfg);
  if (cfg.splitKv)
    return std::make_unique<SplitKvScheduler>(cfg);
  if (cfg.varlen)
    return std::make_unique<VarlenScheduler>(cfg);
  return std::make_unique<StaticScheduler>(cfg);
}

BundleExpr TileScheduler::gridBlocks(const AttentionKernelConfig &cfg) {
  // Ragged: sum_b ceildiv(len_b, blockM) <= ceildiv(total, blockM) + num_seqs.
  return cfg.varlen ? queryBlocks(cfg) + sym::NumSeqs : queryBlocks(cfg);
}

BundleExpr TileScheduler::queryBlocks(const AttentionKernelConfig &cfg) {
  if (cfg.packGqa())
    return ceilDiv(sym::SeqQ * (sym::HeadsQ / sym::HeadsKV), cfg.blockM());
  return ceilDiv(sym::SeqQ, cfg.blockM());
}

BundleExpr TileScheduler::splitCount(const AttentionKernelConfig &cfg) {
  if (cfg.numSplits > 0)
    return cfg.numSplits;
  // Split only when the work tiles leave SMs idle: one wave of CTAs.
  BundleExpr tiles = queryBlocks(cfg) * sym::HeadsKV * sym::Batch;
  BundleExpr chunks = ceilDiv(cfg.keySlotsExpr(), cfg.blockN);
  return maxOf(1, minOf(minOf(sym::NumSMs / maxOf(1, tiles), chunks), 64));
}
