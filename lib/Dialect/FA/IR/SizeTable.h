//===- SizeTable.h - Sizes of an op bound from its operands -----*- C++ -*-===//
//
// The verifiers' shared bookkeeping: each size of a problem is bound by the
// first operand that has it static, and every later static occurrence must
// agree, with a message naming both operands.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_IR_SIZETABLE_H
#define FA_LIB_DIALECT_FA_IR_SIZETABLE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
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

} // namespace mlir::fa::verify

#endif // FA_LIB_DIALECT_FA_IR_SIZETABLE_H
