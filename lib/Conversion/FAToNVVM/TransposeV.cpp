//===- TransposeV.cpp - V^T for the FP8 forward ----------------------------===//
//
// FP8 wgmma takes both operands K-major, and in P V the k dimension is the
// keys: B must be V^T, keys contiguous. This pre-kernel writes the
// workspace value_t [batch, heads_kv, head_dim_v, ceildiv(seq_k, 64) * 64]
// from V (bhsd or bshd, through its strides), zero past seq_k, with the
// keys of each 16 permuted (fp8ValueKey): the attention kernel then feeds
// P's accumulator registers to P V as they are, without shuffles
// (docs/HopperKernel.md, "FP8 forward", says why a pre-kernel and not an
// in-kernel LDSM.T transpose).
//
// A CTA transposes 64 keys of one (batch, head) through a [64 dims x 64
// keys] byte tile in shared memory, one 64-dim slab at a time: a thread
// loads 16 bytes of one key row, scatters them into the tile, and after a
// barrier gathers 16 keys of one dim row into one 16-byte store.
//
//===----------------------------------------------------------------------===//
#include "KernelParts.h"
#include "KernelSignature.h"
#include "SharedLayout.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;
using llvm::json::Array;
using llvm::json::Object;

namespace {

constexpr int64_t kThreads = 256;
constexpr int64_t kKeys = 64;  // keys per CTA (the workspace's key padding)
constexpr int64_t kSlab = 64;  // dims per pass through the tile
constexpr int64_t kTileBytes = kKeys * kSlab;

/// The dynamic shared memory to request: one tile of kKeys x kSlab bytes
/// (written and read by byte).
int64_t transposeSharedBytes() {
  SharedLayout layout;
  layout.reserve("transpose", "V tile", kTileBytes, 1);
  return layout.requestBytes();
}

std::string transposeName(const AttentionKernelConfig &cfg) {
  return cfg.kernelName() + "_transpose_v";
}

struct TransposeArgs {
  Value value, valueT, strideBatch, strideHead, strideSeq, seqK, keysPadded;
};

/// The pre-kernel's parameters, declared once: V and value_t read and
/// written 16 bytes at a time.
KernelSignature transposeSignature(TransposeArgs &a) {
  KernelSignature sig;
  sig.ptr(&a.value, "value", /*aligned=*/true);
  sig.ptr(&a.valueT, "value_t", /*aligned=*/true);
  sig.strides({&a.strideBatch, &a.strideHead, &a.strideSeq}, "value", {"batch", "head", "seq"});
  sig.i32(&a.seqK, sym::SeqK);
  sig.i32(&a.keysPadded, valueTKeys());
  return sig;
}

/// Byte `b` (0-3) of the i32 `word`, as i8.
Value byteOf(KernelBuilder &kb, Value word, int64_t b) {
  Value shifted = b ? kb.shru(word, kb.c32(8 * b)) : word;
  return LLVM::TruncOp::create(kb.b, kb.b.getI8Type(), shifted);
}

void emitTranspose(KernelBuilder &kb, LLVM::LLVMFuncOp fn, const AttentionKernelConfig &cfg,
                   StringRef smem) {
  TransposeArgs a;
  transposeSignature(a).bind(fn);
  Type i8 = kb.b.getI8Type();
  auto v4 = VectorType::get({4}, kb.i32);
  Value tid = kb.threadIdX();
  Value tile = kb.alignedSharedBase(smem);
  Value key0 = kb.mul(kb.blockIdX(), kb.c32(kKeys));
  Value head = kb.blockIdY(), batch = kb.blockIdZ();
  // Load phase: key row tid / 4, dims 16 (tid % 4) .. + 15 of the slab.
  // Store phase: dim row tid / 4, keys 16 (tid % 4) .. + 15 of the tile.
  Value row = kb.shru(tid, kb.c32(2)), quarter = kb.andi(tid, kb.c32(3));
  Value key = kb.add(key0, row);
  Value srcRow = stridedRowOffset(kb, batch, head, key, a.strideBatch, a.strideHead, a.strideSeq);
  Value keyValid = kb.cmp(arith::CmpIPredicate::slt, key, a.seqK);
  Value headRow = kb.mul(kb.add(kb.mul(kb.ext64(batch), kb.ext64(kb.gridDimY())), kb.ext64(head)),
                         kb.c64(cfg.headDimV));
  Value zero = LLVM::ZeroOp::create(kb.b, v4);
  for (int64_t slab = 0; slab < cfg.headDimV; slab += kSlab) {
    Value col = kb.add(kb.c32(slab), kb.mul(quarter, kb.c32(16)));
    Value valid =
        kb.andi(keyValid, kb.cmp(arith::CmpIPredicate::slt, col, kb.c32(cfg.headDimV)));
    Value data = kb.ifThenElseValues(
        valid, {v4},
        [&]() -> SmallVector<Value> {
          Value p = kb.globalAt(a.value, kb.add(srcRow, kb.ext64(col)), i8);
          return {LLVM::LoadOp::create(kb.b, v4, p, /*alignment=*/16)};
        },
        [&]() -> SmallVector<Value> { return {zero}; })[0];
    // Byte i of the chunk is dim 16 quarter + i of the slab: tile[dim][row].
    for (int64_t w = 0; w < 4; ++w) {
      Value word = LLVM::ExtractElementOp::create(kb.b, data, kb.c32(w));
      for (int64_t b = 0; b < 4; ++b) {
        Value dim = kb.add(kb.mul(quarter, kb.c32(16)), kb.c32(4 * w + b));
        Value at = kb.add(kb.mul(dim, kb.c32(kKeys)), row);
        LLVM::StoreOp::create(kb.b, byteOf(kb, word, b), kb.sharedAt(tile, at), 1);
      }
    }
    NVVM::Barrier0Op::create(kb.b);
    Value dim = kb.add(kb.c32(slab), row);
    kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, dim, kb.c32(cfg.headDimV)), [&] {
      Value out = LLVM::UndefOp::create(kb.b, v4);
      Value first = kb.add(kb.mul(row, kb.c32(kKeys)), kb.mul(quarter, kb.c32(16)));
      for (int64_t w = 0; w < 4; ++w) {
        Value word = kb.c32(0);
        for (int64_t b = 0; b < 4; ++b) {
          Value at = kb.add(first, kb.c32(fp8ValueKey(4 * w + b)));
          Value byte = LLVM::LoadOp::create(kb.b, i8, kb.sharedAt(tile, at), 1);
          Value wide = LLVM::ZExtOp::create(kb.b, kb.i32, byte);
          word = kb.ori(word, b ? kb.shl(wide, kb.c32(8 * b)) : wide);
        }
        out = LLVM::InsertElementOp::create(kb.b, out, word, kb.c32(w));
      }
      Value dst = kb.add(kb.mul(kb.add(headRow, kb.ext64(dim)), kb.ext64(a.keysPadded)),
                         kb.ext64(kb.add(key0, kb.mul(quarter, kb.c32(16)))));
      LLVM::StoreOp::create(kb.b, out, kb.globalAt(a.valueT, dst, i8), /*alignment=*/16);
    });
    NVVM::Barrier0Op::create(kb.b); // the next slab overwrites the tile
  }
}

} // namespace

void mlir::fa::nvvm_kernel::buildTransposeValueKernel(OpBuilder &builder, Location loc,
                                                      Block &moduleBody,
                                                      const AttentionKernelConfig &cfg) {
  std::string name = transposeName(cfg);
  TransposeArgs unbound;
  buildKernelFunction(builder, loc, moduleBody, name, transposeSignature(unbound), kThreads,
                      /*sharedMemory=*/true, /*noAliasPointers=*/false,
                      [&](KernelBuilder &kb, LLVM::LLVMFuncOp fn) {
                        emitTranspose(kb, fn, cfg, name + "_smem");
                      });
}

std::string mlir::fa::nvvm_kernel::transposeValueBundleJson(const AttentionKernelConfig &cfg,
                                                            StringRef chip,
                                                            StringRef cubinFile) {
  TransposeArgs unbound;
  Array params = transposeSignature(unbound).bundleParams();
  Array grid{llvm::formatv("ceildiv(seq_k, {0})", kKeys).str(), "heads_kv", "batch"};
  Object root = kernelBundleRoot(chip, cubinFile, transposeName(cfg), "attention_fwd_transpose_v",
                                 forwardBundleConfig(cfg), kThreads, transposeSharedBytes(),
                                 std::move(grid), std::move(params));
  root["scratch"] = Array{valueTransposeWorkspace(cfg, /*withInit=*/false)};
  return printJson(std::move(root));
}

std::string mlir::fa::nvvm_kernel::fp8SequenceJson(const AttentionKernelConfig &cfg,
                                                   StringRef chip) {
  return preKernelSequenceJson(cfg, chip, transposeName(cfg),
                               Array{valueTransposeWorkspace(cfg, /*withInit=*/true)});
}
