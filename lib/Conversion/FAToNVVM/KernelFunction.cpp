//===- KernelFunction.cpp - Kernel entry points and their parameters ------===//
#include "KernelParts.h"
#include "KernelSignature.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

LLVM::LLVMFuncOp mlir::fa::nvvm_kernel::createKernelFunction(ImplicitLocOpBuilder &b,
                                                             StringRef name, ArrayRef<Type> args,
                                                             int64_t threads) {
  MLIRContext *ctx = b.getContext();
  auto fn = LLVM::LLVMFuncOp::create(b, name,
                                     LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), args));
  fn->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  fn->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
              b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  // With maxntid, minctasm = 1 gives ptxas a register cap at entry, which
  // setmaxnreg needs (else: warning C7508, 'setmaxnreg' ignored).
  fn->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(1));
  return fn;
}

void mlir::fa::nvvm_kernel::markTensorMapArg(ImplicitLocOpBuilder &b, LLVM::LLVMFuncOp fn,
                                             unsigned i) {
  fn.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(), 128)));
  fn.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(64));
  fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(), b.getUnitAttr());
}

Value mlir::fa::nvvm_kernel::stridedRowOffset(KernelBuilder &kb, Value batch, Value head,
                                              Value row, Value strideBatch, Value strideHead,
                                              Value strideRow) {
  return kb.add(kb.add(kb.mul(kb.ext64(batch), strideBatch), kb.mul(kb.ext64(head), strideHead)),
                kb.mul(kb.ext64(row), strideRow));
}

void mlir::fa::nvvm_kernel::setMaxRegisters(KernelBuilder &kb, int64_t regs, bool increase) {
  NVVM::SetMaxRegisterOp::create(
      kb.b, kb.b.getI32IntegerAttr(regs),
      NVVM::SetMaxRegisterActionAttr::get(kb.b.getContext(),
                                          increase ? NVVM::SetMaxRegisterAction::increase
                                                   : NVVM::SetMaxRegisterAction::decrease));
}

ConsumerThread ConsumerThread::enter(KernelBuilder &kb, Value tid, int64_t regs) {
  setMaxRegisters(kb, regs, /*increase=*/true);
  ConsumerThread t;
  Value ct = kb.sub(tid, kb.c32(128));
  t.c = kb.shru(ct, kb.c32(7));
  Value lt = kb.andi(ct, kb.c32(127));
  t.threadInWg = lt;
  t.warp = kb.shru(lt, kb.c32(5));
  t.lane = kb.andi(lt, kb.c32(31));
  return t;
}

Value ConsumerThread::fragmentRow(KernelBuilder &kb, Value wgRow0) const {
  return kb.add(wgRow0, kb.add(kb.mul(warp, kb.c32(16)), kb.shru(lane, kb.c32(2))));
}

Value ConsumerThread::laneColumn(KernelBuilder &kb) const {
  return kb.mul(kb.andi(lane, kb.c32(3)), kb.c32(2));
}

void mlir::fa::nvvm_kernel::buildKernelFunction(
    OpBuilder &builder, Location loc, Block &moduleBody, StringRef name, ArrayRef<Type> args,
    int64_t threads, unsigned tensorMaps, bool sharedMemory,
    function_ref<void(KernelBuilder &, LLVM::LLVMFuncOp)> body) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&moduleBody);
  ImplicitLocOpBuilder b(loc, builder);
  if (sharedMemory)
    LLVM::GlobalOp::create(b, LLVM::LLVMArrayType::get(b.getI8Type(), 0), /*isConstant=*/false,
                           LLVM::Linkage::External, (name + "_smem").str(), Attribute(),
                           /*alignment=*/16, /*addrSpace=*/3);
  LLVM::LLVMFuncOp fn = createKernelFunction(b, name, args, threads);
  for (unsigned i = 0; i < tensorMaps; ++i)
    markTensorMapArg(b, fn, i);
  b.setInsertionPointToStart(fn.addEntryBlock(builder));
  KernelBuilder kb(b);
  body(kb, fn);
  LLVM::ReturnOp::create(b, ValueRange{});
}

void mlir::fa::nvvm_kernel::buildKernelFunction(
    OpBuilder &builder, Location loc, Block &moduleBody, StringRef name, const KernelSignature &sig,
    int64_t threads, bool sharedMemory, bool noAliasPointers,
    function_ref<void(KernelBuilder &, LLVM::LLVMFuncOp)> body) {
  buildKernelFunction(builder, loc, moduleBody, name, sig.types(builder.getContext()), threads,
                      sig.leadingTensorMaps(), sharedMemory,
                      [&](KernelBuilder &kb, LLVM::LLVMFuncOp fn) {
                        if (noAliasPointers)
                          sig.markNoAliasPointers(kb.b, fn);
                        body(kb, fn);
                      });
}
