//===- AttentionKernel.cpp - The warp-specialized FA3 forward schedule ----===//
//
// One CTA computes 64 x consumers query rows of one (batch, head) with a
// producer and 2 or 3 consumer warpgroups:
//   warpgroup 0: producer. setmaxnreg.dec; one thread issues TMA copies of Q
//                once, then K_j and V_{j-1} into a ring of `stages` K and V
//                slots (full/empty mbarriers per slot, separate for K and V
//                so that K_{j+1} may land while V_j is still being read).
//   warpgroups 1.. : consumers, 64 query rows each. setmaxnreg.inc;
//                S = Q K^T (wgmma SS), online softmax in registers, P to
//                bf16/f16 in registers, O += P V (wgmma RS).
// With `overlap`, a consumer issues S_j = Q K_j^T and O += P_{j-1} V_{j-1}
// back to back and runs the softmax of S_j while the P V wgmma is in flight
// (FlashAttention-3's intra-warpgroup pipelining).
//
// Shared memory (from a 1024-aligned base): Q [BM x D], K[stages] [BN x D],
// V[stages] [BN x D], each as D/64 boxes of [rows x 64] with 128B swizzle,
// then the mbarriers.
//
//===----------------------------------------------------------------------===//
#include "KernelParts.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <limits>
#include <tuple>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

namespace {

/// Kernel parameters in the order bundleJson lists them.
struct KernelArgs {
  Value tmQ, tmK, tmV, outPtr, lsePtr, seqQ, seqK, group;
  Value finalOut, finalLse;         // split-KV: O and LSE when there is one split
  Value numBlocks, numHeads, batch; // persistent kernels only
  Value numSplits;                  // split-KV only
  Value keyLengths;                 // per-batch key lengths only
  Value blockTable, maxPages, tableStride; // paged caches only
  Value seqNew;                            // append only: keys added to each length
  Value cuSeqlensQ, cuSeqlensK, numSeqs;   // ragged batches only
  Value qPtr, qStrideBatch, qStrideSeq, qStrideHead; // pack-GQA: Q by plain loads
  std::optional<BiasArgs> bias;
  /// FP8: the Q, K, V descales [batch, heads_kv] and their (batch, head)
  /// strides; per block [batch, heads, blocks] and (batch, head, block).
  Value descale[3], descaleStride[3][3];

  static KernelArgs get(LLVM::LLVMFuncOp fn, const AttentionKernelConfig &cfg) {
    KernelArgs a;
    unsigned i = 0;
    auto next = [&]() { return fn.getArgument(i++); };
    if (!cfg.packGqa())
      a.tmQ = next();
    a.tmK = next();
    a.tmV = next();
    if (cfg.packGqa())
      a.qPtr = next();
    a.outPtr = next(); // o_partial with split-KV
    if (cfg.returnLse || cfg.splitKv)
      a.lsePtr = next(); // lse_partial with split-KV
    if (cfg.splitKv) {
      a.finalOut = next();
      if (cfg.returnLse)
        a.finalLse = next();
    }
    if (cfg.isFp8())
      for (Value &d : a.descale)
        d = next();
    if (cfg.keyLengths)
      a.keyLengths = next();
    if (cfg.paged())
      a.blockTable = next();
    if (cfg.varlen) {
      a.cuSeqlensQ = next();
      a.cuSeqlensK = next();
    }
    if (cfg.bias) {
      BiasArgs b;
      b.ptr = next();
      b.strideBatch = next();
      b.strideHead = next();
      b.strideRow = next();
      a.bias = b;
    }
    if (cfg.isFp8())
      for (auto &strides : a.descaleStride)
        for (int64_t i = 0; i < cfg.descaleRank(); ++i)
          strides[i] = next();
    a.seqQ = next();
    a.seqK = next();
    a.group = next();
    if (cfg.splitKv)
      a.numSplits = next();
    if (cfg.packGqa()) {
      a.qStrideBatch = next();
      a.qStrideSeq = next();
      a.qStrideHead = next();
    }
    if (cfg.paged()) {
      a.maxPages = next();
      a.tableStride = next();
    }
    if (cfg.append)
      a.seqNew = next();
    if (cfg.varlen)
      a.numSeqs = next();
    if (cfg.isPersistent()) {
      a.numBlocks = next();
      a.numHeads = next();
      a.batch = next();
    }
    return a;
  }
};

class ForwardKernel {
public:
  ForwardKernel(KernelBuilder &kb, const AttentionKernelConfig &cfg, LLVM::LLVMFuncOp fn,
                StringRef smemSymbol)
      : kb(kb), cfg(cfg), args(KernelArgs::get(fn, cfg)),
        scheduler(TileScheduler::forConfig(cfg)),
        schedulerArgs{args.seqQ,      args.numSplits,  args.numBlocks, args.numHeads,
                      args.batch,     args.cuSeqlensQ, args.cuSeqlensK, args.numSeqs},
        tid(kb.threadIdX()), base(kb.alignedSharedBase(smemSymbol)),
        // Barriers after Q's: full K, full V, empty K, empty V (stages each),
        // the layout of the kernel before it was split into parts.
        kPipe(kb, base, cfg.kOffset(), cfg.kTileBytes(), barrier(1),
              barrier(1 + 2 * cfg.stages), cfg.stages, 128 * cfg.consumers),
        vPipe(kb, base, cfg.vOffset(), cfg.vTileBytes(), barrier(1 + cfg.stages),
              barrier(1 + 3 * cfg.stages), cfg.stages, 128 * cfg.consumers) {}

  void emit();

private:
  /// Offset of mbarrier `index` in shared memory.
  int64_t barrier(int64_t index) const { return cfg.barrierOffset() + 8 * index; }
  Value qBarrier() { return kb.sharedAt(base, barrier(0)); }
  /// Persistent: the consumers arrive when done with Q (128 x consumers).
  Value qEmptyBarrier() { return kb.sharedAt(base, barrier(1 + 4 * cfg.stages)); }
  /// Key tile of iteration t.
  Value keyTile(Value t) { return kb.add(tiles.first, t); }
  void load(TmaPipeline &pipe, Value tensorMap, Value t, int64_t dim, int64_t bytes);
  /// FP8: V^T's tile of iteration t, vTileKeys / kValueTBoxKeys boxes.
  void loadValueT(Value t);
  /// FP8: descale i (0 Q, 1 K, 2 V) of this tile's batch at `head`, and
  /// with per-block descales at `block`.
  Value loadDescale(int64_t i, Value head, Value block = Value());
  /// Paged caches: the page holding key slot `key` of this batch and the
  /// row in it. The table column is clamped to max_pages - 1 (slots past a
  /// sequence's keys are masked, whatever page they come from); a page
  /// index outside the cache gives TMA's zero fill, never a fault.
  std::pair<Value, Value> pageOf(Value key);
  /// Makes `tile` the current work tile; its iterations start at `ring` in
  /// the K/V rings. A ragged batch's tile brings its sequence's lengths,
  /// rows and mask rule.
  void beginTile(const WorkTile &tile, Value ring);
  /// Runs `body(qLoads)` for each of this CTA's work tiles (the one emit()
  /// began, or the persistent scheduler's); qLoads counts the Q loads of the
  /// tiles before. `warpWide`: whole warps run it (the consumers), else one
  /// thread.
  void forEachTile(const std::function<void(Value qLoads)> &body, bool warpWide);
  void emitProducer();
  void produceTile(Value qLoads);
  void emitConsumer();
  void consumeTile(const ConsumerThread &me, Value qLoads);
  /// The CTA's iterations [begin, end) this consumer warpgroup computes.
  std::pair<Value, Value> consumerIterations(Value wgRow0);
  /// Waits for and releases the K and V slots of iterations [from, to)
  /// without reading them (tiles this warpgroup's rows do not see).
  void skipIterations(Value from, Value to);
  /// Pack-GQA: this warpgroup's 64 packed rows of Q into its slab, in the
  /// 128B-swizzled layout TMA would write (rows past seq_q x group and
  /// columns past the head dim zero).
  void loadPackedQuery(const ConsumerThread &me);
  /// Per-batch key lengths: zeroes the rows of V slot t past seq_k, which
  /// hold whatever the cache holds there (0 x NaN would poison P V).
  void zeroValueTail(const ConsumerThread &me, Value t);
  /// bar.sync of one consumer warpgroup's 128 threads.
  void syncWarpgroup(const ConsumerThread &me);
  /// stashesLengths: (seq_q, seq_k, first query row) of this CTA's
  /// sequence into shared memory (thread 0, before the CTA barrier) and
  /// back (volatile loads where they are used: not held in registers).
  void storeStash();
  Value reloadStash(int64_t index);

  KernelBuilder &kb;
  const AttentionKernelConfig &cfg;
  KernelArgs args;
  std::unique_ptr<TileScheduler> scheduler;
  SchedulerArgs schedulerArgs;
  Value tid, base; // in this order: tid is read first (keeps the PTX as before)
  TmaPipeline kPipe, vPipe;
  WorkTile work;
  Value m0, headKV;
  Value seqQ; // the kernel's, or this sequence's in a ragged batch
  Value seqK; // the kernel's, or this batch's with per-batch key lengths
  // Ragged batches: the sequence's first packed query and key rows (null
  // otherwise).
  Value qRowBase, kRowBase;
  std::optional<MaskRule> rule;
  KeyTiles tiles;
};

void ForwardKernel::load(TmaPipeline &pipe, Value tensorMap, Value t, int64_t dim,
                         int64_t bytes) {
  Value full = pipe.acquire(t, bytes);
  Value tile = pipe.slot(t);
  Value row = kb.mul(keyTile(t), kb.c32(cfg.blockN));
  if (kRowBase)
    row = kb.add(kRowBase, row);
  if (!cfg.paged()) {
    for (int64_t box = 0; box < dim / cfg.boxElems(); ++box)
      tmaLoad(kb, kb.sharedAt(tile, box * cfg.blockN * 128), tensorMap, full,
              {kb.c32(cfg.boxElems() * box), row, headKV, work.batch});
    return;
  }
  // One box per page the tile spans; its rows land where one tall box
  // would put them (whole 1024-byte swizzle atoms, pagesFitTiles).
  const int64_t rows = cfg.keyRowsPerLoad();
  for (int64_t part = 0; part < cfg.blockN / rows; ++part) {
    auto [page, inPage] = pageOf(kb.add(row, kb.c32(part * rows)));
    for (int64_t box = 0; box < dim / AttentionKernelConfig::kBox; ++box)
      tmaLoad(kb, kb.sharedAt(tile, box * cfg.blockN * 128 + part * rows * 128), tensorMap, full,
              {kb.c32(64 * box), inPage, headKV, page});
  }
}

void ForwardKernel::loadValueT(Value t) {
  Value full = vPipe.acquire(t, cfg.vTileBytes());
  Value key = kb.mul(keyTile(t), kb.c32(cfg.blockN));
  const int64_t keys = AttentionKernelConfig::kValueTBoxKeys;
  for (int64_t box = 0; box < cfg.vTileKeys() / keys; ++box)
    tmaLoad(kb, kb.sharedAt(vPipe.slot(t), box * cfg.vDim() * keys), args.tmV, full,
            {kb.add(key, kb.c32(keys * box)), kb.c32(0), headKV, work.batch});
}

Value ForwardKernel::loadDescale(int64_t i, Value head, Value block) {
  const Value *stride = args.descaleStride[i];
  Value at = kb.add(kb.mul(kb.ext64(work.batch), stride[0]), kb.mul(kb.ext64(head), stride[1]));
  if (block)
    at = kb.add(at, kb.mul(kb.ext64(block), stride[2]));
  return LLVM::LoadOp::create(kb.b, kb.f32, kb.globalAt(args.descale[i], at, kb.f32), 4);
}

std::pair<Value, Value> ForwardKernel::pageOf(Value key) {
  Value column = kb.minSI(kb.divUI(key, kb.c32(cfg.pageSize)), kb.sub(args.maxPages, kb.c32(1)));
  Value entry = kb.add(kb.mul(kb.ext64(work.batch), args.tableStride), kb.ext64(column));
  Value page = LLVM::LoadOp::create(kb.b, kb.i32, kb.globalAt(args.blockTable, entry, kb.i32), 4);
  return {page, kb.remu(key, kb.c32(cfg.pageSize))};
}

void ForwardKernel::beginTile(const WorkTile &tile, Value ring) {
  if (tile.inRaggedBatch()) {
    seqQ = tile.seqQ;
    seqK = tile.seqK;
    qRowBase = tile.qStart;
    kRowBase = tile.kStart;
    rule.emplace(kb, cfg.semantics, seqQ, seqK);
  }
  work = tile;
  m0 = work.row0;
  if (!cfg.packGqa()) {
    headKV = kb.divUI(work.head, args.group);
    tiles = KeyTiles::get(kb, *rule, m0, cfg.blockM(), cfg.blockN);
  } else {
    // The packed rows' queries [m0 / group, (m0 + blockM - 1) / group].
    headKV = work.head;
    Value q0 = kb.divUI(m0, args.group);
    Value q1 = kb.divUI(kb.add(m0, kb.c32(cfg.blockM() - 1)), args.group);
    auto [lo, hi] = rule->tileRange(rule->keyRange({q0, kb.add(kb.sub(q1, q0), kb.c32(1))}),
                                    cfg.blockN);
    tiles = {lo, kb.sub(hi, lo)};
  }
  if (cfg.splitKv) {
    // Chunk `split` of ceildiv(key tiles, splits) tiles, within the band's.
    Value keyTiles = kb.divUI(kb.add(seqK, kb.c32(cfg.blockN - 1)), kb.c32(cfg.blockN));
    Value chunk = kb.divUI(kb.add(keyTiles, kb.sub(args.numSplits, kb.c32(1))), args.numSplits);
    Value lo = kb.maxSI(tiles.first, kb.mul(work.split, chunk));
    Value hi = kb.minSI(kb.add(tiles.first, tiles.count),
                        kb.mul(kb.add(work.split, kb.c32(1)), chunk));
    tiles = {lo, kb.maxSI(kb.sub(hi, lo), kb.c32(0))};
  }
  kPipe.setIterationBase(ring);
  vPipe.setIterationBase(ring);
}

void ForwardKernel::forEachTile(const std::function<void(Value qLoads)> &body, bool warpWide) {
  if (!scheduler->isPersistent()) {
    body(kb.c32(0)); // the tile of emit()
    return;
  }
  scheduler->forEachTile(kb, schedulerArgs, warpWide,
                         [&](const WorkTile &tile, Value ring, Value qLoads) {
                           beginTile(tile, ring);
                           body(qLoads);
                           return tiles.count;
                         });
}

void ForwardKernel::emitProducer() {
  setMaxRegisters(kb, cfg.producerRegs, /*increase=*/false);
  Value isLeader = kb.cmp(arith::CmpIPredicate::eq, tid, kb.c32(0));
  kb.ifThen(isLeader,
            [&] { forEachTile([&](Value qLoads) { produceTile(qLoads); }, /*warpWide=*/false); });
}

void ForwardKernel::produceTile(Value qLoads) {
  Value any = kb.cmp(arith::CmpIPredicate::sgt, tiles.count, kb.c32(0));
  kb.ifThen(any, [&] {
    // K_t, then V_{t-1}: the consumer needs K_t first and V_{t-1} one step later.
    auto loadK = [&](Value t) { load(kPipe, args.tmK, t, cfg.qkDim(), cfg.kTileBytes()); };
    auto loadV = [&](Value t) {
      if (cfg.isFp8())
        loadValueT(t);
      else
        load(vPipe, args.tmV, t, cfg.vDim(), cfg.vTileBytes());
    };
    // K_0 needs only a free K slot; Q waits until the consumers are done
    // with the previous tile's (a fresh barrier counts as phase -1 done).
    loadK(kb.c32(0));
    if (cfg.isPersistent())
      mbarrierWait(kb, qEmptyBarrier(), kb.xori(kb.andi(qLoads, kb.c32(1)), kb.c32(1)));
    if (!cfg.packGqa()) { // packed Q: the consumers load it
      mbarrierArriveExpectTx(kb, qBarrier(), cfg.qTileBytes());
      for (int64_t box = 0; box < cfg.qkDim() / cfg.boxElems(); ++box)
        tmaLoad(kb, kb.sharedAt(base, box * cfg.blockM() * 128), args.tmQ, qBarrier(),
                {kb.c32(cfg.boxElems() * box), qRowBase ? kb.add(qRowBase, m0) : m0, work.head,
                 work.batch});
    }
    kb.forLoop(kb.c32(1), tiles.count, {}, [&](Value t, ValueRange) {
      loadK(t);
      loadV(kb.sub(t, kb.c32(1)));
      return SmallVector<Value>{};
    });
    loadV(kb.sub(tiles.count, kb.c32(1)));
  });
}

std::pair<Value, Value> ForwardKernel::consumerIterations(Value wgRow0) {
  // This warpgroup's rows below seq_q see a sub-band of the CTA's key
  // tiles: under a causal diagonal or a window's edge, or past seq_q in a
  // tail block, a 64-row slab needs fewer tiles than the block's 64 x
  // consumers rows (the masked tiles give exactly nothing).
  Value first = kb.maxSI(wgRow0, kb.c32(0));
  Value past = kb.minSI(kb.add(wgRow0, kb.c32(64)), seqQ);
  Value rows = kb.maxSI(kb.sub(past, first), kb.c32(0));
  auto [lo, hi] = rule->tileRange(rule->keyRange({first, rows}), cfg.blockN);
  Value none = kb.cmp(arith::CmpIPredicate::eq, rows, kb.c32(0));
  Value begin = kb.minSI(kb.maxSI(kb.sub(lo, tiles.first), kb.c32(0)), tiles.count);
  Value end = kb.maxSI(kb.minSI(kb.sub(hi, tiles.first), tiles.count), begin);
  return {kb.select(none, tiles.count, begin), kb.select(none, tiles.count, end)};
}

void ForwardKernel::skipIterations(Value from, Value to) {
  kb.forLoop(from, to, {}, [&](Value t, ValueRange) {
    kPipe.wait(t);
    kPipe.release(t);
    vPipe.wait(t);
    vPipe.release(t);
    return SmallVector<Value>{};
  });
}

void ForwardKernel::syncWarpgroup(const ConsumerThread &me) {
  int64_t first = static_cast<int64_t>(NamedBarrier::WarpgroupFirst);
  namedBarrierSync(kb, kb.add(me.c, kb.c32(first)), 128);
}

void ForwardKernel::loadPackedQuery(const ConsumerThread &me) {
  const int64_t chunksPerRow = cfg.qkDim() / 8; // 16-byte chunks
  const int64_t perThread = 64 * chunksPerRow / 128;
  auto v4 = VectorType::get({4}, kb.i32);
  Value slabRow0 = kb.add(m0, kb.mul(me.c, kb.c32(64)));
  Value packedRows = kb.mul(seqQ, args.group);
  Value zero = LLVM::ZeroOp::create(kb.b, v4);
  for (int64_t i = 0; i < perThread; ++i) {
    Value idx = kb.add(me.threadInWg, kb.c32(128 * i));
    Value r = kb.divUI(idx, kb.c32(chunksPerRow));
    Value chunk = kb.remu(idx, kb.c32(chunksPerRow));
    Value row = kb.add(slabRow0, r);
    Value valid = kb.andi(kb.cmp(arith::CmpIPredicate::slt, row, packedRows),
                          kb.cmp(arith::CmpIPredicate::slt, kb.mul(chunk, kb.c32(8)),
                                 kb.c32(cfg.headDim)));
    Value data = kb.ifThenElseValues(
        valid, {v4},
        [&]() -> SmallVector<Value> {
          Value query = kb.divUI(row, args.group);
          Value head = kb.add(kb.mul(headKV, args.group), kb.remu(row, args.group));
          Value offset = kb.add(stridedRowOffset(kb, work.batch, head, query, args.qStrideBatch,
                                                 args.qStrideHead, args.qStrideSeq),
                                kb.ext64(kb.mul(chunk, kb.c32(8))));
          Type half = cfg.elem == ElemType::BF16 ? Type(kb.b.getBF16Type())
                                                 : Type(kb.b.getF16Type());
          return {LLVM::LoadOp::create(kb.b, v4, kb.globalAt(args.qPtr, offset, half), 16)};
        },
        [&]() -> SmallVector<Value> { return {zero}; })[0];
    // Box chunk / 8, row 64 c + r, 16-byte column (chunk % 8) ^ (row % 8).
    Value box = kb.divUI(chunk, kb.c32(8));
    Value col = kb.xori(kb.remu(chunk, kb.c32(8)), kb.andi(r, kb.c32(7)));
    Value offset = kb.add(kb.add(kb.mul(box, kb.c32(cfg.blockM() * 128)),
                                 kb.mul(kb.add(kb.mul(me.c, kb.c32(64)), r), kb.c32(128))),
                          kb.mul(col, kb.c32(16)));
    LLVM::StoreOp::create(kb.b, data, kb.sharedAt(base, offset), /*alignment=*/16);
  }
  fenceProxyAsyncShared(kb); // generic stores, read by wgmma
  syncWarpgroup(me);
}

void ForwardKernel::zeroValueTail(const ConsumerThread &me, Value t) {
  // Past a cache's length or a ragged sequence's keys (the next sequence's
  // rows) the slot holds finite or non-finite data that P V must not see.
  if (!cfg.keyLengths && !cfg.varlen)
    return;
  Value n0 = kb.mul(keyTile(t), kb.c32(cfg.blockN));
  Value keys = cfg.stashesLengths() ? reloadStash(1) : seqK;
  Value firstHidden = kb.sub(keys, n0); // rows [firstHidden, blockN) are past seq_k
  kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, firstHidden, kb.c32(cfg.blockN)), [&] {
    const int64_t chunksPerRow = 8, boxes = cfg.vDim() / AttentionKernelConfig::kBox;
    auto v4 = VectorType::get({4}, kb.i32);
    Value zero = LLVM::ZeroOp::create(kb.b, v4);
    Value slot = vPipe.slot(t);
    // Each consumer warpgroup zeroes the rows before its own wgmma reads
    // them (the same zeros if there are several).
    int64_t total = boxes * cfg.blockN * chunksPerRow;
    for (int64_t i = 0; i < total / 128; ++i) {
      Value idx = kb.add(me.threadInWg, kb.c32(128 * i));
      Value rowInBox = kb.remu(kb.divUI(idx, kb.c32(chunksPerRow)), kb.c32(cfg.blockN));
      kb.ifThen(kb.cmp(arith::CmpIPredicate::sge, rowInBox, firstHidden), [&] {
        // A whole 128-byte row is zeroed, so the swizzle does not matter.
        LLVM::StoreOp::create(kb.b, zero, kb.sharedAt(slot, kb.mul(idx, kb.c32(16))),
                              /*alignment=*/16);
      });
    }
    fenceProxyAsyncShared(kb);
    syncWarpgroup(me);
  });
}

void ForwardKernel::storeStash() {
  Value values[3] = {seqQ, seqK, qRowBase};
  for (int64_t i = 0; i < 3; ++i)
    LLVM::StoreOp::create(kb.b, values[i], kb.sharedAt(base, cfg.stashOffset() + 4 * i), 4);
}

Value ForwardKernel::reloadStash(int64_t index) {
  return LLVM::LoadOp::create(kb.b, kb.i32, kb.sharedAt(base, cfg.stashOffset() + 4 * index), 4,
                              /*isVolatile=*/true);
}

void ForwardKernel::emitConsumer() {
  ConsumerThread me = ConsumerThread::enter(kb, tid, cfg.consumerRegs);
  forEachTile([&](Value qLoads) { consumeTile(me, qLoads); }, /*warpWide=*/true);
}

void ForwardKernel::consumeTile(const ConsumerThread &me, Value qLoads) {
  const int64_t DV = cfg.vDim(), BN = cfg.blockN, BM = cfg.blockM();
  const int64_t nS = BN / 2, nO = DV / 2;
  Value c = me.c, lane = me.lane;
  Value wgRow0 = kb.add(m0, kb.mul(c, kb.c32(64)));
  Value row0 = me.fragmentRow(kb, wgRow0);
  Value laneCol = me.laneColumn(kb);
  Value negInf = kb.cf32(-std::numeric_limits<double>::infinity());
  FragmentScores scores(kb, cfg, *rule, args.bias, work.batch, work.head, seqQ, seqK,
                        wgRow0, row0, laneCol, cfg.packGqa() ? args.group : Value());
  Value factor = scores.exponentFactor();
  Value outScale; // FP8: O times V's descale
  if (cfg.isFp8() && !cfg.blockDescales()) {
    factor = kb.fmul(factor, kb.fmul(loadDescale(0, headKV), loadDescale(1, headKV)));
    outScale = loadDescale(2, headKV);
  }
  // FP8: P scaled by 2^kFp8PShift before e4m3 (the LSE takes it out).
  const int64_t pShift = cfg.isFp8() ? AttentionKernelConfig::kFp8PShift : 0;
  // FP8 per-block descales: Q's per row, loaded once the tile has key tiles
  // (a sequence without rows has no Q block); K's and V's per key tile.
  const bool perBlock = cfg.blockDescales();
  Value rowFactor[2];
  auto loadRowFactors = [&] {
    for (int r = 0; r < 2; ++r) {
      Value row = kb.maxSI(kb.minSI(kb.add(row0, kb.c32(8 * r)), kb.sub(seqQ, kb.c32(1))),
                           kb.c32(0));
      Value block = kb.divUI(row, kb.c32(cfg.descaleBlockQ));
      rowFactor[r] = kb.fmul(factor, loadDescale(0, work.head, block));
    }
  };
  struct TileDescales {
    Value key, value;
  };
  // Loaded at the start of an iteration, ahead of the wgmma waits.
  auto loadTileDescales = [&](Value t) -> TileDescales {
    if (!perBlock)
      return {};
    Value block = kb.divUI(kb.mul(keyTile(t), kb.c32(BN)), kb.c32(cfg.descaleBlockK));
    return {loadDescale(1, headKV, block), loadDescale(2, headKV, block)};
  };
  // The softmax of one S. Per block, O is kept in units of V's descale of
  // the latest tile with a nonzero one (`valueUnit`, 1 before any), so that
  // P V accumulates unscaled: O's rescale also converts to the new unit.
  auto softmax = [&](SmallVectorImpl<Value> &s, RowState &rs, Value rescale[2], bool first,
                     TileDescales d, Value &valueUnit) {
    if (!perBlock) {
      softmaxStep(kb, s, rs, factor, rescale, first, pShift);
      return;
    }
    // A zero descale (all-zero Q or K block) gives scores 0 at any factor;
    // the smallest normal keeps -inf * factor from becoming NaN.
    Value f[2];
    for (int r = 0; r < 2; ++r)
      f[r] = kb.fmax(kb.fmul(rowFactor[r], d.key),
                     kb.cf32(std::numeric_limits<float>::min()));
    softmaxStepLog2Max(kb, s, rs, f, rescale, first, pShift);
    Value unit = kb.select(kb.fcmp(arith::CmpFPredicate::UNE, d.value, kb.cf32(0.0)), d.value,
                           valueUnit);
    if (!first) {
      Value ratio = arith::DivFOp::create(kb.b, valueUnit, unit);
      for (int r = 0; r < 2; ++r)
        rescale[r] = kb.fmul(rescale[r], ratio);
    }
    valueUnit = unit;
  };
  if (cfg.stashesLengths())
    scores.reloadLengthsWith([&] { return std::make_pair(reloadStash(0), reloadStash(1)); });

  // Q slab of this consumer: rows 64 c of every box.
  Value qDesc = wgmmaDescriptor(kb, kb.sharedAt(base, kb.mul(c, kb.c32(64 * 128))), 16, 1024);

  // Issues S_t = Q K_t^T; waits for K_t first unless the caller did.
  auto issueS = [&](Value t, bool wait = true) -> SmallVector<Value> {
    if (wait)
      kPipe.wait(t);
    Value kDesc = wgmmaDescriptor(kb, kPipe.slot(t), 16, 1024);
    SmallVector<Value> acc;
    wgmmaFence(kb);
    // A k-step is 32 bytes of a 128-byte row (16 bf16/f16 or 32 e4m3).
    for (int64_t kk = 0; kk < cfg.qkSteps(); ++kk) {
      int64_t boxA = (kk / 4) * BM * 128, boxB = (kk / 4) * BN * 128, inRow = (kk % 4) * 32;
      acc = wgmmaSS(kb, acc, wgmmaDescriptorAdd(kb, qDesc, boxA + inRow),
                    wgmmaDescriptorAdd(kb, kDesc, boxB + inRow), BN, kk > 0,
                    /*bMNMajor=*/false, cfg.elem);
    }
    wgmmaCommit(kb);
    return acc;
  };
  auto issuePV = [&](Value t, ValueRange o, ValueRange p, bool fence,
                     bool wait = true) -> SmallVector<Value> {
    if (wait)
      vPipe.wait(t);
    zeroValueTail(me, t);
    // V^T (FP8) is K-major, boxes of [DV rows x kValueTBoxKeys keys]:
    // k-step kk is 32 bytes into a row of box kk / 4. V is MN-major: LBO =
    // next 64-wide dim box, SBO = next 8 kv rows.
    Value vDesc = cfg.isFp8() ? wgmmaDescriptor(kb, vPipe.slot(t), 16, 1024)
                              : wgmmaDescriptor(kb, vPipe.slot(t), BN * 128, 1024);
    SmallVector<Value> acc(o.begin(), o.end());
    if (fence)
      wgmmaFence(kb);
    if (cfg.isFp8()) {
      for (int64_t kk = 0; kk < BN / 32; ++kk)
        acc = wgmmaRS(kb, acc, p.slice(4 * kk, 4),
                      wgmmaDescriptorAdd(kb, vDesc,
                                         (kk / 4) * DV * AttentionKernelConfig::kValueTBoxKeys +
                                             (kk % 4) * 32),
                      DV,
                      /*accumulate=*/true, /*bMNMajor=*/false, cfg.elem);
    } else {
      for (int64_t kk = 0; kk < BN / 16; ++kk)
        acc = wgmmaRS(kb, acc, p.slice(4 * kk, 4), wgmmaDescriptorAdd(kb, vDesc, kk * 16 * 128),
                      DV, /*accumulate=*/true, /*bMNMajor=*/true, cfg.elem);
    }
    wgmmaCommit(kb);
    return acc;
  };
  // Ping-pong (FA3): the two consumer warpgroups take turns issuing their
  // wgmma batches, so that one's softmax runs under the other's GEMMs. Named
  // barrier ConsumerTurnFirst + c is "my turn"; a warpgroup syncs on its own
  // and arrives on the other's (256 threads each). Consumer 1 lets consumer 0
  // start, and skips its last arrive so that the arrivals balance.
  int64_t turn0 = static_cast<int64_t>(NamedBarrier::ConsumerTurnFirst);
  Value myTurn = kb.add(c, kb.c32(turn0)), otherTurn = kb.sub(kb.c32(turn0 + 1), c);
  auto turnBegin = [&]() {
    if (cfg.pingPong)
      NVVM::BarrierOp::create(kb.b, Type(), myTurn, kb.c32(256), NVVM::BarrierReductionAttr(),
                              Value());
  };
  auto turnEnd = [&](bool last) {
    if (!cfg.pingPong)
      return;
    if (!last) {
      NVVM::BarrierArriveOp::create(kb.b, otherTurn, kb.c32(256));
      return;
    }
    kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, c, kb.c32(0)),
              [&] { NVVM::BarrierArriveOp::create(kb.b, otherTurn, kb.c32(256)); });
  };
  // O *= the rows' rescale. FP8: only when a row of this warp has a new
  // max (FA4's conditional rescaling, threshold 0: the 2^8 shift of P
  // leaves e4m3 no room for a stale max). Past the first tiles most rows'
  // maxima stand, and the nO multiplies are skipped.
  auto rescaleO = [&](SmallVector<Value> &o, Value rescale[2]) {
    if (!cfg.isFp8()) {
      rescaleRows(kb, o, rescale);
      return;
    }
    Value one = kb.cf32(1.0);
    Value changed = kb.ori(kb.fcmp(arith::CmpFPredicate::UNE, rescale[0], one),
                           kb.fcmp(arith::CmpFPredicate::UNE, rescale[1], one));
    Value any = NVVM::VoteSyncOp::create(kb.b, kb.b.getI1Type(), kb.c32(-1), changed,
                                         NVVM::VoteSyncKind::any);
    SmallVector<Type> types(o.size(), kb.f32);
    o = kb.ifThenElseValues(
        any, types,
        [&]() {
          SmallVector<Value> scaled(o);
          rescaleRows(kb, scaled, rescale);
          return scaled;
        },
        [&]() { return o; });
  };
  auto packP = [&](ArrayRef<Value> p) {
    SmallVector<Value> regs;
    if (cfg.isFp8()) {
      // k-step kk's A registers: rows r, r + 8 of the 8-column groups
      // 4 kk .. 4 kk + 3, two groups per register (value_t's key order).
      for (int64_t g = 0; g < nS / 4; g += 4)
        for (int64_t half : {0, 2})
          for (int64_t rowHalf : {0, 2}) {
            int64_t a = 4 * (g + half) + rowHalf, b = a + 4;
            regs.push_back(packQuadE4M3(kb, {p[a], p[a + 1], p[b], p[b + 1]}));
          }
      return regs;
    }
    for (int64_t i = 0; i < nS; i += 2)
      regs.push_back(packPair(kb, p[i], p[i + 1], cfg.elem));
    return regs;
  };

  // Loop state: O (nO), then max[2], sum[2] (per block: O's unit) (+ P
  // (nS/2) with overlap).
  const int64_t nRow = perBlock ? 5 : 4;
  SmallVector<Type> stateTypes(nO + nRow, kb.f32);
  SmallVector<Value> zeros(nO, kb.cf32(0.0));
  SmallVector<Value> initState(zeros);
  initState.append({negInf, negInf, kb.cf32(0.0), kb.cf32(0.0)});
  if (perBlock)
    initState.push_back(kb.cf32(1.0));
  // The row state of a loop's state `st` and back.
  auto rowState = [&](ValueRange st) {
    return RowState{{st[nO], st[nO + 1]}, {st[nO + 2], st[nO + 3]}};
  };
  auto unitOf = [&](ValueRange st) { return perBlock ? st[nO + 4] : Value(); };
  auto appendRowState = [&](SmallVectorImpl<Value> &st, const RowState &rs, Value unit) {
    st.append({rs.max[0], rs.max[1], rs.sum[0], rs.sum[1]});
    if (perBlock)
      st.push_back(unit);
  };

  // Without skipping, iterations [0, count).
  bool skips = cfg.slabTiles();
  Value begin = kb.c32(0), end = tiles.count;
  if (skips) {
    std::tie(begin, end) = consumerIterations(wgRow0);
    skipIterations(kb.c32(0), begin);
  }
  Value any = kb.cmp(arith::CmpIPredicate::sgt, end, begin);
  Value qParity = kb.andi(qLoads, kb.c32(1));
  // Persistent: Q may be reloaded once every consumer thread has arrived,
  // each after the Q load it read (or skipped) completed.
  auto doneWithQ = [&]() {
    if (cfg.isPersistent())
      mbarrierArrive(kb, qEmptyBarrier());
  };
  SmallVector<Value> fin = kb.ifThenElseValues(
      any, stateTypes,
      [&]() -> SmallVector<Value> {
        if (perBlock)
          loadRowFactors();
        if (cfg.packGqa())
          loadPackedQuery(me);
        else
          mbarrierWait(kb, qBarrier(), qParity);
        if (!cfg.overlap) {
          SmallVector<Value> res = kb.forLoop(begin, end, initState, [&](Value t, ValueRange st) {
            SmallVector<Value> o(st.take_front(nO));
            RowState rs = rowState(st);
            Value unit = unitOf(st);
            TileDescales d = loadTileDescales(t);
            SmallVector<Value> s = issueS(t);
            wgmmaWait(kb, 0);
            kPipe.release(t);
            s = scores.apply(keyTile(t), s);
            Value rescale[2];
            softmax(s, rs, rescale, /*first=*/false, d, unit);
            rescaleO(o, rescale);
            o = issuePV(t, o, packP(s), /*fence=*/true);
            wgmmaWait(kb, 0);
            vPipe.release(t);
            appendRowState(o, rs, unit);
            return o;
          });
          doneWithQ();
          return res;
        }
        // Prologue: S of the first iteration and its softmax.
        Value t0 = begin;
        if (cfg.pingPong)
          kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, c, kb.c32(1)),
                    [&] { NVVM::BarrierArriveOp::create(kb.b, otherTurn, kb.c32(256)); });
        TileDescales d0 = loadTileDescales(t0);
        kPipe.wait(t0);
        turnBegin();
        SmallVector<Value> s = issueS(t0, /*wait=*/false);
        turnEnd(/*last=*/false);
        wgmmaWait(kb, 0);
        kPipe.release(t0);
        s = scores.apply(keyTile(t0), s);
        RowState rs0;
        Value unused[2];
        Value unit0 = unitOf(initState);
        softmax(s, rs0, unused, /*first=*/true, d0, unit0);
        SmallVector<Value> loopInit(zeros);
        appendRowState(loopInit, rs0, unit0);
        SmallVector<Value> p0 = packP(s);
        loopInit.append(p0.begin(), p0.end());
        SmallVector<Value> res =
            kb.forLoop(kb.add(begin, kb.c32(1)), end, loopInit, [&](Value t, ValueRange st) {
              SmallVector<Value> o(st.take_front(nO));
              RowState rs = rowState(st);
              Value unit = unitOf(st);
              ValueRange p = st.drop_front(nO + nRow);
              Value tPrev = kb.sub(t, kb.c32(1));
              TileDescales d = loadTileDescales(t);
              kPipe.wait(t);
              vPipe.wait(tPrev);
              turnBegin();
              SmallVector<Value> st_ = issueS(t, /*wait=*/false);
              o = issuePV(tPrev, o, p, /*fence=*/true, /*wait=*/false);
              turnEnd(/*last=*/false);
              wgmmaWait(kb, 1); // S_t is done, P_{t-1} V_{t-1} may still run
              kPipe.release(t);
              st_ = scores.apply(keyTile(t), st_);
              Value rescale[2];
              softmax(st_, rs, rescale, /*first=*/false, d, unit);
              wgmmaWait(kb, 0);
              vPipe.release(tPrev);
              rescaleO(o, rescale);
              SmallVector<Value> next(o);
              appendRowState(next, rs, unit);
              SmallVector<Value> pt = packP(st_);
              next.append(pt.begin(), pt.end());
              return next;
            });
        doneWithQ(); // every S is done; the last P V reads P and V only
        SmallVector<Value> o(ArrayRef<Value>(res).take_front(nO));
        Value last = kb.sub(end, kb.c32(1));
        vPipe.wait(last);
        turnBegin();
        o = issuePV(last, o, ArrayRef<Value>(res).drop_front(nO + nRow), /*fence=*/true,
                    /*wait=*/false);
        turnEnd(/*last=*/true);
        wgmmaWait(kb, 0);
        vPipe.release(last);
        o.append(res.begin() + nO, res.begin() + nO + nRow);
        return o;
      },
      [&]() {
        // A slab without tiles of its own in a tile that loads Q. (The tile
        // plan makes no kernel both persistent and slab-skipping today; run
        // 4 of docs/HopperKernel.md's persistent experiment ran this path.)
        if (cfg.isPersistent() && skips)
          kb.ifThen(kb.cmp(arith::CmpIPredicate::sgt, tiles.count, kb.c32(0)), [&] {
            mbarrierWait(kb, qBarrier(), qParity);
            doneWithQ();
          });
        return initState;
      });
  if (skips)
    skipIterations(end, tiles.count);

  SmallVector<Value> o(ArrayRef<Value>(fin).take_front(nO));
  RowState rs = rowState(fin);
  if (cfg.splitKv) {
    PartialEpilogueArgs pa{args.outPtr, args.lsePtr, args.finalOut, args.finalLse,
                           work.split,  args.numSplits,
                           work.batch,  kb.gridDimZ(), work.head, args.group,
                           seqQ,        row0,         lane,      factor};
    storePartialEpilogue(kb, cfg, o, rs, pa);
    return;
  }
  EpilogueArgs ea;
  ea.outPtr = args.outPtr;
  ea.lsePtr = args.lsePtr;
  ea.batch = work.batch;
  ea.head = work.head;
  ea.numHeads = cfg.isPersistent() ? args.numHeads : kb.gridDimY();
  // (Kernels that stash them re-read the length and the start here.)
  ea.seqQ = cfg.stashesLengths() ? reloadStash(0) : seqQ;
  if (cfg.varlen) {
    ea.rowBase = cfg.stashesLengths() ? reloadStash(2) : qRowBase;
    ea.packedSeqQ = args.seqQ;
  }
  ea.row0 = row0;
  ea.lane = lane;
  // Per block the max is already in the log2 domain, and O in units of
  // the last V descale.
  ea.exponentFactor = perBlock ? kb.cf32(1.0) : factor;
  ea.outScale = perBlock ? unitOf(fin) : outScale;
  ea.rowsMayBeNegative = cfg.slabTiles();
  storeEpilogue(kb, cfg, o, rs, ea);
}

void ForwardKernel::emit() {
  seqQ = args.seqQ;
  seqK = args.seqK;
  // A ragged batch's sequence first (its lengths may go to shared memory
  // with the barriers); a persistent CTA's tiles find theirs in forEachTile.
  if (cfg.varlen && !scheduler->isPersistent())
    beginTile(scheduler->currentTile(kb, schedulerArgs), Value());
  // One thread initialises every barrier; the CTA barrier publishes them.
  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, tid, kb.c32(0)), [&] {
    mbarrierInit(kb, qBarrier(), 1);
    TmaPipeline::initAll({&kPipe, &vPipe});
    if (cfg.isPersistent())
      mbarrierInit(kb, qEmptyBarrier(), 128 * cfg.consumers);
    if (cfg.stashesLengths())
      storeStash();
    fenceMbarrierInit(kb);
  });
  NVVM::Barrier0Op::create(kb.b);

  // One rule for the whole kernel: the producer's and the consumers' key
  // tiles and the consumers' fragment masks (a ragged batch's: above, or
  // per tile).
  if (cfg.keyLengths) {
    // The rule needs this batch's key count: the tile first.
    WorkTile tile = scheduler->currentTile(kb, schedulerArgs);
    seqK = LLVM::LoadOp::create(kb.b, kb.i32,
                                kb.globalAt(args.keyLengths, kb.ext64(tile.batch), kb.i32), 4);
    if (cfg.append)
      seqK = kb.add(seqK, args.seqNew);
    rule.emplace(kb, cfg.semantics, args.seqQ, seqK);
    beginTile(tile, Value());
  } else if (!cfg.varlen) {
    rule.emplace(kb, cfg.semantics, args.seqQ, seqK);
    if (!scheduler->isPersistent())
      beginTile(scheduler->currentTile(kb, schedulerArgs), Value());
  }

  Value wg = kb.shru(tid, kb.c32(7));
  kb.ifThenElse(
      kb.cmp(arith::CmpIPredicate::eq, wg, kb.c32(0)), [&] { emitProducer(); },
      [&] { emitConsumer(); });
}

} // namespace

LLVM::LLVMFuncOp mlir::fa::nvvm_kernel::buildAttentionKernel(OpBuilder &builder, Location loc,
                                                             Block &moduleBody,
                                                             const AttentionKernelConfig &cfg) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&moduleBody);
  ImplicitLocOpBuilder b(loc, builder);
  MLIRContext *ctx = b.getContext();
  std::string name = cfg.attentionKernelName();
  std::string smem = name + "_smem";
  LLVM::GlobalOp::create(b, LLVM::LLVMArrayType::get(b.getI8Type(), 0), /*isConstant=*/false,
                         LLVM::Linkage::External, smem, Attribute(), /*alignment=*/16,
                         /*addrSpace=*/3);

  auto ptr = LLVM::LLVMPointerType::get(ctx);
  // Tensor maps (Q's unless packed, K, V), then pointers, as KernelArgs.
  unsigned tensorMaps = cfg.packGqa() ? 2 : 3;
  SmallVector<Type> args(tensorMaps, ptr);
  if (cfg.packGqa())
    args.push_back(ptr);
  args.push_back(ptr);
  if (cfg.returnLse || cfg.splitKv)
    args.push_back(ptr);
  if (cfg.splitKv)
    args.append(cfg.returnLse ? 2 : 1, ptr);
  if (cfg.isFp8())
    args.append(3, ptr); // the descales
  if (cfg.keyLengths)
    args.push_back(ptr);
  if (cfg.paged())
    args.push_back(ptr);
  if (cfg.varlen)
    args.append({ptr, ptr});
  unsigned numPtrs = args.size();
  if (cfg.bias)
    args.append({ptr, b.getI64Type(), b.getI64Type(), b.getI64Type()});
  if (cfg.isFp8())
    args.append(3 * cfg.descaleRank(), b.getI64Type()); // the descales' strides
  args.append({b.getI32Type(), b.getI32Type(), b.getI32Type()});
  if (cfg.splitKv)
    args.push_back(b.getI32Type());
  if (cfg.packGqa())
    args.append({b.getI64Type(), b.getI64Type(), b.getI64Type()});
  if (cfg.paged())
    args.append({b.getI32Type(), b.getI64Type()});
  if (cfg.append)
    args.push_back(b.getI32Type());
  if (cfg.varlen)
    args.push_back(b.getI32Type());
  if (cfg.isPersistent())
    args.append({b.getI32Type(), b.getI32Type(), b.getI32Type()});
  LLVM::LLVMFuncOp fn = createKernelFunction(b, name, args, cfg.threads());
  for (unsigned i = 0; i < tensorMaps; ++i)
    markTensorMapArg(b, fn, i);
  for (unsigned i = tensorMaps; i < numPtrs; ++i)
    fn.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr());
  if (cfg.bias)
    fn.setArgAttr(numPtrs, LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr());

  Block *entry = fn.addEntryBlock(builder);
  b.setInsertionPointToStart(entry);
  KernelBuilder kb(b);
  ForwardKernel(kb, cfg, fn, smem).emit();
  LLVM::ReturnOp::create(b, ValueRange{});
  return fn;
}

std::string mlir::fa::nvvm_kernel::bundleJson(const AttentionKernelConfig &cfg, StringRef chip,
                                              StringRef cubinFile) {
  using llvm::json::Array;
  using llvm::json::Object;
  std::string dt = cfg.elemName();
  Array params;
  const StringRef qkvDims[] = {"dim", "seq", "head", "batch"};
  if (!cfg.packGqa())
    params.push_back(tensorMapParam("query", dt, cfg.blockM(), qkvDims, cfg.boxElems()));
  if (cfg.paged()) {
    for (const char *role : {cfg.keyRole(), cfg.valueRole()})
      params.push_back(tensorMapParam(role, dt, cfg.keyRowsPerLoad(), {"dim", "row", "head", "page"}));
  } else {
    params.push_back(tensorMapParam("key", dt, cfg.blockN, qkvDims, cfg.boxElems()));
    if (cfg.isFp8()) // V^T boxes: keys (128 bytes) x the V head dim's rows
      params.push_back(tensorMapParam("value_t", dt, cfg.vDim(), {"seq", "dim", "head", "batch"},
                                      AttentionKernelConfig::kValueTBoxKeys));
    else
      params.push_back(tensorMapParam("value", dt, cfg.blockN));
  }
  if (cfg.packGqa()) // 16-byte loads of Q rows: address and row strides aligned
    params.push_back(alignedPtrParam("query"));
  params.push_back(ptrParam(cfg.splitKv ? "o_partial" : "output"));
  if (cfg.returnLse || cfg.splitKv)
    params.push_back(ptrParam(cfg.splitKv ? "lse_partial" : "lse"));
  if (cfg.splitKv) { // written instead of the partials when there is one split
    params.push_back(ptrParam("output"));
    if (cfg.returnLse)
      params.push_back(ptrParam("lse"));
  }
  static const char *const descales[3] = {"query_descale", "key_descale", "value_descale"};
  if (cfg.isFp8())
    for (const char *role : descales)
      params.push_back(ptrParam(role));
  if (cfg.keyLengths)
    params.push_back(ptrParam("cache_seqlens"));
  if (cfg.paged())
    params.push_back(ptrParam("block_table"));
  if (cfg.varlen) {
    params.push_back(ptrParam("cu_seqlens_q"));
    params.push_back(ptrParam("cu_seqlens_k"));
  }
  if (cfg.bias) {
    params.push_back(Object{{"kind", "ptr"}, {"operand", "bias"}});
    appendStrideParams(params, "bias", {"batch", "head", "seq_q"});
  }
  static const StringRef descaleDims[3] = {"batch", "head", "block"};
  if (cfg.isFp8())
    for (const char *role : descales)
      appendStrideParams(params, role,
                         ArrayRef<StringRef>(descaleDims).take_front(cfg.descaleRank()));
  params.push_back(Object{{"kind", "i32"}, {"value", "seq_q"}});
  params.push_back(Object{{"kind", "i32"}, {"value", cfg.keySlotsExpr()}});
  params.push_back(Object{{"kind", "i32"}, {"value", "heads_q / heads_kv"}});
  if (cfg.splitKv)
    params.push_back(i32Param(TileScheduler::splitCount(cfg)));
  if (cfg.packGqa())
    appendStrideParams(params, "query", {"batch", "seq", "head"});
  if (cfg.paged()) {
    params.push_back(i32Param("max_pages"));
    appendStrideParams(params, "block_table", {"batch"});
  }
  if (cfg.append)
    params.push_back(i32Param("seq_new"));
  if (cfg.varlen)
    params.push_back(i32Param("num_seqs"));
  std::unique_ptr<TileScheduler> scheduler = TileScheduler::forConfig(cfg);
  for (const std::string &extent : scheduler->tileSpaceParams())
    params.push_back(i32Param(extent));
  Object config = forwardBundleConfig(cfg);
  if (cfg.splitKv)
    config["num_splits"] = cfg.numSplits;
  if (cfg.paged())
    config["page_size"] = cfg.pageSize;
  StringRef op = cfg.splitKv ? "attention_fwd_partial" : cfg.varlen ? "attention_varlen"
                                                                    : "attention_fwd";
  Object root = kernelBundleRoot(chip, cubinFile, cfg.attentionKernelName(), op,
                                 std::move(config), cfg.threads(), cfg.sharedMemoryBytes(),
                                 scheduler->gridShape(), std::move(params));
  if (cfg.splitKv) {
    Array scratch;
    for (const char *name : {"o_partial", "lse_partial"})
      scratch.push_back(splitScratchEntry(cfg, name));
    root["scratch"] = std::move(scratch);
  }
  if (cfg.isFp8())
    root["scratch"] = Array{valueTransposeWorkspace(cfg, /*withInit=*/false)};
  return printJson(std::move(root));
}

llvm::json::Object mlir::fa::nvvm_kernel::forwardBundleConfig(const AttentionKernelConfig &cfg) {
  llvm::json::Object config =
      semanticsConfig(cfg.elemName(), cfg.bshd, cfg.headDim, cfg.headDimV, cfg.semantics);
  config["out_dtype"] = AttentionKernelConfig::elemTypeName(cfg.outElem());
  config["return_lse"] = cfg.returnLse;
  if (cfg.blockDescales())
    config["descale_block"] = llvm::json::Array{cfg.descaleBlockQ, cfg.descaleBlockK};
  config["bias"] = cfg.bias.has_value();
  if (cfg.bias)
    config["bias_dtype"] = cfg.biasName();
  return config;
}
