//===- KernelConfig.h - What a forward kernel is specialised on -*- C++ -*-===//
//
// AttentionKernelConfig: the element types, head dims, layout, score
// function and the features (bias, FP8, split-KV, paged caches, append,
// ragged batches) of one forward kernel, its tile plan (planTiles) and its
// name (KernelConfig.cpp). The shared memory's layout is the parts'
// (ForwardShared.h).
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_KERNELCONFIG_H
#define FA_LIB_CONVERSION_FATONVVM_KERNELCONFIG_H

#include "BundleExpr.h"
#include "KernelBuilder.h"
#include "fa/Dialect/FA/Transforms/AttentionConfig.h"

#include <algorithm>
#include <optional>
#include <string>

namespace mlir::fa::nvvm_kernel {

enum class BiasType { F32, BF16, F16 };
/// "f32", "bf16" or "f16" (kernel names, bundle configs).
const char *biasTypeName(BiasType t);
inline int64_t biasTypeBytes(BiasType t) { return t == BiasType::F32 ? 4 : 2; }

/// Everything the forward kernel is specialised on. Sequence lengths, batch
/// and head counts stay dynamic (kernel parameters and grid).
struct AttentionKernelConfig {
  ElemType elem = ElemType::BF16; // of Q, K, V (and O unless E4M3)
  /// FP8 (elem E4M3, docs/HopperKernel.md "FP8 forward"): O's type, and
  /// the descales of Q, K, V ([batch, heads_kv] f32 through strides) that
  /// the scores and O are multiplied by. V is read as V^T, a workspace the
  /// sequence's first kernel writes (buildTransposeValueKernel), since FP8
  /// wgmma takes K-major operands only.
  ElemType fp8OutElem = ElemType::BF16;
  /// FP8 per-block descales (the op's descale_block [block_q, block_k];
  /// 0 without): Q's descale [batch, heads_q, q blocks] is read per query
  /// row, K's and V's [batch, heads_kv, k blocks] per key tile, which lies
  /// in one block (fp8KeyTile). The softmax keeps its running max in the
  /// log2 domain (the factor changes with the tile) and O in units of the
  /// current tile's V descale (docs/HopperKernel.md, "Per-block descales").
  int64_t descaleBlockQ = 0, descaleBlockK = 0;
  bool blockDescales() const { return descaleBlockK > 0; }
  /// Dims of each descale operand, and so its strides: (batch, head) or
  /// (batch, head, block).
  int64_t descaleRank() const { return blockDescales() ? 3 : 2; }
  int64_t headDim = 128;  // of Q and K
  int64_t headDimV = 128; // of V and O
  bool bshd = false;      // layout of Q, K, V, O; else bhsd
  bool returnLse = false;
  /// Scale, softcap, causal, window, alignment: the shared score function.
  AttentionConfig semantics;
  std::optional<BiasType> bias;
  /// Consumer warpgroups, 64 query rows each (the tile plan picks 2 or 3).
  int64_t consumers = 2;
  int64_t blockN = 128; // key rows per K/V tile (the tile plan picks it)
  int64_t stages = 2;
  bool overlap = true;   // FA3 intra-warpgroup overlap of QK^T and softmax
  bool pingPong = false; // FA3 inter-warpgroup turns (with overlap only)
  int producerRegs = 24; // setmaxnreg for the producer warpgroup
  int consumerRegs = 240;
  /// Split-KV (docs/Inference.md, "The sm_90a decode kernel"): the key
  /// tiles of each work tile are cut into `num_splits` chunks (a kernel
  /// parameter, from `numSplits` or the bundle's heuristic when 0), one CTA
  /// each, which writes an f32 partial O and LSE; a combine kernel merges
  /// them. One consumer warpgroup; Q rows are packed (pack-GQA).
  bool splitKv = false;
  int64_t numSplits = 0;
  /// Per-batch key lengths (KV caches): sequence b has cache_seqlens[b] keys
  /// of the key operand's seq_k slots; the slots past them hold anything.
  bool keyLengths = false;
  /// Paged KV caches (key_cache/value_cache [num_pages, page_size, heads_kv,
  /// d] through block_table [batch, max_pages]); 0: contiguous caches. A
  /// key tile is loaded by one TMA box per page it spans (page_size divides
  /// blockN) or lies in one page (blockN divides page_size).
  int64_t pageSize = 0;
  /// Append (fa.attention_kvcache's k, v): a pre-kernel writes key_new /
  /// value_new into the caches at cache_seqlens; the attention then covers
  /// cache_seqlens + seq_new keys.
  bool append = false;
  /// Ragged batches (fa.attention_varlen): Q, K, V, O packed along the
  /// tokens ([1, total, heads, d] to the runtime), sequence b at rows
  /// cu_seqlens[b] ..; a flat grid of query blocks over every sequence
  /// (TileScheduler::varlen, varlenAt when persistent). Not split.
  bool varlen = false;
  /// Run-time block sparsity from mask_mod (docs/Modifiers.md, "Block
  /// sparsity on sm_90a"): a pre-kernel (BlockMap.cpp) writes, per
  /// (batch, head, query block), the key tiles mask_mod leaves some key of,
  /// each marked partial or full; the producer and the consumers walk that
  /// list instead of the band's key tiles, and full tiles skip mask_mod.
  bool blockSparse = false;

  /// The producer warpgroup and the consumers.
  int64_t threads() const { return 128 * (1 + consumers); }
  /// Query rows per CTA.
  int64_t blockM() const { return 64 * consumers; }
  static constexpr int64_t kBox = 64; // 16-bit elements per 128B-swizzled row
  bool isFp8() const { return elem == ElemType::E4M3; }
  ElemType outElem() const { return isFp8() ? fp8OutElem : elem; }
  /// Elements per 128B-swizzled row (a TMA box's inner extent): kBox, or
  /// 128 e4m3.
  int64_t boxElems() const { return 128 / elemBytes(elem); }
  /// FP8: P is scaled by 2^kFp8PShift before it is rounded to e4m3 (its
  /// largest value 256 < 448), so that probabilities down to 2^-14 stay
  /// normal numbers; O's normalisation cancels it, the LSE subtracts it.
  static constexpr int64_t kFp8PShift = 8;

  /// Picks the consumers (3 at head dim 64, FA3's 192-row tile; else 2),
  /// their registers, and blockN for the head dims (docs/HopperKernel.md,
  /// "Tile plan"): the largest of 128, 112, ..., 32 whose accumulators fit
  /// the consumers' registers and whose slots fit shared memory (and, with
  /// paged caches, that nests with the pages: pagesFitTiles). A 16-bit
  /// kernel takes `requestedKeyTile` (the `fwd-key-tile` A/B knob) instead
  /// where its slots fit shared memory and nest with the pages; its
  /// registers are then ptxas's to report.
  void planTiles(int64_t requestedKeyTile = 0);

  /// Whether each consumer warpgroup visits only the key tiles its own 64
  /// rows see, and the query blocks end at seq_q (the first block is the
  /// partial one): measured a gain with three consumers under a band mask,
  /// a loss otherwise (docs/HopperKernel.md, "Forward speed experiments").
  bool slabTiles() const;
  /// CTAs looping over the work tiles (FA3's persistent scheduler, static
  /// round robin in snake order, TileScheduler::persistentTile): the next
  /// tile's K and Q loads overlap this tile's last P V and epilogue (with
  /// ping-pong too: its turns run on across tiles, TileConsumer::turnBegin).
  bool persistent = false;
  bool isPersistent() const { return persistent && !splitKv; }
  /// A ragged batch under a mask: its tiles cost what their rows see, so
  /// it takes the dynamic scheduler by default, in heads-fastest order.
  bool maskedRaggedBatch() const { return varlen && semantics.hasMask(); }
  /// Opt-in (the pass's dynamic-tiles; the default of a ragged batch under
  /// a mask, configFor(AttentionVarlenOp)): a persistent kernel's CTAs take
  /// their tiles from a global atomic counter (FA3's
  /// DynamicPersistentTileScheduler, TileScheduler.h's DynamicScheduler)
  /// instead of the static snake; with it a ragged batch under a band mask
  /// is persistent too. The counter is a workspace the runtime zeroes, so
  /// the kernel is a one-kernel sequence; not with FP8 (its sequence has a
  /// pre-kernel) yet.
  bool dynamicTiles = false;
  bool hasDynamicScheduler() const { return dynamicTiles && isPersistent() && !isFp8(); }
  /// Pack-GQA: a CTA's rows are the (query, head) pairs of one KV head's
  /// group, row r = query (r / group), head (r % group); the consumers load
  /// Q with plain loads (the group is a run-time value, no TMA box).
  bool packGqa() const { return splitKv; }
  /// FP8: the key tile at `headDim` (224 above 64 up to 128, else 128);
  /// with per-block descales the largest of 224, 192 (both above 64 up to
  /// 128 only) and 128 that divides `descaleBlockK`, 0 when none does.
  static int64_t fp8KeyTile(int64_t headDim, int64_t descaleBlockK);
  /// Sequences from which a persistent kernel runs one tile per CTA.
  static constexpr int64_t kPersistentBelowSeqQ = 4096;

  bool paged() const { return pageSize > 0; }
  /// Key rows per TMA box: a page's when pages are shorter than a key tile.
  int64_t keyRowsPerLoad() const { return paged() ? std::min(blockN, pageSize) : blockN; }
  /// Whether pages and key tiles nest (one divides the other) on whole
  /// 8-row swizzle atoms, as the paged loads need.
  bool pagesFitTiles() const;
  /// The key slots of every sequence: seq_k (the cache's capacity), or
  /// max_pages * page_size when paged.
  BundleExpr keySlotsExpr() const;
  /// The roles of the caches: "key"/"value", or "key_cache"/"value_cache".
  const char *keyRole() const { return paged() ? "key_cache" : "key"; }
  const char *valueRole() const { return paged() ? "value_cache" : "value"; }
  /// The kernel's configuration name (a split-KV sequence's name too).
  std::string kernelName() const;
  /// The attention kernel's symbol: kernelName(), "_partial" with split-KV.
  std::string attentionKernelName() const;
  /// Head dims rounded up to whole boxes (V's: 64 columns, or FP8 V^T's
  /// rows); TMA zero-fills the rest.
  int64_t qkDim() const { return llvm::alignTo(headDim, boxElems()); }
  int64_t vDim() const { return llvm::alignTo(headDimV, kBox); }
  /// The k-steps of Q K^T: 16 elements over the whole padded boxes, or 32
  /// e4m3 up to the head dim (d64 pads Q and K to one 128-byte box; its
  /// zero half is not multiplied). (The 16-bit kernels could skip their
  /// padding's steps too, d32/d40/d80/d96: not measured yet.)
  int64_t qkSteps() const { return isFp8() ? llvm::divideCeil(headDim, 32) : qkDim() / 16; }
  int64_t qTileBytes() const { return blockM() * qkDim() * elemBytes(elem); }
  int64_t kTileBytes() const { return blockN * qkDim() * elemBytes(elem); }
  /// FP8's V^T boxes: kValueTBoxKeys e4m3 keys (one 128B-swizzled row) x
  /// the V head dim's rows. A tile is whole boxes (the P V k-steps past
  /// blockN are not issued).
  static constexpr int64_t kValueTBoxKeys = 128;
  int64_t vTileKeys() const { return isFp8() ? llvm::alignTo(blockN, kValueTBoxKeys) : blockN; }
  int64_t vTileBytes() const { return vTileKeys() * vDim() * elemBytes(elem); }
  /// A ragged batch's one-tile-per-CTA kernel keeps its sequence's lengths
  /// and start in shared memory (seq_q, seq_k, first query row) when it
  /// has three consumers: they re-read them where they use them instead of
  /// holding three registers through the main loop (the d64 tile has none
  /// to spare: 44 bytes of spills, 0.87-0.94 of dense; re-read, 20 bytes and
  /// 0.90-0.97). With two, the re-reads cost more than they save (d128
  /// causal 0.94-0.98 of dense held, 0.88-0.94 re-read).
  bool stashesLengths() const { return varlen && !isPersistent() && consumers == 3; }
  /// Three consumer warpgroups (setmaxnreg 160) have no register to hold
  /// what they can recompute: the K/V slots' wgmma descriptors are computed
  /// in 32 bits, and a persistent kernel's consumers take their thread's
  /// indices afresh in each work tile (LLVM hoists what derives from them
  /// out of the tile loop). ptxas: d64 causal 12 bytes of spills to none
  /// (docs/HopperKernel.md, "Spills"). Not the fresh indices in a ragged
  /// batch, whose tile search needs the registers they free (its d64
  /// kernel went from no spills to 24 bytes). With two consumers (240) the
  /// kernels keep their code.
  bool narrowSlotDescriptors() const { return consumers == 3; }
  bool freshThreadIndices() const { return consumers == 3 && isPersistent() && !varlen; }
  const char *elemName() const { return elemTypeName(elem); }
  static const char *elemTypeName(ElemType e) {
    return e == ElemType::BF16 ? "bf16" : e == ElemType::F16 ? "f16" : "f8e4m3fn";
  }
  const char *biasName() const;
  int64_t biasBytes() const { return biasTypeBytes(bias.value_or(BiasType::F32)); }
};

/// Kernel-name parts shared by the forward and the backward: the masks and
/// softcap ("_causal_br_w128_0_cap..."), and the scale when it is not
/// 1/sqrt(headDim) ("_sc3e000000").
std::string semanticsTag(const AttentionConfig &semantics);
std::string scaleTag(const AttentionConfig &semantics, int64_t headDim);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_KERNELCONFIG_H
