//===- DType.h - Element types known to the runtime -------------*- C++ -*-===//
#ifndef FA_RUNTIME_DTYPE_H
#define FA_RUNTIME_DTYPE_H

#include <cstdint>
#include <optional>
#include <string>

namespace fa::runtime {

/// Element types. The numbers are the C API's FA_DTYPE_* values.
enum class DType : int32_t {
  F32 = 0,
  F16 = 1,
  BF16 = 2,
  F8E4M3FN = 3,
  F8E5M2 = 4,
  F64 = 5,
  I32 = 6,
  I64 = 7,
  I8 = 8,
  U8 = 9,
};

constexpr int kNumDTypes = 10;

/// Canonical bundle spelling: "f32", "f16", "bf16", "f8e4m3fn", "f8e5m2", ...
const char *dtypeName(DType dtype);
/// Size of one element in bytes.
int64_t dtypeSize(DType dtype);
/// Accepts the canonical names case-insensitively (so MLIR's "f8E4M3FN" works)
/// plus the alias "f8e4m3".
std::optional<DType> parseDType(const std::string &name);
std::optional<DType> dtypeFromInt(int32_t value);
/// Comma-separated list of canonical names, for error messages.
std::string dtypeNameList();

} // namespace fa::runtime

#endif // FA_RUNTIME_DTYPE_H
