//===- BackwardRowKernels.cpp - The backward's pre, post and dbias kernels ===//
//
// Memory-bound passes. Pre and post run over rows of 64-row query blocks,
// one CTA of 256 threads per (block, head, batch), four threads per row:
//
//   pre   D[row] = sum_d dO[row, d] * O[row, d] (f32) and
//         LSE2[row] = log2(e) * LSE[row], with +inf for empty rows (LSE =
//         -inf) and for the padding rows up to a multiple of the main
//         kernel's query tile (64 or 128 rows), so that the
//         main kernel's exp2(s * c - LSE2) is 0 there, never NaN
//   post  dQ[row, d] = scale * dQaccum[row, d] in dQ's element type (the
//         accumulator in its blocked order, DqAccumLayout)
//   dbias (with a bias) grad_bias = dbias_accum in the bias's element type,
//         one CTA per row of grad_bias
//
// O, dO, LSE and dQ are addressed through their strides (bundle stride()
// parameters), so any layout the runtime accepts is read correctly; the
// workspace buffers are dense [batch, heads_q, seq_pad(, dim)].
//
//===----------------------------------------------------------------------===//
#include "BackwardSignature.h"

#include <limits>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

namespace {

/// The thread's row of the CTA's block and its quarter of the columns.
struct RowThread {
  Value batch, head, numHeads, row, part, seqPad, valid;
  /// The row in the workspace: `row`, or a ragged batch's padded row (then
  /// `row` is the packed row, and `owned` whether the CTA's padded block
  /// holds rows of a sequence).
  Value wsRow, owned;

  /// A dense batch's thread; the workspace rows are padded to the main
  /// kernel's query tile (cfg.blockM), and the grid covers them all.
  static RowThread get(KernelBuilder &kb, Value seqQ, const BackwardKernelConfig &cfg) {
    RowThread t;
    Value tid = kb.threadIdX();
    t.batch = kb.blockIdZ();
    t.head = kb.blockIdY();
    t.numHeads = kb.gridDimY();
    t.row = kb.add(kb.mul(kb.blockIdX(), kb.c32(BackwardKernelConfig::kRowTile)),
                   kb.shru(tid, kb.c32(2)));
    t.part = kb.andi(tid, kb.c32(3));
    int64_t m = cfg.blockM;
    t.seqPad = kb.mul(kb.divUI(kb.add(seqQ, kb.c32(m - 1)), kb.c32(m)), kb.c32(m));
    t.valid = kb.cmp(arith::CmpIPredicate::slt, t.row, seqQ);
    t.wsRow = t.row;
    return t;
  }
  /// A ragged batch's thread: the CTA's padded block of 64 workspace rows
  /// and the sequence it belongs to (with `withTail`, the trailing tokens
  /// are one).
  static RowThread getPadded(KernelBuilder &kb, const BackwardRowArgs &a, bool withTail) {
    const int64_t m = BackwardKernelConfig::kRowTile;
    RowThread t;
    Value tid = kb.threadIdX();
    PaddedSequence p =
        findPaddedSequence(kb, a.cuSeqlensQ, a.numSeqs, a.seqQ, m, kb.blockIdX(), withTail);
    t.batch = kb.blockIdZ();
    t.head = kb.blockIdY();
    t.numHeads = kb.gridDimY();
    Value inTile = kb.shru(tid, kb.c32(2));
    Value local = kb.add(kb.mul(p.block, kb.c32(m)), inTile);
    t.row = kb.add(p.start, local);
    t.part = kb.andi(tid, kb.c32(3));
    t.seqPad = kb.mul(paddedBlocks(kb, a.seqQ, a.numSeqs, m), kb.c32(m));
    t.owned = p.valid;
    t.valid = kb.andi(p.valid, kb.cmp(arith::CmpIPredicate::slt, local, p.len));
    t.wsRow = kb.add(kb.mul(kb.blockIdX(), kb.c32(m)), inTile);
    return t;
  }
  /// The (batch, head) plane's index, i64: batch * heads + head.
  Value plane(KernelBuilder &kb) const {
    return kb.add(kb.mul(kb.ext64(batch), kb.ext64(numHeads)), kb.ext64(head));
  }
  /// Index of the row in a dense [batch, heads, seqPad] workspace buffer.
  Value workspaceRow(KernelBuilder &kb) const {
    return kb.add(kb.mul(plane(kb), kb.ext64(seqPad)), kb.ext64(wsRow));
  }
};

Type halfType(KernelBuilder &kb, ElemType e) {
  return e == ElemType::BF16 ? Type(kb.b.getBF16Type()) : Type(kb.b.getF16Type());
}

Value loadF32(KernelBuilder &kb, Value ptr, Value index, Type elemType, int64_t bytes) {
  Value v = LLVM::LoadOp::create(kb.b, elemType, kb.globalAt(ptr, index, elemType), bytes);
  return elemType == kb.f32 ? v : arith::ExtFOp::create(kb.b, kb.f32, v).getResult();
}

void storeF32(KernelBuilder &kb, Value v, Value ptr, Value index) {
  LLVM::StoreOp::create(kb.b, v, kb.globalAt(ptr, index, kb.f32), /*alignment=*/4);
}

/// True when `s`'s pointer and strides (in elements of `elemBytes`) keep
/// every row `bytes`-aligned. The runtime guarantees only element alignment
/// for O and dQ (they are no TMA operands), so the wide accesses are taken
/// under this test, with the element-wise ones as the other branch.
Value rowsAligned(KernelBuilder &kb, const StridedArgs &s, int64_t elemBytes, int64_t bytes) {
  return stridesAligned(kb, s.ptr, {s.batch, s.head, s.row}, elemBytes, bytes);
}

/// The row kernels take pointers, i64 strides and i32 sizes only, and no
/// shared memory; `body` gets the arguments `sig` binds.
void buildRowKernel(OpBuilder &builder, Location loc, Block &moduleBody, StringRef name,
                    function_ref<KernelSignature(BackwardRowArgs &)> signature,
                    function_ref<void(KernelBuilder &, const BackwardRowArgs &)> body) {
  BackwardRowArgs unbound;
  buildKernelFunction(builder, loc, moduleBody, name, signature(unbound),
                      BackwardKernelConfig::kAuxThreads, /*sharedMemory=*/false,
                      /*noAliasPointers=*/false, [&](KernelBuilder &kb, LLVM::LLVMFuncOp fn) {
                        BackwardRowArgs args;
                        signature(args).bind(fn);
                        body(kb, args);
                      });
}

/// A pointer and its (batch, head, `rowDim`) strides.
void declareStrided(KernelSignature &sig, StridedArgs &s, StringRef operand,
                    StringRef rowDim = "seq") {
  sig.ptr(&s.ptr, operand);
  sig.strides({&s.batch, &s.head, &s.row}, operand, {"batch", "head", rowDim});
}

} // namespace

/// A ragged batch's pre and post kernels find their sequences through
/// cu_seqlens_q (seq_q is then the packed total).
static void declareSequences(KernelSignature &sig, BackwardRowArgs &a, bool varlen) {
  if (!varlen)
    return;
  sig.ptr(&a.cuSeqlensQ, "cu_seqlens_q");
  sig.i32(&a.numSeqs, sym::NumSeqs);
}

KernelSignature mlir::fa::nvvm_kernel::backwardPreSignature(BackwardRowArgs &a, bool varlen) {
  KernelSignature sig;
  declareStrided(sig, a.out, "output");
  declareStrided(sig, a.gradOut, "grad_output");
  declareStrided(sig, a.lse, "lse");
  sig.ptr(&a.lse2, "lse_log2");
  sig.ptr(&a.softmaxD, "softmax_d");
  sig.ptr(&a.accum, "dq_accum");
  sig.i32(&a.seqQ, sym::SeqQ);
  declareSequences(sig, a, varlen);
  return sig;
}

static void emitPreRows(KernelBuilder &kb, const BackwardRowArgs &a,
                        const BackwardKernelConfig &cfg, const RowThread &t) {
  const StridedArgs &out = a.out, &gradOut = a.gradOut, &lse = a.lse;
  Value lse2Ptr = a.lse2, dPtr = a.softmaxD;
  Type half = halfType(kb, cfg.elem);

  // 16-byte rows: each thread reads 8 columns at 8 part + 32 s (a quad, 64
  // contiguous bytes per step). Head dims are multiples of 8, so a chunk is
  // in range or out of it as a whole.
  auto wideDot = [&](Value oRow, Value doRow) -> SmallVector<Value> {
    auto v8 = VectorType::get({8}, half);
    Value acc = kb.cf32(0.0);
    Value part8 = kb.mul(t.part, kb.c32(8));
    for (int64_t c = 0; c < cfg.headDimV; c += 32) {
      Value col = kb.add(kb.ext64(part8), kb.c64(c));
      auto dot8 = [&]() -> SmallVector<Value> {
        Value o = LLVM::LoadOp::create(kb.b, v8, kb.globalAt(out.ptr, kb.add(oRow, col), half), 16);
        Value d = LLVM::LoadOp::create(kb.b, v8, kb.globalAt(gradOut.ptr, kb.add(doRow, col), half),
                                       16);
        Value a = acc;
        for (int64_t e = 0; e < 8; ++e) {
          auto lane = [&](Value v) {
            Value x = LLVM::ExtractElementOp::create(kb.b, v, kb.c32(e));
            return arith::ExtFOp::create(kb.b, kb.f32, x).getResult();
          };
          a = kb.fma(lane(o), lane(d), a);
        }
        return {a};
      };
      if (c + 32 <= cfg.headDimV)
        acc = dot8()[0];
      else
        acc = kb.ifThenElseValues(
            kb.cmp(arith::CmpIPredicate::slt, part8, kb.c32(cfg.headDimV - c)), {kb.f32}, dot8,
            [&]() -> SmallVector<Value> { return {acc}; })[0];
    }
    return {acc};
  };
  // Element-wise: columns part, part + 4, ...: a quad reads 4 neighbours.
  auto narrowDot = [&](Value oRow, Value doRow) -> SmallVector<Value> {
    Value part = kb.ext64(t.part);
    Value acc = kb.cf32(0.0);
    for (int64_t c = 0; c < cfg.headDimV; c += 4) {
      Value col = kb.add(part, kb.c64(c));
      Value o = loadF32(kb, out.ptr, kb.add(oRow, col), half, 2);
      Value d = loadF32(kb, gradOut.ptr, kb.add(doRow, col), half, 2);
      acc = kb.fma(o, d, acc);
    }
    return {acc};
  };
  Value wide = kb.andi(rowsAligned(kb, out, 2, 16), rowsAligned(kb, gradOut, 2, 16));
  SmallVector<Value> sums = kb.ifThenElseValues(
      t.valid, {kb.f32},
      [&]() -> SmallVector<Value> {
        Value oRow = out.rowOffset(kb, t.batch, t.head, t.row);
        Value doRow = gradOut.rowOffset(kb, t.batch, t.head, t.row);
        return kb.ifThenElseValues(
            wide, {kb.f32}, [&] { return wideDot(oRow, doRow); },
            [&] { return narrowDot(oRow, doRow); });
      },
      [&]() -> SmallVector<Value> { return {kb.cf32(0.0)}; });
  Value sum = quadReduceSum(kb, sums[0]);

  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, t.part, kb.c32(0)), [&] {
    Value inf = kb.cf32(std::numeric_limits<double>::infinity());
    SmallVector<Value> lse2 = kb.ifThenElseValues(
        t.valid, {kb.f32},
        [&]() -> SmallVector<Value> {
          Value idx = lse.rowOffset(kb, t.batch, t.head, t.row);
          Value l = LLVM::LoadOp::create(kb.b, kb.f32, kb.globalAt(lse.ptr, idx, kb.f32), 4);
          Value empty = kb.fcmp(arith::CmpFPredicate::OEQ, l, kb.cf32(-std::numeric_limits<double>::infinity()));
          return {kb.select(empty, inf, kb.fmul(l, kb.cf32(1.4426950408889634)))};
        },
        [&]() -> SmallVector<Value> { return {inf}; });
    Value w = t.workspaceRow(kb);
    auto store = [&] {
      storeF32(kb, lse2[0], lse2Ptr, w);
      storeF32(kb, sum, dPtr, w);
    };
    // With the 80-query tile the last CTA's rows run past seq_pad.
    if (cfg.blockM % BackwardKernelConfig::kRowTile != 0)
      kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, t.wsRow, t.seqPad), store);
    else
      store();
  });
}

/// Zeros the dQ accumulator's blocks of the CTA's 64 workspace rows (every
/// 64-column box; the post kernel's blocks, DqAccumLayout), which the main
/// kernel adds into: the runtime no longer zeroes the workspace with a
/// memset of its own (FA3 zeroes it in its pre-kernel too).
static void zeroDqAccum(KernelBuilder &kb, const BackwardRowArgs &a,
                        const BackwardKernelConfig &cfg, const RowThread &t) {
  const int64_t boxes = cfg.qkDim() / BackwardKernelConfig::kBox;
  const int64_t threads = BackwardKernelConfig::kAuxThreads;
  Value tiles = kb.divUI(t.seqPad, kb.c32(BackwardKernelConfig::kRowTile));
  Value first =
      kb.mul(kb.add(kb.mul(kb.add(kb.mul(t.batch, t.numHeads), t.head), tiles), kb.blockIdX()),
             kb.c32(boxes));
  auto v4 = VectorType::get({4}, kb.f32);
  Value zero = arith::ConstantOp::create(kb.b, v4, kb.b.getZeroAttr(v4));
  Value tid4 = kb.ext64(kb.mul(kb.threadIdX(), kb.c32(4)));
  Value base = kb.mul(kb.ext64(first), kb.c64(DqAccumLayout::kBlockFloats));
  // Consecutive threads store consecutive 16 bytes.
  for (int64_t i = 0; i < boxes * DqAccumLayout::kBlockFloats / (4 * threads); ++i) {
    Value at = kb.add(base, kb.add(kb.c64(i * 4 * threads), tid4));
    LLVM::StoreOp::create(kb.b, zero, kb.globalAt(a.accum, at, kb.f32), /*alignment=*/16);
  }
}

/// zeroDqAccum for the 80-query tile: the head's accumulator is seq_pad x
/// qkDim floats, contiguous; the CTA zeroes those of its 64 rows' worth
/// that lie before seq_pad (the last CTA's run past it).
static void zeroTransposedDqAccum(KernelBuilder &kb, const BackwardRowArgs &a,
                                  const BackwardKernelConfig &cfg, const RowThread &t) {
  const int64_t dim = cfg.qkDim(), threads = BackwardKernelConfig::kAuxThreads;
  const int64_t rowTile = BackwardKernelConfig::kRowTile;
  Value plane = t.plane(kb);
  Value firstRow = kb.mul(kb.blockIdX(), kb.c32(rowTile));
  Value base = kb.mul(kb.add(kb.mul(plane, kb.ext64(t.seqPad)), kb.ext64(firstRow)), kb.c64(dim));
  auto v4 = VectorType::get({4}, kb.f32);
  Value zero = arith::ConstantOp::create(kb.b, v4, kb.b.getZeroAttr(v4));
  Value tid4 = kb.mul(kb.threadIdX(), kb.c32(4));
  for (int64_t i = 0; i < rowTile * dim / (4 * threads); ++i) {
    Value local = kb.add(kb.c32(i * 4 * threads), tid4);
    Value row = kb.add(firstRow, kb.divUI(local, kb.c32(dim)));
    kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, row, t.seqPad), [&] {
      Value at = kb.add(base, kb.ext64(local));
      LLVM::StoreOp::create(kb.b, zero, kb.globalAt(a.accum, at, kb.f32), /*alignment=*/16);
    });
  }
}

static void emitPreKernel(KernelBuilder &kb, const BackwardRowArgs &a,
                          const BackwardKernelConfig &cfg) {
  if (!cfg.varlen) {
    RowThread t = RowThread::get(kb, a.seqQ, cfg);
    if (cfg.dqTransposed())
      zeroTransposedDqAccum(kb, a, cfg, t);
    else
      zeroDqAccum(kb, a, cfg, t);
    return emitPreRows(kb, a, cfg, t);
  }
  // Padded blocks of no sequence are never read: nothing to write but the
  // accumulator (the post kernel reads the trailing tokens' rows too).
  RowThread t = RowThread::getPadded(kb, a, /*withTail=*/false);
  zeroDqAccum(kb, a, cfg, t);
  kb.ifThen(t.owned, [&] { emitPreRows(kb, a, cfg, t); });
}

void mlir::fa::nvvm_kernel::buildBackwardPreKernel(OpBuilder &builder, Location loc,
                                                   Block &moduleBody,
                                                   const BackwardKernelConfig &cfg) {
  buildRowKernel(
      builder, loc, moduleBody, cfg.name() + "_pre",
      [&](BackwardRowArgs &a) { return backwardPreSignature(a, cfg.varlen); },
      [&](KernelBuilder &kb, const BackwardRowArgs &a) { emitPreKernel(kb, a, cfg); });
}

KernelSignature mlir::fa::nvvm_kernel::backwardPostSignature(BackwardRowArgs &a, bool varlen) {
  KernelSignature sig;
  sig.ptr(&a.accum, "dq_accum");
  declareStrided(sig, a.grad, "grad_query");
  sig.i32(&a.seqQ, sym::SeqQ);
  declareSequences(sig, a, varlen);
  return sig;
}

/// The four threads (`part` 0-3) of a row hold its 16-byte chunks spread
/// over them: register k of thread p is columns 8 k + 2 p and the next,
/// packed. Four shuffle rounds per group of four chunks hand thread p whole
/// chunks 4 m + p, stored with one 16-byte store each where `valid` (a
/// row's quad is valid or not as a whole; every lane takes part in the
/// shuffles). A warp's store then covers 64 contiguous bytes of each of 8
/// rows, where the 4-byte stores left every 32-byte sector half written.
static void storeQuadChunks(KernelBuilder &kb, ArrayRef<Value> packed, Value part, Value valid,
                            const std::function<Value(Value)> &chunkAddress) {
  Value quadBase = kb.sub(kb.laneId(), part);
  auto v4 = VectorType::get({4}, kb.i32);
  for (size_t m = 0; m * 4 < packed.size(); ++m) {
    SmallVector<Value> mine(4);
    for (int64_t r = 0; r < 4; ++r) {
      // Round r: thread p reads thread s = (p + r) % 4's register
      // 4 m + p, so thread s sends its register 4 m + (s - r) % 4.
      Value sendIndex = kb.andi(kb.sub(part, kb.c32(r)), kb.c32(3));
      Value send = packed[4 * m + 3];
      for (int64_t i = 2; i >= 0; --i)
        send = kb.select(kb.cmp(arith::CmpIPredicate::eq, sendIndex, kb.c32(i)), packed[4 * m + i],
                         send);
      Value src = kb.add(quadBase, kb.andi(kb.add(part, kb.c32(r)), kb.c32(3)));
      // What came from thread (p + r) % 4 is the chunk's pair of that thread.
      mine[r] = warpShuffle(kb, send, src, NVVM::ShflKind::idx);
    }
    // Order the four pairs by their source thread q = (p + r) % 4.
    Value chunk = LLVM::UndefOp::create(kb.b, v4);
    for (int64_t q = 0; q < 4; ++q) {
      Value v = mine[3];
      for (int64_t r = 2; r >= 0; --r)
        v = kb.select(kb.cmp(arith::CmpIPredicate::eq, kb.andi(kb.add(part, kb.c32(r)), kb.c32(3)),
                             kb.c32(q)),
                      mine[r], v);
      chunk = LLVM::InsertElementOp::create(kb.b, chunk, v, kb.c32(q));
    }
    kb.ifThen(valid, [&] {
      Value index = kb.add(kb.c32(4 * static_cast<int64_t>(m)), part);
      LLVM::StoreOp::create(kb.b, chunk, chunkAddress(index), /*alignment=*/16);
    });
  }
}

/// The post kernel of the 80-query tile (DqAccumLayout's transposed
/// blocks, whose 64-float runs are 8 x 8 squares of 8 columns x 8
/// queries): the CTA takes 64 rows' worth of the head's accumulator, each
/// thread half a square (4 columns x 8 queries, 32 contiguous floats in 8
/// 16-byte loads), and stores its 8 rows' 4 columns in 8 bytes each (the
/// square's other half, in the neighbouring lane, writes the rest of the
/// 16 bytes).
static void emitPostTransposed(KernelBuilder &kb, const BackwardRowArgs &a,
                               const BackwardKernelConfig &cfg) {
  using BK = BackwardKernelConfig;
  const int64_t dim = cfg.qkDim(), rows = cfg.blockM, boxes = dim / BK::kBox;
  assert(2 * dim == BK::kAuxThreads && "half a square per thread covers 64 rows' worth");
  const StridedArgs &dq = a.grad;
  RowThread t = RowThread::get(kb, a.seqQ, cfg);
  Value tid = kb.threadIdX();
  Value local = kb.add(kb.mul(kb.blockIdX(), kb.c32(BK::kRowTile * dim)), kb.mul(tid, kb.c32(32)));
  Value inPad =
      kb.cmp(arith::CmpIPredicate::slt, kb.ext64(local), kb.mul(kb.ext64(t.seqPad), kb.c64(dim)));
  // Square s = ((tile boxes + box) rows / 4 + ip) 4 + w (DqAccumLayout).
  Value square = kb.shru(local, kb.c32(6)), half = kb.andi(tid, kb.c32(1));
  Value w = kb.andi(square, kb.c32(3));
  Value ip = kb.remu(kb.shru(square, kb.c32(2)), kb.c32(rows / 4));
  Value tileBox = kb.divUI(square, kb.c32(rows));
  Value box = kb.remu(tileBox, kb.c32(boxes)), tile = kb.divUI(tileBox, kb.c32(boxes));
  Value q0 = kb.add(kb.mul(tile, kb.c32(rows)), kb.mul(kb.shru(ip, kb.c32(1)), kb.c32(8)));
  Value d0 = kb.add(kb.add(kb.mul(box, kb.c32(BK::kBox)), kb.mul(w, kb.c32(16))),
                    kb.add(kb.mul(kb.andi(ip, kb.c32(1)), kb.c32(8)), kb.mul(half, kb.c32(4))));
  Value src = kb.add(kb.mul(kb.mul(t.plane(kb), kb.ext64(t.seqPad)), kb.c64(dim)), kb.ext64(local));
  Value scale = kb.cf32(cfg.semantics.scale);
  Type elem = halfType(kb, cfg.elem);
  kb.ifThen(inPad, [&] {
    // Load j holds column 4 half + j / 2 of the square, queries 4 (j % 2) + [0, 4).
    auto v4 = VectorType::get({4}, kb.f32);
    SmallVector<Value> loads;
    for (int64_t j = 0; j < 8; ++j)
      loads.push_back(LLVM::LoadOp::create(
          kb.b, v4, kb.globalAt(a.accum, kb.add(src, kb.c64(4 * j)), kb.f32), /*alignment=*/16));
    Value aligned = rowsAligned(kb, dq, 2, 8);
    for (int64_t q = 0; q < 8; ++q) {
      Value row = kb.add(q0, kb.c32(q));
      kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, row, a.seqQ), [&] {
        // The row's 4 columns, scaled.
        SmallVector<Value> cols;
        for (int64_t col = 0; col < 4; ++col)
          cols.push_back(kb.fmul(
              LLVM::ExtractElementOp::create(kb.b, loads[2 * col + q / 4], kb.c32(q % 4)), scale));
        Value at = kb.add(dq.rowOffset(kb, t.batch, t.head, row), kb.ext64(d0));
        kb.ifThenElse(
            aligned,
            [&] {
              auto v2 = VectorType::get({2}, kb.i32);
              Value pair = LLVM::UndefOp::create(kb.b, v2);
              for (int64_t p = 0; p < 2; ++p)
                pair = LLVM::InsertElementOp::create(
                    kb.b, pair, packPair(kb, cols[2 * p], cols[2 * p + 1], cfg.elem), kb.c32(p));
              LLVM::StoreOp::create(kb.b, pair, kb.globalAt(dq.ptr, at, elem), /*alignment=*/8);
            },
            [&] {
              for (int64_t col = 0; col < 4; ++col)
                LLVM::StoreOp::create(kb.b, arith::TruncFOp::create(kb.b, elem, cols[col]),
                                      kb.globalAt(dq.ptr, kb.add(at, kb.c64(col)), elem), 2);
            });
      });
    }
  });
}

static void emitPostKernel(KernelBuilder &kb, const BackwardRowArgs &a,
                           const BackwardKernelConfig &cfg) {
  if (cfg.dqTransposed())
    return emitPostTransposed(kb, a, cfg);
  Value accPtr = a.accum;
  const StridedArgs &dq = a.grad;
  Value seqQ = a.seqQ;
  // A ragged batch: the trailing tokens' dQ is written too (0: no key
  // block adds into their rows).
  RowThread t =
      cfg.varlen ? RowThread::getPadded(kb, a, /*withTail=*/true) : RowThread::get(kb, seqQ, cfg);
  Value scale = kb.cf32(cfg.semantics.scale);
  // A dense batch with whole 16-byte chunks per row: every thread loads
  // (the workspace rows are padded, so in bounds), a quad's shuffles hand
  // each thread whole chunks, and the rows in seq_q take 16-byte stores.
  bool wideStores = !cfg.varlen && cfg.headDim % 32 == 0;
  auto body = [&] {
    // The accumulator is blocked (DqAccumLayout): row r of the tile is
    // register half h = (r % 16) / 8 of lane 4 (r % 8) + part of warp r / 16;
    // column pair 8 j + 2 part of a box is register pair 2 j + h.
    const int64_t boxes = cfg.qkDim() / BackwardKernelConfig::kBox;
    Value r = kb.shru(kb.threadIdX(), kb.c32(2));
    Value warp = kb.shru(r, kb.c32(4)), half = kb.andi(kb.shru(r, kb.c32(3)), kb.c32(1));
    Value thread = kb.add(kb.mul(warp, kb.c32(32)),
                          kb.add(kb.mul(kb.andi(r, kb.c32(7)), kb.c32(4)), t.part));
    Value tiles = kb.divUI(t.seqPad, kb.c32(BackwardKernelConfig::kRowTile));
    Value tileBlock = kb.mul(kb.add(kb.mul(kb.add(kb.mul(t.batch, t.numHeads), t.head), tiles),
                                    kb.blockIdX()),
                             kb.c32(boxes));
    Value dqRow = dq.rowOffset(kb, t.batch, t.head, t.row);
    Value part = kb.ext64(kb.mul(t.part, kb.c32(2)));
    Type elem = halfType(kb, cfg.elem);
    auto v2 = VectorType::get({2}, kb.f32);
    // Every load is issued before the first store: dQ and the accumulator
    // may alias as far as LLVM knows, so interleaved they would run one
    // round trip at a time.
    SmallVector<std::pair<Value, Value>> pairs; // scaled f32
    for (int64_t c = 0; c < cfg.headDim; c += 8) {
      int64_t box = c / 64, j = (c % 64) / 8;
      Value block = kb.ext64(kb.add(tileBlock, kb.c32(box)));
      Value pairIndex = kb.add(kb.mul(kb.add(kb.c32(2 * j), half), kb.c32(128)), thread);
      Value at = kb.add(kb.mul(block, kb.c64(DqAccumLayout::kBlockFloats)),
                        kb.ext64(kb.mul(pairIndex, kb.c32(2))));
      Value pair = LLVM::LoadOp::create(kb.b, v2, kb.globalAt(accPtr, at, kb.f32), /*alignment=*/8);
      auto scaled = [&](int64_t e) {
        return kb.fmul(LLVM::ExtractElementOp::create(kb.b, pair, kb.c32(e)), scale);
      };
      pairs.push_back({scaled(0), scaled(1)});
    }
    // Columns 2 part + 8 k and the next: one 4-byte store where dQ's rows
    // allow it.
    auto at = [&](size_t k) { return kb.add(dqRow, kb.add(part, kb.c64(8 * k))); };
    auto pairStores = [&] {
      kb.ifThenElse(
          rowsAligned(kb, dq, 2, 4),
          [&] {
            for (size_t k = 0; k < pairs.size(); ++k)
              LLVM::StoreOp::create(kb.b, packPair(kb, pairs[k].first, pairs[k].second, cfg.elem),
                                    kb.globalAt(dq.ptr, at(k), elem), 4);
          },
          [&] {
            for (size_t k = 0; k < pairs.size(); ++k)
              for (int64_t e = 0; e < 2; ++e)
                LLVM::StoreOp::create(
                    kb.b, arith::TruncFOp::create(kb.b, elem, e ? pairs[k].second : pairs[k].first),
                    kb.globalAt(dq.ptr, kb.add(at(k), kb.c64(e)), elem), 2);
          });
    };
    if (!wideStores)
      return pairStores();
    kb.ifThenElse(
        rowsAligned(kb, dq, 2, 16),
        [&] {
          SmallVector<Value> packed;
          for (auto [lo, hi] : pairs)
            packed.push_back(packPair(kb, lo, hi, cfg.elem));
          storeQuadChunks(kb, packed, t.part, t.valid, [&](Value chunk) {
            return kb.globalAt(dq.ptr, kb.add(dqRow, kb.mul(kb.ext64(chunk), kb.c64(8))), elem);
          });
        },
        [&] { kb.ifThen(t.valid, pairStores); });
  };
  if (wideStores)
    body();
  else
    kb.ifThen(t.valid, body);
}

void mlir::fa::nvvm_kernel::buildBackwardPostKernel(OpBuilder &builder, Location loc,
                                                    Block &moduleBody,
                                                    const BackwardKernelConfig &cfg) {
  buildRowKernel(
      builder, loc, moduleBody, cfg.name() + "_post",
      [&](BackwardRowArgs &a) { return backwardPostSignature(a, cfg.varlen); },
      [&](KernelBuilder &kb, const BackwardRowArgs &a) { emitPostKernel(kb, a, cfg); });
}

KernelSignature mlir::fa::nvvm_kernel::backwardBiasGradSignature(BackwardRowArgs &a) {
  KernelSignature sig;
  sig.ptr(&a.accum, "dbias_accum");
  declareStrided(sig, a.grad, "grad_bias", "seq_q");
  sig.i32(&a.seqQ, sym::SeqQ);
  sig.i32(&a.seqK, sym::SeqK);
  return sig;
}

/// One CTA per row of grad_bias: row blockIdx.x of head blockIdx.y of
/// batch blockIdx.z (extents 1 where the bias broadcasts), the threads
/// striding over the keys, four loads in flight before their stores.
static void emitBiasGradKernel(KernelBuilder &kb, const BackwardRowArgs &a,
                               const BackwardKernelConfig &cfg) {
  Value accPtr = a.accum;
  const StridedArgs &dbias = a.grad;
  Value seqQ = a.seqQ, seqK = a.seqK;
  Value row = kb.blockIdX(), head = kb.blockIdY(), batch = kb.blockIdZ();
  Value plane = kb.add(kb.mul(kb.ext64(batch), kb.ext64(kb.gridDimY())), kb.ext64(head));
  Value src = kb.mul(kb.add(kb.mul(plane, kb.ext64(seqQ)), kb.ext64(row)), kb.ext64(seqK));
  Value dst = dbias.rowOffset(kb, batch, head, row);
  Type elem = biasElementType(kb, *cfg.bias);
  constexpr int64_t kUnroll = 4, kThreads = BackwardKernelConfig::kAuxThreads;
  Value perStep = kb.c32(kUnroll * kThreads);
  Value steps = kb.divUI(kb.add(seqK, kb.c32(kUnroll * kThreads - 1)), perStep);
  Value tid = kb.threadIdX();
  kb.forLoop(kb.c32(0), steps, {}, [&](Value step, ValueRange) {
    SmallVector<std::pair<Value, Value>> keys; // (key, in range)
    SmallVector<Value> values;
    for (int64_t u = 0; u < kUnroll; ++u) {
      Value key = kb.add(kb.mul(step, perStep), kb.add(kb.c32(u * kThreads), tid));
      Value inRange = kb.cmp(arith::CmpIPredicate::slt, key, seqK);
      // Keys past seq_k read the row's first element instead.
      Value at = kb.add(src, kb.ext64(kb.select(inRange, key, kb.c32(0))));
      values.push_back(loadF32(kb, accPtr, at, kb.f32, 4));
      keys.push_back({key, inRange});
    }
    for (int64_t u = 0; u < kUnroll; ++u)
      kb.ifThen(keys[u].second, [&] {
        Value v = elem == kb.f32 ? values[u] : arith::TruncFOp::create(kb.b, elem, values[u]);
        Value at = kb.add(dst, kb.ext64(keys[u].first));
        LLVM::StoreOp::create(kb.b, v, kb.globalAt(dbias.ptr, at, elem),
                              biasTypeBytes(*cfg.bias));
      });
    return SmallVector<Value>{};
  });
}

void mlir::fa::nvvm_kernel::buildBackwardBiasGradKernel(OpBuilder &builder, Location loc,
                                                        Block &moduleBody,
                                                        const BackwardKernelConfig &cfg) {
  buildRowKernel(builder, loc, moduleBody, cfg.name() + "_dbias", backwardBiasGradSignature,
                 [&](KernelBuilder &kb, const BackwardRowArgs &a) {
                   emitBiasGradKernel(kb, a, cfg);
                 });
}
