//===- CheckedMath.h - Overflow-checked size arithmetic ---------*- C++ -*-===//
//
// Sizes and strides come from callers and bundles; every product or sum of
// them goes through these so that an overflow is an error, never a wrapped
// value that reaches the driver.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_CHECKEDMATH_H
#define FA_RUNTIME_CHECKEDMATH_H

#include <cstdint>
#include <optional>

namespace fa::runtime {

template <typename T> std::optional<T> checkedMul(T a, T b) {
  T r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

template <typename T> std::optional<T> checkedAdd(T a, T b) {
  T r;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

} // namespace fa::runtime

#endif // FA_RUNTIME_CHECKEDMATH_H
