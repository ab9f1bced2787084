//===- DType.cpp - Element types ------------------------------------------===//
#include "fa/Runtime/DType.h"

#include <cctype>

namespace fa::runtime {

namespace {
struct DTypeInfo {
  DType dtype;
  const char *name;
  int64_t size;
};
constexpr DTypeInfo kInfos[kNumDTypes] = {
    {DType::F32, "f32", 4},          {DType::F16, "f16", 2},
    {DType::BF16, "bf16", 2},        {DType::F8E4M3FN, "f8e4m3fn", 1},
    {DType::F8E5M2, "f8e5m2", 1},    {DType::F64, "f64", 8},
    {DType::I32, "i32", 4},          {DType::I64, "i64", 8},
    {DType::I8, "i8", 1},            {DType::U8, "u8", 1},
};
} // namespace

const char *dtypeName(DType dtype) {
  for (const auto &info : kInfos)
    if (info.dtype == dtype)
      return info.name;
  return "?";
}

int64_t dtypeSize(DType dtype) {
  for (const auto &info : kInfos)
    if (info.dtype == dtype)
      return info.size;
  return 0;
}

std::optional<DType> parseDType(const std::string &name) {
  std::string lower;
  for (char c : name)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "f8e4m3")
    return DType::F8E4M3FN;
  for (const auto &info : kInfos)
    if (lower == info.name)
      return info.dtype;
  return std::nullopt;
}

std::optional<DType> dtypeFromInt(int32_t value) {
  if (value < 0 || value >= kNumDTypes)
    return std::nullopt;
  return static_cast<DType>(value);
}

std::string dtypeNameList() {
  std::string out;
  for (const auto &info : kInfos) {
    if (!out.empty())
      out += ", ";
    out += info.name;
  }
  return out;
}

} // namespace fa::runtime
