//===- BackwardParts.h - The sm_90a backward: config and kernels -*- C++ -*-===//
//
// fa.attention_grad becomes three kernels run as one call (a kernel
// sequence, docs/BundleFormat.md), as in FlashAttention-3's backward
// (docs/HopperBackward.md):
//
//   pre   D = rowsum(dO o O), LSE in the log2 domain (+inf on empty rows)
//   main  one CTA per (128-key block, kv head, batch): dK, dV in registers
//         over the query tiles (and q heads of the group) that see the
//         block; dQ partials added into an f32 accumulator
//   post  dQ = scale * dQaccum in dQ's element type
//   dbias (a bias that broadcasts, unless biasGradInOrder) dBias =
//         dbias_accum in the bias's type
//
// The main kernel reuses the forward's parts: TmaPipeline, MaskRule, the
// wgmma helpers, the 128B-swizzled box layout.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_BACKWARDPARTS_H
#define FA_LIB_CONVERSION_FATONVVM_BACKWARDPARTS_H

#include "BundleExpr.h"
#include "KernelParts.h"
#include "SharedLayout.h"

namespace mlir::fa::nvvm_kernel {

struct BackwardKernelConfig {
  ElemType elem = ElemType::BF16;
  int64_t headDim = 128;  // of Q and K
  int64_t headDimV = 128; // of V and O
  bool bshd = false;
  AttentionConfig semantics;
  /// dQ partials added in key-block order (a semaphore per query tile):
  /// bitwise reproducible.
  bool deterministic = false;
  /// An additive bias [batch|1, heads_q|1, seq_q, seq_k], read per score.
  /// Its gradient dBias = dS (before the scale): per batch and head, stored
  /// into grad_bias once per element (zeros where the mask skips a tile);
  /// where the bias broadcasts over batch or heads, summed over them in
  /// f32: in a fixed order through dbias_accum where biasGradInOrder(), else
  /// (not in deterministic mode) by f32 reductions into the workspace
  /// dbias_accum [batch|1, heads_q|1, seq_q, seq_k], which the dbias kernel
  /// writes into grad_bias.
  std::optional<BiasType> bias;
  bool biasBroadcastBatch = false, biasBroadcastHead = false;
  bool biasBroadcasts() const { return biasBroadcastBatch || biasBroadcastHead; }
  /// A 16-bit bias goes through the consumer's box of the dS buffers
  /// (BackwardBiasTile.h): read by cp.async a step ahead, and, in the
  /// inputs' type (dBias = dS as rounded in shared memory), dBias taken
  /// from dS's box: stored per batch and head, added into dbias_accum by
  /// 16-byte reductions where the bias broadcasts. An f32 bias is read and
  /// its gradient written per register.
  bool biasTileShared() const { return bias && *bias != BiasType::F32; }
  bool biasGradFromDs() const {
    return biasTileShared() && (*bias == BiasType::BF16) == (elem == ElemType::BF16);
  }
  /// A broadcast bias's dBias from dS's box, summed in a fixed order: the
  /// CTAs (and q heads) adding into one [query tile x 64 keys] block take
  /// turns through a semaphore, the first storing its f32 terms into the
  /// block of dbias_accum, the last writing the sum into grad_bias in the
  /// bias's type (BackwardBiasTile.h, addInOrder): deterministic, and no
  /// zeroed workspace or dbias kernel. Always in deterministic mode; else
  /// only where it measured faster than the f32 reductions (H100, 4k
  /// tokens, B4, both orders, three runs): over batch alone at the
  /// 128-query tile ([1, H] d64: 7.2 ms against 8.0-8.1). The turns lost
  /// at the 64-query tile ([1, H] d128 5.8 against 5.3) and over heads,
  /// where a block has B x H contributors ([1, 1] d64 10.8 against 7.7,
  /// d128 7.7 against 4.9-5.1; docs/HopperBackward.md).
  bool biasGradInOrder() const {
    bool fasterInTurn = blockM == 2 * kRowTile && biasBroadcastBatch && !biasBroadcastHead;
    return biasGradFromDs() && biasBroadcasts() && (deterministic || fasterInTurn);
  }
  /// fa.attention_varlen_grad: packed [1, total, heads, dim] operands, the
  /// sequences found through cu_seqlens_q/k (VarlenBackward.h).
  bool varlen = false;
  /// Attention sinks (semantics.sinks): the pre-kernel also writes dSinks
  /// partials and one more kernel, _dsinks, sums them into grad_sinks.
  bool sinks() const { return static_cast<bool>(semantics.sinks); }

  /// Query rows per iteration of the main kernel: 64, 128 where the head
  /// dims are at most 64 (chooseQueryTile; FA3's d64 tile), or 80 at d128
  /// (FA3's non-causal d128 tile: dQ with A and B swapped, dqTransposed).
  /// The workspace rows are padded to it; the pre and post kernels stay in
  /// 64-row CTAs, the dQ accumulator's blocks in 64-row tiles except at 80.
  int64_t blockM = 64;
  static constexpr int64_t kRowTile = 64; // rows of a pre/post CTA and a dQ block
  static constexpr int64_t kTallTile = 80;
  static constexpr int64_t kBlockN = 128; // keys per CTA (64 per consumer)
  static constexpr int64_t kStages = 2;
  static constexpr int64_t kThreads = 384;
  static constexpr int64_t kAuxThreads = 256; // pre and post kernels
  static constexpr int64_t kBox = AttentionKernelConfig::kBox;
  static constexpr int64_t kMaxHeadDim = 128; // dK + dV accumulators fit 240 regs

  int64_t qkDim() const { return llvm::alignTo(headDim, kBox); }
  /// The 128-query tile: each consumer's dQ partial is its own 64 rows of
  /// the tile over all 128 keys, so both halves of dS are read.
  bool wideQueryTile() const { return blockM == 2 * kRowTile; }
  /// The 80-query tile (M = 80 is no wgmma shape): each consumer computes
  /// dQ^T [its 64 head-dim columns x 80 queries] = K_c^T dS^T, and the dQ
  /// accumulator's blocks are [80 queries x 64 columns] in that fragment's
  /// order (DqAccumLayout).
  bool dqTransposed() const { return blockM == kTallTile; }
  /// Query rows of one dq_accum block (and of a deterministic semaphore's tile).
  int64_t dqBlockRows() const { return dqTransposed() ? kTallTile : kRowTile; }
  int64_t dqBlockFloats() const { return dqBlockRows() * kBox; }
  int64_t vDim() const { return llvm::alignTo(headDimV, kBox); }

  // The main kernel's shared-memory regions' sizes (BackwardMainShared
  // lays them out).
  int64_t kBytes() const { return kBlockN * qkDim() * 2; }
  int64_t vBytes() const { return kBlockN * vDim() * 2; }
  int64_t qBytes() const { return blockM * qkDim() * 2; }
  int64_t doBytes() const { return blockM * vDim() * 2; }
  int64_t rowStatBytes() const { return blockM * 4; }
  /// D's offset from the LSE in a slot: a TMA destination is 128-byte
  /// aligned (the 80-query tile's 320-byte LSE row is padded).
  int64_t rowStatStride() const { return llvm::alignTo(rowStatBytes(), 128); }
  /// Bytes one slot's TMA copies bring (the full barrier's transaction count).
  int64_t slotLoadBytes() const { return qBytes() + doBytes() + 2 * rowStatBytes(); }
  /// Bytes from a slot's start to the end of its last copy's destination.
  int64_t slotSpanBytes() const { return qBytes() + doBytes() + rowStatStride() + rowStatBytes(); }
  int64_t slotBytes() const { return llvm::alignTo(slotSpanBytes(), 1024); }
  int64_t dsBytes() const { return blockM * kBlockN * 2; }
  /// Each consumer stages its dQ partial (one dq_accum block: [64 x 64] f32,
  /// or [80 x 64] at the 80-query tile) here for one bulk reduce-add, in the
  /// workspace's blocked order (DqAccumLayout).
  int64_t dqStageBytes() const { return dqBlockFloats() * 4; }

  const char *elemName() const { return elem == ElemType::BF16 ? "bf16" : "f16"; }
  /// The sequence's name; its kernels append "_pre", "_main", "_post"
  /// (and "_dbias").
  std::string name() const;
  /// The main kernel's query tile: 128 rows where the head dims are at most
  /// 64 and the registers allow it (a dense batch without score_mod or
  /// mask_mod or softcap, and a bias only of 16 bits, as the inputs, without
  /// sinks), else 64; `forced` (64, 80 or 128, 0 = choose) overrides the
  /// choice where the configuration allows it (the A/B knob
  /// `bwd-query-tile`; 80: tallTileFits).
  void chooseQueryTile(unsigned forced);
  /// The 80-query tile's case, as FA3 takes it: head dims 128, a dense
  /// batch, no mask, bias, softcap, regions, sinks or deterministic order.
  bool tallTileFits() const;
};

/// The main kernel's shared memory by part (SharedLayout), from the
/// 1024-aligned base: the producer's K and V of the CTA's key block (once)
/// and its ring of `kStages` slots [Q | dO | LSE2 | D]; the consumers' two
/// dS buffers [blockM queries x 128 keys] and two dQ stages; the producer's
/// mbarriers (K/V full, then the slots' full and empty).
struct BackwardMainShared {
  SharedLayout layout;
  SharedRegion k, v, slots, ds, dqStages, kvFull, slotBarriers;
  static BackwardMainShared plan(const BackwardKernelConfig &cfg);
};

/// Named barriers of the main kernel (ids after the forward's); the
/// per-consumer ones take + c.
enum class BackwardBarrier : int64_t {
  DsWritten = 3,    // both consumer warpgroups wrote this iteration's dS
  DqStageFree = 4,  // + c: the previous bulk reduce has read the stage
  DqStageFull = 6,  // + c: every thread of consumer c wrote its dQ partial
  DsOwnWritten = 8, // + c: one 64-column box (D <= 64): consumer c wrote
                    // its own box of dS, the only one it reads
  // + c: every thread of consumer c has its bias tile copies (a 16-bit bias)
  BiasTileCopied = 10,
  // + c: consumer c's turn to add its dBias block has come, or its part of
  // the block is stored (biasGradInOrder)
  BiasGradTurn = 12,
};

/// The dQ accumulator (workspace `dq_accum`, f32, as many elements as
/// [batch, heads_q, seq_pad, qkDim]) is blocked so that one consumer's
/// partial is 16 KB contiguous and its stores are conflict-free: block
/// (batch, head, query tile, 64-column box) holds 4096 floats, element
/// (ip * 128 + t) * 2 + e for register pair ip of consumer thread t.
/// Register i = 2 ip + e of thread t = 32 w + l is row 16 w + l / 4 + 8 ((i >>
/// 1) & 1), column 8 (i >> 2) + 2 (l % 4) + (i & 1) of the block.
/// With the 80-query tile (dqTransposed) a block is [80 queries x 64
/// columns], 5120 floats, in the same order of the transposed fragment:
/// its rows are the columns (head dim), its columns the queries. Each 64
/// floats from a multiple of 64 are then an 8 x 8 square, 8 (d % 8) + q %
/// 8, of columns 16 w + 8 (ip % 2) + [0, 8) and queries 8 (ip / 2) + [0, 8).
struct DqAccumLayout {
  static constexpr int64_t kBlockFloats = BackwardKernelConfig::kRowTile * 64;
};

/// A ragged batch's sequence as the backward's kernels find it from a
/// padded block index (VarlenBackward.cpp). Sequence b's blocks of `rows`
/// start at padded block (cu[b] + rows b) / rows, so the blocks of two
/// sequences never share one and a sequence's rows sit at a fixed offset
/// in the padded workspace; the batch's trailing tokens (past
/// cu[num_seqs]) are sequence num_seqs where a kernel includes them.
struct PaddedSequence {
  Value seq;   // -1: none
  Value start; // its first packed row
  Value len;   // its rows (0 for none)
  Value block; // the padded block's index within the sequence
  Value valid; // the block holds rows of the sequence
  Value firstPaddedBlock;
};
/// Warp-wide (every lane of the warp calls it): the sequence owning padded
/// block `x` of `rows`-row blocks, over the `numSeqs` sequences of `cu`
/// (i32 [numSeqs + 1]) and, with `withTail`, the trailing tokens up to
/// `total`.
PaddedSequence findPaddedSequence(KernelBuilder &kb, Value cu, Value numSeqs, Value total,
                                  int64_t rows, Value x, bool withTail);
/// ceildiv(total, rows) + numSeqs + 1: the padded blocks of a batch (its
/// bundle expression is paddedBlocksExpr).
Value paddedBlocks(KernelBuilder &kb, Value total, Value numSeqs, int64_t rows);
BundleExpr paddedBlocksExpr(const BundleExpr &total, int64_t rows);

/// The 64-row tiles of a dense batch's workspace rows (seq_q padded to the
/// query tile cfg.blockM) per head: the pre and post kernels' CTAs, the
/// dq_accum blocks and semaphores, the dsinks partials' blocks.
Value workspaceRowTiles(KernelBuilder &kb, Value seqQ, const BackwardKernelConfig &cfg);
BundleExpr workspaceRowTilesExpr(const BackwardKernelConfig &cfg);

/// Appends the three kernels to `moduleBody`.
void buildBackwardKernels(OpBuilder &builder, Location loc, Block &moduleBody,
                          const BackwardKernelConfig &cfg);
void buildBackwardPreKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                            const BackwardKernelConfig &cfg);
void buildBackwardMainKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                             const BackwardKernelConfig &cfg);
void buildBackwardPostKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                             const BackwardKernelConfig &cfg);
void buildBackwardBiasGradKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                                 const BackwardKernelConfig &cfg);
/// With sinks: grad_sinks from the pre-kernel's partials (BackwardSinks.cpp).
void buildBackwardSinkGradKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                                 const BackwardKernelConfig &cfg);

/// The kernel sequence JSON and the three kernels' bundle JSONs (by kernel
/// name), all naming `cubinFile`.
std::string backwardSequenceJson(const BackwardKernelConfig &cfg, StringRef chip);
std::vector<std::pair<std::string, std::string>>
backwardBundleJsons(const BackwardKernelConfig &cfg, StringRef chip, StringRef cubinFile);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_BACKWARDPARTS_H
