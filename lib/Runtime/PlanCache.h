//===- PlanCache.h - Launch plans remembered per operand key ----*- C++ -*-===//
//
// What a launch checks and packs depends on its operands' roles, dtypes,
// sizes and strides and on num_sms; of their addresses, the checks read only
// whether one is null and how it is aligned, and the packed bytes hold them
// (ptr parameters, the address inside a tensor map). So the plan of a launch
// is remembered per OperandKey (all of that, the addresses reduced to their
// AddressClass), and a later launch with an equal key only rewrites the
// address bytes (re-encoding its tensor maps). Failed plans are never
// stored: every error comes from the full checks, worded as they word it.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_PLANCACHE_H
#define FA_RUNTIME_PLANCACHE_H

#include "fa/Runtime/ParamPack.h"
#include "fa/Runtime/Tensor.h"

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace fa::runtime::detail {

/// The largest alignment (as a power of two's bits) any check of `spec`
/// asks of an operand's address: its element size (at most 8 bytes), TMA's
/// 16 bytes for a tensor map, a ptr parameter's `align` (a power of two).
int alignmentBits(const BundleSpec &spec);

/// -1 for a null address, else its trailing zero bits up to `bits`: two
/// addresses of one class pass the same alignment checks of a spec whose
/// alignmentBits is at most `bits`.
int addressClass(uint64_t address, int bits);

/// The address-independent signature of a launch's operands, in the
/// caller's order.
class OperandKey {
public:
  /// `bits`: the alignmentBits of the checks the plan ran.
  OperandKey(const std::vector<TensorArg> &tensors, int64_t numSms, int bits);
  /// Hash of what a key holds (roles aside: they are compared on a match).
  static size_t hashOf(const std::vector<TensorArg> &tensors, int64_t numSms,
                       int bits);
  bool matches(const std::vector<TensorArg> &tensors, int64_t numSms) const;

private:
  struct Operand {
    std::string role;
    DType dtype;
    int addressClass;
    std::vector<int64_t> sizes, strides;
  };
  int64_t numSms_;
  int bits_;
  std::vector<Operand> operands_;
};

/// One kernel's plan for an operand key: everything but the address bytes.
struct PlanTemplate {
  std::array<uint32_t, 3> grid{};
  bool empty = false;
  /// Packed by the launch that made the plan (its addresses are rewritten).
  PackedParams params;
  std::vector<AddressParam> addressParams;
};

/// Plans by operand key, shared by the threads that launch one bundle.
/// Bounded: when full it starts over (a loop repeats a few shapes).
template <typename Plan> class PlanCache {
public:
  static constexpr size_t kMaxEntries = 64;

  /// `bits`: alignmentBits of every spec whose checks a plan runs.
  explicit PlanCache(int bits) : bits_(bits) {}
  int bits() const { return bits_; }

  std::shared_ptr<const Plan> find(const std::vector<TensorArg> &tensors,
                                   int64_t numSms) const {
    size_t hash = OperandKey::hashOf(tensors, numSms, bits_);
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Entry &e : entries_)
      if (e.hash == hash && e.key.matches(tensors, numSms))
        return e.plan;
    return nullptr;
  }

  void insert(const std::vector<TensorArg> &tensors, int64_t numSms,
              std::shared_ptr<const Plan> plan) {
    Entry e{OperandKey::hashOf(tensors, numSms, bits_),
            OperandKey(tensors, numSms, bits_), std::move(plan)};
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() >= kMaxEntries)
      entries_.clear();
    entries_.push_back(std::move(e));
  }

private:
  struct Entry {
    size_t hash;
    OperandKey key;
    std::shared_ptr<const Plan> plan;
  };
  int bits_;
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
};

} // namespace fa::runtime::detail

#endif // FA_RUNTIME_PLANCACHE_H
