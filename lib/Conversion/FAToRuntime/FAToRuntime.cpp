//===- FAToRuntime.cpp - convert-fa-to-runtime-calls ----------------------===//
//
// Compiled fa.attention ops in a host program become calls of
// libfa_runtime's fa_launch_embedded_or_abort on host buffers, with the
// kernel bundle (JSON and device image) embedded as constant globals. The
// runtime does the device side: buffers, copies, the launch.
//
//===----------------------------------------------------------------------===//
#include "fa/Conversion/Passes.h"
#include "fa/Dialect/FA/IR/FAOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::fa {
#define GEN_PASS_DEF_CONVERTFATORUNTIMECALLS
#include "fa/Conversion/Passes.h.inc"
} // namespace mlir::fa

using namespace mlir;

namespace {

constexpr StringLiteral kLaunchFunction = "fa_launch_embedded_or_abort";
constexpr StringLiteral kBundlesAttr = "fa.kernel_bundles";
constexpr StringLiteral kKernelAttr = "fa.kernel";

/// fa_dtype of fa_runtime.h.
std::optional<int64_t> runtimeDType(Type type) {
  if (type.isF32())
    return 0;
  if (type.isF16())
    return 1;
  if (type.isBF16())
    return 2;
  if (isa<Float8E4M3FNType>(type))
    return 3;
  return std::nullopt;
}

/// What the kernel does with an operand (fa_launch_embedded's direction).
enum Direction : int64_t { In = 1, Out = 2 };

struct Operand {
  StringRef role;
  Value tensor; // In: the op's operand; Out: the op's result
  Direction direction;
};

/// The bundle of `op`'s kernel: its JSON text and device image, as
/// convert-fa-to-nvvm and gpu-module-to-binary left them.
struct Bundle {
  StringRef kernel;
  StringRef json;
  StringRef image;
};

FailureOr<Bundle> findBundle(ModuleOp module, fa::AttentionOp op) {
  auto kernel = op->getAttrOfType<SymbolRefAttr>(kKernelAttr);
  auto bundles = module->getAttrOfType<DictionaryAttr>(kBundlesAttr);
  if (!kernel || !bundles)
    return op.emitOpError("has no compiled kernel (")
               << kKernelAttr
               << "): run fa-nvvm-pipeline before convert-fa-to-runtime-calls",
           failure();
  StringRef name = kernel.getRootReference();
  Attribute entry = bundles.get(name);
  if (isa_and_nonnull<DictionaryAttr>(entry))
    return op.emitOpError("kernel '")
               << name << "' is a kernel sequence; only plain bundles are "
               << "lowered to runtime calls so far",
           failure();
  auto json = dyn_cast_or_null<StringAttr>(entry);
  auto binary = SymbolTable::lookupNearestSymbolFrom<gpu::BinaryOp>(
      module, kernel.getRootReference());
  if (!json || !binary || binary.getObjects().empty())
    return op.emitOpError("kernel '") << name << "' has no bundle JSON in "
                                      << kBundlesAttr << " or no gpu.binary",
           failure();
  auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
  return Bundle{name, json.getValue(), object.getObject().getValue()};
}

/// The operands of `op` by the bundle's roles, or an error naming what the
/// lowering does not take yet.
FailureOr<SmallVector<Operand>> operandsOf(fa::AttentionOp op) {
  if (op.getQueryDescale())
    return op.emitOpError("FP8 descales are not lowered to runtime calls "
                          "yet"),
           failure();
  SmallVector<Operand> operands = {{"query", op.getQuery(), In},
                                   {"key", op.getKey(), In},
                                   {"value", op.getValue(), In}};
  if (Value bias = op.getBias())
    operands.push_back({"bias", bias, In});
  if (Value sinks = op.getSinks())
    operands.push_back({"sinks", sinks, In});
  operands.push_back({"output", op.getOutput(), Out});
  if (Value lse = op.getLse())
    operands.push_back({"lse", lse, Out});
  for (const Operand &o : operands) {
    auto type = cast<RankedTensorType>(o.tensor.getType());
    if (!type.hasStaticShape())
      return op.emitOpError("'")
                 << o.role << "' has a dynamic shape (" << type
                 << "); only static shapes are lowered to runtime calls so far",
             failure();
    if (!runtimeDType(type.getElementType()))
      return op.emitOpError("'")
                 << o.role << "' element type " << type.getElementType()
                 << " has no runtime dtype",
             failure();
  }
  return operands;
}

/// Builds the calls; globals go to the module's body start.
class Lowering {
public:
  explicit Lowering(ModuleOp module) : module(module), symbols(module) {}

  LogicalResult lower(fa::AttentionOp op);
  void declareLaunch();

private:
  memref::GlobalOp byteGlobal(StringRef name, StringRef bytes, bool constant);
  Value addressOf(OpBuilder &b, Location loc, Value memref);
  Value globalAddress(OpBuilder &b, Location loc, memref::GlobalOp global);
  Value i64(OpBuilder &b, Location loc, Value index);
  Value wordsOf(OpBuilder &b, Location loc, ArrayRef<Operand> operands,
                ArrayRef<Value> buffers);

  ModuleOp module;
  SymbolTable symbols;
  llvm::StringMap<memref::GlobalOp> embedded; // per kernel: JSON and image
  unsigned callSites = 0;
};

memref::GlobalOp Lowering::byteGlobal(StringRef name, StringRef bytes,
                                      bool constant) {
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto type = MemRefType::get({int64_t(bytes.size())}, b.getI8Type());
  auto tensorType =
      RankedTensorType::get({int64_t(bytes.size())}, b.getI8Type());
  auto value = DenseElementsAttr::getFromRawBuffer(
      tensorType, ArrayRef<char>(bytes.data(), bytes.size()));
  auto global = memref::GlobalOp::create(
      b, module.getLoc(), name, b.getStringAttr("private"), type, value,
      constant, /*alignment=*/b.getI64IntegerAttr(64));
  symbols.insert(global); // renames on a clash
  return global;
}

Value Lowering::i64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// The address of `memref`'s first element, as !llvm.ptr.
Value Lowering::addressOf(OpBuilder &b, Location loc, Value memref) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64(b, loc, base));
}

Value Lowering::globalAddress(OpBuilder &b, Location loc,
                              memref::GlobalOp global) {
  Value memref =
      memref::GetGlobalOp::create(b, loc, global.getType(), global.getName());
  return addressOf(b, loc, memref);
}

/// fa_launch_embedded's words, [address, dtype, direction, rank, sizes,
/// strides] per operand, in a stack buffer; its address.
Value Lowering::wordsOf(OpBuilder &b, Location loc, ArrayRef<Operand> operands,
                        ArrayRef<Value> buffers) {
  SmallVector<Value> words;
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64).getResult();
  };
  for (auto [operand, buffer] : llvm::zip(operands, buffers)) {
    auto type = cast<MemRefType>(buffer.getType());
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    Value offsetBytes = arith::MulIOp::create(
        b, loc, metadata.getOffset(),
        arith::ConstantIndexOp::create(b, loc, elementBytes));
    words.push_back(
        i64(b, loc, arith::AddIOp::create(b, loc, base, offsetBytes)));
    words.push_back(constant(*runtimeDType(type.getElementType())));
    words.push_back(constant(operand.direction));
    words.push_back(constant(type.getRank()));
    for (Value size : metadata.getSizes())
      words.push_back(i64(b, loc, size));
    for (Value stride : metadata.getStrides())
      words.push_back(i64(b, loc, stride));
  }
  auto bufferType = MemRefType::get({int64_t(words.size())}, b.getI64Type());
  Value alloca = memref::AllocaOp::create(b, loc, bufferType);
  for (auto [i, word] : llvm::enumerate(words))
    memref::StoreOp::create(
        b, loc, word, alloca,
        ValueRange{arith::ConstantIndexOp::create(b, loc, int64_t(i))});
  return addressOf(b, loc, alloca);
}

void Lowering::declareLaunch() {
  if (symbols.lookup(kLaunchFunction))
    return;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Type i64 = b.getI64Type();
  auto type = b.getFunctionType({ptr, i64, ptr, i64, ptr, ptr, i64, ptr}, {});
  auto fn = func::FuncOp::create(b, module.getLoc(), kLaunchFunction, type);
  fn.setPrivate();
  symbols.insert(fn);
}

LogicalResult Lowering::lower(fa::AttentionOp op) {
  FailureOr<Bundle> bundle = findBundle(module, op);
  if (failed(bundle))
    return failure();
  FailureOr<SmallVector<Operand>> operands = operandsOf(op);
  if (failed(operands))
    return failure();

  std::string prefix = ("__fa_" + bundle->kernel).str();
  memref::GlobalOp &json = embedded[prefix + "_json"];
  memref::GlobalOp &image = embedded[prefix + "_image"];
  if (!json) {
    json = byteGlobal(prefix + "_json", bundle->json, /*constant=*/true);
    image = byteGlobal(prefix + "_image", bundle->image, /*constant=*/true);
  }
  std::string roles;
  for (const Operand &o : *operands)
    roles += (roles.empty() ? "" : ",") + o.role.str();
  roles.push_back('\0');
  std::string site = prefix + "_site" + std::to_string(callSites++);
  memref::GlobalOp rolesGlobal =
      byteGlobal(site + "_roles", roles, /*constant=*/true);
  memref::GlobalOp cache =
      byteGlobal(site + "_cache", StringRef("\0\0\0\0\0\0\0\0", 8),
                 /*constant=*/false);

  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> buffers;
  for (const Operand &o : *operands) {
    auto tensorType = cast<RankedTensorType>(o.tensor.getType());
    auto type =
        MemRefType::get(tensorType.getShape(), tensorType.getElementType());
    if (o.direction == In)
      buffers.push_back(bufferization::ToBufferOp::create(
          b, loc, type, o.tensor, /*read_only=*/true));
    else
      buffers.push_back(memref::AllocOp::create(b, loc, type));
  }
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64).getResult();
  };
  Value words = wordsOf(b, loc, *operands, buffers);
  func::CallOp::create(
      b, loc, kLaunchFunction, TypeRange{},
      ValueRange{
          globalAddress(b, loc, json), constant(int64_t(bundle->json.size())),
          globalAddress(b, loc, image), constant(int64_t(bundle->image.size())),
          globalAddress(b, loc, cache), globalAddress(b, loc, rolesGlobal),
          constant(int64_t(operands->size())), words});
  for (auto [operand, buffer] : llvm::zip(*operands, buffers))
    if (operand.direction == Out)
      operand.tensor.replaceAllUsesWith(bufferization::ToTensorOp::create(
          b, loc, operand.tensor.getType(), buffer, /*restrict=*/true,
          /*writable=*/true));
  op.erase();
  return success();
}

struct ConvertFAToRuntimeCallsPass
    : public fa::impl::ConvertFAToRuntimeCallsBase<
          ConvertFAToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<fa::AttentionOp> ops;
    module.walk([&](fa::AttentionOp op) {
      if (op->hasAttr(kKernelAttr))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    Lowering lowering(module);
    lowering.declareLaunch();
    for (fa::AttentionOp op : ops)
      if (failed(lowering.lower(op)))
        return signalPassFailure();
    // Embedded: the binaries and the JSON are no longer needed.
    for (auto binary :
         llvm::make_early_inc_range(module.getOps<gpu::BinaryOp>()))
      binary.erase();
    module->removeAttr(kBundlesAttr);
  }
};

} // namespace
