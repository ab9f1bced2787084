//===- FragmentScores.cpp - Score function and masks on S fragments -------===//
//
// The CPU tiles' score function (Log2Score) and mask rule (MaskRule), applied
// to the registers of an m64 x blockN wgmma accumulator: thread t holds rows
// row0 and row0 + 8 and, per row, columns laneCol + fragColOffset(i). Only
// tiles that cross seq_k or the band's edge for this warpgroup's 64 rows
// take the masked path (a warpgroup-uniform scf.if).
//
//===----------------------------------------------------------------------===//
#include "KernelParts.h"
#include "RegionFragments.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

#include <limits>
#include <utility>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

KeyTiles KeyTiles::get(ScalarBuilder &s, MaskRule &rule, Value m0, int64_t blockM, int64_t blockN) {
  auto [lo, hi] = rule.tileRange(rule.keyRange({m0, s.constant(blockM)}), blockN);
  return {lo, s.sub(hi, lo)};
}

FragmentScores::FragmentScores(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                               MaskRule &rule, std::optional<BiasArgs> biasArgs, Value batch,
                               Value head, Value seqQ, Value seqK, Value wgRow0, Value row0,
                               Value laneCol, Value packGroup, ModifierTarget *modifiers)
    : kb(kb), cfg(cfg), rule(&rule),
      semantics(KernelModifiers::withTarget(cfg.semantics, modifiers)),
      log2Score(semantics, biasArgs.has_value()),
      bias(biasArgs), batch(batch), head(head), seqQ(seqQ), seqK(seqK), wgRow0(wgRow0),
      row0(row0), laneCol(laneCol), packGroup(packGroup) {
  assert((!semantics.hasModifiers() || modifiers) && "regions need their target");
  std::optional<double> linear = log2Score.linearFactor();
  factor = kb.cf32(linear ? *linear : 1.0);
  if (!bias)
    return;
  // Rows past seq_q are computed but never stored: read row seq_q - 1 there.
  Value head0 = kb.add(kb.mul(kb.ext64(batch), bias->strideBatch),
                       kb.mul(kb.ext64(head), bias->strideHead));
  for (int r = 0; r < 2; ++r) {
    Value row = kb.minSI(kb.add(row0, kb.c32(8 * r)), kb.sub(seqQ, kb.c32(1)));
    biasRow[r] = kb.add(head0, kb.mul(kb.ext64(row), bias->strideRow));
  }
}

Type mlir::fa::nvvm_kernel::biasElementType(KernelBuilder &kb, BiasType t) {
  return t == BiasType::F32    ? Type(kb.f32)
         : t == BiasType::BF16 ? Type(kb.b.getBF16Type())
                               : Type(kb.b.getF16Type());
}

Value mlir::fa::nvvm_kernel::loadBiasF32(KernelBuilder &kb, BiasType t, Value ptr, Value index) {
  Type elemTy = biasElementType(kb, t);
  Value v = LLVM::LoadOp::create(kb.b, elemTy, kb.globalAt(ptr, index, elemTy), biasTypeBytes(t));
  return elemTy == kb.f32 ? v : arith::ExtFOp::create(kb.b, kb.f32, v).getResult();
}

SmallVector<Value> FragmentScores::loadBias(Value colBase) {
  // Columns past seq_k are masked later; read column seq_k - 1 there.
  Value lastCol = kb.sub(seqK, kb.c32(1));
  SmallVector<Value> out;
  for (int64_t i = 0; i < cfg.blockN / 2; ++i) {
    Value col = kb.minSI(kb.add(colBase, kb.c32(fragColOffset(i))), lastCol);
    Value idx = kb.add(biasRow[fragRowHalf(i)], kb.ext64(col));
    out.push_back(loadBiasF32(kb, *cfg.bias, bias->ptr, idx));
  }
  return out;
}

void FragmentScores::addScoreFunction(SmallVectorImpl<Value> &s, Value colBase,
                                      const TilePositions &at) {
  SmallVector<Value> biasValues;
  if (bias)
    biasValues = loadBias(colBase);
  auto tanh = [&](Value x) { return kb.tanh(x); };
  for (size_t i = 0; i < s.size(); ++i) {
    Value b = bias ? biasValues[i] : Value();
    s[i] = semantics.scoreMod
               ? log2Score.emit(kb.b, s[i], b, position(i, at), tanh)
               : log2Score.emit(kb.b, s[i], b, tanh);
  }
}

FragmentScores::TilePositions FragmentScores::tilePositions(Value colBase, Value seqK) {
  // (Copying row0 and colBase opaquely per tile, so that LLVM cannot hoist
  // column - row differences out of the loop, spilled more at d64: 80
  // bytes against 40 for ALiBi.)
  return {row0, colBase, seqK};
}

ScorePosition FragmentScores::position(int64_t i, const TilePositions &at) {
  Value row = kb.add(at.row0, kb.c32(8 * fragRowHalf(i)));
  Value col = kb.add(at.colBase, kb.c32(fragColOffset(i)));
  Value queryHead = head;
  if (packGroup) {
    // Pack-GQA: packed row r is query r / group of query head
    // kvHead * group + r % group (the epilogue's mapping).
    queryHead = kb.add(kb.mul(head, packGroup), kb.remu(row, packGroup));
    row = kb.divUI(row, packGroup);
  }
  if (readsCaptureBy(semantics, /*key=*/false))
    row = kb.maxSI(kb.minSI(row, kb.sub(seqQ, kb.c32(1))), kb.c32(0));
  if (readsCaptureBy(semantics, /*key=*/true))
    col = kb.minSI(col, kb.sub(at.seqK, kb.c32(1)));
  // A KV cache's queries are the last seq_q of its seq_k positions; the
  // regions take their absolute position (docs/Modifiers.md).
  if (cfg.keyLengths)
    row = kb.add(row, kb.sub(at.seqK, seqQ));
  // i32, as the regions' index values are in the kernel (KernelModifiers).
  return {batch, queryHead, row, col};
}

void FragmentScores::maskByRegion(SmallVectorImpl<Value> &s, const TilePositions &at) {
  Value negInf = kb.cf32(-std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < s.size(); ++i)
    s[i] = kb.select(semantics.emitMaskModHides(kb.b, position(i, at)), negInf, s[i]);
}

Span FragmentScores::queries(Value row, int64_t rows) {
  if (!packGroup)
    return {row, kb.c32(rows)};
  Value first = kb.divUI(row, packGroup);
  Value last = kb.divUI(kb.add(row, kb.c32(rows - 1)), packGroup);
  return {first, kb.add(kb.sub(last, first), kb.c32(1))};
}

void FragmentScores::mask(SmallVectorImpl<Value> &s, Value colBase) {
  Value lo[2], hi[2];
  for (int r = 0; r < 2; ++r) {
    auto [first, end] = rule->rowColumns(queries(kb.add(row0, kb.c32(8 * r)), 1).start);
    // Without a left side every column >= 0 is visible: no lower test.
    lo[r] = rule->getBand().left ? kb.sub(first, colBase) : Value();
    hi[r] = kb.sub(end, colBase);
  }
  maskScores(kb, s, lo, hi);
}

SmallVector<Value> FragmentScores::apply(Value keyTile, SmallVector<Value> s, Value maskModNeeded) {
  if (reloadLengths) {
    // This tile's own rule over the re-read lengths, for this call only.
    auto [q, k] = reloadLengths();
    MaskRule own(kb, cfg.semantics, q, k);
    MaskRule *kept = std::exchange(rule, &own);
    SmallVector<Value> out = applyWith(keyTile, std::move(s), k, maskModNeeded);
    rule = kept;
    return out;
  }
  return applyWith(keyTile, std::move(s), seqK, maskModNeeded);
}

SmallVector<Value> FragmentScores::applyWith(Value keyTile, SmallVector<Value> s, Value seqK,
                                             Value maskModNeeded) {
  int64_t BN = cfg.blockN;
  Value n0 = kb.mul(keyTile, kb.c32(BN));
  Value colBase = kb.add(n0, laneCol);
  Value tail = kb.cmp(arith::CmpIPredicate::sgt, kb.add(n0, kb.c32(BN)), seqK);
  TilePositions at = tilePositions(colBase, seqK);
  if (!log2Score.linearFactor())
    addScoreFunction(s, colBase, at);
  // mask_mod may hide any element of any tile; the band and the tail below
  // are still tested only where they cut the tile.
  if (semantics.maskMod && maskModNeeded) // block-sparse: the map's partial tiles only
    s = maskedWhere(maskModNeeded, s, [&](SmallVectorImpl<Value> &m) { maskByRegion(m, at); });
  else if (semantics.maskMod)
    maskByRegion(s, at);
  Value need = tail;
  if (Value visible = rule->fullyVisible(queries(wgRow0, 64), {n0, kb.c32(BN)}))
    need = kb.ori(need, kb.xori(visible, arith::ConstantIntOp::create(kb.b, 1, 1)));
  return maskedWhere(need, s, [&](SmallVectorImpl<Value> &m) { mask(m, colBase); });
}

SmallVector<Value>
FragmentScores::maskedWhere(Value cond, const SmallVector<Value> &s,
                            function_ref<void(SmallVectorImpl<Value> &)> maskFn) {
  SmallVector<Type> types(s.size(), kb.f32);
  return kb.ifThenElseValues(
      cond, types,
      [&]() {
        SmallVector<Value> m(s);
        maskFn(m);
        return m;
      },
      [&]() { return s; });
}
