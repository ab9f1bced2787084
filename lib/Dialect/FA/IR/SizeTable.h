//===- SizeTable.h - Sizes of an op bound from its operands -----*- C++ -*-===//
//
// The verifiers' shared pieces: each size of a problem is bound by the
// first operand that has it static, and every later static occurrence must
// agree, with a message naming both operands; the element types and score
// attributes every attention op accepts.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_IR_SIZETABLE_H
#define FA_LIB_DIALECT_FA_IR_SIZETABLE_H

#include "llvm/ADT/APFloat.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace mlir::fa::verify {

inline std::string describe(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("?") : std::to_string(size);
}

/// Fails when the static dims of `type` hold more bytes than a 64-bit
/// offset reaches (the lowering's index arithmetic would overflow).
inline LogicalResult checkAddressable(Operation *op, Type type, StringRef name) {
  auto t = cast<RankedTensorType>(type);
  Type element = t.getElementType();
  unsigned bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 8;
  int64_t bytes = std::max<int64_t>(1, bits / 8);
  for (int64_t size : t.getShape()) {
    if (ShapedType::isDynamic(size))
      continue;
    if (llvm::MulOverflow(bytes, size, bytes))
      return op->emitOpError()
             << "'" << name << "' of type " << type
             << " holds 2^63 bytes or more: its offsets overflow 64 bits";
  }
  return success();
}

/// A problem's sizes (an enum SizeT of N, named by `names`) as the
/// operands fix them. The first operand that has
/// a size static binds it; every later static occurrence must agree. Since
/// equality is transitive, this compares every pair of static sizes, also
/// two that a dynamic dim of the first operand would hide (K batch 2 and V
/// batch 3 under Q batch `?`).
template <typename SizeT, unsigned N> class SizeTable {
public:
  SizeTable(Operation *op, const char *const (&names)[N])
      : op(op), names(names) {
    std::fill(std::begin(sizes), std::end(sizes), ShapedType::kDynamic);
  }

  /// `name`'s dimension `dim` has extent `extent`, which is size `size` of
  /// the problem, or 1 where `broadcastable`.
  LogicalResult bind(SizeT size, StringRef name, unsigned dim, int64_t extent,
                     bool broadcastable = false) {
    unsigned i = static_cast<unsigned>(size);
    if (ShapedType::isDynamic(extent) || (broadcastable && extent == 1))
      return success();
    if (ShapedType::isDynamic(sizes[i])) {
      sizes[i] = extent;
      sources[i] = name.str();
      return success();
    }
    if (sizes[i] == extent)
      return success();
    return op->emitOpError()
           << "'" << name << "' dimension " << dim << " (" << names[i]
           << ") is " << extent << ", expected " << sizes[i]
           << (broadcastable ? " or 1" : "") << " (the " << names[i]
           << " of '" << sources[i] << "')";
  }

  /// Binds every dimension of `type` to `roles` (one per dimension).
  LogicalResult bindAll(Type type, StringRef name, ArrayRef<SizeT> roles,
                        unsigned numBroadcastable = 0) {
    if (failed(checkAddressable(op, type, name)))
      return failure();
    auto t = cast<RankedTensorType>(type);
    for (auto [dim, role] : llvm::enumerate(roles))
      if (failed(bind(role, name, dim, t.getDimSize(dim),
                      dim < numBroadcastable)))
        return failure();
    return success();
  }

  int64_t operator[](SizeT size) const {
    return sizes[static_cast<unsigned>(size)];
  }
  /// The operand that bound `size` (empty while it is dynamic).
  StringRef source(SizeT size) const {
    return sources[static_cast<unsigned>(size)];
  }

private:
  Operation *op;
  const char *const (&names)[N];
  int64_t sizes[N];
  std::string sources[N];
};

inline bool isSupportedElementType(Type t, bool allowFp8) {
  return t.isF32() || t.isF16() || t.isBF16() ||
         (allowFp8 && isa<Float8E4M3FNType>(t));
}

/// The score attributes every attention op shares: scale, softcap, window,
/// and an alignment only with something to align.
inline LogicalResult checkScoreConfig(
    Operation *op,
    std::optional<APFloat> scale, std::optional<APFloat> softcap,
    std::optional<ArrayRef<int64_t>> window, bool causal, bool hasAlignment) {
  if (scale) {
    double s = scale->convertToDouble();
    if (!std::isfinite(s) || s == 0.0)
      return op->emitOpError() << "'scale' must be finite and non-zero, got " << s;
  }
  if (softcap) {
    double c = softcap->convertToDouble();
    if (!std::isfinite(c) || c <= 0.0)
      return op->emitOpError() << "'softcap' must be finite and > 0, got " << c;
  }
  if (window) {
    if (window->size() != 2)
      return op->emitOpError() << "'window' must have 2 elements (left, right), got "
                     << window->size();
    if ((*window)[0] < 0 || (*window)[1] < 0)
      return op->emitOpError() << "'window' sizes must be >= 0, got ["
                     << (*window)[0] << ", " << (*window)[1] << "]";
  }
  if (hasAlignment && !causal && !window)
    return op->emitOpError() << "'mask_alignment' needs 'causal' or 'window'";
  return success();
}

} // namespace mlir::fa::verify

#endif // FA_LIB_DIALECT_FA_IR_SIZETABLE_H
