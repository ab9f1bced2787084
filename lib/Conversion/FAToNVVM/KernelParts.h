//===- KernelParts.h - The parts the sm_90a attention kernels compose -*- C++ -*-===//
//
// FlashAttention-3's kernels are a template over a mainloop, an epilogue and a
// tile scheduler, sharing a TMA pipeline, masks and a softmax. Ours are the
// same parts as emitter classes (docs/HopperKernel.md, "Kernel parts"):
//
//   AttentionKernelConfig  what a kernel is specialised on, and its tile plan
//   NamedBarrier           the bar.sync ids, one enum
//   TileScheduler          CTA -> (query block, head, batch); the grid
//   TmaPipeline            a ring of TMA-filled slots with full/empty mbarriers
//   KeyTiles               the key tiles a query block visits (MaskRule)
//   FragmentScores         score function, bias and masks on S fragments
//   storeEpilogue          normalise, store O and LSE (Epilogue.cpp)
//
// The score function and every mask decision come from the target-independent
// layer the CPU tiles use (AttentionConfig.h, MaskRule.h), instantiated on
// i32 and on accumulator fragments here.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_KERNELPARTS_H
#define FA_LIB_CONVERSION_FATONVVM_KERNELPARTS_H

#include "KernelBuilder.h"
#include "fa/Dialect/FA/Transforms/AttentionConfig.h"
#include "fa/Dialect/FA/Transforms/MaskRule.h"

#include "llvm/Support/JSON.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
  /// Dynamic shared memory an sm_90a CTA may use.
  static constexpr int64_t kSharedMemoryLimit = 227 * 1024;

  /// Picks the consumers (3 at head dim 64, FA3's 192-row tile; else 2),
  /// their registers, and blockN for the head dims (docs/HopperKernel.md,
  /// "Tile plan"): the largest of 128, 112, ..., 32 whose accumulators fit
  /// the consumers' registers and whose slots fit shared memory (and, with
  /// paged caches, that nests with the pages: pagesFitTiles).
  void planTiles();

  /// Whether each consumer warpgroup visits only the key tiles its own 64
  /// rows see, and the query blocks end at seq_q (the first block is the
  /// partial one): measured a gain with three consumers under a band mask,
  /// a loss otherwise (docs/HopperKernel.md, "Forward speed experiments").
  bool slabTiles() const;
  /// CTAs looping over the work tiles (FA3's persistent scheduler, static
  /// round robin in snake order, TileScheduler::persistentTile): the next
  /// tile's K and Q loads overlap this tile's last P V and epilogue. Not
  /// with ping-pong (its turns are per tile).
  bool persistent = false;
  bool isPersistent() const { return persistent && !pingPong && !splitKv; }
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
  /// The key slots of every sequence, an expression: "seq_k" (the cache's
  /// capacity), or "max_pages * page_size" when paged.
  std::string keySlotsExpr() const;
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
  /// Offsets inside the (1024-aligned) dynamic shared memory.
  int64_t kOffset() const { return qTileBytes(); }
  int64_t vOffset() const { return kOffset() + stages * kTileBytes(); }
  int64_t barrierOffset() const { return vOffset() + stages * vTileBytes(); }
  /// The split count as a bundle expression: numSplits, or (0) enough
  /// chunks to give every SM one CTA, at most one per key tile and 64.
  std::string splitCountExpr() const;
  /// Q full, the K/V rings' full and empty barriers, then (persistent) Q empty.
  int64_t numBarriers() const { return 1 + 4 * stages + (isPersistent() ? 1 : 0); }
  /// A ragged batch's one-tile-per-CTA kernel keeps its sequence's lengths
  /// and start in shared memory (seq_q, seq_k, first query row) when it
  /// has three consumers: they re-read them where they use them instead of
  /// holding three registers through the main loop (the d64 tile has none
  /// to spare: 44 bytes of spills, 0.87-0.94 of dense; re-read, 20 bytes and
  /// 0.90-0.97). With two, the re-reads cost more than they save (d128
  /// causal 0.94-0.98 of dense held, 0.88-0.94 re-read).
  bool stashesLengths() const { return varlen && !isPersistent() && consumers == 3; }
  int64_t stashOffset() const { return barrierOffset() + 8 * numBarriers(); }
  /// Requested dynamic shared memory, including the alignment slack.
  int64_t sharedMemoryBytes() const {
    return stashOffset() + (stashesLengths() ? 16 : 0) + 1024;
  }
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

/// Named barrier ids (bar.sync / bar.arrive); 0 is __syncthreads.
enum class NamedBarrier : int64_t {
  Cta = 0,
  ConsumerTurnFirst = 1, // + consumer index: "my turn" in ping-pong
  WarpgroupFirst = 3,    // + consumer index: one consumer warpgroup (128 threads)
};

/// A consumer thread's place: consumer warpgroup c (0 or 1, threads 128 c +
/// 128 ..), warp and lane in it. setmaxnreg first (`regs`, increase).
struct ConsumerThread {
  Value c, warp, lane;
  Value threadInWg; // 0..127 inside the warpgroup
  static ConsumerThread enter(KernelBuilder &kb, Value tid, int64_t regs);
  /// The first fragment row of this thread from `wgRow0`, the warpgroup's.
  Value fragmentRow(KernelBuilder &kb, Value wgRow0) const;
  /// The thread's first fragment column, 2 (lane % 4).
  Value laneColumn(KernelBuilder &kb) const;
};
/// setmaxnreg.inc / .dec.
void setMaxRegisters(KernelBuilder &kb, int64_t regs, bool increase);

/// Which work tile a CTA computes and the grid that covers them all. One
/// CTA per (query block, head, batch); causal grids take the longest query
/// blocks first (CTAs start in blockIdx order). With `slabTiles` the blocks
/// end at seq_q, so the partial block is the first one (row0 < 0 there),
/// which under a causal mask sees the fewest keys. Persistent kernels loop
/// over the tiles instead (persistentTile, decode, varlenAt).
class TileScheduler {
public:
  struct WorkTile {
    Value mBlock, head, batch; // head: the KV head with pack-GQA
    Value row0; // the block's first query row (negative in a first partial block)
    Value split; // split-KV: the chunk of key tiles (null otherwise)
  };
  /// A ragged batch's work tile: the tile in its sequence (batch 0, row0
  /// local to the sequence), where the sequence starts in the packed Q and
  /// K/V rows, and its lengths (0 for the grid's spare CTAs past the last
  /// block, which then compute nothing and store nothing).
  struct VarlenTile {
    WorkTile tile;
    Value qStart, kStart, seqQ, seqK;
  };
  /// CTA blockIdx.x is the x-th query block of the concatenated sequences
  /// (each ceildiv(length, blockM) blocks); a warp-wide prefix sum over
  /// cu_seqlens_q finds its sequence (every warp computes it, no barrier).
  static VarlenTile varlen(KernelBuilder &kb, const AttentionKernelConfig &cfg, Value cuSeqlensQ,
                           Value cuSeqlensK, Value numSeqs);
  /// A persistent CTA's: flat block x of `head`, searched from `cursor`
  /// (sequence, its first flat block), which the CTA's previous tile left
  /// (its tiles' x grow until the head changes; then the search restarts at
  /// 0). Updates the cursor. `warpWide`: every lane of the warp calls it
  /// (the consumers: the warp scan, one round trip per 32 sequences); else
  /// one thread walks sequence by sequence (the producer, which runs ahead).
  /// Both find the same tile.
  static VarlenTile varlenAt(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                             Value cuSeqlensQ, Value cuSeqlensK, Value numSeqs, Value x,
                             Value head, Value cursor[2], bool warpWide);
  /// The tile of this CTA's block index (one CTA per tile); split-KV grids
  /// take `numSplits` CTAs per tile, the split fastest.
  static WorkTile current(KernelBuilder &kb, const AttentionKernelConfig &cfg, Value seqQ,
                          Value numSplits = Value());
  /// Work tile `linear` of numBlocks x numHeads x batch, query blocks
  /// fastest (so that CTAs running together share K and V in L2).
  static WorkTile decode(KernelBuilder &kb, const AttentionKernelConfig &cfg, Value seqQ,
                         Value linear, Value numBlocks, Value numHeads);
  /// A persistent CTA's tiles: round i of gridDim.x tiles gives CTA x tile
  /// i gridDim.x + x in even rounds and i gridDim.x + gridDim.x - 1 - x in
  /// odd ones (a snake), so that under a causal mask, where the tiles of a
  /// head run from long to short, a CTA's long tile in one round is
  /// followed by a short one: a simulated static round robin is 1.2-1.9x
  /// the mean load, the snake 1.03-1.06x (a dynamic scheduler's 1.03-1.07x).
  /// Tiles stay in increasing order per CTA.
  static Value persistentTile(KernelBuilder &kb, Value round);
  /// How many of the `total` tiles this CTA computes.
  static Value persistentTileCount(KernelBuilder &kb, Value total);
  static llvm::json::Array grid(const AttentionKernelConfig &cfg);
  /// "ceildiv(seq_q, blockM)": query blocks per (head, batch); with
  /// pack-GQA, of seq_q x group rows per KV head.
  static std::string queryBlocks(const AttentionKernelConfig &cfg);
  /// The grid's x extent of work tiles per (head, batch): queryBlocks, plus
  /// one spare block per sequence of a ragged batch.
  static std::string gridBlocks(const AttentionKernelConfig &cfg);
};

/// A ring of `stages` shared-memory slots filled by TMA. Slot t % stages has a
/// "full" mbarrier (one producer arrival with the bytes expected; completes
/// when they land) and an "empty" one (every consumer thread arrives when
/// done reading). Iteration t waits on phase parity (t / stages) & 1. The
/// barriers are `stages` consecutive 8-byte words from each given offset.
class TmaPipeline {
public:
  TmaPipeline(KernelBuilder &kb, Value smemBase, int64_t slotOffset, int64_t slotBytes,
              int64_t fullBarriers, int64_t emptyBarriers, int64_t stages, int64_t consumers);

  /// By one thread, before the CTA barrier that publishes the barriers:
  /// stage by stage, the full barriers of all `pipes`, then their empty ones
  /// (the order the kernel had before it was split into parts; it keeps the
  /// PTX, and so ptxas's schedule, unchanged). The pipes have equal stages.
  static void initAll(ArrayRef<TmaPipeline *> pipes);
  /// Iteration t of the calls below is iteration base + t of the ring (a
  /// persistent CTA's tiles share one ring); null = 0.
  void setIterationBase(Value base) { iterationBase = base; }
  Value slot(Value t);
  /// Producer: waits for slot t to be free and arms its full barrier for
  /// `bytes`; returns the barrier the copies complete on.
  Value acquire(Value t, int64_t bytes);
  /// Consumer: waits until slot t is full / marks it read.
  void wait(Value t);
  void release(Value t);

private:
  Value stage(Value t);
  Value parity(Value t);
  Value ringIteration(Value t);
  Value barrier(int64_t which, Value stage); // 0 full, 1 empty

  KernelBuilder &kb;
  Value base;
  int64_t slotOffset, slotBytes, fullBarriers, emptyBarriers, stages, consumers;
  Value iterationBase;
};

/// The key tiles [first, first + count) a block of query rows visits: all of
/// them, or the band's through MaskRule (causal and windows skip the rest).
struct KeyTiles {
  Value first, count;
  static KeyTiles get(ScalarBuilder &s, MaskRule &rule, Value m0, int64_t blockM, int64_t blockN);
};

/// Bias operand of one kernel: pointer and strides (elements, i64; a
/// broadcast dim has stride 0) as the runtime's stride() gives them.
struct BiasArgs {
  Value ptr, strideBatch, strideHead, strideRow;
};

/// The MLIR element type of a bias operand.
Type biasElementType(KernelBuilder &kb, BiasType t);
/// One bias element at `index` (i64, in elements) of `ptr`, as f32.
Value loadBiasF32(KernelBuilder &kb, BiasType t, Value ptr, Value index);

/// The score function and the masks on the m64 x blockN fragment of S that
/// one consumer warpgroup holds: raw q.k in, the values the softmax
/// exponentiates with `exponentFactor()` out.
class FragmentScores {
public:
  /// `packGroup` (pack-GQA, else null): rows are packed (query, head)
  /// pairs, query = row / packGroup, which the masks see.
  FragmentScores(KernelBuilder &kb, const AttentionKernelConfig &cfg, MaskRule &rule,
                 std::optional<BiasArgs> bias, Value batch, Value head, Value seqQ, Value seqK,
                 Value wgRow0, Value row0, Value laneCol, Value packGroup = Value());

  /// S of key tile `keyTile` (raw q.k) -> masked log2-domain scores, or raw
  /// scores when the score function is linear.
  SmallVector<Value> apply(Value keyTile, SmallVector<Value> s);
  /// Lengths (seq_q, seq_k) re-read at every apply (a mask rule of their
  /// own there) instead of the constructor's values.
  void reloadLengthsWith(std::function<std::pair<Value, Value>()> reload) {
    reloadLengths = std::move(reload);
  }
  Value exponentFactor() { return factor; }

private:
  /// apply's body, with `seqK` for the tail.
  SmallVector<Value> applyWith(Value keyTile, SmallVector<Value> s, Value seqK);
  /// Bias of this thread's elements of the tile at `colBase`, in f32.
  SmallVector<Value> loadBias(Value colBase);
  void addScoreFunction(SmallVectorImpl<Value> &s, Value colBase);
  void mask(SmallVectorImpl<Value> &s, Value colBase);

  KernelBuilder &kb;
  const AttentionKernelConfig &cfg;
  MaskRule *rule; // the constructor's, or apply's own with reloadLengths
  Log2Score log2Score;
  std::function<std::pair<Value, Value>()> reloadLengths;
  std::optional<BiasArgs> bias;
  /// The queries of packed rows [row, row + rows), or the rows themselves.
  Span queries(Value row, int64_t rows);

  Value seqQ, seqK, wgRow0, row0, laneCol, factor, packGroup;
  Value biasRow[2]; // i64 element offset of this thread's two bias rows
};

struct EpilogueArgs {
  Value outPtr, lsePtr; // lsePtr may be null
  Value batch, head, numHeads, seqQ;
  Value row0;  // global query row of this thread's first row
  Value lane;  // lane id (0..31)
  bool rowsMayBeNegative = false; // a first block that starts before row 0
  Value exponentFactor;
  /// FP8: V's descale, which O is multiplied by (null otherwise).
  Value outScale;
  /// Ragged batches: rows [0, seqQ) of the sequence are packed rows
  /// rowBase + row of an O [1, packedSeqQ, heads, dv] and LSE [1, heads,
  /// packedSeqQ]; null otherwise.
  Value rowBase, packedSeqQ;
};

/// Normalises O by the row sums, stores O (bf16/f16; the headDimV real
/// columns) and, when asked, LSE.
void storeEpilogue(KernelBuilder &kb, const AttentionKernelConfig &cfg, SmallVectorImpl<Value> &o,
                   RowState &state, const EpilogueArgs &args);

/// Where a split-KV CTA writes: dense f32 partials o_partial [splits,
/// batch, heads_q, seq_q, dv] and lse_partial [splits, batch, heads_q,
/// seq_q]; packed rows (pack-GQA) r = query * group + head in group.
struct PartialEpilogueArgs {
  Value oPartial, lsePartial;
  Value outPtr, lsePtr; // the final O and LSE (lsePtr may be null), one split only
  Value split, numSplits, batch, numBatch, kvHead, group, seqQ;
  Value row0; // packed row of this thread's first fragment row
  Value lane;
  Value exponentFactor;
};
/// A query row's coordinates, i64: batch, head, query and the extents.
struct RowCoords {
  Value batch, head, numHeads, seqQ, query;
};
/// The i64 row of the dense O in the layout, and of the LSE [batch, heads,
/// seq_q]: what the epilogues and the combine write.
Value outputRowIndex(KernelBuilder &kb, const AttentionKernelConfig &cfg, const RowCoords &c);
Value lseIndex(KernelBuilder &kb, const RowCoords &c);
/// The i64 row (split, batch, head, query) of the dense partials: the one
/// layout the partial kernel writes and the combine kernel reads.
Value partialRowIndex(KernelBuilder &kb, Value split, Value numBatch, Value batch,
                      Value numHeads, Value head, Value seqQ, Value query);
/// Normalises O and stores it and the LSE (always) as f32 partials; with
/// one split (numSplits == 1 at run time), as the final O and LSE instead.
void storePartialEpilogue(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                          SmallVectorImpl<Value> &o, RowState &state,
                          const PartialEpilogueArgs &args);

/// The split-KV merge kernel `cfg.kernelName() + "_combine"`: O and LSE
/// from the partials (fa.combine's rule: -inf partials are ignored, rows
/// without any give O = 0, LSE = -inf). SplitKV.cpp, on Combine.cpp's
/// mergePartialRow.
void buildCombineKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                        const AttentionKernelConfig &cfg);

// fa.combine's merge (Combine.cpp), shared by the split-KV `_combine`
// kernel and the standalone one: one warp per row, four rows per CTA.
constexpr int64_t kCombineThreads = 128;
constexpr int64_t kCombineRowsPerCta = kCombineThreads / 32;
/// Where one row's partials are: split c's LSE at element lseAt(c) of
/// `lsePartial`, its O row at element oRowAt(c) of `oPartial` (i64
/// indices, f32 buffers); `numSplits` i32.
struct PartialRows {
  Value oPartial, lsePartial, numSplits;
  std::function<Value(Value)> lseAt, oRowAt;
};
/// A merged row in one warp: lane l holds columns l, l + 32, ... (f32).
struct MergedRow {
  Value lse; // -inf when every partial is
  SmallVector<Value> columns;
};
/// fa.combine's rule over the splits of one row of `dim` columns.
MergedRow mergePartialRow(KernelBuilder &kb, const PartialRows &p, Value lane, int64_t dim);
/// Stores the row's columns at out[rowOffset + column] as `outType` (f32,
/// or f16/bf16 rounded once) and, from lane 0 when `lsePtr`, its LSE at
/// lsePtr[lseAt()].
void storeMergedRow(KernelBuilder &kb, const MergedRow &merged, Value lane, int64_t dim,
                    Value out, Value rowOffset, Type outType, Value lsePtr,
                    function_ref<Value()> lseAt);

/// The output type of a standalone fa.combine kernel.
enum class CombineOut { F32, F16, BF16 };
/// What the standalone fa.combine kernel is specialised on: the row
/// length and the output type (splits and rows are parameters).
struct CombineKernelConfig {
  int64_t dim = 0;
  CombineOut out = CombineOut::F32;
  /// The largest `dim`: its columns are accumulated in registers,
  /// dim / 32 per lane.
  static constexpr int64_t kMaxDim = 512;
  const char *outName() const;
  /// fa_combine_d<dim>_<out>: the kernel, its gpu.module and its bundle.
  std::string kernelName() const;
};
/// The standalone kernel of an fa.combine op and its bundle (op
/// "combine", docs/BundleFormat.md *Combine*).
void buildStandaloneCombineKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                                  const CombineKernelConfig &cfg);
std::string standaloneCombineBundleJson(const CombineKernelConfig &cfg, StringRef chip,
                                        StringRef cubinFile);
/// A split-KV workspace buffer ("o_partial" or "lse_partial"): the
/// sequence's entry (withInit) or a kernel's scratch entry.
llvm::json::Object splitScratchEntry(const AttentionKernelConfig &cfg, StringRef name,
                                     bool withInit = false);
/// The `config` of a split-KV sequence and of each of its kernels.
llvm::json::Object splitSequenceConfig(const AttentionKernelConfig &cfg);
/// Split-KV: the sequence JSON (named kernelName()) and the two kernels'
/// bundles, for `op` ("attention_fwd" or "attention_kvcache").
std::string splitSequenceJson(const AttentionKernelConfig &cfg, StringRef chip, StringRef op);
std::vector<std::pair<std::string, std::string>>
splitBundleJsons(const AttentionKernelConfig &cfg, StringRef chip, StringRef op,
                 StringRef cubinFile);

/// A kernel function with the attributes every sm_90a kernel here has.
LLVM::LLVMFuncOp createKernelFunction(ImplicitLocOpBuilder &b, StringRef name,
                                      ArrayRef<Type> args, int64_t threads);
/// Marks argument i a 128-byte grid-constant CUtensorMap.
void markTensorMapArg(ImplicitLocOpBuilder &b, LLVM::LLVMFuncOp fn, unsigned i);
/// Appends to `moduleBody` a kernel `name` (createKernelFunction) whose
/// first `tensorMaps` parameters are CUtensorMaps, preceded by its dynamic
/// shared memory symbol `name`_smem when `sharedMemory`; `body` emits it
/// (the return is added after).
void buildKernelFunction(OpBuilder &builder, Location loc, Block &moduleBody, StringRef name,
                         ArrayRef<Type> args, int64_t threads, unsigned tensorMaps,
                         bool sharedMemory,
                         function_ref<void(KernelBuilder &, LLVM::LLVMFuncOp)> body);
/// Element offset of (batch, head, row, 0) of a rank-4 operand from its
/// strides (i64, in elements).
Value stridedRowOffset(KernelBuilder &kb, Value batch, Value head, Value row, Value strideBatch,
                       Value strideHead, Value strideRow);

/// The append pre-kernel `cfg.kernelName() + "_write_kv"` of a KV-cache
/// sequence: key_new / value_new rows into the caches at cache_seqlens
/// (AppendKV.cpp), and its bundle JSON.
void buildAppendKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                       const AttentionKernelConfig &cfg);
std::string appendKernelName(const AttentionKernelConfig &cfg);
std::string appendBundleJson(const AttentionKernelConfig &cfg, StringRef chip,
                             StringRef cubinFile);

/// FP8: the pre-kernel `cfg.kernelName() + "_transpose_v"` that writes
/// value_t [batch, heads_kv, head_dim_v, valueTKeys] from V, keys permuted
/// within each 16 (fp8ValueKey) so that P's accumulator registers are the
/// e4m3 A operand of P V as they are (TransposeV.cpp); its bundle JSON, the
/// sequence's, and value_t's workspace entry.
void buildTransposeValueKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                               const AttentionKernelConfig &cfg);
std::string transposeValueBundleJson(const AttentionKernelConfig &cfg, StringRef chip,
                                     StringRef cubinFile);
std::string fp8SequenceJson(const AttentionKernelConfig &cfg, StringRef chip);
llvm::json::Object valueTransposeWorkspace(const AttentionKernelConfig &cfg, bool withInit);
/// value_t's key extent: seq_k rounded up to whole 64-key pre-kernel tiles.
constexpr const char *kValueTKeys = "ceildiv(seq_k, 64) * 64";
/// The key of V that column j of a 16-key group of value_t holds: P's
/// accumulator registers hold keys (2 t, 2 t + 1, 2 t + 8, 2 t + 9) of each
/// 16 where the e4m3 A operand wants (4 t .. 4 t + 3).
inline int64_t fp8ValueKey(int64_t j) { return 2 * (j / 4) + (j & 1) + 8 * ((j >> 1) & 1); }

/// Appends to `moduleBody` the kernel `cfg.kernelName()` as an llvm.func plus
/// its shared memory symbol.
LLVM::LLVMFuncOp buildAttentionKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                                      const AttentionKernelConfig &cfg);

// Pieces of bundle JSON (docs/BundleFormat.md) shared by every kernel
// (BundleJson.cpp).
/// A tensor_map parameter over a rank-4 operand: 128B-swizzled boxes of
/// [64 elements x rows]; `dims` innermost first (default: a Q/K/V/O role's).
llvm::json::Object tensorMapParam(StringRef operand, StringRef dtype, int64_t rows,
                                  ArrayRef<StringRef> dims = {"dim", "seq", "head", "batch"},
                                  int64_t boxInner = AttentionKernelConfig::kBox);
/// A kernel bundle's fields (one CTA per cluster); the caller adds any
/// `scratch`.
llvm::json::Object kernelBundleRoot(StringRef chip, StringRef cubinFile, StringRef kernel,
                                    StringRef op, llvm::json::Object config, int64_t threads,
                                    int64_t sharedMemoryBytes, llvm::json::Array grid,
                                    llvm::json::Array params);
/// A ptr parameter of `operand`; an i32 parameter of the expression `value`.
llvm::json::Object ptrParam(StringRef operand);
/// A ptr parameter whose address and strides the kernel reads 16 bytes at
/// a time from (the runtime checks the alignment).
llvm::json::Object alignedPtrParam(StringRef operand);
llvm::json::Object i32Param(StringRef value);
/// i64 parameters "stride(operand, dim)" for each of `dims`.
void appendStrideParams(llvm::json::Array &params, StringRef operand, ArrayRef<StringRef> dims);
/// The descriptive `config` fields of the score function and the layout.
llvm::json::Object semanticsConfig(StringRef dtype, bool bshd, int64_t headDim, int64_t headDimV,
                                   const AttentionConfig &semantics);
/// Indented JSON text.
std::string printJson(llvm::json::Value value);

/// The `config` of a forward kernel's bundle (an FP8 sequence's too).
llvm::json::Object forwardBundleConfig(const AttentionKernelConfig &cfg);
/// The bundle JSON (docs/BundleFormat.md) for the kernel, with `cubinFile`.
std::string bundleJson(const AttentionKernelConfig &cfg, StringRef chip, StringRef cubinFile);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_KERNELPARTS_H
