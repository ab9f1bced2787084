//===- ForwardKernel.cpp - The warp-specialized FA3 forward, composed -----===//
//
// The kernel body: the barriers, the first work tile and its mask rule,
// then the producer (ForwardProducer.cpp) and the consumers
// (ForwardConsumer.cpp) on warpgroup 0 and the others. ForwardKernel.h
// lists the parts.
//
//===----------------------------------------------------------------------===//
#include "ForwardKernel.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

void ForwardKernel::emit() {
  seqQ = args.seqQ;
  seqK = args.seqK;
  // A ragged batch's sequence first (its lengths may go to shared memory
  // with the barriers); a persistent CTA's tiles find theirs in forEachTile.
  if (cfg.varlen && !scheduler->isPersistent())
    beginTile(scheduler->currentTile(kb, schedulerArgs), Value());
  // One thread initialises every barrier; the CTA barrier publishes them.
  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, tid, kb.c32(0)), [&] {
    mbarrierInit(kb, qBarrier(), 1);
    TmaPipeline::initAll({&kPipe, &vPipe});
    if (cfg.isPersistent())
      mbarrierInit(kb, qEmptyBarrier(), 128 * cfg.consumers);
    if (cfg.stashesLengths())
      storeStash();
    fenceMbarrierInit(kb);
  });
  NVVM::Barrier0Op::create(kb.b);

  // One rule for the whole kernel: the producer's and the consumers' key
  // tiles and the consumers' fragment masks (a ragged batch's: above, or
  // per tile).
  if (cfg.keyLengths) {
    // The rule needs this batch's key count: the tile first.
    WorkTile tile = scheduler->currentTile(kb, schedulerArgs);
    seqK = LLVM::LoadOp::create(kb.b, kb.i32,
                                kb.globalAt(args.keyLengths, kb.ext64(tile.batch), kb.i32), 4);
    if (cfg.append)
      seqK = kb.add(seqK, args.seqNew);
    rule.emplace(kb, cfg.semantics, args.seqQ, seqK);
    beginTile(tile, Value());
  } else if (!cfg.varlen) {
    rule.emplace(kb, cfg.semantics, args.seqQ, seqK);
    if (!scheduler->isPersistent())
      beginTile(scheduler->currentTile(kb, schedulerArgs), Value());
  }

  Value wg = kb.shru(tid, kb.c32(7));
  kb.ifThenElse(
      kb.cmp(arith::CmpIPredicate::eq, wg, kb.c32(0)), [&] { emitProducer(); },
      [&] { emitConsumer(); });
}

LLVM::LLVMFuncOp mlir::fa::nvvm_kernel::buildAttentionKernel(OpBuilder &builder, Location loc,
                                                             Block &moduleBody,
                                                             const AttentionKernelConfig &cfg) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&moduleBody);
  ImplicitLocOpBuilder b(loc, builder);
  MLIRContext *ctx = b.getContext();
  std::string name = cfg.attentionKernelName();
  std::string smem = name + "_smem";
  LLVM::GlobalOp::create(b, LLVM::LLVMArrayType::get(b.getI8Type(), 0), /*isConstant=*/false,
                         LLVM::Linkage::External, smem, Attribute(), /*alignment=*/16,
                         /*addrSpace=*/3);

  auto ptr = LLVM::LLVMPointerType::get(ctx);
  // Tensor maps (Q's unless packed, K, V), then pointers, as KernelArgs.
  unsigned tensorMaps = cfg.packGqa() ? 2 : 3;
  SmallVector<Type> args(tensorMaps, ptr);
  if (cfg.packGqa())
    args.push_back(ptr);
  args.push_back(ptr);
  if (cfg.returnLse || cfg.splitKv)
    args.push_back(ptr);
  if (cfg.splitKv)
    args.append(cfg.returnLse ? 2 : 1, ptr);
  if (cfg.isFp8())
    args.append(3, ptr); // the descales
  if (cfg.keyLengths)
    args.push_back(ptr);
  if (cfg.paged())
    args.push_back(ptr);
  if (cfg.varlen)
    args.append({ptr, ptr});
  unsigned numPtrs = args.size();
  if (cfg.bias)
    args.append({ptr, b.getI64Type(), b.getI64Type(), b.getI64Type()});
  if (cfg.isFp8())
    args.append(3 * cfg.descaleRank(), b.getI64Type()); // the descales' strides
  args.append({b.getI32Type(), b.getI32Type(), b.getI32Type()});
  if (cfg.splitKv)
    args.push_back(b.getI32Type());
  if (cfg.packGqa())
    args.append({b.getI64Type(), b.getI64Type(), b.getI64Type()});
  if (cfg.paged())
    args.append({b.getI32Type(), b.getI64Type()});
  if (cfg.append)
    args.push_back(b.getI32Type());
  if (cfg.varlen)
    args.push_back(b.getI32Type());
  if (cfg.isPersistent())
    args.append({b.getI32Type(), b.getI32Type(), b.getI32Type()});
  LLVM::LLVMFuncOp fn = createKernelFunction(b, name, args, cfg.threads());
  for (unsigned i = 0; i < tensorMaps; ++i)
    markTensorMapArg(b, fn, i);
  for (unsigned i = tensorMaps; i < numPtrs; ++i)
    fn.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr());
  if (cfg.bias)
    fn.setArgAttr(numPtrs, LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr());

  Block *entry = fn.addEntryBlock(builder);
  b.setInsertionPointToStart(entry);
  KernelBuilder kb(b);
  ForwardKernel(kb, cfg, fn, smem).emit();
  LLVM::ReturnOp::create(b, ValueRange{});
  return fn;
}
