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

#include "KernelConfig.h"
#include "TileScheduler.h"
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
  /// `modifiers` evaluates the score_mod/mask_mod regions' capture reads
  /// (RegionFragments.h); null without regions.
  FragmentScores(KernelBuilder &kb, const AttentionKernelConfig &cfg, MaskRule &rule,
                 std::optional<BiasArgs> bias, Value batch, Value head, Value seqQ, Value seqK,
                 Value wgRow0, Value row0, Value laneCol, Value packGroup = Value(),
                 ModifierTarget *modifiers = nullptr);

  /// S of key tile `keyTile` (raw q.k) -> masked log2-domain scores, or raw
  /// scores when the score function is linear.
  /// `maskModNeeded` (i1, block-sparse kernels): whether mask_mod is
  /// evaluated on this tile (a full tile's is not); null: on every tile.
  SmallVector<Value> apply(Value keyTile, SmallVector<Value> s, Value maskModNeeded = Value());
  /// Lengths (seq_q, seq_k) re-read at every apply (a mask rule of their
  /// own there) instead of the constructor's values.
  void reloadLengthsWith(std::function<std::pair<Value, Value>()> reload) {
    reloadLengths = std::move(reload);
  }
  Value exponentFactor() { return factor; }

private:
  /// apply's body, with `seqK` for the tail.
  SmallVector<Value> applyWith(Value keyTile, SmallVector<Value> s, Value seqK,
                               Value maskModNeeded);
  /// Bias of this thread's elements of the tile at `colBase`, in f32.
  SmallVector<Value> loadBias(Value colBase);
  /// Where a tile's elements are, for the regions: the thread's first row
  /// and column, and the tile's seq_k.
  struct TilePositions {
    Value row0, colBase, seqK;
  };
  TilePositions tilePositions(Value colBase, Value seqK);
  void addScoreFunction(SmallVectorImpl<Value> &s, Value colBase, const TilePositions &at);
  void mask(SmallVectorImpl<Value> &s, Value colBase);
  /// mask_mod: -inf where it hides the element.
  void maskByRegion(SmallVectorImpl<Value> &s, const TilePositions &at);
  /// `s` masked by `maskFn` where `cond` holds (a warpgroup-uniform scf.if).
  SmallVector<Value> maskedWhere(Value cond, const SmallVector<Value> &s,
                                 function_ref<void(SmallVectorImpl<Value> &)> maskFn);
  /// The position (i32: KernelModifiers computes index in i32) of element
  /// i, which the regions take: rows and columns past the operands are
  /// clamped into them where a region reads a capture by them (the scores
  /// there are masked or never stored).
  ScorePosition position(int64_t i, const TilePositions &at);

  KernelBuilder &kb;
  const AttentionKernelConfig &cfg;
  MaskRule *rule; // the constructor's, or apply's own with reloadLengths
  AttentionConfig semantics; // cfg's, its regions evaluated through the target
  Log2Score log2Score;
  std::function<std::pair<Value, Value>()> reloadLengths;
  std::optional<BiasArgs> bias;
  /// The queries of packed rows [row, row + rows), or the rows themselves.
  Span queries(Value row, int64_t rows);

  Value batch, head, seqQ, seqK, wgRow0, row0, laneCol, factor, packGroup;
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
  /// Attention sinks [heads_q] f32 (null without): sink[head] joins every
  /// row's normalizer.
  Value sinksPtr;
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
/// The sequence of a forward with a pre-kernel (FP8's V^T, a block map):
/// `preKernel`, then the attention kernel, sharing `workspace`.
std::string preKernelSequenceJson(const AttentionKernelConfig &cfg, StringRef chip,
                                  StringRef preKernel, llvm::json::Array workspace);
llvm::json::Object valueTransposeWorkspace(const AttentionKernelConfig &cfg, bool withInit);
/// value_t's key extent: seq_k rounded up to whole 64-key pre-kernel tiles.
inline BundleExpr valueTKeys() { return ceilDiv(sym::SeqK, 64) * 64; }
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
/// The descriptive `config` fields of the score function and the layout.
llvm::json::Object semanticsConfig(StringRef dtype, bool bshd, int64_t headDim, int64_t headDimV,
                                   const AttentionConfig &semantics);
/// Indented JSON text.
std::string printJson(llvm::json::Value value);

/// The `config` of a forward kernel's bundle (an FP8 sequence's too).
llvm::json::Object forwardBundleConfig(const AttentionKernelConfig &cfg);
/// The bundle JSON (docs/BundleFormat.md) for the kernel, with `cubinFile`.
std::string bundleJson(const AttentionKernelConfig &cfg, StringRef chip, StringRef cubinFile);
/// A forward with the dynamic scheduler: its one-kernel sequence (named
/// kernelName(); the tile counter its workspace).
std::string dynamicSequenceJson(const AttentionKernelConfig &cfg, StringRef chip);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_KERNELPARTS_H
