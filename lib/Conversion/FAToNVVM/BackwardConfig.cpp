//===- BackwardConfig.cpp - The backward's name and shared memory ---------===//
#include "BackwardBlockMap.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

BackwardMainShared BackwardMainShared::plan(const BackwardKernelConfig &cfg) {
  using BK = BackwardKernelConfig;
  const int64_t align = SharedLayout::kSwizzleAlign;
  BackwardMainShared s;
  SharedLayout &l = s.layout;
  s.k = l.reserve("producer", "K block", cfg.kBytes(), align);
  s.v = l.reserve("producer", "V block", cfg.vBytes(), align);
  // A slot is padded to 1024 bytes (its boxes' swizzle); the barriers sit
  // in the last slot's padding where they fit there. The 80-query tile at
  // d128 needs that: with them after the dQ stages it asked for 232488 of
  // the 232448 bytes a CTA may have.
  const int64_t slotPadding = cfg.slotBytes() - cfg.slotSpanBytes();
  const bool barriersInPadding = slotPadding >= 8 * (1 + 2 * BK::kStages);
  s.slots = l.reserve("producer", "query slot ring",
                      BK::kStages * cfg.slotBytes() - (barriersInPadding ? slotPadding : 0), align);
  auto reserveBarriers = [&] {
    s.kvFull = l.reserveBarriers("producer", "K/V full barrier", 1);
    s.slotBarriers = l.reserveBarriers("producer", "slot ring barriers", 2 * BK::kStages);
  };
  if (barriersInPadding)
    reserveBarriers();
  s.ds = l.reserve("consumers", "dS buffers", 2 * cfg.dsBytes(), align);
  // Sources of bulk reduce-adds (16-byte aligned).
  s.dqStages = l.reserve("consumers", "dQ stages", 2 * cfg.dqStageBytes(), 16);
  if (!barriersInPadding)
    reserveBarriers();
  return s;
}

std::string BackwardKernelConfig::name() const {
  std::string n = llvm::formatv("fa_bwd_{0}_d{1}", elemName(), headDim);
  if (headDimV != headDim)
    n += llvm::formatv("v{0}", headDimV).str();
  n += bshd ? "_bshd" : "_bhsd";
  if (varlen)
    n += "_varlen";
  n += semanticsTag(semantics);
  if (bias) {
    n += std::string("_bias") + biasTypeName(*bias);
    if (biasBroadcasts())
      n += std::string("_bc") + (biasBroadcastBatch ? "b" : "") + (biasBroadcastHead ? "h" : "");
  }
  n += llvm::formatv("_m{0}n{1}s{2}", blockM, kBlockN, kStages).str();
  if (backwardBlockSparse(*this))
    n += "_bsparse";
  if (deterministic)
    n += "_det";
  return n + scaleTag(semantics, headDim);
}

void BackwardKernelConfig::chooseQueryTile(unsigned forced) {
  // dK and dV of 64 keys x 64 columns (64 registers), S^T and dP^T of 64
  // keys x 128 queries (128) and the dQ partial (32) fit the consumers'
  // 240 registers at head dims up to 64 only. A ragged batch's padded
  // blocks are 64 rows (VarlenBackward.cpp).
  bool fits = qkDim() == kBox && vDim() == kBox && !varlen;
  // Regions, an f32 bias or a softcap keep more per-score values live (the
  // derivative, the bias's addresses, capture reads): they spill hundreds
  // of bytes at 128. A 16-bit bias read from shared memory (8-20 B) or sinks
  // (36-44 B) spill a little but measured faster at 128 (bias +14-16 %,
  // sinks +3-7 %, both orders of an A/B; docs/HopperBackward.md).
  bool biasFits = !bias || (biasGradFromDs() && !sinks());
  bool preferred = fits && !semantics.hasModifiers() && !semantics.softcap && biasFits;
  bool wide = forced == 0 || forced == kTallTile ? preferred : (forced == 2 * kRowTile && fits);
  blockM = wide ? 2 * kRowTile : kRowTile;
  // 80 only where asked for (not yet measured against 64), else the choice.
  if (forced == kTallTile && tallTileFits())
    blockM = kTallTile;
}

bool BackwardKernelConfig::tallTileFits() const {
  if (headDim != 128 || headDimV != 128 || varlen || deterministic || bias || sinks() ||
      semantics.hasMask() || semantics.hasModifiers() || semantics.softcap)
    return false;
  BackwardKernelConfig tall = *this;
  tall.blockM = kTallTile;
  return BackwardMainShared::plan(tall).layout.fits();
}

Value mlir::fa::nvvm_kernel::workspaceRowTiles(KernelBuilder &kb, Value seqQ,
                                               const BackwardKernelConfig &cfg) {
  const int64_t m = cfg.blockM, rowTile = BackwardKernelConfig::kRowTile;
  Value tiles = kb.divUI(kb.add(seqQ, kb.c32(m - 1)), kb.c32(m));
  if (m % rowTile != 0) // 80: the last 64-row tile is partly padding
    return kb.divUI(kb.add(kb.mul(tiles, kb.c32(m)), kb.c32(rowTile - 1)), kb.c32(rowTile));
  return m == rowTile ? tiles : kb.mul(tiles, kb.c32(m / rowTile));
}

BundleExpr mlir::fa::nvvm_kernel::workspaceRowTilesExpr(const BackwardKernelConfig &cfg) {
  const int64_t m = cfg.blockM, rowTile = BackwardKernelConfig::kRowTile;
  BundleExpr tiles = ceilDiv(sym::SeqQ, m);
  if (m % rowTile != 0)
    return ceilDiv(tiles * m, rowTile);
  return m == rowTile ? tiles : tiles * (m / rowTile);
}
