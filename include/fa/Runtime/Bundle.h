//===- Bundle.h - Load a kernel bundle and launch it ------------*- C++ -*-===//
//
// The C++ API of the runtime:
//
//   auto bundle = fa::runtime::Bundle::load("fa_fwd_bf16_d128.json");
//   if (!bundle.ok()) report(bundle.status().message());
//   fa::runtime::Status s = (*bundle)->launch(tensors, stream);
//
// A Bundle is immutable after load except for its per-context cache of loaded
// modules, which a mutex guards: launch may be called from several threads.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_BUNDLE_H
#define FA_RUNTIME_BUNDLE_H

#include "fa/Runtime/BundleSpec.h"
#include "fa/Runtime/ParamPack.h"
#include "fa/Runtime/Status.h"
#include "fa/Runtime/Tensor.h"

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace fa::runtime {

namespace detail {
struct PlanTemplate;
template <typename Plan> class PlanCache;
} // namespace detail

/// Everything a launch computes before it touches the driver.
struct LaunchPlan {
  std::array<uint32_t, 3> grid{};
  /// True when a grid dimension is 0: the launch does nothing and succeeds.
  bool empty = false;
  PackedParams params;
};

/// Largest bundle JSON load() reads (the compiler writes about 2 KiB).
constexpr uint64_t kMaxBundleJsonBytes = uint64_t(1) << 20;
/// Largest device image load() reads (sm_90a cubins are about 100 KiB).
constexpr uint64_t kMaxImageBytes = uint64_t(256) << 20;

class Bundle {
public:
  /// Reads `jsonPath` and the cubin it names, validates both (no GPU needed).
  static Expected<std::unique_ptr<Bundle>> load(const std::string &jsonPath);
  /// Same from memory; `cubin` holds the image bytes (tests, embedding).
  static Expected<std::unique_ptr<Bundle>>
  fromMemory(const std::string &jsonText, const std::string &baseDir,
             std::string cubin);

  ~Bundle();
  Bundle(const Bundle &) = delete;
  Bundle &operator=(const Bundle &) = delete;

  const BundleSpec &spec() const { return spec_; }
  const std::string &kernelName() const { return spec_.kernel; }
  const std::string &configJson() const { return spec_.configJson; }
  const std::string &cubin() const { return cubin_; }

  /// Checks operands, evaluates the grid and packs parameters with `encoder`
  /// standing in for the driver. `numSms` is the num_sms symbol's value.
  /// A plan is remembered per operand key (roles, dtypes, sizes, strides,
  /// address alignment, numSms: lib/Runtime/PlanCache.h); a later call with
  /// an equal key only rewrites the addresses (re-encoding tensor maps).
  Expected<LaunchPlan> plan(const std::vector<TensorArg> &tensors,
                            int64_t numSms,
                            const TensorMapEncoder &encoder) const;

  /// Launches on `stream` (a CUstream; null means the legacy default stream).
  /// The context is the stream's, else the current one, else device 0's
  /// primary context (retained and made current, as the CUDA runtime does).
  /// Tensors must stay valid until the call returns (not until the kernel
  /// ends: nothing is read from them on the host afterwards).
  Status launch(const std::vector<TensorArg> &tensors, void *stream);

private:
  friend class Sequence; // launches its kernels in one context, in order
  Bundle();
  /// plan() without the cache; `made` receives the plan's template.
  Expected<LaunchPlan>
  planFully(const std::vector<TensorArg> &tensors, int64_t numSms,
            const TensorMapEncoder &encoder,
            std::shared_ptr<const detail::PlanTemplate> &made) const;
  /// The plan of `made` for operands at `addresses` (by operand index).
  Expected<LaunchPlan> fromTemplate(const detail::PlanTemplate &made,
                                    const std::vector<uint64_t> &addresses,
                                    const TensorMapEncoder &encoder) const;
  struct ContextState;
  Expected<ContextState *> contextState(void *driver, void *ctx);
  static int numSms(const ContextState &state);
  /// Queues a planned launch (nothing for an empty grid); the context of
  /// `state` must be current.
  Status enqueue(ContextState &state, LaunchPlan &plan, void *stream);

  BundleSpec spec_;
  std::string cubin_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<ContextState>> contexts_;
  std::unique_ptr<detail::PlanCache<detail::PlanTemplate>> plans_;
};

/// Checks that `image` is a cubin (ELF), fatbin or PTX text, and for an ELF
/// cubin that it defines `kernel`. Errors: InvalidBundle.
Status checkCubinImage(const std::string &image, const std::string &kernel,
                       const std::string &path);

} // namespace fa::runtime

#endif // FA_RUNTIME_BUNDLE_H
