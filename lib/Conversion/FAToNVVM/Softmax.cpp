//===- Softmax.cpp - Online softmax on wgmma accumulator fragments --------===//
//
// A thread of an m64nN accumulator holds two rows (lane/4 and lane/4 + 8 of
// its warp's 16) and N/4 columns of each; the 4 lanes of a quad hold the
// same rows, so a row reduction is a local tree plus two butterfly shuffles.
// P = exp2(s * c - m * c) is one FFMA and one ex2.approx, with c = scale *
// log2(e) on raw scores or 1 on scores already in the log2 domain. The running sum stays per thread until the epilogue.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include <limits>

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

static Value shuffleXor(KernelBuilder &kb, Value v, int64_t offset) {
  return NVVM::ShflOp::create(kb.b, kb.f32, kb.c32(-1), v, kb.c32(offset), kb.c32(0x1f),
                              NVVM::ShflKind::bfly, UnitAttr());
}

Value mlir::fa::nvvm_kernel::quadReduceMax(KernelBuilder &kb, Value v) {
  v = kb.fmax(v, shuffleXor(kb, v, 1));
  return kb.fmax(v, shuffleXor(kb, v, 2));
}

Value mlir::fa::nvvm_kernel::quadReduceSum(KernelBuilder &kb, Value v) {
  v = kb.fadd(v, shuffleXor(kb, v, 1));
  return kb.fadd(v, shuffleXor(kb, v, 2));
}

/// Balanced tree so that the reduction's dependency chain is log2(n) long.
static Value treeReduce(KernelBuilder &kb, SmallVector<Value> vals, bool isMax) {
  while (vals.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < vals.size(); i += 2)
      next.push_back(isMax ? kb.fmax(vals[i], vals[i + 1]) : kb.fadd(vals[i], vals[i + 1]));
    if (vals.size() % 2)
      next.push_back(vals.back());
    vals = std::move(next);
  }
  return vals.front();
}

void mlir::fa::nvvm_kernel::maskScores(KernelBuilder &kb, SmallVectorImpl<Value> &s,
                                       Value colLo[2], Value colHi[2]) {
  Value negInf = kb.cf32(-std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < s.size(); ++i) {
    Value col = kb.c32(fragColOffset(i));
    Value ok = kb.cmp(arith::CmpIPredicate::slt, col, colHi[fragRowHalf(i)]);
    if (colLo[fragRowHalf(i)])
      ok = kb.andi(ok, kb.cmp(arith::CmpIPredicate::sge, col, colLo[fragRowHalf(i)]));
    s[i] = kb.select(ok, s[i], negInf);
  }
}

/// The values of row half `r` of S.
static SmallVector<Value> rowOf(ArrayRef<Value> s, int r) {
  SmallVector<Value> row;
  for (size_t i = 0; i < s.size(); ++i)
    if (fragRowHalf(i) == r)
      row.push_back(s[i]);
  return row;
}

/// S -> P = exp2(s * factor[row] + pOffset[row] + log2Shift), and the rows'
/// running sums (rescaled unless `first`).
static void exponentiateAndSum(KernelBuilder &kb, SmallVectorImpl<Value> &s, RowState &state,
                               Value factor[2], Value negScaledMax[2], Value rescale[2],
                               bool first, int64_t log2Shift) {
  // P alone takes the shift; the rescale of O and the sums stays exact.
  Value pOffset[2] = {negScaledMax[0], negScaledMax[1]};
  if (log2Shift)
    for (Value &v : pOffset)
      v = kb.fadd(v, kb.cf32(static_cast<double>(log2Shift)));
  for (size_t i = 0; i < s.size(); ++i)
    s[i] = kb.exp2(kb.fma(s[i], factor[fragRowHalf(i)], pOffset[fragRowHalf(i)]));
  for (int r = 0; r < 2; ++r) {
    Value rowSum = treeReduce(kb, rowOf(s, r), /*isMax=*/false);
    state.sum[r] = first ? rowSum : kb.fma(state.sum[r], rescale[r], rowSum);
  }
}

void mlir::fa::nvvm_kernel::softmaxStep(KernelBuilder &kb, SmallVectorImpl<Value> &s,
                                        RowState &state, Value factor, Value rescale[2],
                                        bool first, int64_t log2Shift) {
  Value negInf = kb.cf32(-std::numeric_limits<double>::infinity());
  Value zero = kb.cf32(0.0);
  Value negScaledMax[2];
  for (int r = 0; r < 2; ++r) {
    Value mx = quadReduceMax(kb, treeReduce(kb, rowOf(s, r), /*isMax=*/true));
    Value mNew = first ? mx : kb.fmax(state.max[r], mx);
    // A row with every score masked so far keeps max -inf; subtract 0 then,
    // so that exp2 gives 0 rather than NaN.
    Value allMasked = kb.fcmp(arith::CmpFPredicate::OEQ, mNew, negInf);
    Value scaled = kb.select(allMasked, zero, kb.fmul(mNew, factor));
    negScaledMax[r] = arith::NegFOp::create(kb.b, scaled);
    if (!first)
      rescale[r] = kb.exp2(kb.fma(state.max[r], factor, negScaledMax[r]));
    state.max[r] = mNew;
  }
  Value factors[2] = {factor, factor};
  exponentiateAndSum(kb, s, state, factors, negScaledMax, rescale, first, log2Shift);
}

void mlir::fa::nvvm_kernel::softmaxStepLog2Max(KernelBuilder &kb, SmallVectorImpl<Value> &s,
                                               RowState &state, Value factor[2],
                                               Value rescale[2], bool first,
                                               int64_t log2Shift) {
  Value negInf = kb.cf32(-std::numeric_limits<double>::infinity());
  Value zero = kb.cf32(0.0);
  Value negMax[2];
  for (int r = 0; r < 2; ++r) {
    // factor > 0: the row max of s * factor is the scaled row max.
    Value mx = kb.fmul(quadReduceMax(kb, treeReduce(kb, rowOf(s, r), /*isMax=*/true)),
                       factor[r]);
    Value mNew = first ? mx : kb.fmax(state.max[r], mx);
    Value allMasked = kb.fcmp(arith::CmpFPredicate::OEQ, mNew, negInf);
    negMax[r] = arith::NegFOp::create(kb.b, kb.select(allMasked, zero, mNew));
    if (!first)
      rescale[r] = kb.exp2(kb.fadd(state.max[r], negMax[r]));
    state.max[r] = mNew;
  }
  exponentiateAndSum(kb, s, state, factor, negMax, rescale, first, log2Shift);
}

void mlir::fa::nvvm_kernel::rescaleRows(KernelBuilder &kb, SmallVectorImpl<Value> &o,
                                        Value factor[2]) {
  for (size_t i = 0; i < o.size(); ++i)
    o[i] = kb.fmul(o[i], factor[fragRowHalf(i)]);
}
