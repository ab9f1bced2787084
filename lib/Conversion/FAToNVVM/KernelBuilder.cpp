//===- KernelBuilder.cpp - Scalars, memory and control flow ---------------===//
#include "KernelBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

KernelBuilder::KernelBuilder(ImplicitLocOpBuilder &b) : ScalarBuilder(b, b.getI32Type()) {
  MLIRContext *ctx = b.getContext();
  i1 = b.getI1Type();
  i16 = b.getI16Type();
  i32 = b.getI32Type();
  i64 = b.getI64Type();
  f32 = b.getF32Type();
  ptrTy = LLVM::LLVMPointerType::get(ctx);
  smemPtrTy = LLVM::LLVMPointerType::get(ctx, 3);
}

Value KernelBuilder::c64(int64_t v) { return arith::ConstantIntOp::create(b, v, 64); }
Value KernelBuilder::remu(Value a, Value c) { return arith::RemUIOp::create(b, a, c); }
Value KernelBuilder::andi(Value a, Value c) { return arith::AndIOp::create(b, a, c); }
Value KernelBuilder::ori(Value a, Value c) { return arith::OrIOp::create(b, a, c); }
Value KernelBuilder::xori(Value a, Value c) { return arith::XOrIOp::create(b, a, c); }
Value KernelBuilder::shru(Value a, Value c) { return arith::ShRUIOp::create(b, a, c); }
Value KernelBuilder::shl(Value a, Value c) { return arith::ShLIOp::create(b, a, c); }
Value KernelBuilder::ext64(Value v) { return arith::ExtSIOp::create(b, i64, v); }
Value KernelBuilder::fadd(Value a, Value c) { return arith::AddFOp::create(b, a, c); }
Value KernelBuilder::fmul(Value a, Value c) { return arith::MulFOp::create(b, a, c); }
Value KernelBuilder::fmax(Value a, Value c) { return arith::MaxNumFOp::create(b, a, c); }
Value KernelBuilder::fma(Value a, Value x, Value c) { return LLVM::FMAOp::create(b, a, x, c); }
Value KernelBuilder::fcmp(arith::CmpFPredicate p, Value a, Value c) {
  return arith::CmpFOp::create(b, p, a, c);
}

Value KernelBuilder::exp2(Value x) {
  return LLVM::CallIntrinsicOp::create(b, f32, b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
                                       ValueRange{x})
      .getResult(0);
}
Value KernelBuilder::tanh(Value x) {
  // LLVM 22 has no llvm.nvvm.tanh.approx intrinsic any more; the PTX
  // instruction itself, as pure inline asm (no side effects: it may be
  // scheduled and CSE'd like an ALU op).
  auto op = LLVM::InlineAsmOp::create(
      b, f32, ValueRange{x}, "tanh.approx.f32 $0, $1;", "=f,f", /*has_side_effects=*/false,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return op.getResult(0);
}
Value KernelBuilder::log2(Value x) {
  return LLVM::CallIntrinsicOp::create(b, f32, b.getStringAttr("llvm.nvvm.lg2.approx.ftz.f"),
                                       ValueRange{x})
      .getResult(0);
}
Value KernelBuilder::rcp(Value x) { return arith::DivFOp::create(b, cf32(1.0), x); }

Value KernelBuilder::threadIdX() { return NVVM::ThreadIdXOp::create(b, i32); }
Value KernelBuilder::blockIdX() { return NVVM::BlockIdXOp::create(b, i32); }
Value KernelBuilder::blockIdY() { return NVVM::BlockIdYOp::create(b, i32); }
Value KernelBuilder::blockIdZ() { return NVVM::BlockIdZOp::create(b, i32); }
Value KernelBuilder::gridDimX() { return NVVM::GridDimXOp::create(b, i32); }
Value KernelBuilder::gridDimY() { return NVVM::GridDimYOp::create(b, i32); }
Value KernelBuilder::gridDimZ() { return NVVM::GridDimZOp::create(b, i32); }
Value KernelBuilder::laneId() { return NVVM::LaneIdOp::create(b, i32); }

Value KernelBuilder::alignedSharedBase(StringRef symbol) {
  Value s = LLVM::AddressOfOp::create(b, smemPtrTy, symbol);
  Value si = LLVM::PtrToIntOp::create(b, i32, s);
  Value pad = andi(sub(c32(0), si), c32(1023));
  return LLVM::GEPOp::create(b, smemPtrTy, b.getI8Type(), s, ValueRange{pad});
}

Value KernelBuilder::sharedAt(Value base, int64_t offset) {
  if (offset == 0)
    return base;
  return LLVM::GEPOp::create(b, smemPtrTy, b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset)});
}

Value KernelBuilder::sharedAt(Value base, Value offset) {
  return LLVM::GEPOp::create(b, smemPtrTy, b.getI8Type(), base, ValueRange{offset});
}

Value KernelBuilder::sharedAddress64(Value ptr) { return LLVM::PtrToIntOp::create(b, i64, ptr); }
Value KernelBuilder::sharedAddress32(Value ptr) { return LLVM::PtrToIntOp::create(b, i32, ptr); }

Value KernelBuilder::globalAt(Value base, Value index, Type elemType) {
  return LLVM::GEPOp::create(b, ptrTy, elemType, base, ValueRange{index});
}

void KernelBuilder::ifThen(Value cond, const std::function<void()> &thenBody) {
  auto ifOp = scf::IfOp::create(b, TypeRange{}, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  thenBody();
}

void KernelBuilder::ifThenElse(Value cond, const std::function<void()> &thenBody,
                               const std::function<void()> &elseBody) {
  auto ifOp = scf::IfOp::create(b, TypeRange{}, cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  thenBody();
  b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  elseBody();
}

SmallVector<Value>
KernelBuilder::ifThenElseValues(Value cond, TypeRange types,
                                const std::function<SmallVector<Value>()> &thenBody,
                                const std::function<SmallVector<Value>()> &elseBody) {
  auto ifOp = scf::IfOp::create(b, types, cond, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(ifOp.thenBlock());
    scf::YieldOp::create(b, thenBody());
    b.setInsertionPointToEnd(ifOp.elseBlock());
    scf::YieldOp::create(b, elseBody());
  }
  return SmallVector<Value>(ifOp.getResults());
}

SmallVector<Value> KernelBuilder::forLoop(
    Value lb, Value ub, ValueRange inits,
    const std::function<SmallVector<Value>(Value iv, ValueRange args)> &body) {
  auto forOp = scf::ForOp::create(b, lb, ub, c32(1), inits);
  Block *blk = forOp.getBody();
  {
    OpBuilder::InsertionGuard g(b);
    if (!blk->empty() && blk->back().hasTrait<OpTrait::IsTerminator>())
      blk->back().erase();
    b.setInsertionPointToEnd(blk);
    SmallVector<Value> yields = body(forOp.getInductionVar(), forOp.getRegionIterArgs());
    scf::YieldOp::create(b, yields);
  }
  return SmallVector<Value>(forOp.getResults());
}

SmallVector<Value> KernelBuilder::whileLoop(
    ValueRange inits, const std::function<Value(ValueRange)> &cond,
    const std::function<SmallVector<Value>(ValueRange)> &body) {
  // The region builders get `b` itself, placed in the new block.
  auto whileOp = scf::WhileOp::create(
      b, inits.getTypes(), inits,
      [&](OpBuilder &, Location, ValueRange args) {
        scf::ConditionOp::create(b, cond(args), args);
      },
      [&](OpBuilder &, Location, ValueRange args) { scf::YieldOp::create(b, body(args)); });
  return SmallVector<Value>(whileOp.getResults());
}
