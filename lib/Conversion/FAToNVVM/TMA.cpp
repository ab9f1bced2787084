//===- TMA.cpp - TMA copies and mbarriers ---------------------------------===//
//
// Proven by test/Device/primitives (tma_load_param, warp_specialized): a
// grid-constant tensor map parameter, a 128B-swizzled box landing in shared
// memory with out-of-bounds rows zero-filled, completion counted in bytes on
// an mbarrier (the full box is counted, zero-filled rows included).
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

void mlir::fa::nvvm_kernel::mbarrierInit(KernelBuilder &kb, Value bar, int64_t count) {
  NVVM::MBarrierInitOp::create(kb.b, bar, kb.c32(count), /*predicate=*/Value());
}

void mlir::fa::nvvm_kernel::fenceMbarrierInit(KernelBuilder &kb) {
  NVVM::FenceMbarrierInitOp::create(kb.b);
}

void mlir::fa::nvvm_kernel::mbarrierArriveExpectTx(KernelBuilder &kb, Value bar, int64_t bytes) {
  NVVM::MBarrierArriveExpectTxOp::create(
      kb.b, /*res=*/Type(), bar, kb.c32(bytes),
      NVVM::MemScopeKindAttr::get(kb.b.getContext(), NVVM::MemScopeKind::CTA),
      kb.b.getBoolAttr(false), /*predicate=*/Value());
}

void mlir::fa::nvvm_kernel::mbarrierArrive(KernelBuilder &kb, Value bar) {
  NVVM::MBarrierArriveOp::create(
      kb.b, /*res=*/Type(), bar, /*count=*/Value(),
      NVVM::MemScopeKindAttr::get(kb.b.getContext(), NVVM::MemScopeKind::CTA));
}

void mlir::fa::nvvm_kernel::mbarrierWait(KernelBuilder &kb, Value bar, Value parity) {
  NVVM::MBarrierTryWaitParityOp::create(kb.b, bar, parity, kb.c32(10000000));
}

void mlir::fa::nvvm_kernel::tmaLoad(KernelBuilder &kb, Value dst, Value tensorMap, Value bar,
                                    ValueRange coords) {
  // The op's non-multicast form wants a shared::cluster destination; a CTA's
  // own shared address is valid there.
  auto cluster = LLVM::LLVMPointerType::get(kb.b.getContext(), 7);
  Value dst7 = dst.getType() == cluster ? dst : LLVM::AddrSpaceCastOp::create(kb.b, cluster, dst);
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      kb.b, dst7, tensorMap, coords, bar, /*im2colOffsets=*/ValueRange{},
      /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
      NVVM::TMALoadModeAttr::get(kb.b.getContext(), NVVM::TMALoadMode::TILE),
      kb.b.getBoolAttr(false), /*group=*/NVVM::CTAGroupKindAttr(), /*predicate=*/Value());
}

Value mlir::fa::nvvm_kernel::sharedAsCluster(KernelBuilder &kb, Value p) {
  return LLVM::IntToPtrOp::create(kb.b, LLVM::LLVMPointerType::get(kb.b.getContext(), 7),
                                  kb.sharedAddress64(p));
}
