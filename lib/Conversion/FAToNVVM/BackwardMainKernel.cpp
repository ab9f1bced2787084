//===- BackwardMainKernel.cpp - dK, dV and dQ partials per key block ------===//
//
// One CTA per (128-key block, kv head, batch), three warpgroups:
//   warpgroup 0: producer. setmaxnreg.dec; one thread loads K and V of the
//                block once, then walks (q head of the group) x (query tiles
//                that see the block, MaskRule::queryRange), loading Q_i, dO_i,
//                LSE2_i and D_i into a ring of slots (one full barrier each).
//   warpgroups 1, 2: consumers; consumer w owns keys [64 w, 64 w + 64), so
//                every product whose rows are keys takes A from registers
//                or from its slab of K/V:
//                  S^T  = K_w Q_i^T          (SS)
//                  dP^T = V_w dO_i^T         (SS)
//                  P^T  = exp2(S^T c - LSE2), dS^T = P^T o (dP^T - D)
//                         (o (1 - (score / softcap)^2) with a softcap;
//                         a bias is added to S^T, and dS^T is its
//                         gradient, stored, summed in turn with the
//                         other batches' and heads' or added into
//                         dbias_accum)
//                  dV_w += P^T dO_i          (RS, dO MN-major)
//                  dK_w += dS^T Q_i          (RS, Q MN-major)
//                dS^T goes to shared memory transposed (stmatrix .trans) as
//                dS [64 queries x 128 keys]; then
//                  dQ_i += dS K              (SS, K MN-major)
//                each warpgroup one 64-column box of dQ (head dim 128), or
//                its half of the keys (head dim 64, 64-query tile), or its
//                64 rows of the 128-query tile (cfg.blockM); with the
//                80-query tile (d128) dQ_i^T = K^T dS^T, its box transposed
//                (K MN-major as A, dS K-major as B), staged in shared
//                memory and added into the f32 accumulator by one bulk
//                reduce (in key-block order through a semaphore when
//                deterministic). Without lookahead dK is issued after dQ,
//                so the staging runs under it.
// dK (times the scale) and dV are stored once at the end: the group's q heads
// are summed in registers, without atomics.
//
//===----------------------------------------------------------------------===//
#include "BackwardBiasTile.h"
#include "BackwardSignature.h"

#include <array>
#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

namespace {

using BK = BackwardKernelConfig;

/// Iteration t of a CTA's loop: q head g of the group, query tile; in a
/// block-sparse backward, whether mask_mod must be evaluated on the tile
/// (i1; null: always).
struct QueryStep {
  Value qHead, tile, m0;
  Value partial = {};
};

/// Step t of a block-sparse CTA: q head t / listed of the group, entry
/// t % listed of the key block's list of query tiles.
QueryStep listedStep(KernelBuilder &kb, const BlockList &list, Value listed, Value group,
                     Value headKV, Value t, int64_t blockM) {
  Value g = kb.divUI(t, listed);
  auto [tile, partial] = list.tileAt(kb.remu(t, listed));
  return {kb.add(kb.mul(headKV, group), g), tile, kb.mul(tile, kb.c32(blockM)), partial};
}

class KeyBlockConsumer;

class BackwardMainKernel {
public:
  BackwardMainKernel(KernelBuilder &kb, const BK &cfg, LLVM::LLVMFuncOp fn, StringRef smemSymbol)
      : kb(kb), cfg(cfg), args(bindArgs(fn, cfg)), smem(BackwardMainShared::plan(cfg)),
        tid(kb.threadIdX()), base(kb.alignedSharedBase(smemSymbol)),
        pipe(kb, base, smem.slots.offset, cfg.slotBytes(), smem.slotBarriers.barrier(0),
             smem.slotBarriers.barrier(BK::kStages), BK::kStages, 256) {}

  void emit();

private:
  friend class KeyBlockConsumer;
  static BackwardMainArgs bindArgs(LLVM::LLVMFuncOp fn, const BK &cfg) {
    BackwardMainArgs a;
    backwardMainSignature(cfg, a).bind(fn);
    return a;
  }
  Value kvBarrier() { return kb.sharedAt(base, smem.kvFull.offset); }
  Value kBlock() { return kb.sharedAt(base, smem.k.offset); }
  QueryStep step(Value t);
  /// This CTA's key block, kv head and batch from its block id.
  void placeBlock();
  /// A ragged batch: the sequence of this CTA's padded key block, its
  /// bounds and its query tiles' place in the padded workspace; seq_q and
  /// seq_k become the sequence's lengths (the trailing tokens past the
  /// last sequence are one without queries, so their dK and dV are 0).
  void placeSequence();
  /// The packed row of row `row` of the sequence (`start`: its first).
  Value packedRow(Value start, Value row) { return cfg.varlen ? kb.add(start, row) : row; }
  /// The dq_accum block (and semaphore) index of the 64-row tile of step
  /// `s` (with the 128-query tile, its half `rowHalf`; else null).
  Value queryTileIndex(const QueryStep &s, Value rowHalf);
  void emitProducer();
  void emitConsumer();
  /// S^T of one consumer (rows: keys from keyRow0, columns: queries from
  /// m0) with the band's hidden pairs and keys past seq_k at -inf. Only
  /// slabs that cross seq_k or the band's edge take the masked path.
  SmallVector<Value> maskTransposed(Value m0, Value slab0, Value keyRow0, Value laneCol,
                                    SmallVector<Value> sT);
  /// The f32 statistic at byte `offset` of the slot's statistics for each
  /// accumulator register of an m64n64 fragment (columns 8 j + laneCol + e).
  SmallVector<Value> loadRowStats(Value stats, int64_t offset, Value laneCol);
  /// Columns 8 j + laneCol + {0, 1} of the row statistic at `offset`.
  std::array<Value, 2> loadRowStatPair(Value stats, int64_t offset, Value laneCol, int64_t j);
  /// Where S^T register i of step `s` sits, as the regions take it (i32):
  /// batch, query head, query (the fragment's column), key (its row).
  /// Queries past seq_q and keys past seq_k are clamped into the operands
  /// where a region reads a capture by them (their P is 0 or never used).
  ScorePosition regionPosition(const QueryStep &s, Value keyRow0, Value laneCol, int64_t i);
  /// Loads the bias (f32) of S^T register i of step `s`: rows past seq_q
  /// and keys past seq_k read the last ones (their P is 0 or never used).
  std::function<Value(int64_t)> biasLoader(const QueryStep &s, Value keyRow0, Value laneCol);
  /// dS^T (dBias) of step `s`, within seq_q x seq_k: stored into
  /// grad_bias, or added into dbias_accum where the bias broadcasts.
  void storeBiasGrad(const QueryStep &s, Value slab0, Value keyRow0, Value laneCol,
                     ArrayRef<Value> ds);
  /// dbias_accum's plane (i64) of query head `qHead` where the bias
  /// broadcasts and dBias is summed by f32 reductions: [batch|1, heads_q|1]
  /// flattened, 0 along the broadcast dims.
  Value biasAccumPlane(Value qHead);
  /// Zeros of grad_bias (stored directly, or summed in turn where the bias
  /// broadcasts) for this consumer's keys in the query rows the mask skips.
  void zeroSkippedBiasGrad(Value slab0, Value threadInWg);
  /// Consumer c's turn in the ordered sum of step `s`'s dBias block
  /// (cfg.biasGradInOrder()).
  OrderedBiasGrad orderedBiasGrad(const QueryStep &s, Value c);
  /// The zeros of zeroSkippedBiasGrad, stored by this CTA.
  void zeroSkippedRows(Value slab0, Value threadInWg);
  /// The consumer's dQ partial of step `s` (64-column box `box` of the
  /// tile, or of its 64-row half `rowHalf`) staged in shared memory and
  /// added into the accumulator by one bulk reduce.
  void addDq(const QueryStep &s, Value rowHalf, ArrayRef<Value> dq, Value box, Value c,
             Value threadInWg);
  /// dK or dV of this consumer to global memory (rows past seq_k dropped).
  void storeGrad(ArrayRef<Value> acc, Value ptr, Value (&stride)[3], int64_t realCols,
                 Value keyRow0, Value laneCol, Value scale);

  KernelBuilder &kb;
  const BK &cfg;
  BackwardMainArgs args;
  BackwardMainShared smem;
  Value tid, base;
  TmaPipeline pipe;
  Value nBlock, n0, headKV, batch, numHeadsQ, seqPad;
  std::optional<MaskRule> rule;
  Value firstTile, tileCount, steps;
  /// A block-sparse backward: this CTA's query tiles and their count.
  std::optional<BlockList> queryList;
  Value listed;
  /// Ragged batches only.
  Value qStart, kStart, paddedTile0, paddedTiles, keyBlockValid;
};

QueryStep BackwardMainKernel::step(Value t) {
  if (queryList) // q head g over the list of the key block's query tiles
    return listedStep(kb, *queryList, listed, args.group, headKV, t, cfg.blockM);
  // A bias broadcast over heads: the group's q heads of one query tile in
  // a row, so their dBias reductions meet in L2.
  bool headsInner = cfg.biasBroadcastHead;
  Value g = headsInner ? kb.remu(t, args.group) : kb.divUI(t, tileCount);
  Value tile = kb.add(firstTile, headsInner ? kb.divUI(t, args.group) : kb.remu(t, tileCount));
  return {kb.add(kb.mul(headKV, args.group), g), tile, kb.mul(tile, kb.c32(cfg.blockM))};
}

void BackwardMainKernel::emitProducer() {
  setMaxRegisters(kb, 24, /*increase=*/false);
  Value isLeader = kb.cmp(arith::CmpIPredicate::eq, tid, kb.c32(0));
  Value any = kb.cmp(arith::CmpIPredicate::sgt, steps, kb.c32(0));
  kb.ifThen(kb.andi(isLeader, any), [&] {
    const int64_t box = BK::kBox, boxBytes = BK::kBlockN * 128;
    Value keyRow = packedRow(kStart, n0);
    mbarrierArriveExpectTx(kb, kvBarrier(), cfg.kBytes() + cfg.vBytes());
    for (int64_t i = 0; i < cfg.qkDim() / box; ++i)
      tmaLoad(kb, kb.sharedAt(base, smem.k.at(i, boxBytes)), args.tmK, kvBarrier(),
              {kb.c32(box * i), keyRow, headKV, batch});
    for (int64_t i = 0; i < cfg.vDim() / box; ++i)
      tmaLoad(kb, kb.sharedAt(base, smem.v.at(i, boxBytes)), args.tmV, kvBarrier(),
              {kb.c32(box * i), keyRow, headKV, batch});
    kb.forLoop(kb.c32(0), steps, {}, [&](Value t, ValueRange) {
      QueryStep s = step(t);
      Value full = pipe.acquire(t, cfg.slotLoadBytes());
      Value slot = pipe.slot(t);
      const int64_t qBox = cfg.blockM * 128;
      Value queryRow = packedRow(qStart, s.m0);
      for (int64_t i = 0; i < cfg.qkDim() / box; ++i)
        tmaLoad(kb, kb.sharedAt(slot, i * qBox), args.tmQ, full,
                {kb.c32(box * i), queryRow, s.qHead, batch});
      for (int64_t i = 0; i < cfg.vDim() / box; ++i)
        tmaLoad(kb, kb.sharedAt(slot, cfg.qBytes() + i * qBox), args.tmDO, full,
                {kb.c32(box * i), queryRow, s.qHead, batch});
      // A ragged batch's row statistics sit in the padded workspace.
      Value statRow = cfg.varlen ? kb.add(kb.mul(paddedTile0, kb.c32(cfg.blockM)), s.m0) : s.m0;
      int64_t stats = cfg.qBytes() + cfg.doBytes();
      tmaLoad(kb, kb.sharedAt(slot, stats), args.tmLse2, full, {statRow, s.qHead, batch});
      tmaLoad(kb, kb.sharedAt(slot, stats + cfg.rowStatStride()), args.tmD, full,
              {statRow, s.qHead, batch});
      return SmallVector<Value>{};
    });
  });
}


/// One consumer warpgroup of the main kernel: its 64 keys of the block,
/// over the CTA's query steps, dK and dV in registers (see the file's
/// comment for the products).
class KeyBlockConsumer {
public:
  KeyBlockConsumer(BackwardMainKernel &k, const ConsumerThread &me);
  /// The steps, then dK and dV to global memory.
  void run();

private:
  /// A^T B^T with A = K_w / V_w (K-major) and B = Q / dO (K-major, N = 64).
  SmallVector<Value> issueTransposed(Value aDesc, Value bDesc, int64_t dim);
  /// acc += A B with A packed in registers ([keys x 64 queries]) and B an
  /// MN-major [64 queries x N] tile of the slot (boxes of 64 rows).
  SmallVector<Value> accumulateRS(SmallVector<Value> acc, ArrayRef<Value> a, Value tile,
                                  int64_t n);
  SmallVector<Value> pack(ArrayRef<Value> v);
  /// S^T and dP^T of step t, issued (not waited for).
  SmallVector<Value> issueScores(Value t);
  /// The steps of a CTA that has some: dK and dV after them.
  SmallVector<Value> mainloop();
  /// Step t: acc holds dK, dV (and with lookahead S^T, dP^T of t).
  SmallVector<Value> step(Value t, ValueRange acc);
  /// P^T and dS^T of step `s` from S^T and dP^T (waits for dP^T); dS^T is
  /// also dBias, stored with a bias. `underDp`, if set, issues what needs
  /// only P^T (the dV product) as one commit group before that wait, which
  /// leaves it running.
  std::pair<SmallVector<Value>, SmallVector<Value>>
  probabilities(Value t, const QueryStep &s, Value stats, SmallVector<Value> sT,
                ArrayRef<Value> dpT, const std::function<void(ArrayRef<Value>)> &underDp);
  /// The score function with score_mod on S^T of step `s` (in place), as
  /// the forward applies it: log2-domain scores, score_mod after the scale
  /// and the bias, before the softcap. Returns d score / d(scale qk + bias)
  /// per register: score_mod's derivative from the region, times the
  /// softcap's.
  SmallVector<Value> applyScoreMod(const QueryStep &s, SmallVectorImpl<Value> &sT,
                                   const std::function<Value(int64_t)> &loadBias);
  /// -inf where mask_mod hides a score of step `s`.
  void applyMaskMod(const QueryStep &s, SmallVectorImpl<Value> &sT);
  /// With sinks: this warp's share of step `s`'s dSinks into its partial
  /// (once dP^T is complete).
  void addSinkGrad(const QueryStep &s, Value stats, ArrayRef<Value> p, ArrayRef<Value> dpT);
  /// dS buffer t % 2 [blockM queries x 128 keys].
  Value dsBuffer(Value t);
  /// This consumer's box of a dS buffer (its 64 keys).
  Value ownBox(Value dsBuf);
  /// dS^T fragments -> dS [query][key] in buffer t % 2 of shared memory.
  Value storeDsTransposed(Value t, ArrayRef<Value> dsRegs);
  /// A 16-bit bias (BackwardBiasTile.h): the copy of step t's tile into
  /// this consumer's box of dS buffer t % 2.
  void copyBiasTile(Value t);
  /// Step t's bias from the box, per S^T register (waits for the copy).
  std::function<Value(int64_t)> sharedBiasLoader(Value t);
  /// After step t's dS is in `dsBuf`: dBias from it (per batch and head),
  /// and the copy of step t + 1's bias into the other buffer, whose dS
  /// (step t - 1) every reader is done with.
  void moveBiasTiles(Value t, const QueryStep &s, Value dsBuf);
  /// The offset of (this CTA's batch, `qHead`)'s [seq_q, seq_k] plane of a
  /// bias or its gradient.
  Value biasPlane(const BiasArgs &a, Value qHead) {
    return kb.add(kb.mul(kb.ext64(k.batch), a.strideBatch), kb.mul(kb.ext64(qHead), a.strideHead));
  }
  /// The copies' thread mapping, recomputed at each use from an opaque
  /// thread index: hoisted out of the loop, the chunk offsets and tests
  /// stay live across it and the consumers spill.
  BiasTileCopy biasTileCopy() {
    return BiasTileCopy(kb, cfg.blockM, k.args.seqQ, k.args.seqK, opaqueCopy(kb, me.threadInWg));
  }
  /// dQ partial [64 queries x 64 columns] = dS[:, keys] K[keys, cols]
  /// issued; returns it and the 64-column box of dQ it belongs to.
  std::pair<SmallVector<Value>, Value> issueDq(Value dsBuf);

  BackwardMainKernel &k;
  KernelBuilder &kb;
  const BK &cfg;
  const ConsumerThread &me;
  const int64_t DK, DV, nK, nV, nS;
  /// With small head dims the next step's S^T and dP^T are issued before
  /// this step's dQ partial is staged, so the tensor cores work under the
  /// stores, barriers and the loop; at 128 their 64 accumulators do not fit
  /// beside dK, dV and dQ.
  const bool lookahead;
  Value slab0, keyRow0, laneCol;
  /// The regions' capture reads and math (RegionFragments.h), and cfg's
  /// semantics evaluating them through it: one evaluator with the forward.
  KernelModifiers modifiers;
  AttentionConfig semantics;
  Log2Score log2Score;
  std::optional<double> linear;
  Value factor;
  Value slabOffset, kDesc, vDesc; // this consumer's slabs of K and V: rows 64 c of every box
  SmallVector<Value> zeros;       // dK and dV before the first step
};

KeyBlockConsumer::KeyBlockConsumer(BackwardMainKernel &k, const ConsumerThread &me)
    : k(k), kb(k.kb), cfg(k.cfg), me(me), DK(cfg.qkDim()), DV(cfg.vDim()), nK(DK / 2), nV(DV / 2),
      nS(cfg.blockM / 2), lookahead(DK <= BK::kBox && DV <= BK::kBox && !cfg.wideQueryTile()),
      slab0(kb.add(k.n0, kb.mul(me.c, kb.c32(64)))), keyRow0(me.fragmentRow(kb, slab0)),
      laneCol(me.laneColumn(kb)), modifiers(cfg.semantics, k.args.captures),
      semantics(KernelModifiers::withTarget(cfg.semantics, &modifiers)),
      log2Score(semantics, /*hasBias=*/cfg.bias.has_value()), linear(log2Score.linearFactor()),
      factor(kb.cf32(linear ? *linear : 1.0)) {
  slabOffset = kb.mul(me.c, kb.c32(64 * 128));
  kDesc = wgmmaDescriptor(kb, kb.sharedAt(k.kBlock(), slabOffset), 16, 1024);
  vDesc = wgmmaDescriptor(kb, kb.sharedAt(k.base, kb.add(slabOffset, kb.c32(k.smem.v.offset))), 16,
                          1024);
}

SmallVector<Value> KeyBlockConsumer::issueTransposed(Value aDesc, Value bDesc, int64_t dim) {
  const int64_t rowsM = cfg.blockM, keysN = BK::kBlockN;
  SmallVector<Value> acc;
  for (int64_t kk = 0; kk < dim / 16; ++kk) {
    int64_t inRow = (kk % 4) * 32;
    acc = wgmmaSS(kb, acc, wgmmaDescriptorAdd(kb, aDesc, (kk / 4) * keysN * 128 + inRow),
                  wgmmaDescriptorAdd(kb, bDesc, (kk / 4) * rowsM * 128 + inRow), rowsM, kk > 0,
                  /*bMNMajor=*/false, cfg.elem);
  }
  wgmmaCommit(kb);
  return acc;
}

SmallVector<Value> KeyBlockConsumer::accumulateRS(SmallVector<Value> acc, ArrayRef<Value> a,
                                                  Value tile, int64_t n) {
  const int64_t rowsM = cfg.blockM;
  Value bDesc = wgmmaDescriptor(kb, tile, rowsM * 128, 1024);
  for (int64_t kk = 0; kk < rowsM / 16; ++kk)
    acc = wgmmaRS(kb, acc, a.slice(4 * kk, 4), wgmmaDescriptorAdd(kb, bDesc, kk * 16 * 128), n,
                  /*accumulate=*/true, /*bMNMajor=*/true, cfg.elem);
  return acc;
}

SmallVector<Value> KeyBlockConsumer::pack(ArrayRef<Value> v) {
  SmallVector<Value> regs;
  for (size_t i = 0; i < v.size(); i += 2)
    regs.push_back(packPair(kb, v[i], v[i + 1], cfg.elem));
  return regs;
}

void KeyBlockConsumer::run() {
  zeros.assign(nK + nV, kb.cf32(0.0));
  Value any = kb.cmp(arith::CmpIPredicate::sgt, k.steps, kb.c32(0));
  SmallVector<Type> accTypes(nK + nV, kb.f32);
  SmallVector<Value> grads = kb.ifThenElseValues(
      any, accTypes, [&]() { return mainloop(); }, [&]() { return zeros; });

  if (cfg.bias && (!cfg.biasBroadcasts() || cfg.biasGradInOrder()))
    k.zeroSkippedBiasGrad(slab0, me.threadInWg);
  ArrayRef<Value> all(grads);
  k.storeGrad(all.take_front(nK), k.args.dK, k.args.dKStride, cfg.headDim, keyRow0, laneCol,
              kb.cf32(cfg.semantics.scale));
  k.storeGrad(all.drop_front(nK), k.args.dV, k.args.dVStride, cfg.headDimV, keyRow0, laneCol,
              Value());
}

SmallVector<Value> KeyBlockConsumer::issueScores(Value t) {
  k.pipe.wait(t);
  Value slot = k.pipe.slot(t);
  wgmmaFence(kb);
  SmallVector<Value> both =
      issueTransposed(opaqueCopy(kb, kDesc), wgmmaDescriptor(kb, slot, 16, 1024), DK);
  SmallVector<Value> dpT =
      issueTransposed(opaqueCopy(kb, vDesc),
                      wgmmaDescriptor(kb, kb.sharedAt(slot, cfg.qBytes()), 16, 1024), DV);
  both.append(dpT.begin(), dpT.end());
  return both;
}

SmallVector<Value> KeyBlockConsumer::mainloop() {
  mbarrierWait(kb, k.kvBarrier(), kb.c32(0));
  if (cfg.biasTileShared())
    copyBiasTile(kb.c32(0));
  SmallVector<Value> init(zeros);
  if (lookahead) {
    SmallVector<Value> first = issueScores(kb.c32(0));
    init.append(first.begin(), first.end());
  }
  SmallVector<Value> done = kb.forLoop(kb.c32(0), k.steps, init,
                                       [&](Value t, ValueRange acc) { return step(t, acc); });
  done.resize(nK + nV);
  // The last bulk reduce reads the stage after the loop: the CTA's shared
  // memory must outlive it.
  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, me.threadInWg, kb.c32(0)),
            [&] { bulkWaitDone(kb); });
  return done;
}

std::pair<SmallVector<Value>, SmallVector<Value>>
KeyBlockConsumer::probabilities(Value t, const QueryStep &s, Value stats, SmallVector<Value> sT,
                                ArrayRef<Value> dpT,
                                const std::function<void(ArrayRef<Value>)> &underDp) {
  // With a softcap, dS is taken through d(score)/d(scale qk) = 1 - (score
  // / softcap)^2, from the score before the mask (-inf there would make it
  // NaN; P = 0 zeroes those entries anyway).
  SmallVector<Value> scoreGrad;
  std::function<Value(int64_t)> loadBias;
  if (cfg.biasTileShared())
    loadBias = sharedBiasLoader(t);
  else if (cfg.bias)
    loadBias = k.biasLoader(s, keyRow0, laneCol);
  if (semantics.scoreMod)
    scoreGrad = applyScoreMod(s, sT, loadBias);
  else if (!linear)
    for (int64_t i = 0; i < nS; ++i) {
      Value &x = sT[i];
      x = log2Score.emit(kb.b, x, loadBias ? loadBias(i) : Value(),
                         [&](Value v) { return kb.tanh(v); });
      if (cfg.semantics.softcap)
        scoreGrad.push_back(
            cfg.semantics.emitScoreDerivative(kb.b, kb.fmul(x, kb.cf32(llvm::numbers::ln2))));
    }
  if (semantics.maskMod)
    applyMaskMod(s, sT);
  sT = k.maskTransposed(s.m0, slab0, keyRow0, laneCol, sT);
  // Row statistics are read when needed, not before: with dK, dV, S^T and
  // dP^T live, 32 more registers would spill at d128.
  SmallVector<Value> lse2 = k.loadRowStats(stats, 0, laneCol);
  SmallVector<Value> p(nS);
  for (int64_t i = 0; i < nS; ++i)
    p[i] = kb.exp2(kb.fma(sT[i], factor, arith::NegFOp::create(kb.b, lse2[i])));
  // With `underDp`, D is read before the wait: a shared load after it makes
  // ptxas hoist the wait above the exp2s to start the load early.
  SmallVector<Value> dsum;
  if (underDp) {
    dsum = k.loadRowStats(stats, cfg.rowStatStride(), laneCol);
    underDp(p);
    wgmmaWait(kb, 1);
  } else {
    wgmmaWait(kb, 0);
    dsum = k.loadRowStats(stats, cfg.rowStatStride(), laneCol);
  }
  SmallVector<Value> ds(nS);
  for (int64_t i = 0; i < nS; ++i) {
    ds[i] = kb.fmul(p[i], arith::SubFOp::create(kb.b, dpT[i], dsum[i]));
    if (!scoreGrad.empty())
      ds[i] = kb.fmul(ds[i], scoreGrad[i]);
  }
  // After dS, when D and the score derivative are dead (registers).
  if (cfg.sinks())
    addSinkGrad(s, stats, p, dpT);
  if (cfg.bias && !cfg.biasGradFromDs())
    k.storeBiasGrad(s, slab0, keyRow0, laneCol, ds);
  return {p, ds};
}

SmallVector<Value> KeyBlockConsumer::applyScoreMod(const QueryStep &s, SmallVectorImpl<Value> &sT,
                                                   const std::function<Value(int64_t)> &loadBias) {
  // The score function in two parts, as the forward composes it: the
  // scale, the bias and score_mod with its derivative (the shared
  // evaluator's forward mode), then the rest of it, the softcap and
  // log2(e), as the Log2Score of that part alone (a unit scale, the
  // softcap; its tanh the kernel's).
  AttentionConfig modPart = semantics;
  modPart.softcap.reset();
  AttentionConfig rest;
  rest.softcap = semantics.softcap;
  Log2Score restLog2(rest, /*hasBias=*/true);
  SmallVector<Value> scoreGrad;
  auto tanh = [&](Value v) { return kb.tanh(v); };
  for (int64_t i = 0; i < nS; ++i) {
    auto [score, d] = modPart.emitScoreAndDerivative(kb.b, sT[i], loadBias ? loadBias(i) : Value(),
                                                     k.regionPosition(s, keyRow0, laneCol, i));
    sT[i] = restLog2.emit(kb.b, score, Value(), tanh);
    if (semantics.softcap)
      d = kb.fmul(d,
                  semantics.emitScoreDerivative(kb.b, kb.fmul(sT[i], kb.cf32(llvm::numbers::ln2))));
    scoreGrad.push_back(d);
  }
  return scoreGrad;
}

void KeyBlockConsumer::applyMaskMod(const QueryStep &s, SmallVectorImpl<Value> &sT) {
  // A hidden score's P is 0, so is its dS (times score_mod's derivative,
  // finite where the region is).
  auto hide = [&](SmallVector<Value> x) {
    Value negInf = kb.cf32(-std::numeric_limits<double>::infinity());
    for (int64_t i = 0; i < nS; ++i)
      x[i] = kb.select(semantics.emitMaskModHides(kb.b, k.regionPosition(s, keyRow0, laneCol, i)),
                       negInf, x[i]);
    return x;
  };
  SmallVector<Value> in(sT.begin(), sT.end());
  if (!s.partial) {
    sT.assign(hide(in));
    return;
  }
  // A full tile of the map: mask_mod keeps every score (uniform branch).
  SmallVector<Type> types(nS, kb.f32);
  sT.assign(kb.ifThenElseValues(s.partial, types, [&] { return hide(in); }, [&] { return in; }));
}

void KeyBlockConsumer::addSinkGrad(const QueryStep &s, Value stats, ArrayRef<Value> p,
                                   ArrayRef<Value> dpT) {
  // The LSE is read again, a column pair at a time, rather than kept from
  // P (registers, as above).
  auto lse2 = [&](int64_t j) { return k.loadRowStatPair(stats, 0, laneCol, j); };
  // dsinks_partial [batch, heads_q, key blocks x 8]: this CTA's block, the
  // consumer warp c * 4 + warp.
  Value plane = kb.ext64(kb.add(kb.mul(k.batch, k.numHeadsQ), s.qHead));
  Value part = kb.add(kb.mul(k.nBlock, kb.c32(kSinkPartialsPerBlock)),
                      kb.add(kb.mul(me.c, kb.c32(4)), me.warp));
  Value slot = kb.add(kb.mul(plane, kb.mul(kb.ext64(kb.gridDimX()), kb.c64(kSinkPartialsPerBlock))),
                      kb.ext64(part));
  addSinkGradStep(kb, {k.args.sinks, k.args.sinksPartial, s.qHead, slot, me.lane, p, dpT}, lse2);
}

Value KeyBlockConsumer::dsBuffer(Value t) {
  return kb.sharedAt(k.base, kb.add(kb.c32(k.smem.ds.offset),
                                    kb.mul(kb.andi(t, kb.c32(1)), kb.c32(cfg.dsBytes()))));
}

Value KeyBlockConsumer::ownBox(Value dsBuf) {
  return kb.sharedAt(dsBuf, kb.mul(me.c, kb.c32(cfg.blockM * 128)));
}

Value KeyBlockConsumer::storeDsTransposed(Value t, ArrayRef<Value> dsRegs) {
  const int64_t rowsM = cfg.blockM;
  Value dsBuf = dsBuffer(t);
  // At 80 queries ptxas otherwise keeps the five row addresses across the
  // loop and spills 44 bytes; copies made in the loop rebuild them (0 B).
  // Elsewhere the same copies moved spills both ways (d64 16-bit bias +20).
  bool rebuild = cfg.dqTransposed();
  TransposedMatrixRows rows(kb, dsBuf, me.c, rowsM, rebuild ? opaqueCopy(kb, me.warp) : me.warp,
                            rebuild ? opaqueCopy(kb, me.lane) : me.lane);
  for (int64_t q = 0; q < rowsM / 16; ++q)
    stmatrixX4Trans(kb, rows.at(q), dsRegs.slice(4 * q, 4));
  fenceProxyAsyncShared(kb);
  return dsBuf;
}

void KeyBlockConsumer::copyBiasTile(Value t) {
  QueryStep s = k.step(t);
  const BiasArgs &bias = k.args.bias;
  biasTileCopy().load(bias, biasPlane(bias, s.qHead), s.m0, slab0, ownBox(dsBuffer(t)));
}

std::function<Value(int64_t)> KeyBlockConsumer::sharedBiasLoader(Value t) {
  // Every thread of the warpgroup copied rows the others read.
  BiasTileCopy::wait(kb);
  namedBarrierSync(kb, kb.add(kb.c32(static_cast<int64_t>(BackwardBarrier::BiasTileCopied)), me.c),
                   128);
  TransposedMatrixRows rows(kb, dsBuffer(t), me.c, cfg.blockM, opaqueCopy(kb, me.warp),
                            opaqueCopy(kb, me.lane));
  SmallVector<Value> pairs;
  for (int64_t q = 0; q < cfg.blockM / 16; ++q)
    llvm::append_range(pairs, ldmatrixX4Trans(kb, rows.at(q)));
  auto pairTy = VectorType::get({2}, biasElementType(kb, *cfg.bias));
  return [this, pairs, pairTy](int64_t i) -> Value {
    Value pair = LLVM::BitcastOp::create(kb.b, pairTy, pairs[i / 2]);
    Value x = LLVM::ExtractElementOp::create(kb.b, pair, kb.c32(i % 2));
    return arith::ExtFOp::create(kb.b, kb.f32, x);
  };
}

void KeyBlockConsumer::moveBiasTiles(Value t, const QueryStep &s, Value dsBuf) {
  if (cfg.biasGradInOrder()) {
    // After dQ (and dK) were issued: the tensor cores work under the wait.
    biasTileCopy().addInOrder(k.orderedBiasGrad(s, me.c), k.args.gradBias, s.m0, slab0,
                              ownBox(dsBuf), biasElementType(kb, *cfg.bias));
  } else if (cfg.biasGradFromDs() && cfg.biasBroadcasts()) {
    biasTileCopy().reduce(k.args.dbiasAccum, k.biasAccumPlane(s.qHead), s.m0, slab0, ownBox(dsBuf),
                          biasElementType(kb, *cfg.bias));
  } else if (cfg.biasGradFromDs()) {
    const BiasArgs &g = k.args.gradBias;
    biasTileCopy().store(g, biasPlane(g, s.qHead), s.m0, slab0, ownBox(dsBuf));
  }
  Value t1 = kb.add(t, kb.c32(1));
  kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, t1, k.steps), [&] { copyBiasTile(t1); });
}

std::pair<SmallVector<Value>, Value> KeyBlockConsumer::issueDq(Value dsBuf) {
  const int64_t rowsM = cfg.blockM, keysN = BK::kBlockN;
  SmallVector<Value> dq;
  Value dqBox;
  if (cfg.dqTransposed()) {
    // M = 80 queries is no wgmma shape: dQ^T [64 columns of box c x 80
    // queries] = K_c^T dS^T over all 128 keys. A is K's box c read
    // MN-major (its columns are A's rows), B is dS as stored (K-major: a
    // query's keys are contiguous).
    Value kBox = opaqueCopy(
        kb, wgmmaDescriptor(kb, kb.sharedAt(k.kBlock(), kb.mul(me.c, kb.c32(keysN * 128))),
                            keysN * 128, 1024));
    Value dsDesc = wgmmaDescriptor(kb, dsBuf, 16, 1024);
    for (int64_t kk = 0; kk < keysN / 16; ++kk)
      dq = wgmmaSS(kb, dq, wgmmaDescriptorAdd(kb, kBox, kk * 16 * 128),
                   wgmmaDescriptorAdd(kb, dsDesc, (kk / 4) * rowsM * 128 + (kk % 4) * 32), rowsM,
                   kk > 0, /*bMNMajor=*/false, cfg.elem, /*aMNMajor=*/true);
    dqBox = me.c;
  } else if (cfg.wideQueryTile()) {
    // Rows [64 c, 64 c + 64) of the 128-query tile (dS's rows), all 128
    // keys, K's only box: the consumers' partials are disjoint.
    Value dsDesc =
        wgmmaDescriptor(kb, kb.sharedAt(dsBuf, kb.mul(me.c, kb.c32(64 * 128))), 16, 1024);
    Value kBox = opaqueCopy(kb, wgmmaDescriptor(kb, k.kBlock(), keysN * 128, 1024));
    for (int64_t kk = 0; kk < keysN / 16; ++kk)
      dq = wgmmaSS(kb, dq, wgmmaDescriptorAdd(kb, dsDesc, (kk / 4) * rowsM * 128 + (kk % 4) * 32),
                   wgmmaDescriptorAdd(kb, kBox, kk * 16 * 128), 64, kk > 0,
                   /*bMNMajor=*/true, cfg.elem);
    dqBox = kb.c32(0);
  } else if (DK / BK::kBox == 2) {
    Value dsDesc = wgmmaDescriptor(kb, dsBuf, 16, 1024);
    // Columns [64 c, 64 c + 64): all 128 keys, K's box c.
    Value kBox = opaqueCopy(
        kb, wgmmaDescriptor(kb, kb.sharedAt(k.kBlock(), kb.mul(me.c, kb.c32(keysN * 128))),
                            keysN * 128, 1024));
    for (int64_t kk = 0; kk < keysN / 16; ++kk)
      dq = wgmmaSS(kb, dq, wgmmaDescriptorAdd(kb, dsDesc, (kk / 4) * rowsM * 128 + (kk % 4) * 32),
                   wgmmaDescriptorAdd(kb, kBox, kk * 16 * 128), 64, kk > 0,
                   /*bMNMajor=*/true, cfg.elem);
    dqBox = me.c;
  } else {
    // One box: this consumer's 64 keys (dS's box c, K's slab c); both
    // consumers add into the same columns.
    Value kSlab =
        opaqueCopy(kb, wgmmaDescriptor(kb, kb.sharedAt(k.kBlock(), slabOffset), keysN * 128, 1024));
    Value aBase =
        wgmmaDescriptor(kb, kb.sharedAt(dsBuf, kb.mul(me.c, kb.c32(rowsM * 128))), 16, 1024);
    for (int64_t kk = 0; kk < 64 / 16; ++kk)
      dq = wgmmaSS(kb, dq, wgmmaDescriptorAdd(kb, aBase, kk * 32),
                   wgmmaDescriptorAdd(kb, kSlab, kk * 16 * 128), 64, kk > 0,
                   /*bMNMajor=*/true, cfg.elem);
    dqBox = kb.c32(0);
  }
  wgmmaCommit(kb);
  return {dq, dqBox};
}

SmallVector<Value> KeyBlockConsumer::step(Value t, ValueRange acc) {
  SmallVector<Value> dK(acc.take_front(nK)), dV(acc.slice(nK, nV));
  QueryStep s = k.step(t);
  SmallVector<Value> scores =
      lookahead ? SmallVector<Value>(acc.drop_front(nK + nV)) : issueScores(t);
  SmallVector<Value> sT(ArrayRef<Value>(scores).take_front(nS));
  SmallVector<Value> dpT(ArrayRef<Value>(scores).drop_front(nS));
  Value slot = k.pipe.slot(t);
  Value qTile = slot, doTile = kb.sharedAt(slot, cfg.qBytes());
  Value stats = kb.sharedAt(slot, cfg.qBytes() + cfg.doBytes());

  wgmmaWait(kb, 1); // S^T is done, dP^T may still run
  // Without lookahead, at 64 queries, dV is issued as soon as P^T is
  // packed, before the wait for dP^T: ptxas otherwise sinks most exp2s
  // below that wait (they then run after dP^T, not under it), and the
  // tensor cores go from dP^T to dV while dS^T is computed. P^T's packed
  // copy is then live beside dS^T's inputs: at 128 queries that spills
  // ~300 bytes, with a softcap, an f32 bias or a region 50-100 more (their
  // derivatives and addresses), so not there; at 80 queries (ptxas: 144
  // bytes of spill stores against 0 without it) neither.
  bool dvUnderDp = !lookahead && !cfg.wideQueryTile() && !cfg.dqTransposed() &&
                   !cfg.semantics.softcap && (!cfg.bias || cfg.biasTileShared()) &&
                   !semantics.scoreMod && !semantics.maskMod;
  SmallVector<Value> pRegs;
  auto issueDv = [&](ArrayRef<Value> p) {
    pRegs = pack(p);
    wgmmaFence(kb);
    dV = accumulateRS(dV, pRegs, doTile, DV);
    wgmmaCommit(kb);
  };
  auto [p, ds] = probabilities(t, s, stats, std::move(sT), dpT,
                               dvUnderDp ? issueDv : std::function<void(ArrayRef<Value>)>());
  if (!dvUnderDp)
    pRegs = pack(p);
  SmallVector<Value> dsRegs = pack(ds);
  Value dsBuf = storeDsTransposed(t, dsRegs);

  if (!dvUnderDp) {
    wgmmaFence(kb);
    dV = accumulateRS(dV, pRegs, doTile, DV);
    if (lookahead)
      dK = accumulateRS(dK, dsRegs, qTile, DK);
    wgmmaCommit(kb);
  }
  // dS is complete for the dQ product: both halves when dQ's box takes all
  // 128 keys, else this consumer's own (the consumers then run decoupled,
  // one's elementwise work under the other's GEMMs).
  if (DK / BK::kBox == 2 || cfg.wideQueryTile())
    namedBarrierSync(kb, static_cast<int64_t>(BackwardBarrier::DsWritten), 256);
  else
    namedBarrierSync(
        kb, kb.add(kb.c32(static_cast<int64_t>(BackwardBarrier::DsOwnWritten)), me.c), 128);

  // With dV issued under dP^T, dS's registers (dK's A operand) were
  // written after the last fence: without one here ptxas inserts it itself
  // (warning C7519; the same SASS).
  if (dvUnderDp)
    wgmmaFence(kb);
  auto [dq, dqBox] = issueDq(dsBuf);
  // With the 128-query tile the consumer's partial is its half of the rows.
  Value rowHalf = cfg.wideQueryTile() ? me.c : Value();
  if (!lookahead) {
    // Without lookahead, dK goes after dQ, so that the dQ partial is
    // staged and reduced while dK runs on the tensor cores (as FA3 orders
    // them).
    dK = accumulateRS(dK, dsRegs, qTile, DK);
    wgmmaCommit(kb);
  }
  if (cfg.biasTileShared())
    moveBiasTiles(t, s, dsBuf);
  SmallVector<Value> next(dK);
  next.append(dV.begin(), dV.end());
  if (!lookahead) {
    wgmmaWait(kb, 1); // dV and dQ are done, dK may still run
    k.addDq(s, rowHalf, dq, dqBox, me.c, me.threadInWg);
    wgmmaWait(kb, 0);
    k.pipe.release(t); // dK was the last reader of Q_i
    return next;
  }
  // Groups complete in order: waiting for all but the two newest (S^T,
  // dP^T of t + 1) completes dV, dK and dQ of t.
  Value t1 = kb.add(t, kb.c32(1));
  SmallVector<Type> scoreTypes(2 * nS, kb.f32);
  SmallVector<Value> ahead = kb.ifThenElseValues(
      kb.cmp(arith::CmpIPredicate::slt, t1, k.steps), scoreTypes,
      [&]() {
        SmallVector<Value> r = issueScores(t1);
        wgmmaWait(kb, 2);
        return r;
      },
      [&]() {
        wgmmaWait(kb, 0);
        return SmallVector<Value>(2 * nS, kb.cf32(0.0));
      });
  next.append(ahead.begin(), ahead.end());
  k.pipe.release(t);
  k.addDq(s, rowHalf, dq, dqBox, me.c, me.threadInWg);
  return next;
}

void BackwardMainKernel::emitConsumer() {
  ConsumerThread me = ConsumerThread::enter(kb, tid, 240);
  me.c = warpUniform(kb, me.c);
  KeyBlockConsumer(*this, me).run();
}

std::array<Value, 2> BackwardMainKernel::loadRowStatPair(Value stats, int64_t offset, Value laneCol,
                                                         int64_t j) {
  Value col = kb.add(kb.c32(8 * j), laneCol);
  Value at = kb.sharedAt(stats, kb.add(kb.mul(col, kb.c32(4)), kb.c32(offset)));
  Value pair = LLVM::LoadOp::create(kb.b, VectorType::get({2}, kb.f32), at, /*alignment=*/8);
  return {LLVM::ExtractElementOp::create(kb.b, pair, kb.c32(0)),
          LLVM::ExtractElementOp::create(kb.b, pair, kb.c32(1))};
}

SmallVector<Value> BackwardMainKernel::loadRowStats(Value stats, int64_t offset, Value laneCol) {
  SmallVector<Value> out(cfg.blockM / 2);
  for (int64_t j = 0; j < cfg.blockM / 8; ++j) {
    std::array<Value, 2> x = loadRowStatPair(stats, offset, laneCol, j);
    // Registers 4 j + 2 h + e hold column 8 j + e of rows h = 0, 1.
    for (int64_t e = 0; e < 2; ++e)
      for (int64_t h = 0; h < 2; ++h)
        out[4 * j + 2 * h + e] = x[e];
  }
  return out;
}

SmallVector<Value> BackwardMainKernel::maskTransposed(Value m0, Value slab0, Value keyRow0,
                                                     Value laneCol, SmallVector<Value> sT) {
  const int64_t rowsM = cfg.blockM;
  Value colBase = kb.add(m0, laneCol);
  Value need = kb.cmp(arith::CmpIPredicate::sgt, kb.add(slab0, kb.c32(64)), args.seqK);
  if (Value visible = rule->fullyVisible({m0, kb.c32(rowsM)}, {slab0, kb.c32(64)}))
    need = kb.ori(need, kb.xori(visible, arith::ConstantIntOp::create(kb.b, 1, 1)));
  SmallVector<Type> types(sT.size(), kb.f32);
  return kb.ifThenElseValues(
      need, types,
      [&]() {
        SmallVector<Value> m(sT);
        Value lo[2], hi[2];
        for (int h = 0; h < 2; ++h) {
          Value key = kb.add(keyRow0, kb.c32(8 * h));
          auto [first, end] = rule->queryRange({key, kb.c32(1)});
          Value inSeq = kb.cmp(arith::CmpIPredicate::slt, key, args.seqK);
          // Queries below `first` exist only when the band has a right side.
          lo[h] = rule->getBand().right ? kb.sub(first, colBase) : Value();
          hi[h] = kb.sub(kb.select(inSeq, end, kb.c32(0)), colBase);
        }
        maskScores(kb, m, lo, hi);
        return m;
      },
      [&]() { return sT; });
}

ScorePosition BackwardMainKernel::regionPosition(const QueryStep &s, Value keyRow0, Value laneCol,
                                                 int64_t i) {
  Value key = kb.add(keyRow0, kb.c32(8 * fragRowHalf(i)));
  Value query = kb.add(kb.add(s.m0, laneCol), kb.c32(fragColOffset(i)));
  if (readsCaptureBy(cfg.semantics, /*key=*/false))
    query = kb.maxSI(kb.minSI(query, kb.sub(args.seqQ, kb.c32(1))), kb.c32(0));
  if (readsCaptureBy(cfg.semantics, /*key=*/true))
    key = kb.minSI(key, kb.sub(args.seqK, kb.c32(1)));
  return {batch, s.qHead, query, key};
}

std::function<Value(int64_t)> BackwardMainKernel::biasLoader(const QueryStep &s, Value keyRow0,
                                                            Value laneCol) {
  const BiasArgs &bias = args.bias;
  Value plane = kb.add(kb.mul(kb.ext64(batch), bias.strideBatch),
                       kb.mul(kb.ext64(s.qHead), bias.strideHead));
  Value lastQ = kb.sub(args.seqQ, kb.c32(1)), lastK = kb.sub(args.seqK, kb.c32(1));
  std::array<Value, 2> keyAt;
  for (int h = 0; h < 2; ++h)
    keyAt[h] = kb.add(plane, kb.ext64(kb.minSI(kb.add(keyRow0, kb.c32(8 * h)), lastK)));
  Value col0 = kb.add(s.m0, laneCol);
  // Opaque, or LLVM keeps the loop-invariant parts of the 16 column offsets
  // live across the loop (32 registers).
  Value strideRow = opaqueCopy(kb, bias.strideRow);
  return [this, keyAt, col0, lastQ, strideRow](int64_t i) {
    Value query = kb.minSI(kb.add(col0, kb.c32(fragColOffset(i))), lastQ);
    Value idx = kb.add(keyAt[fragRowHalf(i)], kb.mul(kb.ext64(query), strideRow));
    return loadBiasF32(kb, *cfg.bias, args.bias.ptr, idx);
  };
}

void BackwardMainKernel::storeBiasGrad(const QueryStep &s, Value slab0, Value keyRow0,
                                       Value laneCol, ArrayRef<Value> ds) {
  Value col0 = kb.add(s.m0, laneCol);
  // The element of register i: grad_bias through its strides (one writer,
  // the bias's type), or the dense f32 dbias_accum [batches, heads, seq_q,
  // seq_k] (extent 1 where the bias broadcasts; several CTAs and q heads
  // add into one element).
  std::function<Value(int64_t, Value)> elementAt;
  Type elemTy = cfg.biasBroadcasts() ? kb.f32 : biasElementType(kb, *cfg.bias);
  if (cfg.biasBroadcasts()) {
    // seq_k opaque: else the 16 loop-invariant column offsets c * seq_k
    // stay live across the loop.
    Value seqK64 = opaqueCopy(kb, kb.ext64(args.seqK));
    Value rowBase = kb.add(kb.mul(biasAccumPlane(s.qHead), kb.ext64(args.seqQ)), kb.ext64(col0));
    elementAt = [this, rowBase, seqK64](int64_t i, Value key) {
      return kb.add(kb.mul(kb.add(rowBase, kb.c64(fragColOffset(i))), seqK64), kb.ext64(key));
    };
  } else {
    const BiasArgs &g = args.gradBias;
    Value strideRow = opaqueCopy(kb, g.strideRow);
    Value plane = kb.add(kb.mul(kb.ext64(batch), g.strideBatch),
                         kb.mul(kb.ext64(s.qHead), g.strideHead));
    elementAt = [this, col0, plane, strideRow](int64_t i, Value key) {
      Value query = kb.ext64(kb.add(col0, kb.c32(fragColOffset(i))));
      return kb.add(kb.add(plane, kb.mul(query, strideRow)), kb.ext64(key));
    };
  }
  Value target = cfg.biasBroadcasts() ? args.dbiasAccum : args.gradBias.ptr;
  auto emitStores = [&](bool guarded) {
    for (size_t i = 0; i < ds.size(); ++i) {
      Value query = kb.add(col0, kb.c32(fragColOffset(i)));
      Value key = kb.add(keyRow0, kb.c32(8 * fragRowHalf(i)));
      Value at = kb.globalAt(target, elementAt(i, key), elemTy);
      auto store = [&] {
        if (cfg.biasBroadcasts())
          return redAddF32(kb, at, ds[i]);
        Value v = elemTy == kb.f32 ? ds[i] : arith::TruncFOp::create(kb.b, elemTy, ds[i]);
        LLVM::StoreOp::create(kb.b, v, at, biasTypeBytes(*cfg.bias));
      };
      if (!guarded) {
        store();
        continue;
      }
      kb.ifThen(kb.andi(kb.cmp(arith::CmpIPredicate::slt, query, args.seqQ),
                        kb.cmp(arith::CmpIPredicate::slt, key, args.seqK)),
                store);
    }
  };
  // Interior tiles (all but the tails) store without bounds tests.
  Value interior =
      kb.andi(kb.cmp(arith::CmpIPredicate::sle, kb.add(s.m0, kb.c32(cfg.blockM)), args.seqQ),
              kb.cmp(arith::CmpIPredicate::sle, kb.add(slab0, kb.c32(64)), args.seqK));
  kb.ifThenElse(interior, [&] { emitStores(false); }, [&] { emitStores(true); });
}

Value BackwardMainKernel::biasAccumPlane(Value qHead) {
  Value b = cfg.biasBroadcastBatch ? kb.c64(0) : kb.ext64(batch);
  Value h = cfg.biasBroadcastHead ? kb.c64(0) : kb.ext64(qHead);
  Value heads = cfg.biasBroadcastHead ? kb.c64(1) : kb.ext64(numHeadsQ);
  return kb.add(kb.mul(b, heads), h);
}

void BackwardMainKernel::zeroSkippedBiasGrad(Value slab0, Value threadInWg) {
  // Where the bias broadcasts (summed in turn), every CTA that adds into
  // this key block's dBias skips the same rows (a dense batch: the same
  // seq_q, seq_k and mask for all batches and heads, and no block map with
  // a bias): the first of them (batch and kv head 0 along the broadcast
  // dims) stores the zeros, once.
  if (cfg.biasGradInOrder()) {
    Value first = kb.cmp(arith::CmpIPredicate::eq,
                         kb.add(cfg.biasBroadcastBatch ? batch : kb.c32(0),
                                cfg.biasBroadcastHead ? headKV : kb.c32(0)),
                         kb.c32(0));
    kb.ifThen(first, [&] { zeroSkippedRows(slab0, threadInWg); });
    return;
  }
  zeroSkippedRows(slab0, threadInWg);
}

void BackwardMainKernel::zeroSkippedRows(Value slab0, Value threadInWg) {
  // The query rows outside [lo, hi) are the tiles the mask skips for this
  // key block: their dBias is 0, and only this CTA owns those elements.
  // Without tiles hi = min(lo, seq_q): the two ranges cover every row.
  Value lo = kb.mul(firstTile, kb.c32(cfg.blockM));
  Value hi = kb.minSI(kb.mul(kb.add(firstTile, tileCount), kb.c32(cfg.blockM)), args.seqQ);
  Type elemTy = biasElementType(kb, *cfg.bias);
  Value zero = arith::ConstantOp::create(kb.b, elemTy, kb.b.getFloatAttr(elemTy, 0.0));
  const BiasArgs &g = args.gradBias;
  // grad_bias's plane(s): batch 0 and one head where they broadcast.
  Value gradBatch = cfg.biasBroadcastBatch ? kb.c32(0) : batch;
  // Eight threads per row, eight keys each: 16 rows per pass of 128 threads.
  Value rowInPass = kb.shru(threadInWg, kb.c32(3));
  Value key0 = kb.add(slab0, kb.mul(kb.andi(threadInWg, kb.c32(7)), kb.c32(8)));
  auto zeroRows = [&](Value qHead, Value first, Value end) {
    Value passes = kb.divUI(kb.add(kb.sub(end, first), kb.c32(15)), kb.c32(16));
    kb.forLoop(kb.c32(0), passes, {}, [&](Value pass, ValueRange) {
      Value row = kb.add(first, kb.add(kb.mul(pass, kb.c32(16)), rowInPass));
      kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, row, end), [&] {
        Value rowAt =
            stridedRowOffset(kb, gradBatch, qHead, row, g.strideBatch, g.strideHead, g.strideRow);
        for (int64_t e = 0; e < 8; ++e) {
          Value key = kb.add(key0, kb.c32(e));
          kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, key, args.seqK), [&] {
            LLVM::StoreOp::create(kb.b, zero,
                                  kb.globalAt(g.ptr, kb.add(rowAt, kb.ext64(key)), elemTy),
                                  biasTypeBytes(*cfg.bias));
          });
        }
      });
      return SmallVector<Value>{};
    });
  };
  Value qHeads = cfg.biasBroadcastHead ? kb.c32(1) : args.group;
  kb.forLoop(kb.c32(0), qHeads, {}, [&](Value g, ValueRange) {
    Value qHead = cfg.biasBroadcastHead ? kb.c32(0) : kb.add(kb.mul(headKV, args.group), g);
    zeroRows(qHead, kb.c32(0), kb.minSI(lo, args.seqQ));
    zeroRows(qHead, hi, args.seqQ);
    return SmallVector<Value>{};
  });
}

OrderedBiasGrad BackwardMainKernel::orderedBiasGrad(const QueryStep &s, Value c) {
  // The contributors to a dBias block are the CTAs of this key block at
  // every batch (kv head) the bias broadcasts over, in placeBlock's order
  // (batch fastest), and in each, with a bias broadcast over heads, the
  // group's q heads, whose steps for one query tile run in a row (step()).
  // Turn r waits for turn r - 1, which is an earlier step of this CTA or
  // belongs to a CTA with a lower linear block id. That CTA was dispatched
  // no later than this one and waits only on lower ids itself, so the
  // waits cannot deadlock as long as the hardware starts CTAs in block-id
  // order (linear over x, y, z), the assumption FA3's deterministic
  // backward (and our dQ semaphores) make too.
  Value cta = kb.c32(0), ctas = kb.c32(1);
  if (cfg.biasBroadcastBatch) {
    cta = batch;
    ctas = kb.gridDimZ();
  }
  if (cfg.biasBroadcastHead) {
    cta = kb.add(cta, kb.mul(headKV, ctas));
    ctas = kb.mul(ctas, kb.gridDimY());
  }
  Value rank = cta, count = ctas;
  if (cfg.biasBroadcastHead) {
    Value g = kb.sub(s.qHead, kb.mul(headKV, args.group));
    rank = kb.add(kb.mul(cta, args.group), g);
    count = kb.mul(ctas, args.group);
  }
  // Blocks [planes, query tiles, key slabs of 64] of blockM x 64 floats
  // (and one semaphore each): dBias's plane (batch|1, heads_q|1).
  Value b = cfg.biasBroadcastBatch ? kb.c32(0) : batch;
  Value h = cfg.biasBroadcastHead ? kb.c32(0) : s.qHead;
  Value plane = kb.add(kb.mul(b, cfg.biasBroadcastHead ? kb.c32(1) : numHeadsQ), h);
  Value tiles = kb.divUI(seqPad, kb.c32(cfg.blockM));
  Value slabs = kb.mul(kb.gridDimX(), kb.c32(2));
  Value index = kb.add(kb.mul(kb.ext64(kb.add(kb.mul(plane, tiles), s.tile)), kb.ext64(slabs)),
                       kb.ext64(kb.add(kb.mul(nBlock, kb.c32(2)), c)));
  const BiasArgs &g = args.gradBias;
  OrderedBiasGrad o;
  o.block = kb.globalAt(args.dbiasAccum, kb.mul(index, kb.c64(cfg.blockM * 64)), kb.f32);
  o.semaphore = kb.globalAt(args.dbiasSemaphore, index, kb.i32);
  o.rank = rank;
  o.count = count;
  o.gradPlane = kb.add(kb.mul(kb.ext64(b), g.strideBatch), kb.mul(kb.ext64(h), g.strideHead));
  o.barrier = kb.add(kb.c32(static_cast<int64_t>(BackwardBarrier::BiasGradTurn)), c);
  return o;
}

void BackwardMainKernel::addDq(const QueryStep &s, Value rowHalf, ArrayRef<Value> dq, Value box,
                               Value c, Value threadInWg) {
  Value isLeader = kb.cmp(arith::CmpIPredicate::eq, threadInWg, kb.c32(0));
  Value stage = kb.sharedAt(
      base, kb.add(kb.c32(smem.dqStages.offset), kb.mul(c, kb.c32(cfg.dqStageBytes()))));
  // The stage is free once this warpgroup's previous reduce has read it.
  kb.ifThen(isLeader, [&] { bulkWaitRead(kb); });
  Value free = kb.add(kb.c32(static_cast<int64_t>(BackwardBarrier::DqStageFree)), c);
  namedBarrierSync(kb, free, 128);
  auto v2 = VectorType::get({2}, kb.f32);
  for (size_t i = 0; i < dq.size(); i += 2) {
    // Register pair ip of every thread: 128 consecutive 8-byte slots.
    Value slot = kb.add(kb.mul(kb.c32(static_cast<int64_t>(i / 2) * 128), kb.c32(8)),
                        kb.mul(threadInWg, kb.c32(8)));
    Value pair = LLVM::UndefOp::create(kb.b, v2);
    pair = LLVM::InsertElementOp::create(kb.b, pair, dq[i], kb.c32(0));
    pair = LLVM::InsertElementOp::create(kb.b, pair, dq[i + 1], kb.c32(1));
    LLVM::StoreOp::create(kb.b, pair, kb.sharedAt(stage, slot), /*alignment=*/8);
  }
  fenceProxyAsyncShared(kb);
  Value full = kb.add(kb.c32(static_cast<int64_t>(BackwardBarrier::DqStageFull)), c);
  namedBarrierSync(kb, full, 128);

  const int64_t boxes = cfg.qkDim() / BK::kBox;
  Value tileIndex = queryTileIndex(s, rowHalf);
  Value block = kb.add(kb.mul(tileIndex, kb.c32(boxes)), box);
  Value dst =
      kb.globalAt(args.dqAccum, kb.mul(kb.ext64(block), kb.c64(cfg.dqBlockFloats())), kb.f32);
  kb.ifThen(isLeader, [&] {
    if (!cfg.deterministic)
      return bulkReduceAddF32(kb, dst, stage, cfg.dqStageBytes());
    // Key blocks add into a 64-row tile in order, consumer 0 before 1: the
    // tile's semaphore counts the reduces done; block j's consumer c waits
    // for 2 (j - first block that sees the tile) + c. With the 128-query
    // tile one consumer adds into each 64-row half: block j waits for
    // j - first.
    auto [keysLo, keysHi] = rule->keyRange({s.m0, kb.c32(cfg.blockM)});
    Value firstBlock = rule->tileRange({keysLo, keysHi}, BK::kBlockN).first;
    Value sem = kb.globalAt(args.semaphore, kb.ext64(tileIndex), kb.i32);
    Value turn = rowHalf ? kb.sub(nBlock, firstBlock)
                         : kb.add(kb.mul(kb.sub(nBlock, firstBlock), kb.c32(2)), c);
    spinUntilEqual(kb, sem, turn);
    bulkReduceAddF32(kb, dst, stage, cfg.dqStageBytes());
    bulkWaitDone(kb);
    fenceGpu(kb);
    releaseAdd(kb, sem, kb.c32(1));
  });
}

Value BackwardMainKernel::queryTileIndex(const QueryStep &s, Value rowHalf) {
  // A ragged batch: [heads_q, padded tiles] (batch 1), the sequence's
  // tiles from its first padded one.
  if (cfg.varlen)
    return kb.add(kb.mul(s.qHead, paddedTiles), kb.add(paddedTile0, s.tile));
  Value tiles = kb.divUI(seqPad, kb.c32(cfg.dqBlockRows()));
  // The 128-query tile's half `rowHalf` is 64-row tile 2 tile + rowHalf.
  Value tile = rowHalf ? kb.add(kb.mul(s.tile, kb.c32(2)), rowHalf) : s.tile;
  return kb.add(kb.mul(kb.add(kb.mul(batch, numHeadsQ), s.qHead), tiles), tile);
}

void BackwardMainKernel::storeGrad(ArrayRef<Value> acc, Value ptr, Value (&stride)[3],
                                   int64_t realCols, Value keyRow0, Value laneCol,
                                   Value scale) {
  Type half = cfg.elem == ElemType::BF16 ? Type(kb.b.getBF16Type()) : Type(kb.b.getF16Type());
  Value laneCol64 = kb.ext64(laneCol);
  for (int h = 0; h < 2; ++h) {
    Value row = kb.add(keyRow0, kb.c32(8 * h));
    kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, row, args.seqK), [&] {
      Value first = kb.add(stridedRowOffset(kb, batch, headKV, packedRow(kStart, row), stride[0],
                                            stride[1], stride[2]),
                           laneCol64);
      for (size_t i = 0; i < acc.size(); i += 2) {
        // Columns of the zero-filled padding up to whole 64-column boxes.
        if (fragRowHalf(i) != h || fragColOffset(i) >= realCols)
          continue;
        Value lo = scale ? kb.fmul(acc[i], scale) : acc[i];
        Value hi = scale ? kb.fmul(acc[i + 1], scale) : acc[i + 1];
        Value at = kb.globalAt(ptr, kb.add(first, kb.c64(fragColOffset(i))), half);
        LLVM::StoreOp::create(kb.b, packPair(kb, lo, hi, cfg.elem), at, /*alignment=*/4);
      }
    });
  }
}

void BackwardMainKernel::placeBlock() {
  nBlock = kb.blockIdX();
  headKV = kb.blockIdY();
  batch = kb.blockIdZ();
  if (!cfg.biasBroadcasts())
    return;
  // Where the bias broadcasts, the CTAs that add into the same dBias
  // elements (other batches, other kv heads) get consecutive block ids, so
  // they run together and their reductions meet in L2 instead of each
  // reading and writing the line in HBM (the grid is unchanged).
  Value nx = kb.gridDimX(), ny = kb.gridDimY(), nz = kb.gridDimZ();
  Value linear = kb.add(kb.blockIdX(), kb.mul(nx, kb.add(kb.blockIdY(), kb.mul(ny, kb.blockIdZ()))));
  SmallVector<std::pair<Value *, Value>> order; // fastest first
  if (cfg.biasBroadcastBatch)
    order.push_back({&batch, nz});
  if (cfg.biasBroadcastHead)
    order.push_back({&headKV, ny});
  order.push_back({&nBlock, nx});
  if (!cfg.biasBroadcastHead)
    order.push_back({&headKV, ny});
  if (!cfg.biasBroadcastBatch)
    order.push_back({&batch, nz});
  for (auto [dst, extent] : order) {
    *dst = kb.remu(linear, extent);
    linear = kb.divUI(linear, extent);
  }
}

void BackwardMainKernel::placeSequence() {
  Value numSeqs = args.numSeqs, totalQ = args.seqQ;
  PaddedSequence keys = findPaddedSequence(kb, args.cuSeqlensK, numSeqs, args.seqK, BK::kBlockN,
                                           kb.blockIdX(), /*withTail=*/true);
  nBlock = keys.block;
  kStart = keys.start;
  keyBlockValid = keys.valid;
  Value seq = kb.maxSI(keys.seq, kb.c32(0));
  Value inBatch = kb.andi(kb.cmp(arith::CmpIPredicate::sge, keys.seq, kb.c32(0)),
                          kb.cmp(arith::CmpIPredicate::slt, seq, numSeqs));
  Value at = kb.minSI(seq, numSeqs);
  auto bound = [&](Value i) {
    return LLVM::LoadOp::create(kb.b, kb.i32, kb.globalAt(args.cuSeqlensQ, kb.ext64(i), kb.i32), 4)
        .getResult();
  };
  qStart = bound(at);
  Value qEnd = bound(kb.minSI(kb.add(at, kb.c32(1)), numSeqs));
  paddedTile0 = kb.divUI(kb.add(qStart, kb.mul(at, kb.c32(cfg.blockM))), kb.c32(cfg.blockM));
  paddedTiles = paddedBlocks(kb, totalQ, numSeqs, cfg.blockM);
  args.seqQ = kb.select(inBatch, kb.sub(qEnd, qStart), kb.c32(0));
  args.seqK = keys.len;
}

void BackwardMainKernel::emit() {
  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, tid, kb.c32(0)), [&] {
    mbarrierInit(kb, kvBarrier(), 1);
    TmaPipeline::initAll({&pipe});
    fenceMbarrierInit(kb);
  });
  NVVM::Barrier0Op::create(kb.b);

  placeBlock();
  if (cfg.varlen)
    placeSequence();
  n0 = kb.mul(nBlock, kb.c32(BK::kBlockN));
  numHeadsQ = kb.mul(kb.gridDimY(), args.group);
  int64_t m = cfg.blockM;
  seqPad = kb.mul(kb.divUI(kb.add(args.seqQ, kb.c32(m - 1)), kb.c32(m)), kb.c32(m));
  // One rule for the producer's and the consumers' query tiles and masks.
  rule.emplace(kb, cfg.semantics, args.seqQ, args.seqK);
  auto [lo, hi] = rule->tileRange(rule->queryRange({n0, kb.c32(BK::kBlockN)}), m);
  firstTile = lo;
  tileCount = kb.sub(hi, lo);
  steps = kb.mul(tileCount, args.group);
  if (backwardBlockSparse(cfg)) {
    queryList.emplace(backwardQueryList(kb, cfg, args.map, batch, headKV, nBlock));
    listed = queryList->loadCount();
    steps = kb.mul(listed, args.group);
  }
  // Padded blocks past a sequence's keys compute and store nothing.
  if (cfg.varlen)
    steps = kb.select(keyBlockValid, steps, kb.c32(0));

  Value wg = kb.shru(tid, kb.c32(7));
  kb.ifThenElse(
      kb.cmp(arith::CmpIPredicate::eq, wg, kb.c32(0)), [&] { emitProducer(); },
      [&] { emitConsumer(); });
}

} // namespace

/// A [rows]-row box of a [batch, head, seq] f32 workspace buffer.
static llvm::json::Object rowStatMap(StringRef name, int64_t rows) {
  return llvm::json::Object{{"kind", "tensor_map"},
                            {"operand", name},
                            {"box", llvm::json::Array{rows}},
                            {"dims", llvm::json::Array{"seq", "head", "batch"}},
                            {"swizzle", "none"},
                            {"dtype", "f32"}};
}

KernelSignature mlir::fa::nvvm_kernel::backwardMainSignature(const BK &cfg,
                                                             BackwardMainArgs &a) {
  std::string dt = cfg.elemName();
  KernelSignature sig;
  sig.tensorMap(&a.tmQ, tensorMapParam("query", dt, cfg.blockM));
  sig.tensorMap(&a.tmK, tensorMapParam("key", dt, BK::kBlockN));
  sig.tensorMap(&a.tmV, tensorMapParam("value", dt, BK::kBlockN));
  sig.tensorMap(&a.tmDO, tensorMapParam("grad_output", dt, cfg.blockM));
  sig.tensorMap(&a.tmLse2, rowStatMap("lse_log2", cfg.blockM));
  sig.tensorMap(&a.tmD, rowStatMap("softmax_d", cfg.blockM));
  // A pointer and its (batch, head, row) strides.
  auto strided = [&](Value *ptr, Value *strides[3], StringRef operand, StringRef rowDim) {
    sig.ptr(ptr, operand);
    sig.strides({strides[0], strides[1], strides[2]}, operand, {"batch", "head", rowDim});
  };
  Value *dKStrides[3] = {&a.dKStride[0], &a.dKStride[1], &a.dKStride[2]};
  Value *dVStrides[3] = {&a.dVStride[0], &a.dVStride[1], &a.dVStride[2]};
  strided(&a.dK, dKStrides, "grad_key", "seq");
  strided(&a.dV, dVStrides, "grad_value", "seq");
  sig.ptr(&a.dqAccum, "dq_accum");
  if (cfg.deterministic)
    sig.ptr(&a.semaphore, "dq_semaphore");
  if (cfg.bias) {
    BiasArgs &b = a.bias, &g = a.gradBias;
    Value *biasStrides[3] = {&b.strideBatch, &b.strideHead, &b.strideRow};
    strided(&b.ptr, biasStrides, "bias", "seq_q");
    Value *gradStrides[3] = {&g.strideBatch, &g.strideHead, &g.strideRow};
    if (cfg.biasBroadcasts())
      sig.ptr(&a.dbiasAccum, "dbias_accum");
    if (cfg.biasGradInOrder())
      sig.ptr(&a.dbiasSemaphore, "dbias_semaphore");
    if (!cfg.biasBroadcasts() || cfg.biasGradInOrder())
      strided(&g.ptr, gradStrides, "grad_bias", "seq_q");
  }
  if (cfg.sinks()) {
    sig.ptr(&a.sinks, "sinks");
    sig.ptr(&a.sinksPartial, "dsinks_partial");
  }
  sig.i32(&a.seqQ, sym::SeqQ);
  sig.i32(&a.seqK, sym::SeqK);
  sig.i32(&a.group, sym::HeadsQ / sym::HeadsKV);
  if (cfg.varlen) {
    sig.ptr(&a.cuSeqlensQ, "cu_seqlens_q");
    sig.ptr(&a.cuSeqlensK, "cu_seqlens_k");
    sig.i32(&a.numSeqs, sym::NumSeqs);
  }
  if (backwardBlockSparse(cfg))
    declareBackwardMapParams(sig, a.map);
  declareCaptureParams(sig, cfg.semantics, a.captures);
  return sig;
}

void mlir::fa::nvvm_kernel::buildBackwardMainKernel(OpBuilder &builder, Location loc,
                                                    Block &moduleBody, const BK &cfg) {
  std::string name = cfg.name() + "_main";
  BackwardMainArgs unbound;
  buildKernelFunction(builder, loc, moduleBody, name, backwardMainSignature(cfg, unbound),
                      BK::kThreads, /*sharedMemory=*/true, /*noAliasPointers=*/false,
                      [&](KernelBuilder &kb, LLVM::LLVMFuncOp fn) {
                        BackwardMainKernel(kb, cfg, fn, name + "_smem").emit();
                      });
}
