//===- FAToNVVM.cpp - convert-fa-to-nvvm ----------------------------------===//
#include "fa/Conversion/Passes.h"

#include "BackwardParts.h"
#include "BlockMap.h"
#include "ForwardShared.h"
#include "RegionFragments.h"
#include "fa/Dialect/FA/IR/FAOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fa {
#define GEN_PASS_DEF_CONVERTFATONVVM
#include "fa/Conversion/Passes.h.inc"
} // namespace mlir::fa

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

namespace {

/// The element type of a bias operand the kernel reads, if it can.
static std::optional<BiasType> biasTypeOf(Type t) {
  if (t.isF32())
    return BiasType::F32;
  if (t.isBF16())
    return BiasType::BF16;
  if (t.isF16())
    return BiasType::F16;
  return std::nullopt;
}

/// The element type both kernels take (the dense forward also e4m3), or
/// none.
static std::optional<ElemType> elemTypeOf(Type e, bool allowFp8 = false) {
  if (e.isBF16())
    return ElemType::BF16;
  if (e.isF16())
    return ElemType::F16;
  if (allowFp8 && isa<Float8E4M3FNType>(e))
    return ElemType::E4M3;
  return std::nullopt;
}

/// FP8 forward: what the sm_90a kernel takes beyond the 16-bit one's, or
/// an error naming what it does not do (yet).
LogicalResult checkFp8Forward(AttentionOp op, AttentionKernelConfig &cfg) {
  auto fail = [&](const Twine &what) {
    return op.emitOpError("convert-fa-to-nvvm: ") << what, failure();
  };
  std::optional<ElemType> out =
      elemTypeOf(cast<ShapedType>(op.getOutput().getType()).getElementType());
  if (!out)
    return fail("the output of f8E4M3FN inputs must be bf16 or f16 for the sm_90a kernel");
  cfg.fp8OutElem = *out;
  if (std::optional<ArrayRef<int64_t>> block = op.getDescaleBlock()) {
    // One kernel form: Q's descale per row, K's and V's per key tile.
    for (auto [d, name] : {std::pair{op.getQueryDescale(), "query_descale"},
                           {op.getKeyDescale(), "key_descale"},
                           {op.getValueDescale(), "value_descale"}})
      if (cast<ShapedType>(d.getType()).getRank() != 3)
        return fail(Twine("with descale_block the sm_90a FP8 kernel takes every descale per "
                          "block; '") +
                    name + "' is not (expand it to the per-block form)");
    int64_t headDim = cast<ShapedType>(op.getQuery().getType()).getDimSize(3);
    if (!AttentionKernelConfig::fp8KeyTile(headDim, (*block)[1]))
      return fail("descale_block's block_k " + Twine((*block)[1]) +
                  " must be a multiple of 128 (or of 192 or 224 at head dims above 64 up to "
                  "128) for the sm_90a FP8 kernel: each key tile lies in one descale block");
    cfg.descaleBlockQ = (*block)[0];
    cfg.descaleBlockK = (*block)[1];
  }
  if (op.getBias())
    return fail("a bias with f8E4M3FN inputs is not supported by the sm_90a kernel");
  if (op.getSoftcap())
    return fail("softcap with f8E4M3FN inputs is not supported by the sm_90a kernel yet");
  if (op.getNumSplits())
    return fail("num_splits with f8E4M3FN inputs is not supported by the sm_90a kernel yet");
  auto qTy = cast<ShapedType>(op.getQuery().getType());
  auto vTy = cast<ShapedType>(op.getValue().getType());
  if (qTy.getDimSize(3) % 16 || vTy.getDimSize(3) % 16)
    return fail("head dims of f8E4M3FN Q, K and V must be multiples of 16 for the sm_90a "
                "kernel (16-byte rows of V^T chunks and TMA boxes)");
  return success();
}

/// TMA rows must be whole multiples of 16 bytes; one wgmma is at most 256 wide.
static bool isKernelHeadDim(int64_t n, int64_t max) {
  return !ShapedType::isDynamic(n) && n % 8 == 0 && n >= 8 && n <= max;
}

FailureOr<AttentionKernelConfig> planAndCheck(AttentionKernelConfig cfg, Operation *op,
                                              const ConvertFAToNVVMOptions &opts);

/// The head dims a forward kernel takes, or an error on `op`.
LogicalResult checkForwardHeadDims(Operation *op, int64_t d, int64_t dv) {
  if (!isKernelHeadDim(d, 256))
    return op->emitOpError("convert-fa-to-nvvm: ")
           << "head dim of Q and K must be a static multiple of 8 in [8, 256]";
  if (!isKernelHeadDim(dv, 256))
    return op->emitOpError("convert-fa-to-nvvm: ")
           << "head dim of V must be a static multiple of 8 in [8, 256]";
  return success();
}

/// The pass options a forward kernel takes, or an error on `op`.
LogicalResult checkForwardOptions(Operation *op, const ConvertFAToNVVMOptions &opts) {
  if (opts.chip != "sm_90a")
    return op->emitOpError("convert-fa-to-nvvm: ") << "only chip=sm_90a is supported, got "
                                                   << opts.chip;
  if (opts.stages < 2)
    return op->emitOpError("convert-fa-to-nvvm: ") << "stages must be >= 2";
  if (opts.fwdKeyTile % 16 != 0 || opts.fwdKeyTile > 256)
    return op->emitOpError("convert-fa-to-nvvm: ")
           << "fwd-key-tile must be 0 (choose) or a multiple of 16 up to 256, got "
           << opts.fwdKeyTile;
  return success();
}

/// The forward's score_mod/mask_mod regions: a band mask_mod states is
/// folded into causal/window (the same key tiles skipped as with the
/// attributes), and a mask_mod that states more makes the kernel
/// block-sparse (BlockMap.h: its key tiles from a run-time map); what the
/// kernel cannot evaluate is an error on `op`.
LogicalResult checkForwardModifiers(AttentionOp op, AttentionKernelConfig &cfg) {
  if (!cfg.semantics.hasModifiers())
    return success();
  if (cfg.isFp8() || op.getNumSplits())
    return op.emitOpError("convert-fa-to-nvvm: score_mod/mask_mod regions with f8E4M3FN "
                          "inputs or num_splits are not supported by the sm_90a kernels yet"),
           failure();
  foldMaskModBand(cfg.semantics);
  cfg.blockSparse = cfg.semantics.maskMod != nullptr;
  return checkKernelModifiers(op, cfg.semantics);
}

/// The regions of a ragged batch's or a KV cache's forward, with their
/// positions per sequence (docs/Modifiers.md): mask_mod is evaluated on every
/// key tile (no block map). A band mask_mod folds into causal/window where
/// its indices count from 0 as the built-in masks' (`foldBand`: a ragged
/// batch's); a KV cache's query index is absolute, so it does not.
LogicalResult checkSequenceModifiers(Operation *op, AttentionConfig &semantics, bool foldBand) {
  if (!semantics.hasModifiers())
    return success();
  if (foldBand)
    foldMaskModBand(semantics);
  return checkKernelModifiers(op, semantics);
}

/// The backward's regions: as the forward's (a band mask_mod folded into
/// causal/window), and score_mod differentiable (dS goes through its
/// derivative, derived from the region); else an error naming the op.
LogicalResult checkBackwardModifiers(AttentionGradOp op, AttentionConfig &semantics) {
  if (!semantics.hasModifiers())
    return success();
  foldMaskModBand(semantics);
  if (failed(checkKernelModifiers(op, semantics)))
    return failure();
  return checkScoreModDifferentiable(semantics);
}

/// The kernel configuration of `op`, or an error on `op` naming what the
/// sm_90a kernel does not do (yet).
FailureOr<AttentionKernelConfig> configFor(AttentionOp op, const ConvertFAToNVVMOptions &opts) {
  auto fail = [&](const Twine &what) {
    return op.emitOpError("convert-fa-to-nvvm: ") << what, failure();
  };
  auto qTy = cast<RankedTensorType>(op.getQuery().getType());
  auto vTy = cast<RankedTensorType>(op.getValue().getType());
  auto oTy = cast<RankedTensorType>(op.getOutput().getType());
  AttentionKernelConfig cfg;
  Type e = qTy.getElementType();
  std::optional<ElemType> elem = elemTypeOf(e, /*allowFp8=*/true);
  if (!elem)
    return fail("element type must be bf16, f16 or f8E4M3FN for the sm_90a kernel");
  cfg.elem = *elem;
  if (!cfg.isFp8() && oTy.getElementType() != e)
    return fail("output element type must match the inputs");
  if (qTy.getRank() != 4 || vTy.getRank() != 4)
    return fail("Q, K and V must be rank 4");
  int64_t d = qTy.getDimSize(3), dv = vTy.getDimSize(3);
  if (failed(checkForwardHeadDims(op, d, dv)))
    return failure();
  if (cfg.isFp8() && failed(checkFp8Forward(op, cfg)))
    return failure();
  if (Value bias = op.getBias()) {
    cfg.bias = biasTypeOf(cast<ShapedType>(bias.getType()).getElementType());
    if (!cfg.bias)
      return fail("bias element type must be f32, bf16 or f16");
  }
  if (failed(checkForwardOptions(op, opts)))
    return failure();
  cfg.headDim = d;
  cfg.headDimV = dv;
  cfg.semantics = AttentionConfig::get(op);
  if (failed(checkForwardModifiers(op, cfg)))
    return failure();
  // The sink joins the dense epilogue's normalizer; the FP8 epilogue's
  // shifted P and the split partials' merge do not take it yet.
  if (cfg.semantics.sinks && (cfg.isFp8() || op.getNumSplits()))
    return fail("'sinks' with f8E4M3FN inputs or num_splits is not supported by the sm_90a "
                "kernels yet");
  cfg.bshd = op.getLayout() == Layout::bshd;
  cfg.returnLse = static_cast<bool>(op.getLse());
  cfg.stages = opts.stages;
  cfg.overlap = opts.overlap;
  cfg.pingPong = opts.pingPong;
  cfg.dynamicTiles = opts.dynamicTiles;
  if (std::optional<uint64_t> splits = op.getNumSplits()) {
    if (cfg.bias)
      return fail("num_splits with a bias is not supported by the sm_90a kernel yet");
    cfg.splitKv = true;
    cfg.numSplits = static_cast<int64_t>(*splits);
    cfg.pingPong = false; // one consumer warpgroup
  }
  return planAndCheck(cfg, op, opts);
}

/// Plans the tiles of `cfg` and checks they fit shared memory; the error
/// names the first part's region past the limit.
FailureOr<AttentionKernelConfig> planAndCheck(AttentionKernelConfig cfg, Operation *op,
                                              const ConvertFAToNVVMOptions &opts) {
  cfg.planTiles(opts.fwdKeyTile);
  int64_t d = cfg.headDim, dv = cfg.headDimV;
  SharedLayout layout = ForwardShared::plan(cfg).layout;
  if (const SharedLayout::Entry *past = layout.firstOverflow())
    return op->emitOpError("convert-fa-to-nvvm: ")
               << "stages=" << opts.stages << " with head dims " << d << "/" << dv << " needs "
               << layout.requestBytes()
               << " B of shared memory, more than the 227 KB an sm_90a CTA may use: "
               << past->describe() << " does not fit",
           failure();
  return cfg;
}

/// What the kernels of the inference ops share: bf16/f16 bshd Q, K, V and
/// the LSE, head dims at dim `dimAxis` of Q and `value`, the pass's
/// pipeline options; or an error on `op`.
template <typename OpT>
FailureOr<AttentionKernelConfig> bshdForwardConfig(OpT op, Value value, unsigned dimAxis,
                                                   const ConvertFAToNVVMOptions &opts) {
  auto qTy = cast<RankedTensorType>(op.getQuery().getType());
  auto vTy = cast<RankedTensorType>(value.getType());
  AttentionKernelConfig cfg;
  std::optional<ElemType> elem = elemTypeOf(qTy.getElementType());
  if (!elem)
    return op.emitOpError("convert-fa-to-nvvm: ")
               << "element type must be bf16 or f16 for the sm_90a kernel",
           failure();
  cfg.elem = *elem;
  int64_t d = qTy.getDimSize(dimAxis), dv = vTy.getDimSize(dimAxis);
  if (failed(checkForwardHeadDims(op, d, dv)) || failed(checkForwardOptions(op, opts)))
    return failure();
  cfg.headDim = d;
  cfg.headDimV = dv;
  cfg.bshd = true;
  cfg.semantics = AttentionConfig::get(op);
  cfg.returnLse = true;
  cfg.stages = opts.stages;
  cfg.overlap = opts.overlap;
  cfg.dynamicTiles = opts.dynamicTiles;
  return cfg;
}

/// The split-KV decode kernel of a KV-cache op, or an error naming what it
/// does not do (yet).
FailureOr<AttentionKernelConfig> configFor(AttentionKVCacheOp op,
                                           const ConvertFAToNVVMOptions &opts) {
  auto fail = [&](const Twine &what) {
    return op.emitOpError("convert-fa-to-nvvm: ") << what, failure();
  };
  FailureOr<AttentionKernelConfig> base = bshdForwardConfig(op, op.getValueCache(), 3, opts);
  if (failed(base))
    return failure();
  AttentionKernelConfig cfg = *base;
  if (op.getBlockTable()) {
    int64_t pageSize = cast<RankedTensorType>(op.getValueCache().getType()).getDimSize(1);
    if (ShapedType::isDynamic(pageSize) ||
        cast<RankedTensorType>(op.getKeyCache().getType()).getDimSize(1) != pageSize)
      return fail("a paged cache's page_size (dim 1 of key_cache and value_cache) must be "
                  "static for the sm_90a kernel");
    cfg.pageSize = pageSize;
  }
  if (failed(checkSequenceModifiers(op, cfg.semantics, /*foldBand=*/false)))
    return failure();
  cfg.append = static_cast<bool>(op.getKey());
  cfg.splitKv = true;
  cfg.numSplits = static_cast<int64_t>(op.getNumSplits().value_or(0));
  cfg.keyLengths = true;
  FailureOr<AttentionKernelConfig> planned = planAndCheck(cfg, op, opts);
  if (succeeded(planned) && !planned->pagesFitTiles())
    return fail("page_size " + Twine(cfg.pageSize) +
                " nests with none of the key tiles the sm_90a kernel can use at this head "
                "dim: it must be a multiple of 8 that divides or is a multiple of one of "
                "128, 112, 96, 80, 64, 48, 32 (the tiles that fit registers and shared memory)");
  return planned;
}

/// The ragged-batch forward of a varlen op, or an error naming what it does
/// not do (yet). `num_splits` is a hint the kernel does not take: one CTA
/// per query block of each sequence. (The verifier ties O's element type
/// to Q's.)
FailureOr<AttentionKernelConfig> configFor(AttentionVarlenOp op,
                                           const ConvertFAToNVVMOptions &opts) {
  FailureOr<AttentionKernelConfig> cfg = bshdForwardConfig(op, op.getValue(), 2, opts);
  if (failed(cfg))
    return failure();
  cfg->pingPong = opts.pingPong;
  cfg->varlen = true;
  if (failed(checkSequenceModifiers(op, cfg->semantics, /*foldBand=*/true)))
    return failure();
  // Under a mask a ragged batch's tiles cost what their rows see: the
  // dynamic scheduler balances them (causal +2..17 % over one tile per CTA
  // on an H100, 0.91-1.07 of FA4's varlen; docs/Inference.md).
  cfg->dynamicTiles = opts.dynamicTiles || cfg->maskedRaggedBatch();
  return planAndCheck(*cfg, op, opts);
}

/// What every backward kernel takes of its operands: the element types and
/// head dims (the last dim of Q and V, of rank `rank`), or an error on `op`.
template <typename OpT>
FailureOr<BackwardKernelConfig> backwardOperandConfig(OpT op, int64_t rank) {
  auto fail = [&](const Twine &what) {
    return op.emitOpError("convert-fa-to-nvvm: ") << what, failure();
  };
  auto qTy = cast<RankedTensorType>(op.getQuery().getType());
  auto vTy = cast<RankedTensorType>(op.getValue().getType());
  BackwardKernelConfig cfg;
  Type e = qTy.getElementType();
  std::optional<ElemType> elem = elemTypeOf(e);
  if (!elem)
    return fail("element type must be bf16 or f16 for the sm_90a backward");
  cfg.elem = *elem;
  for (Value v : {op.getGradOutput(), op.getKey(), op.getValue(), op.getOutput()})
    if (cast<ShapedType>(v.getType()).getElementType() != e)
      return fail("dO, K, V and O must have the element type of Q for the sm_90a backward");
  if (qTy.getRank() != rank || vTy.getRank() != rank)
    return fail("Q, K and V must be rank " + Twine(rank));
  int64_t d = qTy.getDimSize(rank - 1), dv = vTy.getDimSize(rank - 1);
  int64_t max = BackwardKernelConfig::kMaxHeadDim;
  // dK and dV of 64 keys stay in a consumer's registers: 2 x 64 f32 at 128.
  if (!isKernelHeadDim(d, max))
    return fail("head dim of Q and K must be a static multiple of 8 in [8, " + Twine(max) +
                "] for the sm_90a backward (dK and dV accumulate in registers)");
  if (!isKernelHeadDim(dv, max))
    return fail("head dim of V must be a static multiple of 8 in [8, " + Twine(max) +
                "] for the sm_90a backward (dK and dV accumulate in registers)");
  cfg.headDim = d;
  cfg.headDimV = dv;
  return cfg;
}

/// The backward's configuration, or an error naming what it does not do.
FailureOr<BackwardKernelConfig> configFor(AttentionGradOp op, const ConvertFAToNVVMOptions &opts) {
  auto fail = [&](const Twine &what) {
    return op.emitOpError("convert-fa-to-nvvm: ") << what, failure();
  };
  auto qTy = cast<RankedTensorType>(op.getQuery().getType());
  FailureOr<BackwardKernelConfig> base = backwardOperandConfig(op, 4);
  if (failed(base))
    return failure();
  BackwardKernelConfig cfg = *base;
  cfg.bshd = op.getLayout() == Layout::bshd;
  cfg.deterministic = opts.deterministic;
  if (Value bias = op.getBias()) {
    auto bTy = cast<RankedTensorType>(bias.getType());
    cfg.bias = biasTypeOf(bTy.getElementType());
    if (!cfg.bias)
      return fail("bias element type must be f32, bf16 or f16");
    // A static 1 broadcasts (the verifier's rule), unless Q's dim is a
    // static 1 too: then each element has one writer.
    auto broadcasts = [&](unsigned dim) {
      int64_t q = qTy.getDimSize(cfg.bshd && dim == 1 ? 2 : dim);
      return bTy.getDimSize(dim) == 1 && q != 1;
    };
    cfg.biasBroadcastBatch = broadcasts(0);
    cfg.biasBroadcastHead = broadcasts(1);
    // In deterministic mode a broadcast bias of the inputs' type is summed
    // in a fixed order; an f32 one has only the atomics.
    if (cfg.biasBroadcasts() && !cfg.biasGradInOrder() && opts.deterministic)
      return fail("a bias that broadcasts over batch or heads is supported by the deterministic "
                  "sm_90a backward only in the inputs' element type (dBias of an f32 bias sums "
                  "over them with f32 atomics)");
  }
  cfg.semantics = AttentionConfig::get(op);
  if (failed(checkBackwardModifiers(op, cfg.semantics)))
    return failure();
  if (opts.chip != "sm_90a")
    return fail("only chip=sm_90a is supported, got " + opts.chip);
  if (opts.bwdQueryTile != 0 && opts.bwdQueryTile != 64 && opts.bwdQueryTile != 80 &&
      opts.bwdQueryTile != 128)
    return fail("bwd-query-tile must be 0 (choose), 64, 80 or 128, got " +
                Twine(opts.bwdQueryTile));
  cfg.chooseQueryTile(opts.bwdQueryTile);
  return cfg;
}

/// A ragged batch's backward: the dense backward's kernels over packed
/// [1, total, heads, dim] operands, walking the sequences through
/// cu_seqlens (VarlenBackward.cpp); or an error naming what it does not do.
FailureOr<BackwardKernelConfig> configFor(AttentionVarlenGradOp op,
                                          const ConvertFAToNVVMOptions &opts) {
  FailureOr<BackwardKernelConfig> cfg = backwardOperandConfig(op, 3);
  if (failed(cfg))
    return failure();
  if (opts.chip != "sm_90a")
    return op.emitOpError("convert-fa-to-nvvm: only chip=sm_90a is supported, got ") << opts.chip,
           failure();
  cfg->bshd = true;
  cfg->varlen = true;
  cfg->semantics = AttentionConfig::get(op);
  // Its kernels walk the packed rows as one batch: the regions would not see
  // a sequence's positions.
  if (cfg->semantics.hasModifiers())
    return op.emitOpError("convert-fa-to-nvvm: score_mod/mask_mod regions on "
                          "fa.attention_varlen_grad are not supported by the sm_90a backward "
                          "yet (the CPU lowering takes them)"),
           failure();
  cfg->deterministic = opts.deterministic;
  return cfg;
}

/// The standalone merge kernel of an fa.combine, or an error naming the
/// operand it does not take. (The verifier checked the element types and
/// that the results are the partials without their split dim.)
FailureOr<CombineKernelConfig> configFor(CombineOp op, const ConvertFAToNVVMOptions &opts) {
  auto fail = [&](const Twine &what) {
    return op.emitOpError("convert-fa-to-nvvm: ") << what, failure();
  };
  auto po = cast<RankedTensorType>(op.getPartialOutput().getType());
  // One row dim: the kernel's grid is flat over rows.
  if (po.getRank() != 3)
    return fail("'partial_output' must be rank 3 [splits, rows, dim] for the sm_90a combine "
                "kernel, got rank " +
                Twine(po.getRank()) + " (collapse the row dims into one)");
  CombineKernelConfig cfg;
  cfg.dim = po.getDimSize(2);
  int64_t max = CombineKernelConfig::kMaxDim;
  if (ShapedType::isDynamic(cfg.dim) || cfg.dim < 1 || cfg.dim > max)
    return fail("'partial_output' dim (its last dimension) must be static and in [1, " +
                Twine(max) + "] for the sm_90a combine kernel (a row is held in one warp's "
                "registers), got " +
                (ShapedType::isDynamic(cfg.dim) ? "?" : Twine(cfg.dim)));
  if (opts.chip != "sm_90a")
    return fail("only chip=sm_90a is supported, got " + opts.chip);
  Type out = cast<ShapedType>(op.getOutput().getType()).getElementType();
  cfg.out = out.isF32() ? CombineOut::F32 : out.isF16() ? CombineOut::F16 : CombineOut::BF16;
  return cfg;
}

/// A gpu.module named `name` for sm_90a at the end of the module. The
/// forward's PTX is ISA 8.0; the backward's vector red.global needs 8.1.
gpu::GPUModuleOp createKernelModule(OpBuilder &builder, ModuleOp module, Location loc,
                                    StringRef name, StringRef chip, StringRef ptxFeature) {
  MLIRContext *ctx = module.getContext();
  builder.setInsertionPointToEnd(module.getBody());
  auto target =
      NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda", chip, ptxFeature);
  return gpu::GPUModuleOp::create(builder, loc, name, ArrayRef<Attribute>{target});
}

struct ConvertFAToNVVMPass : fa::impl::ConvertFAToNVVMBase<ConvertFAToNVVMPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionGradOp, AttentionKVCacheOp, AttentionVarlenOp,
              AttentionVarlenGradOp, CombineOp>(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;

    ConvertFAToNVVMOptions opts{chip,          stages,       overlap,    pingPong,
                                deterministic, bwdQueryTile, fwdKeyTile, dynamicTiles};
    symbols.emplace(module);
    bundles.clear();
    if (auto existing = module->getAttrOfType<DictionaryAttr>("fa.kernel_bundles"))
      bundles.append(existing.begin(), existing.end());
    bool anyFailed = false;
    for (Operation *op : ops) {
      FailureOr<std::string> name =
          TypeSwitch<Operation *, FailureOr<std::string>>(op)
              .Case([&](AttentionOp fwd) { return lower(fwd, opts); })
              .Case([&](AttentionGradOp bwd) { return lower(bwd, opts); })
              .Case([&](AttentionKVCacheOp kv) { return lower(kv, opts); })
              .Case([&](AttentionVarlenOp v) { return lower(v, opts); })
              .Case([&](AttentionVarlenGradOp v) { return lowerBackward(v, opts); })
              .Case([&](CombineOp c) { return lower(c, opts); });
      if (failed(name)) {
        anyFailed = true;
        continue;
      }
      op->setAttr("fa.kernel", SymbolRefAttr::get(ctx, *name, {FlatSymbolRefAttr::get(ctx, *name)}));
    }
    if (anyFailed)
      return signalPassFailure();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(ctx));
    module->setAttr("fa.kernel_bundles", DictionaryAttr::get(ctx, bundles));
  }

private:
  /// The gpu.module `name` (PTX ISA `ptxFeature`), built by `build` unless
  /// an earlier op of the same configuration made it; `name`.
  std::string lowerOnce(Location loc, const std::string &name, StringRef ptxFeature,
                        function_ref<void(OpBuilder &, Block &)> build) {
    if (symbols->lookup(name))
      return name;
    OpBuilder builder(&getContext());
    auto gpuModule = createKernelModule(builder, getOperation(), loc, name, chip, ptxFeature);
    symbols->insert(gpuModule);
    build(builder, gpuModule.getBodyRegion().front());
    return name;
  }

  /// The forward kernel of `op`: one bundle.
  FailureOr<std::string> lower(AttentionOp op, const ConvertFAToNVVMOptions &opts) {
    FailureOr<AttentionKernelConfig> cfg = configFor(op, opts);
    if (failed(cfg))
      return failure();
    if (cfg->splitKv)
      return lowerSplit(op.getLoc(), *cfg, "attention_fwd");
    if (cfg->isFp8())
      return lowerFp8(op.getLoc(), *cfg);
    if (cfg->blockSparse)
      return lowerBlockSparse(op.getLoc(), *cfg);
    return lowerForward(op.getLoc(), *cfg);
  }

  /// An FP8 forward: the V^T pre-kernel and the attention kernel.
  std::string lowerFp8(Location loc, const AttentionKernelConfig &cfg) {
    return lowerWithPreKernel(
        loc, cfg, "_transpose_v", buildTransposeValueKernel,
        [&](StringRef cubin) { return transposeValueBundleJson(cfg, chip, cubin); },
        [&] { return fp8SequenceJson(cfg, chip); });
  }

  /// A block-sparse forward: the block map pre-kernel and the attention
  /// kernel.
  std::string lowerBlockSparse(Location loc, const AttentionKernelConfig &cfg) {
    return lowerWithPreKernel(
        loc, cfg, "_block_map", buildBlockMapKernel,
        [&](StringRef cubin) { return blockMapBundleJson(cfg, chip, cubin); },
        [&] { return blockSparseSequenceJson(cfg, chip); });
  }

  /// A forward whose attention kernel needs a pre-kernel (named
  /// kernelName() + `preSuffix`, built by `buildPre`): both in one
  /// gpu.module, a sequence (named like it) and their bundles.
  std::string lowerWithPreKernel(
      Location loc, const AttentionKernelConfig &cfg, StringRef preSuffix,
      function_ref<void(OpBuilder &, Location, Block &, const AttentionKernelConfig &)> buildPre,
      function_ref<std::string(StringRef cubin)> preBundle,
      function_ref<std::string()> sequenceJson) {
    std::string name = cfg.kernelName();
    return lowerOnce(loc, name, "+ptx80", [&](OpBuilder &builder, Block &body) {
      buildPre(builder, loc, body, cfg);
      buildAttentionKernel(builder, loc, body, cfg);
      std::string cubin = name + ".cubin";
      SmallVector<NamedAttribute> files{
          builder.getNamedAttr(name, builder.getStringAttr(sequenceJson())),
          builder.getNamedAttr(name + preSuffix.str(), builder.getStringAttr(preBundle(cubin))),
          builder.getNamedAttr(cfg.attentionKernelName(),
                               builder.getStringAttr(bundleJson(cfg, chip, cubin)))};
      bundles.push_back(builder.getNamedAttr(name, builder.getDictionaryAttr(files)));
    });
  }

  /// The forward of a ragged batch: one bundle.
  FailureOr<std::string> lower(AttentionVarlenOp op, const ConvertFAToNVVMOptions &opts) {
    FailureOr<AttentionKernelConfig> cfg = configFor(op, opts);
    if (failed(cfg))
      return failure();
    return lowerForward(op.getLoc(), *cfg);
  }

  /// A one-kernel forward: its gpu.module and bundle (with the dynamic
  /// scheduler: a sequence of it, whose workspace is the tile counter).
  std::string lowerForward(Location loc, const AttentionKernelConfig &cfg) {
    std::string name = cfg.kernelName();
    return lowerOnce(loc, name, "+ptx80", [&](OpBuilder &builder, Block &body) {
      buildAttentionKernel(builder, loc, body, cfg);
      std::string bundle = bundleJson(cfg, chip, name + ".cubin");
      if (!cfg.hasDynamicScheduler()) {
        bundles.push_back(builder.getNamedAttr(name, builder.getStringAttr(bundle)));
        return;
      }
      SmallVector<NamedAttribute> files{
          builder.getNamedAttr(name, builder.getStringAttr(dynamicSequenceJson(cfg, chip))),
          builder.getNamedAttr(cfg.attentionKernelName(), builder.getStringAttr(bundle))};
      bundles.push_back(builder.getNamedAttr(name, builder.getDictionaryAttr(files)));
    });
  }

  /// A standalone fa.combine (ring attention's merge): one bundle.
  FailureOr<std::string> lower(CombineOp op, const ConvertFAToNVVMOptions &opts) {
    FailureOr<CombineKernelConfig> cfg = configFor(op, opts);
    if (failed(cfg))
      return failure();
    std::string name = cfg->kernelName();
    return lowerOnce(op.getLoc(), name, "+ptx80", [&](OpBuilder &builder, Block &body) {
      buildStandaloneCombineKernel(builder, op.getLoc(), body, *cfg);
      bundles.push_back(builder.getNamedAttr(
          name, builder.getStringAttr(standaloneCombineBundleJson(*cfg, chip, name + ".cubin"))));
    });
  }

  /// The split-KV decode of a KV-cache op: one sequence.
  FailureOr<std::string> lower(AttentionKVCacheOp op, const ConvertFAToNVVMOptions &opts) {
    FailureOr<AttentionKernelConfig> cfg = configFor(op, opts);
    if (failed(cfg))
      return failure();
    std::string opName = "attention_kvcache";
    if (cfg->paged())
      opName += "_paged";
    if (cfg->append)
      opName += "_append";
    return lowerSplit(op.getLoc(), *cfg, opName);
  }

  /// A split-KV forward: the partial and combine kernels in one gpu.module,
  /// a sequence (named like it) and their bundles.
  std::string lowerSplit(Location loc, const AttentionKernelConfig &cfg, StringRef opName) {
    std::string name = cfg.kernelName();
    return lowerOnce(loc, name, "+ptx80", [&](OpBuilder &builder, Block &body) {
      if (cfg.append)
        buildAppendKernel(builder, loc, body, cfg);
      buildAttentionKernel(builder, loc, body, cfg);
      buildCombineKernel(builder, loc, body, cfg);
      SmallVector<NamedAttribute> files{
          builder.getNamedAttr(name, builder.getStringAttr(splitSequenceJson(cfg, chip, opName)))};
      for (auto &[kernel, json] : splitBundleJsons(cfg, chip, opName, name + ".cubin"))
        files.push_back(builder.getNamedAttr(kernel, builder.getStringAttr(json)));
      bundles.push_back(builder.getNamedAttr(name, builder.getDictionaryAttr(files)));
    });
  }

  FailureOr<std::string> lower(AttentionGradOp op, const ConvertFAToNVVMOptions &opts) {
    return lowerBackward(op, opts);
  }

  /// The backward's kernels of `op` (dense or ragged): a sequence (named
  /// like its gpu.module) and its kernels' bundles.
  template <typename OpT>
  FailureOr<std::string> lowerBackward(OpT op, const ConvertFAToNVVMOptions &opts) {
    FailureOr<BackwardKernelConfig> cfg = configFor(op, opts);
    if (failed(cfg))
      return failure();
    std::string name = cfg->name();
    return lowerOnce(op.getLoc(), name, "+ptx81", [&](OpBuilder &builder, Block &body) {
      buildBackwardKernels(builder, op.getLoc(), body, *cfg);
      SmallVector<NamedAttribute> files{
          builder.getNamedAttr(name, builder.getStringAttr(backwardSequenceJson(*cfg, chip)))};
      for (auto &[kernel, json] : backwardBundleJsons(*cfg, chip, name + ".cubin"))
        files.push_back(builder.getNamedAttr(kernel, builder.getStringAttr(json)));
      bundles.push_back(builder.getNamedAttr(name, builder.getDictionaryAttr(files)));
    });
  }

  std::optional<SymbolTable> symbols;
  SmallVector<NamedAttribute> bundles;
};

} // namespace
