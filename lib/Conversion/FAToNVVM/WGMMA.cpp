//===- WGMMA.cpp - Warpgroup matrix multiply helpers ----------------------===//
//
// Descriptors are computed here, per the PTX ISA, rather than by the nvgpu
// helpers (DESIGN.md: upstream's transposed-B path with 128B swizzle was wrong).
// Checked on the H200 (test/Device/primitives):
//  * K-major operand, 128B swizzle, rows of 64 x 16-bit = 128 B: SBO = 1024
//    (next 8-row group), LBO unused (16); k-step kk of 16 elements starts
//    (kk % 4) * 32 B into the row, box kk / 4 of the tile. The same bytes
//    for e4m3 rows of 128 x 8-bit with k-steps of 32 elements.
//  * MN-major B (V in P V: [kv, dim] with dim contiguous): start = row
//    16 kk of the tile, SBO = 1024 (next 8 kv rows), LBO = distance to the
//    next 64-wide dim box. Swapping LBO and SBO gives wrong results
//    (wgmma_mn_b_n128 fails with rel. error 0.99): that is the trap.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

/// The descriptor of the i64 start address field `field`.
static Value descriptorOf(KernelBuilder &kb, Value field, int64_t lbo, int64_t sbo) {
  uint64_t hi = (uint64_t(lbo >> 4) << 16) | (uint64_t(sbo >> 4) << 32) | (uint64_t(1) << 62);
  return kb.ori(field, kb.c64(static_cast<int64_t>(hi)));
}

Value mlir::fa::nvvm_kernel::wgmmaDescriptor(KernelBuilder &kb, Value smemPtr, int64_t lbo,
                                             int64_t sbo) {
  Value addr = kb.sharedAddress64(smemPtr);
  return descriptorOf(kb, kb.andi(kb.shru(addr, kb.c64(4)), kb.c64(0x3FFF)), lbo, sbo);
}

Value mlir::fa::nvvm_kernel::wgmmaDescriptorNarrow(KernelBuilder &kb, Value smemPtr, int64_t lbo,
                                                   int64_t sbo) {
  Value addr = kb.sharedAddress32(smemPtr);
  Value field = opaqueCopy(kb, kb.andi(kb.shru(addr, kb.c32(4)), kb.c32(0x3FFF)));
  return descriptorOf(kb, LLVM::ZExtOp::create(kb.b, kb.i64, field), lbo, sbo);
}

Value mlir::fa::nvvm_kernel::wgmmaDescriptorAdd(KernelBuilder &kb, Value desc, int64_t bytes) {
  if (bytes == 0)
    return desc;
  return kb.add(desc, kb.c64(bytes >> 4));
}

void mlir::fa::nvvm_kernel::wgmmaFence(KernelBuilder &kb) { NVVM::WgmmaFenceAlignedOp::create(kb.b); }
void mlir::fa::nvvm_kernel::wgmmaCommit(KernelBuilder &kb) {
  NVVM::WgmmaGroupSyncAlignedOp::create(kb.b);
}
void mlir::fa::nvvm_kernel::wgmmaWait(KernelBuilder &kb, int64_t pending) {
  NVVM::WgmmaWaitGroupSyncOp::create(kb.b, kb.b.getI64IntegerAttr(pending));
}

static LLVM::LLVMStructType accStructType(KernelBuilder &kb, int64_t count) {
  return LLVM::LLVMStructType::getLiteral(kb.b.getContext(), SmallVector<Type>(count, kb.f32));
}

static Value packStruct(KernelBuilder &kb, LLVM::LLVMStructType ty, ValueRange vals) {
  Value s = LLVM::UndefOp::create(kb.b, ty);
  for (auto [i, v] : llvm::enumerate(vals))
    s = LLVM::InsertValueOp::create(kb.b, s, v, ArrayRef<int64_t>{static_cast<int64_t>(i)});
  return s;
}

static SmallVector<Value> unpackStruct(KernelBuilder &kb, Value s, int64_t count) {
  SmallVector<Value> out;
  for (int64_t i = 0; i < count; ++i)
    out.push_back(LLVM::ExtractValueOp::create(kb.b, s, ArrayRef<int64_t>{i}));
  return out;
}

SmallVector<Value> mlir::fa::nvvm_kernel::wgmmaSS(KernelBuilder &kb, ValueRange acc, Value descA,
                                                  Value descB, int64_t n, bool accumulate,
                                                  bool bMNMajor, ElemType elem, bool aMNMajor) {
  MLIRContext *ctx = kb.b.getContext();
  auto ty = accStructType(kb, n / 2);
  Value in = accumulate ? packStruct(kb, ty, acc) : Value(LLVM::ZeroOp::create(kb.b, ty));
  NVVM::WGMMATypes type = elem == ElemType::BF16  ? NVVM::WGMMATypes::bf16
                          : elem == ElemType::F16 ? NVVM::WGMMATypes::f16
                                                  : NVVM::WGMMATypes::e4m3;
  auto t = NVVM::WGMMATypesAttr::get(ctx, type);
  auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  auto op = NVVM::WgmmaMmaAsyncOp::create(
      kb.b, ty, in, descA, descB, NVVM::MMAShapeAttr::get(ctx, 64, n, 32 / elemBytes(elem)), t, t,
      NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
      NVVM::WGMMAScaleOutAttr::get(ctx, accumulate ? NVVM::WGMMAScaleOut::one
                                                   : NVVM::WGMMAScaleOut::zero),
      one, one,
      // A "row" is K-major, "col" MN-major (imm-trans-a = 1); B "col" is
      // K-major, "row" MN-major (imm-trans-b = 1), as the PTX the op prints
      // shows.
      NVVM::MMALayoutAttr::get(ctx, aMNMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row),
      NVVM::MMALayoutAttr::get(ctx, bMNMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col),
      /*satfinite=*/NVVM::MMAIntOverflowAttr());
  return unpackStruct(kb, op.getResult(), n / 2);
}

SmallVector<Value> mlir::fa::nvvm_kernel::wgmmaRS(KernelBuilder &kb, ValueRange acc,
                                                  ValueRange aRegs, Value descB, int64_t n,
                                                  bool accumulate, bool bMNMajor,
                                                  ElemType elem) {
  int64_t count = n / 2;
  auto ty = accStructType(kb, count);
  std::string d, a;
  for (int64_t i = 0; i < count; ++i)
    d += (i ? ", $" : "$") + std::to_string(i);
  // Tied inputs take operand numbers count .. 2 count - 1.
  for (int64_t i = 0; i < 4; ++i)
    a += (i ? ", $" : "$") + std::to_string(2 * count + i);
  const char *e = elem == ElemType::BF16 ? "bf16" : elem == ElemType::F16 ? "f16" : "e4m3";
  // 8-bit types take no transpose immediate: B is K-major.
  std::string trans = elem == ElemType::E4M3 ? "" : std::string(", ") + (bMNMajor ? "1" : "0");
  std::string asmStr = "{\n.reg .pred p;\nsetp.ne.b32 p, " + std::to_string(accumulate ? 1 : 0) +
                       ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k" +
                       std::to_string(32 / elemBytes(elem)) + ".f32." + e + "." + e + " {" + d +
                       "}, {" + a + "}, $" + std::to_string(2 * count + 4) + ", p, 1, 1" + trans +
                       ";\n}\n";
  std::string cons;
  for (int64_t i = 0; i < count; ++i)
    cons += "=f,";
  for (int64_t i = 0; i < count; ++i)
    cons += std::to_string(i) + ",";
  cons += "r,r,r,r,l";
  SmallVector<Value> operands(acc.begin(), acc.end());
  if (!accumulate) {
    operands.clear();
    Value z = kb.cf32(0.0);
    operands.assign(count, z);
  }
  operands.append(aRegs.begin(), aRegs.end());
  operands.push_back(descB);
  auto asmOp = LLVM::InlineAsmOp::create(
      kb.b, ty, operands, asmStr, cons, /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(kb.b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return unpackStruct(kb, asmOp.getResult(0), count);
}

Value mlir::fa::nvvm_kernel::packPair(KernelBuilder &kb, Value lo, Value hi, ElemType elem) {
  MLIRContext *ctx = kb.b.getContext();
  auto v2f32 = VectorType::get({2}, kb.f32);
  Type half = elem == ElemType::BF16 ? Type(BFloat16Type::get(ctx)) : Type(Float16Type::get(ctx));
  auto v2h = VectorType::get({2}, half);
  Value v = LLVM::UndefOp::create(kb.b, v2f32);
  v = LLVM::InsertElementOp::create(kb.b, v, lo, kb.c32(0));
  v = LLVM::InsertElementOp::create(kb.b, v, hi, kb.c32(1));
  Value h = LLVM::FPTruncOp::create(kb.b, v2h, v);
  return LLVM::BitcastOp::create(kb.b, kb.i32, h);
}

Value mlir::fa::nvvm_kernel::packQuadE4M3(KernelBuilder &kb, ArrayRef<Value> v) {
  // cvt ...e4m3x2.f32 d, a, b puts a in the upper byte of d.
  return pureInlinePtx(kb, kb.i32, {v[0], v[1], v[2], v[3]},
                       "{\n.reg .b16 lo, hi;\ncvt.rn.satfinite.e4m3x2.f32 lo, $2, $1;\n"
                       "cvt.rn.satfinite.e4m3x2.f32 hi, $4, $3;\nmov.b32 $0, {lo, hi};\n}",
                       "=r,f,f,f,f");
}
