//===- Memory.cpp - stmatrix, vector reductions, named barriers, fences ---===//
//
// The backward's instructions that the nvvm dialect of LLVM 22 does not
// spell (or spells with a different operand form), as inline PTX. Each
// clobbers memory so that LLVM keeps shared and global accesses in order
// around it (except opaqueCopy, which touches no memory, and redAddF32,
// whose target the kernel never reads).
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include <cassert>

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

Value mlir::fa::nvvm_kernel::inlinePtx(KernelBuilder &kb, Type result, ValueRange operands,
                                       StringRef ptx, StringRef constraints,
                                       bool clobbersMemory) {
  std::string cons = constraints.str();
  if (clobbersMemory)
    cons += cons.empty() ? "~{memory}" : ",~{memory}";
  auto op = LLVM::InlineAsmOp::create(
      kb.b, result ? TypeRange{result} : TypeRange{}, operands, ptx, cons,
      /*has_side_effects=*/true, /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(kb.b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return result ? op.getResult(0) : Value();
}

Value mlir::fa::nvvm_kernel::pureInlinePtx(KernelBuilder &kb, Type result, ValueRange operands,
                                           StringRef ptx, StringRef constraints) {
  auto op = LLVM::InlineAsmOp::create(
      kb.b, TypeRange{result}, operands, ptx, constraints, /*has_side_effects=*/false,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(kb.b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return op.getResult(0);
}

void mlir::fa::nvvm_kernel::stmatrixX4Trans(KernelBuilder &kb, Value rowAddress, ValueRange regs) {
  assert(regs.size() == 4 && "stmatrix .x4 takes four registers");
  // A 32-bit shared-window address (the "r" operand of a .shared access).
  Value addr = kb.sharedAddress32(rowAddress);
  SmallVector<Value> operands{addr};
  operands.append(regs.begin(), regs.end());
  inlinePtx(kb, Type(), operands,
            "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [$0], {$1, $2, $3, $4};",
            "r,r,r,r,r");
}

void mlir::fa::nvvm_kernel::fenceProxyAsyncShared(KernelBuilder &kb) {
  inlinePtx(kb, Type(), {}, "fence.proxy.async.shared::cta;", "");
}

void mlir::fa::nvvm_kernel::redAddF32x2(KernelBuilder &kb, Value ptr, Value lo, Value hi) {
  inlinePtx(kb, Type(), {ptr, lo, hi}, "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f");
}

void mlir::fa::nvvm_kernel::redAddF32(KernelBuilder &kb, Value ptr, Value v) {
  inlinePtx(kb, Type(), {ptr, v}, "red.global.add.f32 [$0], $1;", "l,f",
            /*clobbersMemory=*/false);
}

void mlir::fa::nvvm_kernel::namedBarrierSync(KernelBuilder &kb, int64_t id, int64_t threads) {
  namedBarrierSync(kb, kb.c32(id), threads);
}

void mlir::fa::nvvm_kernel::namedBarrierSync(KernelBuilder &kb, Value id, int64_t threads) {
  NVVM::BarrierOp::create(kb.b, Type(), id, kb.c32(threads), NVVM::BarrierReductionAttr(),
                          Value());
}

void mlir::fa::nvvm_kernel::bulkReduceAddF32(KernelBuilder &kb, Value dst, Value src,
                                             int64_t bytes) {
  Value s = kb.sharedAddress32(src);
  inlinePtx(kb, Type(), {dst, s},
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], " +
                std::to_string(bytes) + ";\ncp.async.bulk.commit_group;",
            "l,r");
}

void mlir::fa::nvvm_kernel::bulkWaitRead(KernelBuilder &kb) {
  inlinePtx(kb, Type(), {}, "cp.async.bulk.wait_group.read 0;", "");
}

void mlir::fa::nvvm_kernel::bulkWaitDone(KernelBuilder &kb) {
  inlinePtx(kb, Type(), {}, "cp.async.bulk.wait_group 0;", "");
}

void mlir::fa::nvvm_kernel::namedBarrierArrive(KernelBuilder &kb, int64_t id, int64_t threads) {
  NVVM::BarrierArriveOp::create(kb.b, kb.c32(id), kb.c32(threads));
}

void mlir::fa::nvvm_kernel::spinUntilEqual(KernelBuilder &kb, Value ptr, Value expected) {
  inlinePtx(kb, Type(), {ptr, expected},
            "{\n.reg .pred p;\n.reg .b32 v;\nSPIN_${:uid}:\n"
            "ld.acquire.gpu.global.b32 v, [$0];\nsetp.ne.s32 p, v, $1;\n"
            "@p bra SPIN_${:uid};\n}",
            "l,r");
}

void mlir::fa::nvvm_kernel::fenceGpu(KernelBuilder &kb) {
  inlinePtx(kb, Type(), {}, "fence.acq_rel.gpu;", "");
}

void mlir::fa::nvvm_kernel::releaseAdd(KernelBuilder &kb, Value ptr, Value v) {
  inlinePtx(kb, Type(), {ptr, v}, "red.release.gpu.global.add.s32 [$0], $1;", "l,r");
}

Value mlir::fa::nvvm_kernel::warpShuffle(KernelBuilder &kb, Value v, Value lane,
                                         NVVM::ShflKind kind) {
  // Clamp 0 for `up` (width 32), 0x1f for the others (PTX shfl.sync's c).
  int64_t clamp = kind == NVVM::ShflKind::up ? 0 : 0x1f;
  return NVVM::ShflOp::create(kb.b, kb.i32, kb.c32(-1), v, lane, kb.c32(clamp), kind, UnitAttr());
}

Value mlir::fa::nvvm_kernel::stridesAligned(KernelBuilder &kb, Value ptr, ArrayRef<Value> strides,
                                            int64_t elemBytes, int64_t bytes) {
  Value bits = LLVM::PtrToIntOp::create(kb.b, kb.i64, ptr);
  for (Value stride : strides)
    bits = kb.ori(bits, kb.mul(stride, kb.c64(elemBytes)));
  return kb.cmp(arith::CmpIPredicate::eq, kb.andi(bits, kb.c64(bytes - 1)), kb.c64(0));
}

Value mlir::fa::nvvm_kernel::warpUniform(KernelBuilder &kb, Value v) {
  return warpShuffle(kb, v, kb.c32(0), NVVM::ShflKind::idx);
}

Value mlir::fa::nvvm_kernel::opaqueCopy(KernelBuilder &kb, Value v) {
  // Side effects keep it in the loop; memory is not touched.
  if (v.getType() == kb.i32)
    return inlinePtx(kb, kb.i32, {v}, "mov.b32 $0, $1;", "=r,r", /*clobbersMemory=*/false);
  assert(v.getType() == kb.i64 && "an opaque copy of an i32 or an i64");
  return inlinePtx(kb, kb.i64, {v}, "mov.b64 $0, $1;", "=l,l", /*clobbersMemory=*/false);
}
