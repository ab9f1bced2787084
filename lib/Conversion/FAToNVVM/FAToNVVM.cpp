//===- FAToNVVM.cpp - convert-fa-to-nvvm ----------------------------------===//
#include "fa/Conversion/Passes.h"

#include "KernelParts.h"
#include "fa/Dialect/FA/IR/FAOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"

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
  if (e.isBF16())
    cfg.elem = ElemType::BF16;
  else if (e.isF16())
    cfg.elem = ElemType::F16;
  else
    return fail("element type must be bf16 or f16 for the sm_90a kernel");
  if (oTy.getElementType() != e)
    return fail("output element type must match the inputs");
  if (qTy.getRank() != 4 || vTy.getRank() != 4)
    return fail("Q, K and V must be rank 4");
  int64_t d = qTy.getDimSize(3), dv = vTy.getDimSize(3);
  // TMA rows must be whole multiples of 16 bytes; one wgmma is at most 256 wide.
  auto badDim = [](int64_t n) { return ShapedType::isDynamic(n) || n % 8 || n < 8 || n > 256; };
  if (badDim(d))
    return fail("head dim of Q and K must be a static multiple of 8 in [8, 256]");
  if (badDim(dv))
    return fail("head dim of V must be a static multiple of 8 in [8, 256]");
  if (Value bias = op.getBias()) {
    cfg.bias = biasTypeOf(cast<ShapedType>(bias.getType()).getElementType());
    if (!cfg.bias)
      return fail("bias element type must be f32, bf16 or f16");
  }
  if (op.getQueryDescale() || op.getKeyDescale() || op.getValueDescale())
    return fail("descales (fp8) are not supported by the sm_90a kernel yet");
  if (opts.chip != "sm_90a")
    return fail("only chip=sm_90a is supported, got " + opts.chip);
  if (opts.stages < 2)
    return fail("stages must be >= 2");
  cfg.headDim = d;
  cfg.headDimV = dv;
  cfg.semantics = AttentionConfig::get(op);
  cfg.bshd = op.getLayout() == Layout::bshd;
  cfg.returnLse = static_cast<bool>(op.getLse());
  cfg.stages = opts.stages;
  cfg.overlap = opts.overlap;
  cfg.pingPong = opts.pingPong;
  cfg.planTiles();
  int64_t smem = cfg.sharedMemoryBytes();
  if (smem > AttentionKernelConfig::kSharedMemoryLimit)
    return fail("stages=" + Twine(opts.stages) + " with head dims " + Twine(d) + "/" + Twine(dv) +
                " needs " + Twine(smem) +
                " B of shared memory, more than the 227 KB an sm_90a CTA may use");
  return cfg;
}

struct ConvertFAToNVVMPass : fa::impl::ConvertFAToNVVMBase<ConvertFAToNVVMPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<AttentionOp> ops;
    module.walk([&](AttentionOp op) { ops.push_back(op); });
    // No sm_90a backward kernel exists yet: refuse rather than leave the op
    // behind for a pipeline that writes no bundle for it.
    bool anyGrad = false;
    module.walk([&](AttentionGradOp op) {
      op.emitOpError("convert-fa-to-nvvm: the sm_90a back end has no backward kernel yet; "
                     "lower fa.attention_grad with fa-cpu-pipeline instead");
      anyGrad = true;
    });
    if (anyGrad)
      return signalPassFailure();
    if (ops.empty())
      return;

    ConvertFAToNVVMOptions opts{chip, stages, overlap, pingPong};
    SymbolTable symbols(module);
    SmallVector<NamedAttribute> bundles;
    if (auto existing = module->getAttrOfType<DictionaryAttr>("fa.kernel_bundles"))
      bundles.append(existing.begin(), existing.end());
    OpBuilder builder(ctx);
    bool anyFailed = false;
    for (AttentionOp op : ops) {
      FailureOr<AttentionKernelConfig> cfg = configFor(op, opts);
      if (failed(cfg)) {
        anyFailed = true;
        continue;
      }
      std::string name = cfg->kernelName();
      if (!symbols.lookup(name)) {
        builder.setInsertionPointToEnd(module.getBody());
        auto target = NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda",
                                                chip, "+ptx80");
        auto gpuModule = gpu::GPUModuleOp::create(builder, op.getLoc(), name,
                                                  ArrayRef<Attribute>{target});
        symbols.insert(gpuModule);
        buildAttentionKernel(builder, op.getLoc(), gpuModule.getBodyRegion().front(), *cfg);
        bundles.push_back(builder.getNamedAttr(
            name, builder.getStringAttr(bundleJson(*cfg, chip, name + ".cubin"))));
      }
      op->setAttr("fa.kernel",
                  SymbolRefAttr::get(ctx, name, {FlatSymbolRefAttr::get(ctx, name)}));
    }
    if (anyFailed)
      return signalPassFailure();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(ctx));
    module->setAttr("fa.kernel_bundles", DictionaryAttr::get(ctx, bundles));
  }
};

} // namespace
