//===- VarlenBackward.cpp - Sequences of a ragged batch's backward --------===//
//
// fa.attention_varlen_grad runs the backward's three kernels over padded
// blocks: sequence b's blocks of `rows` rows start at padded block
//   first(b) = (cu[b] + rows b) / rows,
// which grows by at least ceildiv(len_b, rows) per sequence (and by one
// more than floor(len_b / rows)), so no padded block holds rows of two
// sequences and ceildiv(total, rows) + num_seqs + 1 blocks cover every
// sequence and the trailing tokens. The workspace rows (LSE2, D, the dQ
// accumulator) are laid out by padded query block, so a tile of 64 query
// rows of one sequence is one contiguous block of the accumulator, as in
// the dense kernels; the grids are the padded block counts, each CTA
// finding its sequence by a warp-wide search (FA3's varlen backward pads
// its accumulator the same way: seqlen + 128 b rounded down).
//
//===----------------------------------------------------------------------===//
#include "BackwardParts.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

static Value loadBound(KernelBuilder &kb, Value cu, Value index) {
  return LLVM::LoadOp::create(kb.b, kb.i32, kb.globalAt(cu, kb.ext64(index), kb.i32), 4);
}

/// Sequence `seq`'s first padded block, from its first row.
static Value firstBlockOf(KernelBuilder &kb, Value start, Value seq, int64_t rows) {
  return kb.divUI(kb.add(start, kb.mul(seq, kb.c32(rows))), kb.c32(rows));
}

PaddedSequence mlir::fa::nvvm_kernel::findPaddedSequence(KernelBuilder &kb, Value cu, Value numSeqs,
                                                         Value total, int64_t rows, Value x,
                                                         bool withTail) {
  // The first blocks grow with the sequence, so the sequences whose first
  // block is <= x are a prefix: count them, 32 per round trip (lane l of
  // step i loads sequence 32 i + l's start; a ballot counts the hits).
  Value candidates = withTail ? kb.add(numSeqs, kb.c32(1)) : numSeqs;
  Value lane = kb.laneId();
  Value steps = kb.divUI(kb.add(candidates, kb.c32(31)), kb.c32(32));
  Value hits = kb.forLoop(kb.c32(0), steps, {kb.c32(0)}, [&](Value i, ValueRange acc) {
    Value seq = kb.add(kb.mul(i, kb.c32(32)), lane);
    Value inRange = kb.cmp(arith::CmpIPredicate::slt, seq, candidates);
    Value start = loadBound(kb, cu, kb.minSI(seq, numSeqs));
    Value hit =
        kb.andi(inRange, kb.cmp(arith::CmpIPredicate::sle, firstBlockOf(kb, start, seq, rows), x));
    Value ballot =
        NVVM::VoteSyncOp::create(kb.b, kb.i32, kb.c32(-1), hit, NVVM::VoteSyncKind::ballot);
    return SmallVector<Value>{kb.add(acc[0], LLVM::CtPopOp::create(kb.b, ballot))};
  })[0];
  PaddedSequence s;
  s.seq = kb.sub(hits, kb.c32(1));
  Value found = kb.cmp(arith::CmpIPredicate::sge, s.seq, kb.c32(0));
  Value at = kb.maxSI(s.seq, kb.c32(0));
  Value start = loadBound(kb, cu, kb.minSI(at, numSeqs));
  // The trailing tokens (sequence num_seqs) end at the total.
  Value last = kb.cmp(arith::CmpIPredicate::sge, at, numSeqs);
  Value end = kb.select(last, total, loadBound(kb, cu, kb.minSI(kb.add(at, kb.c32(1)), numSeqs)));
  s.start = start;
  s.len = kb.select(found, kb.sub(end, start), kb.c32(0));
  s.firstPaddedBlock = firstBlockOf(kb, start, at, rows);
  s.block = kb.sub(x, s.firstPaddedBlock);
  s.valid = kb.andi(found, kb.cmp(arith::CmpIPredicate::slt, kb.mul(s.block, kb.c32(rows)), s.len));
  return s;
}

Value mlir::fa::nvvm_kernel::paddedBlocks(KernelBuilder &kb, Value total, Value numSeqs,
                                          int64_t rows) {
  Value blocks = kb.divUI(kb.add(total, kb.c32(rows - 1)), kb.c32(rows));
  return kb.add(kb.add(blocks, numSeqs), kb.c32(1));
}

BundleExpr mlir::fa::nvvm_kernel::paddedBlocksExpr(const BundleExpr &total, int64_t rows) {
  return ceilDiv(total, rows) + sym::NumSeqs + 1;
}
