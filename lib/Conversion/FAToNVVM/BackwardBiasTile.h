//===- BackwardBiasTile.h - A 16-bit bias tile through shared memory -*- C++ -*-===//
//
// The backward main kernel's bias traffic for a 16-bit bias
// (docs/HopperBackward.md, "The bias tile in shared memory"). A consumer's
// [rows queries x 64 keys] tile of bias or dBias sits in its box of a dS
// buffer, in dS's layout (128-byte rows of 64 keys, 16-byte chunks
// swizzled by the row's index mod 8):
//   - the bias of step t + 1 is copied into buffer (t + 1) % 2 by
//     cp.async, 16 bytes per thread and pass, whole 128-byte rows per
//     8 threads, during step t (after dS of t - 1 was last read);
//   - at step t + 1 ldmatrix.trans reads it into S^T's fragment order (the
//     inverse of dS's stmatrix.trans), before dS overwrites it;
//   - dBias = dS per batch and head (a bias of the inputs' type) is written
//     from the box dS's stmatrix filled, 16 bytes per thread and pass;
//   - where the bias broadcasts, the box's values are added into the f32
//     dbias_accum by red.global.add.v4.f32, four keys per thread and pass
//     (reduce; the dbias kernel writes grad_bias); in deterministic mode
//     the boxes of the contributors to one dBias block (other batches,
//     other q heads) are summed in a fixed order through the block's
//     semaphore instead (addInOrder): the first stores its f32 terms into
//     the block of dbias_accum, the middle ones add theirs, the last one
//     writes the sum into grad_bias.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_BACKWARDBIASTILE_H
#define FA_LIB_CONVERSION_FATONVVM_BACKWARDBIASTILE_H

#include "KernelParts.h"

namespace mlir::fa::nvvm_kernel {

/// The 16-byte rows that ldmatrix/stmatrix .x4 .trans address for the m64
/// fragment of keys [16 warp, 16 warp + 16) x queries of a dS box: the
/// 8 x 8 blocks (queries 8 j.., keys 16 warp + 8 h..) are pair registers
/// 2 j + h, and matrix call q covers j = 2 q, 2 q + 1.
class TransposedMatrixRows {
public:
  /// Box c of `dsBuf` ([rows queries x 64 keys] each).
  TransposedMatrixRows(KernelBuilder &kb, Value dsBuf, Value c, int64_t rows, Value warp,
                       Value lane);
  /// This lane's row address for matrix call q.
  Value at(int64_t q);

private:
  KernelBuilder &kb;
  Value dsBuf, matrix, r, boxOffset;
};

/// ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16: four pair registers.
SmallVector<Value> ldmatrixX4Trans(KernelBuilder &kb, Value rowAddress);

/// One turn of an ordered dBias sum (BackwardKernelConfig::biasGradInOrder):
/// the contributors to a dBias block [rows queries x 64 keys] (the CTAs of
/// the batches and kv heads the bias broadcasts over, and the q heads of a
/// group, in the order the hardware dispatches them) add in turn `rank`
/// of `count`, each waiting until `semaphore` counts the turns before it.
struct OrderedBiasGrad {
  Value block;     // f32 [rows x 64] in dbias_accum: 16 bytes per thread and pass
  Value semaphore; // i32, zeroed before the launch
  Value rank, count;
  Value gradPlane; // i64: grad_bias's [seq_q, seq_k] plane the last turn writes
  Value barrier;   // a named barrier of the consumer warpgroup (128 threads)
};

/// One consumer's copies between a 16-bit bias (or grad_bias) and its box.
class BiasTileCopy {
public:
  /// `rows`: the query tile; keys past seq_k read as 0 (they are masked)
  /// and are not written; query rows past seq_q read the last row and are
  /// not written.
  BiasTileCopy(KernelBuilder &kb, int64_t rows, Value seqQ, Value seqK, Value threadInWg);
  /// cp.async of bias [plane + query m0.., key0..] into `box`, committed
  /// as one group (16-byte copies where the pointer and strides allow them,
  /// else element loads and 16-byte shared stores).
  void load(const BiasArgs &bias, Value plane, Value m0, Value key0, Value box);
  /// Waits for this thread's copies; the caller synchronizes the warpgroup.
  static void wait(KernelBuilder &kb);
  /// `box` (16-bit, the bias's type) into grad [plane + query m0.., key0..].
  void store(const BiasArgs &grad, Value plane, Value m0, Value key0, Value box);
  /// `box` (16-bit values of type `half`) added into the dense f32
  /// [planes, seq_q, seq_k] `accum` at plane `plane` (i64), query m0..,
  /// key0..: 16-byte reductions where seq_k % 4 == 0, else per element
  /// (not in a fixed order: outside deterministic mode).
  void reduce(Value accum, Value plane, Value m0, Value key0, Value box, Type half);
  /// `box` (16-bit values of type `half`, the bias's) added in turn `o`
  /// into its dBias block; the last turn writes the sum into grad
  /// [o.gradPlane + query m0.., key0..] (within seq_q x seq_k).
  void addInOrder(const OrderedBiasGrad &o, const BiasArgs &grad, Value m0, Value key0, Value box,
                  Type half);

private:
  /// Whether the pointer and the strides of `a` (2-byte elements) are
  /// multiples of `bytes`.
  Value rowsAligned(const BiasArgs &a, int64_t bytes);
  /// The last turn: `sums` (four per pass p: keys key.. key + 3 of query
  /// query0 + 8 p) rounded to `half` into grad's plane `plane`.
  void storeSums(const BiasArgs &grad, Value plane, Value query0, Value key, ArrayRef<Value> sums,
                 Type half);
  /// This thread's four keys of a box row when sixteen threads take one
  /// 128-byte row, 8 bytes each (8 rows per pass, one swizzle for every
  /// pass: rows 8 p + r are r mod 8): its row in a pass, the byte offset in
  /// that row, and the first key (from key0).
  struct Quad {
    Value row, inRow, key;
  };
  Quad quadOfThread(Value key0);
  /// The 16-byte chunk `chunk` of every row this thread copies: pass p
  /// covers rows [16 p, 16 p + 16), eight threads per 128-byte row.
  void forEachChunk(const std::function<void(Value row, Value shared)> &body);

  KernelBuilder &kb;
  int64_t rows;
  Value seqQ, seqK, threadInWg, rowInPass, chunk, swizzled;
};

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_BACKWARDBIASTILE_H
