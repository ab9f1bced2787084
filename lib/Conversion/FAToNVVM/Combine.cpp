//===- Combine.cpp - fa.combine's merge, and its standalone kernel --------===//
//
// fa.combine's rule, shared by the split-KV sequences' `_combine` kernel
// (SplitKV.cpp) and the standalone kernel of an fa.combine op (ring
// attention's merge of per-device partials):
//
//   L = log sum_c exp(L_c),  O = sum_c exp(L_c - L) O_c
//
// A partial with L_c = -inf is selected out (never multiplied: its O_c may
// hold anything, NaN included), so a row no split saw gives O = 0 and
// L = -inf, never NaN. One warp per row, the lanes across the columns.
//
// The standalone kernel takes partial_output [splits, rows, dim] and
// partial_lse [splits, rows] (f32, through their strides) and writes
// output [rows, dim] (f32, f16 or bf16) and lse [rows] (f32).
//
//===----------------------------------------------------------------------===//
#include "KernelParts.h"
#include "KernelSignature.h"

#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;
using llvm::json::Array;
using llvm::json::Object;

namespace {

/// Lane l holds columns l, l + 32, ...
Value laneColumn(KernelBuilder &kb, Value lane, int64_t k) { return kb.add(lane, kb.c32(32 * k)); }
int64_t columnsPerLane(int64_t dim) { return (dim + 31) / 32; }

} // namespace

MergedRow mlir::fa::nvvm_kernel::mergePartialRow(KernelBuilder &kb, const PartialRows &p,
                                                 Value lane, int64_t dim) {
  Value negInf = kb.cf32(-std::numeric_limits<double>::infinity());
  Value log2e = kb.cf32(1.4426950408889634), ln2 = kb.cf32(0.6931471805599453);
  auto partialLse = [&](Value c) {
    return LLVM::LoadOp::create(kb.b, kb.f32, kb.globalAt(p.lsePartial, p.lseAt(c), kb.f32), 4)
        .getResult();
  };
  // The max of the finite LSEs keeps exp() in range; with none (an empty
  // row) a 0 stands in so that no -inf - -inf is formed.
  Value max = kb.forLoop(kb.c32(0), p.numSplits, {negInf}, [&](Value c, ValueRange st) {
    return SmallVector<Value>{kb.fmax(st[0], partialLse(c))};
  })[0];
  Value empty = kb.fcmp(arith::CmpFPredicate::OEQ, max, negInf);
  Value safeMax = kb.select(empty, kb.cf32(0.0), max);
  Value sum = kb.forLoop(kb.c32(0), p.numSplits, {kb.cf32(0.0)}, [&](Value c, ValueRange st) {
    Value e = kb.exp2(kb.fmul(arith::SubFOp::create(kb.b, partialLse(c), safeMax), log2e));
    return SmallVector<Value>{kb.fadd(st[0], e)};
  })[0];
  MergedRow merged;
  merged.lse = kb.select(empty, negInf, kb.fma(kb.log2(sum), ln2, safeMax));
  Value safeLse = kb.select(empty, kb.cf32(0.0), merged.lse);

  const int64_t perLane = columnsPerLane(dim);
  SmallVector<Value> zeros(perLane, kb.cf32(0.0));
  // Lanes past the last column read it again (in bounds) and store nothing.
  Value lastCol = kb.c32(dim - 1);
  merged.columns = kb.forLoop(kb.c32(0), p.numSplits, zeros, [&](Value c, ValueRange st) {
    Value l = partialLse(c);
    Value skip = kb.fcmp(arith::CmpFPredicate::OEQ, l, negInf);
    Value w = kb.exp2(kb.fmul(arith::SubFOp::create(kb.b, l, safeLse), log2e));
    Value rowBase = p.oRowAt(c);
    SmallVector<Value> next;
    for (int64_t k = 0; k < perLane; ++k) {
      Value col = kb.ext64(kb.minSI(laneColumn(kb, lane, k), lastCol));
      Value o = LLVM::LoadOp::create(kb.b, kb.f32,
                                     kb.globalAt(p.oPartial, kb.add(rowBase, col), kb.f32), 4);
      next.push_back(kb.select(skip, st[k], kb.fma(w, o, st[k])));
    }
    return next;
  });
  return merged;
}

void mlir::fa::nvvm_kernel::storeMergedRow(KernelBuilder &kb, const MergedRow &merged, Value lane,
                                           int64_t dim, Value out, Value rowOffset, Type outType,
                                           Value lsePtr, function_ref<Value()> lseAt) {
  int64_t bytes = outType.getIntOrFloatBitWidth() / 8;
  for (int64_t k = 0; k < columnsPerLane(dim); ++k) {
    auto store = [&] {
      Value idx = kb.add(rowOffset, kb.ext64(laneColumn(kb, lane, k)));
      Value v = merged.columns[k];
      if (outType != kb.f32) // rounded once, after the merge
        v = arith::TruncFOp::create(kb.b, outType, v);
      LLVM::StoreOp::create(kb.b, v, kb.globalAt(out, idx, outType), bytes);
    };
    if (32 * (k + 1) <= dim)
      store();
    else
      kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, laneColumn(kb, lane, k), kb.c32(dim)), store);
  }
  if (lsePtr)
    kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, lane, kb.c32(0)), [&] {
      LLVM::StoreOp::create(kb.b, merged.lse, kb.globalAt(lsePtr, lseAt(), kb.f32), 4);
    });
}

//===----------------------------------------------------------------------===//
// The standalone kernel of an fa.combine op
//===----------------------------------------------------------------------===//

const char *CombineKernelConfig::outName() const {
  switch (out) {
  case CombineOut::F32: return "f32";
  case CombineOut::F16: return "f16";
  case CombineOut::BF16: return "bf16";
  }
  return "?";
}

std::string CombineKernelConfig::kernelName() const {
  return "fa_combine_d" + std::to_string(dim) + "_" + outName();
}

namespace {

/// The kernel's parameters after the four pointers and two counts, in this
/// order: the partials' and the output's strides (elements), so views work.
constexpr StringLiteral kStrideParams[][2] = {{"partial_output", "split"},
                                              {"partial_output", "row"},
                                              {"partial_lse", "split"},
                                              {"partial_lse", "row"},
                                              {"output", "row"}};

struct StandaloneCombineArgs {
  Value oPartial, lsePartial, out, lsePtr, numSplits, rows;
  Value strides[std::size(kStrideParams)];
};

/// The standalone kernel's parameters, declared once.
KernelSignature standaloneCombineSignature(StandaloneCombineArgs &a) {
  KernelSignature sig;
  sig.ptr(&a.oPartial, "partial_output");
  sig.ptr(&a.lsePartial, "partial_lse");
  sig.ptr(&a.out, "output");
  sig.ptr(&a.lsePtr, "lse");
  sig.i32(&a.numSplits, sym::Splits);
  sig.i32(&a.rows, sym::Rows);
  for (auto [i, param] : llvm::enumerate(kStrideParams))
    sig.strides({&a.strides[i]}, param[0], {param[1]});
  return sig;
}

Type outputType(KernelBuilder &kb, CombineOut out) {
  switch (out) {
  case CombineOut::F32: return kb.f32;
  case CombineOut::F16: return kb.b.getF16Type();
  case CombineOut::BF16: return kb.b.getBF16Type();
  }
  return kb.f32;
}

void emitStandaloneCombine(KernelBuilder &kb, LLVM::LLVMFuncOp fn,
                           const CombineKernelConfig &cfg) {
  StandaloneCombineArgs a;
  standaloneCombineSignature(a).bind(fn);
  Value oPartial = a.oPartial, lsePartial = a.lsePartial, out = a.out, lsePtr = a.lsePtr;
  Value numSplits = a.numSplits, rows = a.rows;
  Value poSplit = a.strides[0], poRow = a.strides[1];
  Value plSplit = a.strides[2], plRow = a.strides[3], outRow = a.strides[4];

  Value tid = kb.threadIdX();
  Value lane = kb.andi(tid, kb.c32(31));
  Value row = kb.add(kb.mul(kb.blockIdX(), kb.c32(kCombineRowsPerCta)), kb.shru(tid, kb.c32(5)));
  kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, row, rows), [&] {
    Value r = kb.ext64(row);
    PartialRows p{oPartial, lsePartial, numSplits,
                  [&](Value c) { return kb.add(kb.mul(kb.ext64(c), plSplit), kb.mul(r, plRow)); },
                  [&](Value c) { return kb.add(kb.mul(kb.ext64(c), poSplit), kb.mul(r, poRow)); }};
    MergedRow merged = mergePartialRow(kb, p, lane, cfg.dim);
    storeMergedRow(kb, merged, lane, cfg.dim, out, kb.mul(r, outRow), outputType(kb, cfg.out),
                   lsePtr, [&] { return r; });
  });
}

} // namespace

void mlir::fa::nvvm_kernel::buildStandaloneCombineKernel(OpBuilder &builder, Location loc,
                                                         Block &moduleBody,
                                                         const CombineKernelConfig &cfg) {
  StandaloneCombineArgs unbound;
  buildKernelFunction(builder, loc, moduleBody, cfg.kernelName(),
                      standaloneCombineSignature(unbound), kCombineThreads,
                      /*sharedMemory=*/false, /*noAliasPointers=*/false,
                      [&](KernelBuilder &kb, LLVM::LLVMFuncOp fn) {
                        emitStandaloneCombine(kb, fn, cfg);
                      });
}

std::string mlir::fa::nvvm_kernel::standaloneCombineBundleJson(const CombineKernelConfig &cfg,
                                                               StringRef chip,
                                                               StringRef cubinFile) {
  StandaloneCombineArgs unbound;
  Array params = standaloneCombineSignature(unbound).bundleParams();
  // The partials are f32 (`dtype`); no layout: the operands have one order.
  Object config{{"dtype", "f32"},
                {"out_dtype", cfg.outName()},
                {"head_dim", cfg.dim},
                {"return_lse", true}};
  Array grid{ceilDiv(sym::Rows, kCombineRowsPerCta), 1, 1};
  return printJson(kernelBundleRoot(chip, cubinFile, cfg.kernelName(), "combine",
                                    std::move(config), kCombineThreads, 0, std::move(grid),
                                    std::move(params)));
}
