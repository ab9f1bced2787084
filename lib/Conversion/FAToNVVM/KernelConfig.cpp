//===- KernelConfig.cpp - Kernel names and the tile plan ------------------===//
#include "ForwardShared.h"
#include "KernelParts.h"
#include "RegionFragments.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

/// Registers of a consumer thread the accumulators may take: O (vDim/2), S
/// (blockN/2) and the packed P (blockN/4) live at once under the
/// intra-warpgroup overlap. With setmaxnreg 240, 192 leaves room for
/// addresses and loop state (d128 x 128 uses 160 and does not spill; bias
/// kernels spilled above it). With 160 (three consumers), 128: d64 x 128
/// takes exactly that and ptxas reports no spills.
static int64_t accumulatorRegs(int64_t consumers) { return consumers == 3 ? 128 : 192; }

/// Whether each score reads a value of its own from memory beside S: a
/// bias tile, or a modifier region's capture at the key's index (a
/// document id): n/2 more registers per consumer thread with n-key tiles,
/// planned like a bias (the document mask spilled 200-460 bytes in the
/// bias-less plan).
static bool readsPerKey(const AttentionKernelConfig &cfg) {
  return cfg.bias || readsCaptureBy(cfg.semantics, /*key=*/true);
}

/// Three consumer warpgroups (FA3's 192 x 128 tile at head dim 64): the
/// softmax of a d64 tile costs as much as a d128 one for half the GEMM
/// work, so a third warpgroup's GEMMs fill the tensor pipe while the others
/// exponentiate. 512 threads share the register file as 32 + 3 x 160.
static bool wantsThreeConsumers(const AttentionKernelConfig &cfg) {
  // Not with a score_mod: its per-score code does not fit the 160 registers
  // (ALiBi at d64 spilled 40-88 bytes; the plain kernel 12).
  return cfg.qkDim() == 64 && cfg.vDim() == 64 && !readsPerKey(cfg) &&
         !cfg.semantics.scoreMod && !cfg.pingPong;
}

void AttentionKernelConfig::planTiles(int64_t requestedKeyTile) {
  if (splitKv) {
    // Decode: a few packed rows per KV head; one warpgroup's 64 rows hold
    // them (more would be idle tensor-core rows), the key tiles are split
    // across CTAs instead.
    consumers = 1;
  } else if (wantsThreeConsumers(*this)) {
    consumers = 3;
    producerRegs = 32;
    consumerRegs = 160;
  }
  // Persistent; not with a bias, head dims above 128 or a V head dim unlike
  // Q's, which spill with the tile loop's state (ptxas: 12-40 bytes), nor a
  // ragged batch under a band mask: its tiles' costs vary with the lengths
  // and a static schedule, even in snake order, ran mixed lengths at 0.78
  // of the hardware's one tile per CTA (docs/Inference.md, run 5). Nor a
  // block-sparse kernel: its tiles' costs vary with the map (as a ragged
  // batch's with the lengths), and the tile loop's state spilled (prefix-LM
  // d128: 32 bytes, 16 without the list). A dynamic scheduler balances the
  // ragged batch's varying costs: with it (its default under a mask) that
  // one is persistent too.
  persistent = !readsPerKey(*this) && qkDim() <= 128 && qkDim() == vDim() &&
               (dynamicTiles || !maskedRaggedBatch()) && !blockSparse;
  if (isFp8()) {
    // V^T tiles are whole 128-key boxes (one 128-byte swizzle row of e4m3
    // keys per V^T row). Above head dim 64, 224-key tiles (FA3's): 916
    // TFLOP/s at d128 16k against 879 with 192 in one A/B (742 with 128,
    // 792 with 256, which spills under the overlap: S 128 + O 64 + P 32
    // registers; docs/HopperKernel.md, "FP8 forward"); the second box of a
    // 224-key tile is 3/4 used. At head dim 256 the accumulators of 128
    // keys take 208 of the 240 registers.
    blockN = fp8KeyTile(headDim, descaleBlockK);
    // Head dim 64: three consumers (192-row blocks), as the 16-bit kernel;
    // O 32, S 64 and P 16 fit their 160 registers.
    if (headDim <= 64 && headDimV <= 64 && !bias && !pingPong) {
      consumers = 3;
      producerRegs = 32;
      consumerRegs = 160;
    }
    return;
  }
  if (requestedKeyTile) {
    blockN = requestedKeyTile;
    if (ForwardShared::plan(*this).layout.fits() && pagesFitTiles())
      return;
  }
  for (int64_t n : {128, 112, 96, 80, 64, 48, 32}) {
    blockN = n;
    // A bias tile (or a capture read per key) is loaded into registers
    // beside S (another n/2).
    int64_t biasRegs = readsPerKey(*this) ? n / 2 : 0;
    bool regsFit = vDim() / 2 + n / 2 + n / 4 + biasRegs <= accumulatorRegs(consumers);
    // Paged: the largest tile that nests with the pages (else none fits).
    if (regsFit && ForwardShared::plan(*this).layout.fits() && pagesFitTiles())
      return;
  }
}

int64_t AttentionKernelConfig::fp8KeyTile(int64_t headDim, int64_t descaleBlockK) {
  for (int64_t n : {224, 192, 128})
    if ((n == 128 || (headDim > 64 && headDim <= 128)) &&
        (descaleBlockK == 0 || descaleBlockK % n == 0))
      return n;
  return 0;
}

bool AttentionKernelConfig::slabTiles() const {
  // (A block-sparse kernel's query blocks start at multiples of blockM, as
  // the pre-kernel's map has them.)
  return semantics.hasMask() && consumers == 3 && !pingPong && !bias && !splitKv && !blockSparse;
}

bool AttentionKernelConfig::pagesFitTiles() const {
  return !paged() || (pageSize % 8 == 0 && (pageSize % blockN == 0 || blockN % pageSize == 0));
}

BundleExpr AttentionKernelConfig::keySlotsExpr() const {
  return paged() ? sym::MaxPages * sym::PageSize : sym::SeqK;
}

const char *mlir::fa::nvvm_kernel::biasTypeName(BiasType t) {
  switch (t) {
  case BiasType::F32:
    return "f32";
  case BiasType::BF16:
    return "bf16";
  case BiasType::F16:
    return "f16";
  }
  return "";
}

const char *AttentionKernelConfig::biasName() const { return bias ? biasTypeName(*bias) : ""; }

static std::string floatTag(double v) {
  float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return llvm::formatv("{0:x8}", bits).str();
}

std::string mlir::fa::nvvm_kernel::semanticsTag(const AttentionConfig &s) {
  std::string n;
  bool br = s.alignment == MaskAlignment::bottom_right;
  if (s.causal)
    n += br ? "_causal_br" : "_causal";
  if (s.window)
    n += llvm::formatv("_w{0}_{1}{2}", s.window->first, s.window->second,
                       br && !s.causal ? "_br" : "")
             .str();
  if (s.softcap)
    n += "_cap" + floatTag(*s.softcap);
  if (s.sinks)
    n += "_sinks";
  return n + modifiersTag(s);
}

std::string mlir::fa::nvvm_kernel::scaleTag(const AttentionConfig &s, int64_t headDim) {
  // The scale is baked in: name kernels whose scale is not 1/sqrt(d) by it.
  if (static_cast<float>(s.scale) != static_cast<float>(1.0 / std::sqrt(double(headDim))))
    return "_sc" + floatTag(s.scale);
  return "";
}

std::string AttentionKernelConfig::kernelName() const {
  std::string n = llvm::formatv("fa_fwd_{0}_d{1}", elemName(), headDim);
  if (headDimV != headDim)
    n += llvm::formatv("v{0}", headDimV).str();
  n += bshd ? "_bshd" : "_bhsd";
  n += semanticsTag(semantics);
  if (bias)
    n += std::string("_bias") + biasName();
  if (isFp8())
    n += std::string("_o") + elemTypeName(fp8OutElem);
  if (blockDescales())
    n += llvm::formatv("_dblk{0}x{1}", descaleBlockQ, descaleBlockK).str();
  if (returnLse)
    n += "_lse";
  n += llvm::formatv("_m{0}n{1}s{2}{3}{4}", blockM(), blockN, stages, overlap ? "o" : "",
                     overlap && pingPong ? "p" : "");
  if (splitKv)
    n += numSplits > 0 ? llvm::formatv("_split{0}", numSplits).str() : std::string("_split");
  if (keyLengths)
    n += "_kvcache";
  if (paged())
    n += llvm::formatv("_page{0}", pageSize).str();
  if (append)
    n += "_append";
  if (varlen)
    n += "_varlen";
  if (blockSparse)
    n += "_bsparse";
  if (hasDynamicScheduler())
    n += "_dyn";
  return n + scaleTag(semantics, headDim);
}

std::string AttentionKernelConfig::attentionKernelName() const {
  // (A split-KV, FP8, block-sparse or dynamic sequence is named
  // kernelName().)
  if (splitKv)
    return kernelName() + "_partial";
  if (isFp8() || blockSparse || hasDynamicScheduler())
    return kernelName() + "_main";
  return kernelName();
}
