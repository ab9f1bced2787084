//===- ForwardConsumer.cpp - The forward mainloop's consumer warpgroups ---===//
//
// Each consumer warpgroup computes 64 query rows of the work tile: per key
// tile S = Q K^T (wgmma SS), the score function and masks (FragmentScores),
// the online softmax in registers, P packed to bf16/f16 (or e4m3) in
// registers and O += P V (wgmma RS); then the epilogue. With `overlap`
// (FA3's intra-warpgroup pipelining) iteration j issues S_j and
// P_{j-1} V_{j-1} back to back and runs the softmax of S_j while the P V
// wgmma is in flight; with `pingPong` the consumers take turns issuing.
//
//===----------------------------------------------------------------------===//
#include "ForwardKernel.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

#include <limits>
#include <tuple>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

namespace {

/// FP8 per-block descales of one key tile.
struct TileDescales {
  Value key, value;
};

/// One consumer warpgroup on one work tile. The loop state is O (nO
/// values), max[2], sum[2], with per-block descales O's unit (nRow in all),
/// and with overlap the packed P of the previous iteration.
class TileConsumer {
public:
  TileConsumer(ForwardKernel &k, const ConsumerThread &me);
  /// The mainloop over this warpgroup's key tiles, then the epilogue.
  void run(Value qLoads);

private:
  /// FP8 per-block descales: Q's per row, loaded once the tile has key
  /// tiles (a sequence without rows has no Q block).
  void loadRowFactors();
  /// K's and V's descale of iteration t (per block; else none), loaded at
  /// the start of an iteration, ahead of the wgmma waits.
  TileDescales loadTileDescales(Value t);
  /// The softmax of one S. Per block, O is kept in units of V's descale of
  /// the latest tile with a nonzero one (`valueUnit`, 1 before any), so that
  /// P V accumulates unscaled: O's rescale also converts to the new unit.
  void softmax(SmallVectorImpl<Value> &s, RowState &rs, Value rescale[2], bool first,
               TileDescales d, Value &valueUnit);
  /// Issues S_t = Q K_t^T; waits for K_t first unless the caller did.
  SmallVector<Value> issueS(Value t, bool wait = true);
  /// Issues O += P_t V_t; waits for V_t first unless the caller did.
  SmallVector<Value> issuePV(Value t, ValueRange o, ValueRange p, bool fence, bool wait = true);
  /// Ping-pong (FA3/FA4's scheduler barrier): the two consumer warpgroups
  /// take turns issuing the main loop's wgmma batches (S_t and P_{t-1}
  /// V_{t-1}), so that each one's P V runs right after its S, under its
  /// own softmax. Named barrier ConsumerTurnFirst + c is "my turn"; a
  /// warpgroup syncs on its own and arrives on the other's (256 threads
  /// each). Only the loop's iterations take turns, which both consumers run
  /// equally often in every tile: the first S and the last P V of a tile do
  /// not, so that neither waits at a tile's edge for the other's epilogue.
  /// Consumer 1 lets consumer 0 start once per kernel
  /// (ForwardKernel::emitConsumer); the last arrive stays unmatched.
  void turnBegin();
  void turnEnd();
  /// O *= the rows' rescale. FP8: only when a row of this warp has a new
  /// max (FA4's conditional rescaling, threshold 0: the 2^8 shift of P
  /// leaves e4m3 no room for a stale max). Past the first tiles most rows'
  /// maxima stand, and the nO multiplies are skipped.
  void rescaleO(SmallVector<Value> &o, Value rescale[2]);
  /// The descriptor of a K or V ring slot (SBO 1024).
  Value slotDescriptor(Value slot, int64_t lbo) {
    return cfg.narrowSlotDescriptors() ? wgmmaDescriptorNarrow(kb, slot, lbo, 1024)
                                       : wgmmaDescriptor(kb, slot, lbo, 1024);
  }
  /// P (f32) as the A registers of P V.
  SmallVector<Value> packP(ArrayRef<Value> p);
  /// The row state of a loop's state `st` and back.
  RowState rowState(ValueRange st) const;
  Value unitOf(ValueRange st) const { return perBlock ? st[nO + 4] : Value(); }
  void appendRowState(SmallVectorImpl<Value> &st, const RowState &rs, Value unit) const;
  /// Persistent: Q may be reloaded once every consumer thread has arrived,
  /// each after the Q load it read (or skipped) completed.
  void doneWithQ();
  /// The key tiles [begin, end) of a tile that has some: O and the row
  /// state after them.
  SmallVector<Value> mainloop(Value begin, Value end, Value qParity);
  /// One iteration after the other: S, softmax, P V.
  SmallVector<Value> serialLoop(Value begin, Value end);
  /// FA3's intra-warpgroup overlap: S_t and P_{t-1} V_{t-1} in flight
  /// together, the softmax of S_t under the P V.
  SmallVector<Value> overlappedLoop(Value begin, Value end);
  /// Normalises and stores O and the LSE (or the split's partials).
  void epilogue(ValueRange fin);
  /// Block-sparse: iteration t's listed key tile and whether it is partial,
  /// read at the start of the iteration (ahead of the wgmma waits); else
  /// nulls, and the key tile is computed where it is used.
  std::pair<Value, Value> listedTile(Value t) {
    return k.blockList ? k.listedTile(t) : std::make_pair(Value(), Value());
  }
  /// The scores of iteration t's S under `listed` (listedTile's).
  SmallVector<Value> applyScores(Value t, std::pair<Value, Value> listed, SmallVector<Value> s) {
    return scores.apply(listed.first ? listed.first : k.keyTile(t), std::move(s), listed.second);
  }

  ForwardKernel &k;
  KernelBuilder &kb;
  const AttentionKernelConfig &cfg;
  const ConsumerThread &me;
  const int64_t nS, nO;
  // FP8 per-block descales (docs/HopperKernel.md, "Per-block descales").
  const bool perBlock;
  const int64_t nRow;
  // FP8: P scaled by 2^kFp8PShift before e4m3 (the LSE takes it out).
  const int64_t pShift;
  Value wgRow0, row0, laneCol, negInf;
  KernelModifiers modifiers; // the regions' captures and math
  FragmentScores scores;
  Value factor;
  Value outScale; // FP8: O times V's descale
  Value rowFactor[2];
  Value qDesc; // Q slab of this consumer: rows 64 c of every box
  Value myTurn, otherTurn;
  SmallVector<Value> zeros, initState;
};

} // namespace

TileConsumer::TileConsumer(ForwardKernel &k, const ConsumerThread &me)
    : k(k), kb(k.kb), cfg(k.cfg), me(me), nS(cfg.blockN / 2), nO(cfg.vDim() / 2),
      perBlock(cfg.blockDescales()), nRow(perBlock ? 5 : 4),
      pShift(cfg.isFp8() ? AttentionKernelConfig::kFp8PShift : 0),
      wgRow0(kb.add(k.m0, kb.mul(me.c, kb.c32(64)))), row0(me.fragmentRow(kb, wgRow0)),
      laneCol(me.laneColumn(kb)), negInf(kb.cf32(-std::numeric_limits<double>::infinity())),
      modifiers(cfg.semantics, k.args.captures),
      scores(kb, cfg, *k.rule, k.args.bias, k.work.regionBatch(), k.work.head, k.seqQ, k.seqK,
             wgRow0, row0, laneCol, cfg.packGqa() ? k.args.group : Value(),
             cfg.semantics.hasModifiers() ? &modifiers : nullptr) {
  factor = scores.exponentFactor();
  if (cfg.isFp8() && !cfg.blockDescales()) {
    factor = kb.fmul(factor, kb.fmul(k.loadDescale(0, k.headKV), k.loadDescale(1, k.headKV)));
    outScale = k.loadDescale(2, k.headKV);
  }
  if (cfg.stashesLengths())
    scores.reloadLengthsWith(
        [this] { return std::make_pair(this->k.reloadStash(0), this->k.reloadStash(1)); });
  qDesc = wgmmaDescriptor(kb, kb.sharedAt(k.qTile(), kb.mul(me.c, kb.c32(64 * 128))), 16, 1024);
  int64_t turn0 = static_cast<int64_t>(NamedBarrier::ConsumerTurnFirst);
  myTurn = kb.add(me.c, kb.c32(turn0));
  otherTurn = kb.sub(kb.c32(turn0 + 1), me.c);
  zeros.assign(nO, kb.cf32(0.0));
  initState = zeros;
  initState.append({negInf, negInf, kb.cf32(0.0), kb.cf32(0.0)});
  if (perBlock)
    initState.push_back(kb.cf32(1.0));
}

void TileConsumer::loadRowFactors() {
  for (int r = 0; r < 2; ++r) {
    Value row = kb.maxSI(kb.minSI(kb.add(row0, kb.c32(8 * r)), kb.sub(k.seqQ, kb.c32(1))),
                         kb.c32(0));
    Value block = kb.divUI(row, kb.c32(cfg.descaleBlockQ));
    rowFactor[r] = kb.fmul(factor, k.loadDescale(0, k.work.head, block));
  }
}

TileDescales TileConsumer::loadTileDescales(Value t) {
  if (!perBlock)
    return {};
  Value block = kb.divUI(kb.mul(k.keyTile(t), kb.c32(cfg.blockN)), kb.c32(cfg.descaleBlockK));
  return {k.loadDescale(1, k.headKV, block), k.loadDescale(2, k.headKV, block)};
}

void TileConsumer::softmax(SmallVectorImpl<Value> &s, RowState &rs, Value rescale[2],
                           bool first, TileDescales d, Value &valueUnit) {
  if (!perBlock) {
    softmaxStep(kb, s, rs, factor, rescale, first, pShift);
    return;
  }
  // A zero descale (all-zero Q or K block) gives scores 0 at any factor;
  // the smallest normal keeps -inf * factor from becoming NaN.
  Value f[2];
  for (int r = 0; r < 2; ++r)
    f[r] = kb.fmax(kb.fmul(rowFactor[r], d.key), kb.cf32(std::numeric_limits<float>::min()));
  softmaxStepLog2Max(kb, s, rs, f, rescale, first, pShift);
  Value unit = kb.select(kb.fcmp(arith::CmpFPredicate::UNE, d.value, kb.cf32(0.0)), d.value,
                         valueUnit);
  if (!first) {
    Value ratio = arith::DivFOp::create(kb.b, valueUnit, unit);
    for (int r = 0; r < 2; ++r)
      rescale[r] = kb.fmul(rescale[r], ratio);
  }
  valueUnit = unit;
}

SmallVector<Value> TileConsumer::issueS(Value t, bool wait) {
  const int64_t BN = cfg.blockN, BM = cfg.blockM();
  if (wait)
    k.kPipe.wait(t);
  Value kDesc = slotDescriptor(k.kPipe.slot(t), 16);
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
}

SmallVector<Value> TileConsumer::issuePV(Value t, ValueRange o, ValueRange p, bool fence,
                                         bool wait) {
  const int64_t DV = cfg.vDim(), BN = cfg.blockN;
  if (wait)
    k.vPipe.wait(t);
  k.zeroValueTail(me, t);
  // V^T (FP8) is K-major, boxes of [DV rows x kValueTBoxKeys keys]:
  // k-step kk is 32 bytes into a row of box kk / 4. V is MN-major: LBO =
  // next 64-wide dim box, SBO = next 8 kv rows.
  Value vDesc = slotDescriptor(k.vPipe.slot(t), cfg.isFp8() ? 16 : BN * 128);
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
}

void TileConsumer::turnBegin() {
  if (cfg.pingPong)
    NVVM::BarrierOp::create(kb.b, Type(), myTurn, kb.c32(256), NVVM::BarrierReductionAttr(),
                            Value());
}

void TileConsumer::turnEnd() {
  if (cfg.pingPong)
    NVVM::BarrierArriveOp::create(kb.b, otherTurn, kb.c32(256));
}

void TileConsumer::rescaleO(SmallVector<Value> &o, Value rescale[2]) {
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
}

SmallVector<Value> TileConsumer::packP(ArrayRef<Value> p) {
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
}

RowState TileConsumer::rowState(ValueRange st) const {
  return RowState{{st[nO], st[nO + 1]}, {st[nO + 2], st[nO + 3]}};
}

void TileConsumer::appendRowState(SmallVectorImpl<Value> &st, const RowState &rs,
                                  Value unit) const {
  st.append({rs.max[0], rs.max[1], rs.sum[0], rs.sum[1]});
  if (perBlock)
    st.push_back(unit);
}

void TileConsumer::doneWithQ() {
  if (cfg.isPersistent())
    mbarrierArrive(kb, k.qEmptyBarrier());
}

void TileConsumer::run(Value qLoads) {
  SmallVector<Type> stateTypes(nO + nRow, kb.f32);
  // Without skipping, iterations [0, count).
  bool skips = cfg.slabTiles();
  Value begin = kb.c32(0), end = k.tiles.count;
  if (skips) {
    std::tie(begin, end) = k.consumerIterations(wgRow0);
    k.skipIterations(kb.c32(0), begin);
  }
  Value any = kb.cmp(arith::CmpIPredicate::sgt, end, begin);
  Value qParity = kb.andi(qLoads, kb.c32(1));
  SmallVector<Value> fin = kb.ifThenElseValues(
      any, stateTypes, [&]() { return mainloop(begin, end, qParity); },
      [&]() {
        // A slab without tiles of its own in a tile that loads Q. (The tile
        // plan makes no kernel both persistent and slab-skipping today; run
        // 4 of docs/HopperKernel.md's persistent experiment ran this path.)
        if (cfg.isPersistent() && skips)
          kb.ifThen(kb.cmp(arith::CmpIPredicate::sgt, k.tiles.count, kb.c32(0)), [&] {
            mbarrierWait(kb, k.qBarrier(), qParity);
            doneWithQ();
          });
        return initState;
      });
  if (skips)
    k.skipIterations(end, k.tiles.count);
  epilogue(fin);
}

SmallVector<Value> TileConsumer::mainloop(Value begin, Value end, Value qParity) {
  if (perBlock)
    loadRowFactors();
  if (cfg.packGqa())
    k.loadPackedQuery(me);
  else
    mbarrierWait(kb, k.qBarrier(), qParity);
  if (!cfg.overlap) {
    SmallVector<Value> res = serialLoop(begin, end);
    doneWithQ();
    return res;
  }
  return overlappedLoop(begin, end);
}

SmallVector<Value> TileConsumer::serialLoop(Value begin, Value end) {
  return kb.forLoop(begin, end, initState, [&](Value t, ValueRange st) {
    SmallVector<Value> o(st.take_front(nO));
    RowState rs = rowState(st);
    Value unit = unitOf(st);
    std::pair<Value, Value> listed = listedTile(t);
    TileDescales d = loadTileDescales(t);
    SmallVector<Value> s = issueS(t);
    wgmmaWait(kb, 0);
    k.kPipe.release(t);
    s = applyScores(t, listed, s);
    Value rescale[2];
    softmax(s, rs, rescale, /*first=*/false, d, unit);
    rescaleO(o, rescale);
    o = issuePV(t, o, packP(s), /*fence=*/true);
    wgmmaWait(kb, 0);
    k.vPipe.release(t);
    appendRowState(o, rs, unit);
    return o;
  });
}

SmallVector<Value> TileConsumer::overlappedLoop(Value begin, Value end) {
  // Prologue: S of the first iteration and its softmax.
  Value t0 = begin;
  std::pair<Value, Value> listed0 = listedTile(t0);
  TileDescales d0 = loadTileDescales(t0);
  k.kPipe.wait(t0);
  SmallVector<Value> s = issueS(t0, /*wait=*/false);
  wgmmaWait(kb, 0);
  k.kPipe.release(t0);
  s = applyScores(t0, listed0, s);
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
        std::pair<Value, Value> listed = listedTile(t);
        TileDescales d = loadTileDescales(t);
        k.kPipe.wait(t);
        k.vPipe.wait(tPrev);
        turnBegin();
        SmallVector<Value> st_ = issueS(t, /*wait=*/false);
        o = issuePV(tPrev, o, p, /*fence=*/true, /*wait=*/false);
        turnEnd();
        wgmmaWait(kb, 1); // S_t is done, P_{t-1} V_{t-1} may still run
        k.kPipe.release(t);
        st_ = applyScores(t, listed, st_);
        Value rescale[2];
        softmax(st_, rs, rescale, /*first=*/false, d, unit);
        wgmmaWait(kb, 0);
        k.vPipe.release(tPrev);
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
  k.vPipe.wait(last);
  o = issuePV(last, o, ArrayRef<Value>(res).drop_front(nO + nRow), /*fence=*/true,
              /*wait=*/false);
  wgmmaWait(kb, 0);
  k.vPipe.release(last);
  o.append(res.begin() + nO, res.begin() + nO + nRow);
  return o;
}

void TileConsumer::epilogue(ValueRange fin) {
  SmallVector<Value> o(fin.take_front(nO));
  RowState rs = rowState(fin);
  if (cfg.splitKv) {
    PartialEpilogueArgs pa{k.args.outPtr, k.args.lsePtr, k.args.finalOut, k.args.finalLse,
                           k.work.split,  k.args.numSplits,
                           k.work.batch,  kb.gridDimZ(), k.work.head, k.args.group,
                           k.seqQ,        row0,          me.lane,     factor};
    storePartialEpilogue(kb, cfg, o, rs, pa);
    return;
  }
  EpilogueArgs ea;
  ea.outPtr = k.args.outPtr;
  ea.lsePtr = k.args.lsePtr;
  ea.batch = k.work.batch;
  ea.head = k.work.head;
  // The scheduler passes the head count where the grid is not (batch, heads).
  ea.numHeads = k.args.numHeads ? k.args.numHeads : kb.gridDimY();
  // (Kernels that stash them re-read the length and the start here.)
  ea.seqQ = cfg.stashesLengths() ? k.reloadStash(0) : k.seqQ;
  if (cfg.varlen) {
    ea.rowBase = cfg.stashesLengths() ? k.reloadStash(2) : k.qRowBase;
    ea.packedSeqQ = k.args.seqQ;
  }
  ea.row0 = row0;
  ea.lane = me.lane;
  // Per block the max is already in the log2 domain, and O in units of
  // the last V descale.
  ea.exponentFactor = perBlock ? kb.cf32(1.0) : factor;
  ea.outScale = perBlock ? unitOf(fin) : outScale;
  ea.rowsMayBeNegative = cfg.slabTiles();
  ea.sinksPtr = k.args.sinks;
  storeEpilogue(kb, cfg, o, rs, ea);
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
    LLVM::StoreOp::create(kb.b, data, kb.sharedAt(qTile(), offset), /*alignment=*/16);
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

Value ForwardKernel::loadDescale(int64_t i, Value head, Value block) {
  const Value *stride = args.descaleStride[i];
  Value at = kb.add(kb.mul(kb.ext64(work.batch), stride[0]), kb.mul(kb.ext64(head), stride[1]));
  if (block)
    at = kb.add(at, kb.mul(kb.ext64(block), stride[2]));
  return LLVM::LoadOp::create(kb.b, kb.f32, kb.globalAt(args.descale[i], at, kb.f32), 4);
}

void ForwardKernel::emitConsumer() {
  ConsumerThread me = ConsumerThread::enter(kb, tid, cfg.consumerRegs);
  // At head dims up to 64 (three consumers) the warpgroup index in uniform
  // registers takes the window kernels' spills to 0; above, it adds 8-16 B
  // (docs/HopperKernel.md, "The forward's consumer index made warp-uniform").
  if (cfg.qkDim() <= 64)
    me.c = warpUniform(kb, me.c);
  if (cfg.pingPong && cfg.overlap) // consumer 0 takes the first turn (TileConsumer::turnBegin)
    kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, me.c, kb.c32(1)), [&] {
      int64_t first = static_cast<int64_t>(NamedBarrier::ConsumerTurnFirst);
      NVVM::BarrierArriveOp::create(kb.b, kb.c32(first), kb.c32(256));
    });
  forEachTile(
      [&](Value qLoads) {
        if (!cfg.freshThreadIndices()) {
          TileConsumer(*this, me).run(qLoads);
          return;
        }
        ConsumerThread fresh = me;
        for (Value *v : {&fresh.c, &fresh.warp, &fresh.lane, &fresh.threadInWg})
          *v = opaqueCopy(kb, *v);
        TileConsumer(*this, fresh).run(qLoads);
      },
      /*warpWide=*/true);
}
