//===- PlanCache.cpp - Launch plans remembered per operand key ------------===//
#include "PlanCache.h"

#include <algorithm>

namespace fa::runtime::detail {

int alignmentBits(const BundleSpec &spec) {
  int bits = 3; // element sizes
  for (const ParamSpec &p : spec.params) {
    if (p.kind == ParamKind::TensorMap || p.kind == ParamKind::TensorMapGlobal)
      bits = std::max(bits, 4);
    else if (p.kind == ParamKind::Ptr)
      bits = std::max(bits, __builtin_ctzll(static_cast<uint64_t>(p.align)));
  }
  return bits;
}

int addressClass(uint64_t address, int bits) {
  if (address == 0)
    return -1;
  return std::min(__builtin_ctzll(address), bits);
}

namespace {

/// FNV-1a over 64-bit words.
struct Hasher {
  uint64_t h = 14695981039346656037ull;
  void add(uint64_t word) { h = (h ^ word) * 1099511628211ull; }
};

} // namespace

OperandKey::OperandKey(const std::vector<TensorArg> &tensors, int64_t numSms,
                       int bits)
    : numSms_(numSms), bits_(bits) {
  operands_.reserve(tensors.size());
  for (const TensorArg &t : tensors)
    operands_.push_back(
        {t.role, t.dtype, addressClass(t.data, bits), t.sizes, t.strides});
}

size_t OperandKey::hashOf(const std::vector<TensorArg> &tensors, int64_t numSms,
                          int bits) {
  Hasher h;
  h.add(static_cast<uint64_t>(numSms));
  h.add(tensors.size());
  for (const TensorArg &t : tensors) {
    h.add(static_cast<uint64_t>(t.dtype));
    h.add(static_cast<uint64_t>(addressClass(t.data, bits)));
    h.add(t.sizes.size());
    for (int64_t s : t.sizes)
      h.add(static_cast<uint64_t>(s));
    h.add(t.strides.size());
    for (int64_t s : t.strides)
      h.add(static_cast<uint64_t>(s));
  }
  return static_cast<size_t>(h.h);
}

bool OperandKey::matches(const std::vector<TensorArg> &tensors,
                         int64_t numSms) const {
  if (numSms != numSms_ || tensors.size() != operands_.size())
    return false;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Operand &o = operands_[i];
    const TensorArg &t = tensors[i];
    if (t.dtype != o.dtype || addressClass(t.data, bits_) != o.addressClass ||
        t.sizes != o.sizes || t.strides != o.strides || t.role != o.role)
      return false;
  }
  return true;
}

} // namespace fa::runtime::detail
