//===- BackwardBiasTile.cpp - A 16-bit bias tile through shared memory ----===//
#include "BackwardBiasTile.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

TransposedMatrixRows::TransposedMatrixRows(KernelBuilder &kb, Value dsBuf, Value c, int64_t rows,
                                           Value warp, Value lane)
    : kb(kb), dsBuf(dsBuf) {
  matrix = kb.shru(lane, kb.c32(3));
  r = kb.andi(lane, kb.c32(7));
  Value chunk = kb.add(kb.mul(warp, kb.c32(2)), kb.andi(matrix, kb.c32(1)));
  Value swizzled = kb.mul(kb.xori(chunk, r), kb.c32(16));
  boxOffset = kb.add(kb.mul(c, kb.c32(rows * 128)), swizzled);
}

Value TransposedMatrixRows::at(int64_t q) {
  Value query = kb.add(kb.mul(kb.add(kb.c32(2 * q), kb.shru(matrix, kb.c32(1))), kb.c32(8)), r);
  return kb.sharedAt(dsBuf, kb.add(boxOffset, kb.mul(query, kb.c32(128))));
}

SmallVector<Value> mlir::fa::nvvm_kernel::ldmatrixX4Trans(KernelBuilder &kb, Value rowAddress) {
  Value addr = kb.sharedAddress32(rowAddress);
  auto ty = LLVM::LLVMStructType::getLiteral(kb.b.getContext(), SmallVector<Type>(4, kb.i32));
  Value regs = inlinePtx(kb, ty, {addr},
                         "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];",
                         "=r,=r,=r,=r,r");
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(kb.b, regs, i));
  return out;
}

BiasTileCopy::BiasTileCopy(KernelBuilder &kb, int64_t rows, Value seqQ, Value seqK,
                           Value threadInWg)
    : kb(kb), rows(rows), seqQ(seqQ), seqK(seqK), threadInWg(threadInWg) {
  rowInPass = kb.shru(threadInWg, kb.c32(3));
  chunk = kb.andi(threadInWg, kb.c32(7));
  // Rows 16 p + rowInPass are rowInPass mod 8: one swizzle for every pass.
  swizzled = kb.mul(kb.xori(chunk, kb.andi(rowInPass, kb.c32(7))), kb.c32(16));
}

void BiasTileCopy::forEachChunk(const std::function<void(Value, Value)> &body) {
  for (int64_t pass = 0; pass < rows / 16; ++pass) {
    Value row = kb.add(rowInPass, kb.c32(16 * pass));
    body(row, kb.add(kb.mul(row, kb.c32(128)), swizzled));
  }
}

Value BiasTileCopy::rowsAligned(const BiasArgs &a, int64_t bytes) {
  return stridesAligned(kb, a.ptr, {a.strideBatch, a.strideHead, a.strideRow}, 2, bytes);
}

void BiasTileCopy::load(const BiasArgs &bias, Value plane, Value m0, Value key0, Value box) {
  Value lastQ = kb.sub(seqQ, kb.c32(1)), lastK = kb.sub(seqK, kb.c32(1));
  Value key = kb.add(key0, kb.mul(chunk, kb.c32(8)));
  auto rowAt = [&](Value row) {
    Value query = kb.minSI(kb.add(m0, row), lastQ);
    return kb.add(plane, kb.mul(kb.ext64(query), bias.strideRow));
  };
  kb.ifThenElse(
      rowsAligned(bias, 16),
      [&] {
        // Keys past seq_k are zero-filled (cp.async's source size); a chunk
        // wholly past it reads nothing, from key 0.
        Value valid = kb.maxSI(kb.minSI(kb.sub(seqK, key), kb.c32(8)), kb.c32(0));
        Value from = kb.select(kb.cmp(arith::CmpIPredicate::sgt, valid, kb.c32(0)), key, kb.c32(0));
        Value bytes = kb.mul(valid, kb.c32(2));
        forEachChunk([&](Value row, Value shared) {
          Value src = kb.globalAt(bias.ptr, kb.add(rowAt(row), kb.ext64(from)), kb.i16);
          Value dst = kb.sharedAddress32(kb.sharedAt(box, shared));
          inlinePtx(kb, Type(), {dst, src, bytes}, "cp.async.cg.shared.global [$0], [$1], 16, $2;",
                    "r,l,r");
        });
      },
      [&] {
        // A loop over the passes, not unrolled: eight loads in flight at
        // most (ptxas hoists the loads of unrolled passes, and spills).
        auto v8 = VectorType::get({8}, kb.i16);
        Value zero = arith::ConstantIntOp::create(kb.b, kb.i16, 0);
        kb.forLoop(kb.c32(0), kb.c32(rows / 16), {}, [&](Value pass, ValueRange) {
          Value row = kb.add(rowInPass, kb.mul(pass, kb.c32(16)));
          Value shared = kb.add(kb.mul(row, kb.c32(128)), swizzled);
          Value at = rowAt(row);
          Value v = LLVM::UndefOp::create(kb.b, v8);
          for (int64_t e = 0; e < 8; ++e) {
            Value k = kb.add(key, kb.c32(e));
            Value x = LLVM::LoadOp::create(
                kb.b, kb.i16,
                kb.globalAt(bias.ptr, kb.add(at, kb.ext64(kb.minSI(k, lastK))), kb.i16), 2);
            x = kb.select(kb.cmp(arith::CmpIPredicate::slt, k, seqK), x, zero);
            v = LLVM::InsertElementOp::create(kb.b, v, x, kb.c32(e));
          }
          LLVM::StoreOp::create(kb.b, v, kb.sharedAt(box, shared), /*alignment=*/16);
          return SmallVector<Value>{};
        });
      });
  inlinePtx(kb, Type(), {}, "cp.async.commit_group;", "");
}

void BiasTileCopy::wait(KernelBuilder &kb) {
  inlinePtx(kb, Type(), {}, "cp.async.wait_group 0;", "");
}

void BiasTileCopy::store(const BiasArgs &grad, Value plane, Value m0, Value key0, Value box) {
  Value aligned = rowsAligned(grad, 16);
  Value key = kb.add(key0, kb.mul(chunk, kb.c32(8)));
  Value whole = kb.andi(aligned, kb.cmp(arith::CmpIPredicate::sle, kb.add(key, kb.c32(8)), seqK));
  auto v4 = VectorType::get({4}, kb.i32);
  forEachChunk([&](Value row, Value shared) {
    Value query = kb.add(m0, row);
    kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, query, seqQ), [&] {
      Value v = LLVM::LoadOp::create(kb.b, v4, kb.sharedAt(box, shared), /*alignment=*/16);
      Value at = kb.add(kb.add(plane, kb.mul(kb.ext64(query), grad.strideRow)), kb.ext64(key));
      kb.ifThenElse(
          whole,
          [&] {
            LLVM::StoreOp::create(kb.b, v, kb.globalAt(grad.ptr, at, kb.i16), /*alignment=*/16);
          },
          [&] {
            Value halves = LLVM::BitcastOp::create(kb.b, VectorType::get({8}, kb.i16), v);
            for (int64_t e = 0; e < 8; ++e)
              kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, kb.add(key, kb.c32(e)), seqK), [&] {
                Value x = LLVM::ExtractElementOp::create(kb.b, halves, kb.c32(e));
                LLVM::StoreOp::create(kb.b, x, kb.globalAt(grad.ptr, kb.add(at, kb.c64(e)), kb.i16),
                                      2);
              });
          });
    });
  });
}

BiasTileCopy::Quad BiasTileCopy::quadOfThread(Value key0) {
  Value row = kb.shru(threadInWg, kb.c32(4)), quad = kb.andi(threadInWg, kb.c32(15));
  Value inRow = kb.add(kb.mul(kb.xori(kb.shru(quad, kb.c32(1)), row), kb.c32(16)),
                       kb.mul(kb.andi(quad, kb.c32(1)), kb.c32(8)));
  return {row, inRow, kb.add(key0, kb.mul(quad, kb.c32(4)))};
}

void BiasTileCopy::reduce(Value accum, Value plane, Value m0, Value key0, Value box, Type half) {
  Quad q = quadOfThread(key0);
  Value row = q.row, inRow = q.inRow, key = q.key;
  // 16-byte reductions need the workspace and its rows (seq_k floats)
  // 16-byte aligned; a workspace passed by the caller may be offset.
  Value bits =
      kb.ori(LLVM::PtrToIntOp::create(kb.b, kb.i64, accum), kb.mul(kb.ext64(seqK), kb.c64(4)));
  Value whole = kb.andi(kb.cmp(arith::CmpIPredicate::eq, kb.andi(bits, kb.c64(15)), kb.c64(0)),
                        kb.cmp(arith::CmpIPredicate::sle, kb.add(key, kb.c32(4)), seqK));
  Value firstRow = kb.mul(plane, kb.ext64(seqQ));
  auto halves = VectorType::get({4}, half);
  for (int64_t pass = 0; pass < rows / 8; ++pass) {
    Value r = kb.add(row, kb.c32(8 * pass));
    Value query = kb.add(m0, r);
    kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, query, seqQ), [&] {
      Value v = LLVM::LoadOp::create(
          kb.b, halves, kb.sharedAt(box, kb.add(kb.mul(r, kb.c32(128)), inRow)), /*alignment=*/8);
      SmallVector<Value> f;
      for (int64_t e = 0; e < 4; ++e)
        f.push_back(arith::ExtFOp::create(
            kb.b, kb.f32, Value(LLVM::ExtractElementOp::create(kb.b, v, kb.c32(e)))));
      Value at = kb.add(kb.mul(kb.add(firstRow, kb.ext64(query)), kb.ext64(seqK)), kb.ext64(key));
      kb.ifThenElse(
          whole,
          [&] {
            inlinePtx(kb, Type(), {kb.globalAt(accum, at, kb.f32), f[0], f[1], f[2], f[3]},
                      "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f",
                      /*clobbersMemory=*/false);
          },
          [&] {
            for (int64_t e = 0; e < 4; ++e)
              kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, kb.add(key, kb.c32(e)), seqK), [&] {
                redAddF32(kb, kb.globalAt(accum, kb.add(at, kb.c64(e)), kb.f32), f[e]);
              });
          });
    });
  }
}

void BiasTileCopy::addInOrder(const OrderedBiasGrad &o, const BiasArgs &grad, Value m0, Value key0,
                              Value box, Type half) {
  // In the f32 block, pass p of thread i is the 16 bytes at 128 p + i:
  // every warp's loads and stores are 512 contiguous bytes.
  Quad q = quadOfThread(key0);
  Value row = q.row, inRow = q.inRow, key = q.key;
  Value isLeader = kb.cmp(arith::CmpIPredicate::eq, threadInWg, kb.c32(0));
  Value first = kb.cmp(arith::CmpIPredicate::eq, o.rank, kb.c32(0));
  Value last = kb.cmp(arith::CmpIPredicate::eq, kb.add(o.rank, kb.c32(1)), o.count);
  Value notFirst = kb.xori(first, arith::ConstantIntOp::create(kb.b, 1, 1));
  // Turn `rank` comes once the turns before it released the semaphore
  // (turn 0 at once: it is zeroed); the leader's acquire and the
  // warpgroup's barrier order the block's accesses after them.
  kb.ifThen(kb.andi(isLeader, notFirst), [&] { spinUntilEqual(kb, o.semaphore, o.rank); });
  namedBarrierSync(kb, o.barrier, 128);
  auto slotAt = [&](Value pass) {
    Value i = kb.add(kb.mul(pass, kb.c32(128)), threadInWg);
    return kb.globalAt(o.block, kb.ext64(kb.mul(i, kb.c32(4))), kb.f32);
  };
  // The last turn reads the sum so far: every pass's line requested at
  // once into L1 (no registers), so the loop's loads do not wait for L2
  // one iteration after another. Weak loads after the acquire (the
  // leader's, then the barrier) see the earlier turns' writes (the PTX
  // memory model; the acquire drops stale L1 lines), and only the last
  // turn reads a block.
  kb.ifThen(kb.andi(last, notFirst), [&] {
    for (int64_t pass = 0; pass < rows / 8; ++pass)
      inlinePtx(kb, Type(), {slotAt(kb.c32(pass))}, "prefetch.global.L1 [$0];", "l");
  });
  // Iterations of rows / 64 passes (one pass at the 64-query tile), not
  // unrolled: with every pass's terms and sums live at once the main
  // kernels spilled 108-120 bytes at d64 and d128, with two passes per
  // iteration at d128 8-24 bytes.
  const int64_t group = rows / 64;
  auto halves = VectorType::get({4}, half);
  auto f4 = LLVM::LLVMStructType::getLiteral(kb.b.getContext(), SmallVector<Type>(4, kb.f32));
  auto v4 = VectorType::get({4}, kb.f32);
  kb.forLoop(kb.c32(0), kb.c32(rows / (8 * group)), {}, [&](Value g, ValueRange) {
    Value pass0 = kb.mul(g, kb.c32(group));
    auto slot = [&](int64_t p) { return slotAt(kb.add(pass0, kb.c32(p))); };
    SmallVector<Value> terms;
    for (int64_t p = 0; p < group; ++p) {
      Value r = kb.add(row, kb.mul(kb.add(pass0, kb.c32(p)), kb.c32(8)));
      Value v = LLVM::LoadOp::create(
          kb.b, halves, kb.sharedAt(box, kb.add(kb.mul(r, kb.c32(128)), inRow)), /*alignment=*/8);
      for (int64_t e = 0; e < 4; ++e)
        terms.push_back(arith::ExtFOp::create(
            kb.b, kb.f32, Value(LLVM::ExtractElementOp::create(kb.b, v, kb.c32(e)))));
    }
    auto vectorOf = [&](int64_t p) {
      Value v = LLVM::UndefOp::create(kb.b, v4);
      for (int64_t e = 0; e < 4; ++e)
        v = LLVM::InsertElementOp::create(kb.b, v, terms[4 * p + e], kb.c32(e));
      return v;
    };
    kb.ifThenElse(
        last,
        [&] {
          // The sum so far (the group's loads issued before the adds)
          // plus the terms, rounded into grad.
          SmallVector<Type> sumTypes(terms.size(), kb.f32);
          SmallVector<Value> sums = kb.ifThenElseValues(
              first, sumTypes, [&] { return terms; },
              [&] {
                SmallVector<Value> loaded;
                for (int64_t p = 0; p < group; ++p) {
                  Value v = inlinePtx(kb, f4, {slot(p)}, "ld.global.v4.f32 {$0, $1, $2, $3}, [$4];",
                                      "=f,=f,=f,=f,l");
                  for (int64_t e = 0; e < 4; ++e)
                    loaded.push_back(LLVM::ExtractValueOp::create(kb.b, v, e));
                }
                SmallVector<Value> out;
                for (size_t i = 0; i < terms.size(); ++i)
                  out.push_back(arith::AddFOp::create(kb.b, loaded[i], terms[i]));
                return out;
              });
          Value query0 = kb.add(kb.add(m0, row), kb.mul(pass0, kb.c32(8)));
          storeSums(grad, o.gradPlane, query0, key, sums, half);
        },
        [&] {
          // The first turn stores its terms; the middle ones add theirs in
          // L2 (red: no round trip, no registers for the sum; one turn
          // after another, so each element's additions keep one order).
          kb.ifThenElse(
              first,
              [&] {
                for (int64_t p = 0; p < group; ++p)
                  LLVM::StoreOp::create(kb.b, vectorOf(p), slot(p), /*alignment=*/16);
              },
              [&] {
                for (int64_t p = 0; p < group; ++p) {
                  SmallVector<Value> ops{slot(p)};
                  ops.append(terms.begin() + 4 * p, terms.begin() + 4 * p + 4);
                  inlinePtx(kb, Type(), ops, "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};",
                            "l,f,f,f,f");
                }
              });
        });
    return SmallVector<Value>{};
  });
  // Every thread's stores and reductions complete before the release (the
  // deterministic dQ's pattern: barrier, fence, release by one thread).
  // The last turn has no successor.
  kb.ifThen(kb.xori(last, arith::ConstantIntOp::create(kb.b, 1, 1)), [&] {
    namedBarrierSync(kb, o.barrier, 128);
    kb.ifThen(isLeader, [&] {
      fenceGpu(kb);
      releaseAdd(kb, o.semaphore, kb.c32(1));
    });
  });
}

void BiasTileCopy::storeSums(const BiasArgs &grad, Value plane, Value query0, Value key,
                             ArrayRef<Value> sums, Type half) {
  // 8-byte stores where grad's rows allow them and the four keys are all
  // below seq_k, else per element.
  Value whole = kb.andi(rowsAligned(grad, 8),
                        kb.cmp(arith::CmpIPredicate::sle, kb.add(key, kb.c32(4)), seqK));
  auto halves = VectorType::get({4}, half);
  for (size_t pass = 0; pass < sums.size() / 4; ++pass) {
    Value query = kb.add(query0, kb.c32(8 * static_cast<int64_t>(pass)));
    kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, query, seqQ), [&] {
      SmallVector<Value> h;
      for (int64_t e = 0; e < 4; ++e)
        h.push_back(arith::TruncFOp::create(kb.b, half, sums[4 * pass + e]));
      Value at = kb.add(kb.add(plane, kb.mul(kb.ext64(query), grad.strideRow)), kb.ext64(key));
      kb.ifThenElse(
          whole,
          [&] {
            Value v = LLVM::UndefOp::create(kb.b, halves);
            for (int64_t e = 0; e < 4; ++e)
              v = LLVM::InsertElementOp::create(kb.b, v, h[e], kb.c32(e));
            LLVM::StoreOp::create(kb.b, v, kb.globalAt(grad.ptr, at, half), /*alignment=*/8);
          },
          [&] {
            for (int64_t e = 0; e < 4; ++e)
              kb.ifThen(kb.cmp(arith::CmpIPredicate::slt, kb.add(key, kb.c32(e)), seqK), [&] {
                LLVM::StoreOp::create(kb.b, h[e],
                                      kb.globalAt(grad.ptr, kb.add(at, kb.c64(e)), half), 2);
              });
          });
    });
  }
}
