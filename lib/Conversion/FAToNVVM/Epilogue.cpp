//===- Epilogue.cpp - Normalise O, store O and the log-sum-exp ------------===//
#include "KernelParts.h"

#include <limits>

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

/// O *= outScale / row sum (outScale null: 1), and (withLse) the
/// natural-log LSE of the two rows, whose P were scaled by 2^log2Shift.
static void normalizeRows(KernelBuilder &kb, SmallVectorImpl<Value> &o, RowState &state,
                          Value exponentFactor, bool withLse, Value lse[2],
                          int64_t log2Shift = 0, Value outScale = Value()) {
  Value zero = kb.cf32(0.0);
  Value negInf = kb.cf32(-std::numeric_limits<double>::infinity());
  Value inv[2];
  for (int r = 0; r < 2; ++r) {
    Value sum = quadReduceSum(kb, state.sum[r]);
    // Fully masked rows (sum 0): output 0 and log-sum-exp -inf, never NaN.
    Value empty = kb.fcmp(arith::CmpFPredicate::OEQ, sum, zero);
    Value rcp = kb.rcp(sum);
    inv[r] = kb.select(empty, zero, outScale ? kb.fmul(rcp, outScale) : rcp);
    if (withLse) {
      Value safeSum = kb.select(empty, kb.cf32(1.0), sum);
      Value safeMax = kb.select(empty, zero, state.max[r]);
      Value log2Sum = kb.log2(safeSum);
      if (log2Shift)
        log2Sum = kb.fadd(log2Sum, kb.cf32(-static_cast<double>(log2Shift)));
      Value lse2 = kb.fma(safeMax, exponentFactor, log2Sum);
      lse[r] = kb.select(empty, negInf, kb.fmul(lse2, kb.cf32(0.6931471805599453)));
    }
  }
  rescaleRows(kb, o, inv);
}

/// normalizeRows with attention sinks: the sink joins each row's
/// normalizer, l' = l + exp(sink - m) in the log2 domain the kernel keeps
/// (m = max * exponentFactor, l the row sum relative to it; the sink is a
/// natural logit). Both terms are taken relative to M = max(m, sink) so
/// that a sink far above the scores neither overflows nor loses the LSE:
/// O = acc 2^(m - M) / l', LSE = ln 2 (M + log2 l'),
/// l' = l 2^(m - M) + 2^(sink - M). A row without visible keys (l = 0)
/// gives O = 0 and LSE = sink, never NaN (also for a sink of -inf).
static void normalizeRowsWithSink(KernelBuilder &kb, SmallVectorImpl<Value> &o, RowState &state,
                                  Value exponentFactor, bool withLse, Value lse[2], Value sink) {
  constexpr double kLog2E = 1.4426950408889634, kLn2 = 0.6931471805599453;
  Value zero = kb.cf32(0.0);
  Value sink2 = kb.fmul(sink, kb.cf32(kLog2E));
  auto sub = [&](Value a, Value c) { return arith::SubFOp::create(kb.b, a, c).getResult(); };
  Value inv[2];
  for (int r = 0; r < 2; ++r) {
    Value sum = quadReduceSum(kb, state.sum[r]);
    Value empty = kb.fcmp(arith::CmpFPredicate::OEQ, sum, zero);
    // Empty rows' max is -inf: take the sink's place (their result is
    // selected below) so that nothing computes inf - inf.
    Value rowMax = kb.select(empty, zero, kb.fmul(state.max[r], exponentFactor));
    Value top = kb.select(empty, zero, kb.fmax(rowMax, sink2));
    Value rowShare = kb.exp2(sub(rowMax, top));
    Value sinkShare = kb.exp2(sub(sink2, top));
    Value total = kb.fma(sum, rowShare, sinkShare);
    inv[r] = kb.select(empty, zero, kb.fmul(rowShare, kb.rcp(total)));
    if (withLse) {
      Value lse2 = kb.fadd(top, kb.log2(total));
      lse[r] = kb.select(empty, sink, kb.fmul(lse2, kb.cf32(kLn2)));
    }
  }
  rescaleRows(kb, o, inv);
}

Value mlir::fa::nvvm_kernel::outputRowIndex(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                                            const RowCoords &c) {
  return cfg.bshd ? kb.add(kb.mul(kb.add(kb.mul(c.batch, c.seqQ), c.query), c.numHeads), c.head)
                  : kb.add(kb.mul(kb.add(kb.mul(c.batch, c.numHeads), c.head), c.seqQ), c.query);
}

Value mlir::fa::nvvm_kernel::lseIndex(KernelBuilder &kb, const RowCoords &c) {
  return kb.add(kb.mul(kb.add(kb.mul(c.batch, c.numHeads), c.head), c.seqQ), c.query);
}

/// Stores this thread's half-row pairs of fragment row half `r` of O
/// (bf16/f16) from element `first` of `outPtr`.
static void storeOutputRow(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                           SmallVectorImpl<Value> &o, int r, Value outPtr, Value first) {
  ElemType out = cfg.outElem();
  Type half = out == ElemType::BF16 ? Type(kb.b.getBF16Type()) : Type(kb.b.getF16Type());
  for (size_t i = 0; i < o.size(); i += 2) {
    // Columns of the zero-filled padding up to whole 64-column boxes.
    if (fragRowHalf(i) != r || fragColOffset(i) >= cfg.headDimV)
      continue;
    Value packed = packPair(kb, o[i], o[i + 1], out);
    Value p = kb.globalAt(outPtr, kb.add(first, kb.c64(fragColOffset(i))), half);
    LLVM::StoreOp::create(kb.b, packed, p, /*alignment=*/4);
  }
}

void mlir::fa::nvvm_kernel::storeEpilogue(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                                          SmallVectorImpl<Value> &o, RowState &state,
                                          const EpilogueArgs &args) {
  Value lse[2];
  if (args.sinksPtr) {
    // (FP8 and descales are refused with sinks: no P shift, no outScale.)
    Value sink = LLVM::LoadOp::create(kb.b, kb.f32,
                                      kb.globalAt(args.sinksPtr, kb.ext64(args.head), kb.f32), 4);
    normalizeRowsWithSink(kb, o, state, args.exponentFactor, cfg.returnLse, lse, sink);
  } else {
    normalizeRows(kb, o, state, args.exponentFactor, cfg.returnLse, lse,
                  cfg.isFp8() ? AttentionKernelConfig::kFp8PShift : 0, args.outScale);
  }

  Value colBase = kb.ext64(kb.mul(kb.andi(args.lane, kb.c32(3)), kb.c32(2)));
  RowCoords coords{kb.ext64(args.batch), kb.ext64(args.head), kb.ext64(args.numHeads),
                   kb.ext64(args.rowBase ? args.packedSeqQ : args.seqQ), Value()};
  Value isQuadLeader = kb.cmp(arith::CmpIPredicate::eq, kb.andi(args.lane, kb.c32(3)), kb.c32(0));
  for (int r = 0; r < 2; ++r) {
    Value row = kb.add(args.row0, kb.c32(8 * r));
    Value valid = kb.cmp(arith::CmpIPredicate::slt, row, args.seqQ);
    if (args.rowsMayBeNegative)
      valid = kb.andi(valid, kb.cmp(arith::CmpIPredicate::sge, row, kb.c32(0)));
    kb.ifThen(valid, [&] {
      RowCoords c = coords;
      c.query = kb.ext64(args.rowBase ? kb.add(args.rowBase, row) : row);
      Value rowOff = kb.mul(outputRowIndex(kb, cfg, c), kb.c64(cfg.headDimV));
      storeOutputRow(kb, cfg, o, r, args.outPtr, kb.add(rowOff, colBase));
      if (cfg.returnLse) {
        kb.ifThen(isQuadLeader, [&] {
          Value idx = lseIndex(kb, c);
          Value p = kb.globalAt(args.lsePtr, idx, kb.f32);
          LLVM::StoreOp::create(kb.b, lse[r], p, /*alignment=*/4);
        });
      }
    });
  }
}

/// Packed row half `r` of a CTA that is the only split: O and LSE where the
/// combine kernel would write them.
static void storeFinalPackedRow(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                                SmallVectorImpl<Value> &o, int r, Value lse,
                                const PartialEpilogueArgs &args, Value head, Value numHeads,
                                Value query) {
  Value colBase = kb.ext64(kb.mul(kb.andi(args.lane, kb.c32(3)), kb.c32(2)));
  RowCoords c{kb.ext64(args.batch), kb.ext64(head), kb.ext64(numHeads), kb.ext64(args.seqQ),
              kb.ext64(query)};
  Value rowOff = kb.mul(outputRowIndex(kb, cfg, c), kb.c64(cfg.headDimV));
  storeOutputRow(kb, cfg, o, r, args.outPtr, kb.add(rowOff, colBase));
  if (!args.lsePtr)
    return;
  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, kb.andi(args.lane, kb.c32(3)), kb.c32(0)), [&] {
    Value idx = lseIndex(kb, c);
    LLVM::StoreOp::create(kb.b, lse, kb.globalAt(args.lsePtr, idx, kb.f32), /*alignment=*/4);
  });
}

void mlir::fa::nvvm_kernel::storePartialEpilogue(KernelBuilder &kb,
                                                 const AttentionKernelConfig &cfg,
                                                 SmallVectorImpl<Value> &o, RowState &state,
                                                 const PartialEpilogueArgs &args) {
  Value lse[2];
  normalizeRows(kb, o, state, args.exponentFactor, /*withLse=*/true, lse);
  Value colBase = kb.ext64(kb.mul(kb.andi(args.lane, kb.c32(3)), kb.c32(2)));
  Value numHeads = kb.mul(kb.gridDimY(), args.group);
  Value isQuadLeader = kb.cmp(arith::CmpIPredicate::eq, kb.andi(args.lane, kb.c32(3)), kb.c32(0));
  Value packedRows = kb.mul(args.seqQ, args.group);
  // One split: the final O and LSE, and the combine is not launched.
  Value single = kb.cmp(arith::CmpIPredicate::eq, args.numSplits, kb.c32(1));
  for (int r = 0; r < 2; ++r) {
    Value row = kb.add(args.row0, kb.c32(8 * r));
    kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, row, packedRows), [&] {
      Value query = kb.divUI(row, args.group);
      Value head = kb.add(kb.mul(args.kvHead, args.group), kb.remu(row, args.group));
      kb.ifThenElse(
          single,
          [&] { storeFinalPackedRow(kb, cfg, o, r, lse[r], args, head, numHeads, query); },
          [&] {
      Value row64 = partialRowIndex(kb, args.split, args.numBatch, args.batch, numHeads, head,
                                    args.seqQ, query);
      Value first = kb.add(kb.mul(row64, kb.c64(cfg.headDimV)), colBase);
      auto v2 = VectorType::get({2}, kb.f32);
      for (size_t i = 0; i < o.size(); i += 2) {
        if (fragRowHalf(i) != r || fragColOffset(i) >= cfg.headDimV)
          continue;
        Value pair = LLVM::UndefOp::create(kb.b, v2);
        pair = LLVM::InsertElementOp::create(kb.b, pair, o[i], kb.c32(0));
        pair = LLVM::InsertElementOp::create(kb.b, pair, o[i + 1], kb.c32(1));
        Value p = kb.globalAt(args.oPartial, kb.add(first, kb.c64(fragColOffset(i))), kb.f32);
        LLVM::StoreOp::create(kb.b, pair, p, /*alignment=*/8);
      }
      kb.ifThen(isQuadLeader, [&] {
        LLVM::StoreOp::create(kb.b, lse[r], kb.globalAt(args.lsePartial, row64, kb.f32),
                              /*alignment=*/4);
      });
          });
    });
  }
}
