//===- AttentionKernel.cpp - The warp-specialized FA3 forward schedule ----===//
//
// One CTA computes 128 query rows of one (batch, head) with 3 warpgroups:
//   warpgroup 0: producer. setmaxnreg.dec; one thread issues TMA copies of Q
//                once, then K_j and V_{j-1} into a ring of `stages` K and V
//                slots (full/empty mbarriers per slot, separate for K and V
//                so that K_{j+1} may land while V_j is still being read).
//   warpgroups 1, 2: consumers, 64 query rows each. setmaxnreg.inc;
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
#include "KernelBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

std::string AttentionKernelConfig::kernelName() const {
  std::string n = llvm::formatv("fa_fwd_{0}_d{1}_{2}", elemName(), headDim, bshd ? "bshd" : "bhsd");
  if (causal)
    n += bottomRight ? "_causal_br" : "_causal";
  if (returnLse)
    n += "_lse";
  n += llvm::formatv("_m{0}n{1}s{2}{3}{4}", blockM, blockN, stages, overlap ? "o" : "",
                     overlap && pingPong ? "p" : "");
  // The scale is baked in: name kernels whose scale is not 1/sqrt(d) by it.
  float sc = static_cast<float>(scale), dflt = static_cast<float>(1.0 / std::sqrt(double(headDim)));
  if (sc != dflt) {
    uint32_t bits;
    std::memcpy(&bits, &sc, sizeof(bits));
    n += llvm::formatv("_sc{0:x8}", bits);
  }
  return n;
}

namespace {

/// Indices of the mbarriers in the barrier array.
struct Barriers {
  const AttentionKernelConfig &cfg;
  KernelBuilder &kb;
  Value base;
  Value at(int64_t index) { return kb.sharedAt(base, cfg.barrierOffset() + 8 * index); }
  Value at(int64_t first, Value stage) {
    return kb.sharedAt(base, kb.add(kb.c32(cfg.barrierOffset() + 8 * first), kb.mul(stage, kb.c32(8))));
  }
  Value q() { return at(0); }
  Value fullK(Value s) { return at(1, s); }
  Value fullV(Value s) { return at(1 + cfg.stages, s); }
  Value emptyK(Value s) { return at(1 + 2 * cfg.stages, s); }
  Value emptyV(Value s) { return at(1 + 3 * cfg.stages, s); }
};

class KernelEmitter {
public:
  KernelEmitter(KernelBuilder &kb, const AttentionKernelConfig &cfg, LLVM::LLVMFuncOp fn,
                StringRef smemSymbol)
      : kb(kb), cfg(cfg), fn(fn), smemSymbol(smemSymbol), bars{cfg, kb, Value()} {}

  void emit();

private:
  KernelBuilder &kb;
  const AttentionKernelConfig &cfg;
  LLVM::LLVMFuncOp fn;
  StringRef smemSymbol;
  Barriers bars;
  Value base, tid;
  Value tmQ, tmK, tmV, outPtr, lsePtr, seqQ, seqK, group;
  Value m0, head, headKV, batch, nTiles, causalOffset;

  Value arg(unsigned i) { return fn.getArgument(i); }
  Value stageOf(Value j) { return kb.remu(j, kb.c32(cfg.stages)); }
  Value parityOf(Value j) { return kb.andi(kb.divu(j, kb.c32(cfg.stages)), kb.c32(1)); }
  Value kTile(Value s) {
    return kb.sharedAt(base, kb.add(kb.c32(cfg.kOffset(0)), kb.mul(s, kb.c32(cfg.kvTileBytes()))));
  }
  Value vTile(Value s) {
    return kb.sharedAt(base, kb.add(kb.c32(cfg.vOffset(0)), kb.mul(s, kb.c32(cfg.kvTileBytes()))));
  }

  void emitProducer();
  void loadKV(Value j, bool isK);
  void emitConsumer();
};

void KernelEmitter::loadKV(Value j, bool isK) {
  Value s = stageOf(j), ph = parityOf(j);
  mbarrierWait(kb, isK ? bars.emptyK(s) : bars.emptyV(s), kb.xori(ph, kb.c32(1)));
  Value full = isK ? bars.fullK(s) : bars.fullV(s);
  mbarrierArriveExpectTx(kb, full, cfg.kvTileBytes());
  Value tile = isK ? kTile(s) : vTile(s);
  Value row = kb.mul(j, kb.c32(cfg.blockN));
  for (int64_t box = 0; box < cfg.headDim / 64; ++box)
    tmaLoad(kb, kb.sharedAt(tile, box * cfg.blockN * 128), isK ? tmK : tmV, full,
            {kb.c32(64 * box), row, headKV, batch});
}

void KernelEmitter::emitProducer() {
  NVVM::SetMaxRegisterOp::create(
      kb.b, kb.b.getI32IntegerAttr(cfg.producerRegs),
      NVVM::SetMaxRegisterActionAttr::get(kb.b.getContext(), NVVM::SetMaxRegisterAction::decrease));
  Value isLeader = kb.cmp(arith::CmpIPredicate::eq, tid, kb.c32(0));
  Value any = kb.cmp(arith::CmpIPredicate::sgt, nTiles, kb.c32(0));
  kb.ifThen(kb.andi(isLeader, any), [&] {
    mbarrierArriveExpectTx(kb, bars.q(), cfg.qTileBytes());
    for (int64_t box = 0; box < cfg.headDim / 64; ++box)
      tmaLoad(kb, kb.sharedAt(base, box * cfg.blockM * 128), tmQ, bars.q(),
              {kb.c32(64 * box), m0, head, batch});
    // K_j, then V_{j-1}: the consumer needs K_j first and V_{j-1} one step later.
    kb.forLoop(kb.c32(0), nTiles, {}, [&](Value j, ValueRange) {
      loadKV(j, /*isK=*/true);
      kb.ifThen(kb.cmp(arith::CmpIPredicate::sgt, j, kb.c32(0)),
                [&] { loadKV(kb.sub(j, kb.c32(1)), /*isK=*/false); });
      return SmallVector<Value>{};
    });
    loadKV(kb.sub(nTiles, kb.c32(1)), /*isK=*/false);
  });
}

void KernelEmitter::emitConsumer() {
  NVVM::SetMaxRegisterOp::create(
      kb.b, kb.b.getI32IntegerAttr(cfg.consumerRegs),
      NVVM::SetMaxRegisterActionAttr::get(kb.b.getContext(), NVVM::SetMaxRegisterAction::increase));
  const int64_t D = cfg.headDim, BN = cfg.blockN, BM = cfg.blockM;
  const int64_t nS = BN / 2, nO = D / 2;
  Value ct = kb.sub(tid, kb.c32(128));
  Value c = kb.shru(ct, kb.c32(7));
  Value lt = kb.andi(ct, kb.c32(127));
  Value warp = kb.shru(lt, kb.c32(5));
  Value lane = kb.andi(lt, kb.c32(31));
  Value wgRow0 = kb.add(m0, kb.mul(c, kb.c32(64)));
  Value row0 = kb.add(wgRow0, kb.add(kb.mul(warp, kb.c32(16)), kb.shru(lane, kb.c32(2))));
  Value laneCol = kb.mul(kb.andi(lane, kb.c32(3)), kb.c32(2));
  Value scaleLog2 = kb.cf32(cfg.scale * 1.4426950408889634);
  Value negInf = kb.cf32(-std::numeric_limits<double>::infinity());

  // Q slab of this consumer: rows 64 c of every box.
  Value qDesc = wgmmaDescriptor(kb, kb.sharedAt(base, kb.mul(c, kb.c32(64 * 128))), 16, 1024);

  auto waitK = [&](Value j) { mbarrierWait(kb, bars.fullK(stageOf(j)), parityOf(j)); };
  auto waitV = [&](Value j) { mbarrierWait(kb, bars.fullV(stageOf(j)), parityOf(j)); };
  // Issues S_j = Q K_j^T; waits for K_j first unless the caller did.
  auto issueS = [&](Value j, bool wait = true) -> SmallVector<Value> {
    Value s = stageOf(j);
    if (wait)
      waitK(j);
    Value kDesc = wgmmaDescriptor(kb, kTile(s), 16, 1024);
    SmallVector<Value> acc;
    wgmmaFence(kb);
    for (int64_t kk = 0; kk < D / 16; ++kk) {
      int64_t boxA = (kk / 4) * BM * 128, boxB = (kk / 4) * BN * 128, inRow = (kk % 4) * 32;
      acc = wgmmaSS(kb, acc, wgmmaDescriptorAdd(kb, qDesc, boxA + inRow),
                    wgmmaDescriptorAdd(kb, kDesc, boxB + inRow), BN, kk > 0,
                    /*bMNMajor=*/false, cfg.elem);
    }
    wgmmaCommit(kb);
    return acc;
  };
  auto issuePV = [&](Value j, ValueRange o, ValueRange p, bool fence,
                     bool wait = true) -> SmallVector<Value> {
    Value s = stageOf(j);
    if (wait)
      waitV(j);
    // V is MN-major: LBO = next 64-wide dim box, SBO = next 8 kv rows.
    Value vDesc = wgmmaDescriptor(kb, vTile(s), BN * 128, 1024);
    SmallVector<Value> acc(o.begin(), o.end());
    if (fence)
      wgmmaFence(kb);
    for (int64_t kk = 0; kk < BN / 16; ++kk)
      acc = wgmmaRS(kb, acc, p.slice(4 * kk, 4), wgmmaDescriptorAdd(kb, vDesc, kk * 16 * 128), D,
                    /*accumulate=*/true, /*bMNMajor=*/true, cfg.elem);
    wgmmaCommit(kb);
    return acc;
  };
  auto release = [&](Value j, bool isK) {
    Value s = stageOf(j);
    mbarrierArrive(kb, isK ? bars.emptyK(s) : bars.emptyV(s));
  };
  // Ping-pong (FA3): the two consumer warpgroups take turns issuing their
  // wgmma batches, so that one's softmax runs under the other's GEMMs. Named
  // barrier 1 + c is "my turn"; a warpgroup syncs on its own and arrives on
  // the other's (256 threads each). Consumer 1 lets consumer 0 start, and
  // skips its last arrive so that the arrivals balance.
  Value myTurn = kb.add(c, kb.c32(1)), otherTurn = kb.sub(kb.c32(2), c);
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

  // Masks only tiles that cross seq_k or (causal) the diagonal of this
  // warpgroup's rows; the loop bound already dropped tiles past the diagonal.
  auto maybeMask = [&](Value j, SmallVector<Value> s) -> SmallVector<Value> {
    Value n0 = kb.mul(j, kb.c32(BN));
    Value tileEnd = kb.add(n0, kb.c32(BN));
    Value need = kb.cmp(arith::CmpIPredicate::sgt, tileEnd, seqK);
    if (cfg.causal)
      need = kb.ori(need, kb.cmp(arith::CmpIPredicate::sgt, kb.sub(tileEnd, kb.c32(1)),
                                 kb.add(wgRow0, causalOffset)));
    SmallVector<Type> types(s.size(), kb.f32);
    return kb.ifThenElseValues(
        need, types,
        [&]() {
          SmallVector<Value> m(s);
          Value colBase = kb.add(n0, laneCol);
          Value lim[2];
          for (int r = 0; r < 2; ++r) {
            Value limit = seqK;
            if (cfg.causal)
              limit = kb.minsi(limit, kb.add(kb.add(row0, kb.c32(8 * r + 1)), causalOffset));
            lim[r] = kb.sub(limit, colBase);
          }
          maskScores(kb, m, lim);
          return m;
        },
        [&]() { return s; });
  };
  auto packP = [&](ArrayRef<Value> p) {
    SmallVector<Value> regs;
    for (int64_t i = 0; i < nS; i += 2)
      regs.push_back(packPair(kb, p[i], p[i + 1], cfg.elem));
    return regs;
  };

  // Loop state: O (nO), then max[2], sum[2] (+ P (nP) with overlap).
  SmallVector<Type> stateTypes(nO + 4, kb.f32);
  SmallVector<Value> zeros(nO, kb.cf32(0.0));
  SmallVector<Value> initState(zeros);
  initState.append({negInf, negInf, kb.cf32(0.0), kb.cf32(0.0)});

  Value any = kb.cmp(arith::CmpIPredicate::sgt, nTiles, kb.c32(0));
  SmallVector<Value> fin = kb.ifThenElseValues(
      any, stateTypes,
      [&]() -> SmallVector<Value> {
        mbarrierWait(kb, bars.q(), kb.c32(0));
        if (!cfg.overlap) {
          return kb.forLoop(kb.c32(0), nTiles, initState, [&](Value j, ValueRange st) {
            SmallVector<Value> o(st.take_front(nO));
            RowState rs{{st[nO], st[nO + 1]}, {st[nO + 2], st[nO + 3]}};
            SmallVector<Value> s = issueS(j);
            wgmmaWait(kb, 0);
            release(j, /*isK=*/true);
            s = maybeMask(j, s);
            Value rescale[2];
            softmaxStep(kb, s, rs, scaleLog2, rescale, /*first=*/false);
            rescaleRows(kb, o, rescale);
            o = issuePV(j, o, packP(s), /*fence=*/true);
            wgmmaWait(kb, 0);
            release(j, /*isK=*/false);
            o.append({rs.max[0], rs.max[1], rs.sum[0], rs.sum[1]});
            return o;
          });
        }
        // Prologue: S_0 and its softmax.
        Value j0 = kb.c32(0);
        if (cfg.pingPong)
          kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, c, kb.c32(1)),
                    [&] { NVVM::BarrierArriveOp::create(kb.b, otherTurn, kb.c32(256)); });
        waitK(j0);
        turnBegin();
        SmallVector<Value> s = issueS(j0, /*wait=*/false);
        turnEnd(/*last=*/false);
        wgmmaWait(kb, 0);
        release(j0, /*isK=*/true);
        s = maybeMask(j0, s);
        RowState rs0;
        Value unused[2];
        softmaxStep(kb, s, rs0, scaleLog2, unused, /*first=*/true);
        SmallVector<Value> loopInit(zeros);
        loopInit.append({rs0.max[0], rs0.max[1], rs0.sum[0], rs0.sum[1]});
        SmallVector<Value> p0 = packP(s);
        loopInit.append(p0.begin(), p0.end());
        SmallVector<Value> res =
            kb.forLoop(kb.c32(1), nTiles, loopInit, [&](Value j, ValueRange st) {
              SmallVector<Value> o(st.take_front(nO));
              RowState rs{{st[nO], st[nO + 1]}, {st[nO + 2], st[nO + 3]}};
              ValueRange p = st.drop_front(nO + 4);
              Value jPrev = kb.sub(j, kb.c32(1));
              waitK(j);
              waitV(jPrev);
              turnBegin();
              SmallVector<Value> sj = issueS(j, /*wait=*/false);
              o = issuePV(jPrev, o, p, /*fence=*/true, /*wait=*/false);
              turnEnd(/*last=*/false);
              wgmmaWait(kb, 1); // S_j is done, P_{j-1} V_{j-1} may still run
              release(j, /*isK=*/true);
              sj = maybeMask(j, sj);
              Value rescale[2];
              softmaxStep(kb, sj, rs, scaleLog2, rescale, /*first=*/false);
              wgmmaWait(kb, 0);
              release(jPrev, /*isK=*/false);
              rescaleRows(kb, o, rescale);
              SmallVector<Value> next(o);
              next.append({rs.max[0], rs.max[1], rs.sum[0], rs.sum[1]});
              SmallVector<Value> pj = packP(sj);
              next.append(pj.begin(), pj.end());
              return next;
            });
        SmallVector<Value> o(ArrayRef<Value>(res).take_front(nO));
        Value last = kb.sub(nTiles, kb.c32(1));
        waitV(last);
        turnBegin();
        o = issuePV(last, o, ArrayRef<Value>(res).drop_front(nO + 4), /*fence=*/true,
                    /*wait=*/false);
        turnEnd(/*last=*/true);
        wgmmaWait(kb, 0);
        release(last, /*isK=*/false);
        o.append(res.begin() + nO, res.begin() + nO + 4);
        return o;
      },
      [&]() { return initState; });

  SmallVector<Value> o(ArrayRef<Value>(fin).take_front(nO));
  RowState rs{{fin[nO], fin[nO + 1]}, {fin[nO + 2], fin[nO + 3]}};
  EpilogueArgs ea;
  ea.outPtr = outPtr;
  ea.lsePtr = lsePtr;
  ea.batch = batch;
  ea.head = head;
  ea.numHeads = kb.gridDimY();
  ea.seqQ = seqQ;
  ea.row0 = row0;
  ea.lane = lane;
  ea.scaleLog2 = scaleLog2;
  storeEpilogue(kb, cfg, o, rs, ea);
}

void KernelEmitter::emit() {
  unsigned a = 0;
  tmQ = arg(a++);
  tmK = arg(a++);
  tmV = arg(a++);
  outPtr = arg(a++);
  lsePtr = cfg.returnLse ? arg(a++) : Value();
  seqQ = arg(a++);
  seqK = arg(a++);
  group = arg(a++);

  tid = kb.threadIdX();
  base = kb.alignedSharedBase(smemSymbol);
  bars.base = base;

  // One thread initialises every barrier; the CTA barrier publishes them.
  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, tid, kb.c32(0)), [&] {
    mbarrierInit(kb, bars.q(), 1);
    for (int64_t s = 0; s < cfg.stages; ++s) {
      Value sv = kb.c32(s);
      mbarrierInit(kb, bars.fullK(sv), 1);
      mbarrierInit(kb, bars.fullV(sv), 1);
      mbarrierInit(kb, bars.emptyK(sv), 256);
      mbarrierInit(kb, bars.emptyV(sv), 256);
    }
    fenceMbarrierInit(kb);
  });
  NVVM::Barrier0Op::create(kb.b);

  // Causal: the longest rows first (the grid is scheduled in order).
  Value bx = kb.blockIdX();
  Value mBlock = cfg.causal ? kb.sub(kb.sub(kb.gridDimX(), kb.c32(1)), bx) : bx;
  m0 = kb.mul(mBlock, kb.c32(cfg.blockM));
  head = kb.blockIdY();
  batch = kb.blockIdZ();
  headKV = kb.divu(head, group);
  causalOffset = cfg.bottomRight ? kb.sub(seqK, seqQ) : kb.c32(0);
  Value allTiles = kb.divu(kb.add(seqK, kb.c32(cfg.blockN - 1)), kb.c32(cfg.blockN));
  nTiles = allTiles;
  if (cfg.causal) {
    Value lastCol = kb.maxsi(kb.add(kb.add(m0, kb.c32(cfg.blockM)), causalOffset), kb.c32(0));
    Value needed = kb.divu(kb.add(lastCol, kb.c32(cfg.blockN - 1)), kb.c32(cfg.blockN));
    nTiles = kb.minsi(allTiles, needed);
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
  std::string name = cfg.kernelName();
  std::string smem = name + "_smem";
  LLVM::GlobalOp::create(b, LLVM::LLVMArrayType::get(b.getI8Type(), 0), /*isConstant=*/false,
                         LLVM::Linkage::External, smem, Attribute(), /*alignment=*/16,
                         /*addrSpace=*/3);

  auto ptr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> args = {ptr, ptr, ptr, ptr};
  if (cfg.returnLse)
    args.push_back(ptr);
  args.append({b.getI32Type(), b.getI32Type(), b.getI32Type()});
  auto fn = LLVM::LLVMFuncOp::create(b, name,
                                     LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), args));
  fn->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  fn->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
              b.getDenseI32ArrayAttr({static_cast<int32_t>(AttentionKernelConfig::kThreads), 1, 1}));
  // With maxntid, minctasm = 1 gives ptxas a register cap at entry, which
  // setmaxnreg needs (else: warning C7508, 'setmaxnreg' ignored).
  fn->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(1));
  for (unsigned i = 0; i < 3; ++i) {
    fn.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                  TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(), 128)));
    fn.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(64));
    fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(), b.getUnitAttr());
  }
  for (unsigned i = 3; i < (cfg.returnLse ? 5u : 4u); ++i)
    fn.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr());

  Block *entry = fn.addEntryBlock(builder);
  b.setInsertionPointToStart(entry);
  KernelBuilder kb(b);
  KernelEmitter(kb, cfg, fn, smem).emit();
  LLVM::ReturnOp::create(b, ValueRange{});
  return fn;
}

std::string mlir::fa::nvvm_kernel::bundleJson(const AttentionKernelConfig &cfg, StringRef chip,
                                              StringRef cubinFile) {
  using llvm::json::Array;
  using llvm::json::Object;
  std::string dt = cfg.elemName();
  auto tmap = [&](StringRef operand, int64_t rows) {
    return Object{{"kind", "tensor_map"},
                  {"operand", operand},
                  {"box", Array{64, rows}},
                  {"dims", Array{"dim", "seq", "head", "batch"}},
                  {"swizzle", "128B"},
                  {"dtype", dt}};
  };
  Array params{tmap("query", cfg.blockM), tmap("key", cfg.blockN), tmap("value", cfg.blockN),
               Object{{"kind", "ptr"}, {"operand", "output"}}};
  if (cfg.returnLse)
    params.push_back(Object{{"kind", "ptr"}, {"operand", "lse"}});
  params.push_back(Object{{"kind", "i32"}, {"value", "seq_q"}});
  params.push_back(Object{{"kind", "i32"}, {"value", "seq_k"}});
  params.push_back(Object{{"kind", "i32"}, {"value", "heads_q / heads_kv"}});
  Object config{{"dtype", dt},
                {"out_dtype", dt},
                {"layout", cfg.bshd ? "bshd" : "bhsd"},
                {"head_dim", cfg.headDim},
                {"head_dim_v", cfg.headDim},
                {"causal", cfg.causal},
                {"mask_alignment", cfg.bottomRight ? "bottom_right" : "top_left"},
                {"window", nullptr},
                {"softcap", nullptr},
                {"scale", cfg.scale},
                {"return_lse", cfg.returnLse}};
  Object root{{"format", "fa-kernel-bundle"},
              {"version", 1},
              {"chip", chip},
              {"kernel", cfg.kernelName()},
              {"cubin", cubinFile},
              {"op", "attention_fwd"},
              {"config", std::move(config)},
              {"block", Array{AttentionKernelConfig::kThreads, 1, 1}},
              {"cluster", Array{1, 1, 1}},
              {"shared_memory_bytes", cfg.sharedMemoryBytes()},
              {"grid", Array{llvm::formatv("ceildiv(seq_q, {0})", cfg.blockM).str(), "heads_q", "batch"}},
              {"params", std::move(params)}};
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)));
  return out;
}
