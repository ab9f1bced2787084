//===- Sequence.h - Several kernel bundles launched as one call -*- C++ -*-===//
//
// An fa-kernel-sequence (docs/BundleFormat.md, "Kernel sequences") lists
// kernel bundles that run in order on one stream, sharing workspace buffers
// (the sm_90a backward: pre, main, post). A Sequence is also what the C API
// holds for a plain bundle: a sequence of that one kernel, no workspace.
//
//   auto seq = fa::runtime::Sequence::load("fa_bwd_bf16_d128.json");
//   fa::runtime::Status s = (*seq)->launch(tensors, stream);
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_SEQUENCE_H
#define FA_RUNTIME_SEQUENCE_H

#include "fa/Runtime/Bundle.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fa::runtime {

namespace detail {
struct SequencePlan;
} // namespace detail

/// Most kernels a sequence may list.
constexpr size_t kMaxSequenceKernels = 8;

/// The validated sequence document, before its kernels are read.
struct SequenceSpec {
  std::string jsonPath;
  /// The operand view of the whole call: `chip`, `op` and `config` of the
  /// sequence, its workspace entries as `scratch`, and (once the kernels are
  /// read) the operands a launch must pass, workspace excluded.
  BundleSpec operands;
  /// Per workspace entry: true for "init": "zero".
  std::vector<bool> zeroInit;
  /// Per workspace entry: the kernel its "written_by" names, -1 without
  /// one. A kernel that writes such buffers is skipped when the caller
  /// passes all of them (their contents, kept from an earlier launch).
  std::vector<int> writtenBy;
  /// The kernel bundle paths, resolved against the sequence's folder.
  std::vector<std::string> kernelPaths;
  std::string workspaceJson; // compact "workspace" array
};

/// Validates sequence JSON text; `baseDir` resolves the kernel paths (the
/// files are not read here). Errors: Parse or InvalidBundle, naming the field.
Expected<SequenceSpec> parseSequenceSpec(const std::string &jsonText,
                                         const std::string &baseDir);

/// A workspace buffer of one launch: its evaluated sizes and whether the
/// caller passed it.
struct WorkspaceBuffer {
  const ScratchSpec *spec = nullptr;
  bool zeroInit = false;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides; // dense, as the runtime allocates it
  int64_t bytes = 0;
  const TensorArg *passed = nullptr; // null: the runtime allocates it
};

class Sequence {
public:
  ~Sequence();
  /// Reads `jsonPath`, an fa-kernel-sequence or a plain fa-kernel-bundle,
  /// and everything it names; validates all of it (no GPU needed).
  static Expected<std::unique_ptr<Sequence>> load(const std::string &jsonPath);
  /// A sequence from its text; the kernels are read from files, relative to
  /// `baseDir` (tests).
  static Expected<std::unique_ptr<Sequence>>
  fromText(const std::string &jsonText, const std::string &baseDir);
  /// The one-kernel sequence of a plain bundle.
  static std::unique_ptr<Sequence> single(std::unique_ptr<Bundle> bundle);

  /// False for the one-kernel sequence of a plain bundle.
  bool isSequence() const { return isSequence_; }
  const std::vector<std::unique_ptr<Bundle>> &kernels() const {
    return kernels_;
  }
  const std::string &op() const;
  const std::string &chip() const;
  const std::string &configJson() const;
  const std::string &json() const; // compact whole document
  const std::string &workspaceJson() const; // "[]" for a plain bundle
  const std::vector<std::string> &requiredOperands() const;
  /// The kernels' entry names, joined by ",".
  const std::string &kernelNames() const { return kernelNames_; }
  size_t numParams() const;

  /// Per kernel: whether a launch with these operands skips it (the caller
  /// passes every buffer "written_by" it). Passing some but not all of a
  /// kernel's buffers is an error naming them.
  Expected<std::vector<bool>>
  skippedKernels(const std::vector<TensorArg> &tensors) const;
  /// Checks the operands against the sequence (passed workspace buffers
  /// included) and evaluates every workspace buffer's sizes.
  Expected<std::vector<WorkspaceBuffer>>
  workspace(const std::vector<TensorArg> &tensors, int64_t numSms) const;
  /// Bytes of all workspace buffers (what a launch allocates when the
  /// caller passes none).
  Expected<int64_t> workspaceBytes(const std::vector<TensorArg> &tensors,
                                   int64_t numSms) const;
  /// Everything a launch checks, for every kernel, without a GPU; workspace
  /// buffers not passed count as provided. Returns the first kernel's grid.
  /// check and launch remember their plans per operand key, as
  /// Bundle::plan does (the workspace and every kernel's plan).
  Expected<std::array<uint32_t, 3>> check(const std::vector<TensorArg> &tensors,
                                          int64_t numSms) const;
  /// Allocates the workspace buffers not passed (cuMemAllocAsync), zeroes
  /// those with "init": "zero", launches the kernels in order on `stream`,
  /// frees what it allocated (cuMemFreeAsync, stream-ordered). Asynchronous.
  Status launch(const std::vector<TensorArg> &tensors, void *stream);

private:
  Sequence();
  Status linkKernels();
  /// A kernel that writes "written_by" buffers writes no other workspace
  /// buffer (skipping it must leave none unwritten): checks kernel
  /// `kernel`'s scratch entry, workspace[w].
  Status onlyKeptBuffers(size_t kernel, size_t w) const;
  /// Per kernel: the indices in `all` of the operands it knows (standard
  /// roles, its scratch).
  std::vector<size_t> kernelOperands(const Bundle &kernel,
                                     const std::vector<TensorArg> &all) const;
  /// `tensors` plus one TensorArg per workspace buffer not passed, at the
  /// addresses `addresses` gives (one per such buffer, in order).
  std::vector<TensorArg>
  withWorkspace(const std::vector<TensorArg> &tensors,
                const std::vector<WorkspaceBuffer> &buffers,
                const std::vector<uint64_t> &addresses) const;
  /// The remembered plan of `tensors`, else a new one holding the workspace
  /// (its kernels are planned by planKernels).
  Expected<std::shared_ptr<const detail::SequencePlan>>
  findOrStartPlan(const std::vector<TensorArg> &tensors, int64_t numSms) const;
  /// Every kernel's launch plan, the buffers not passed at `allocated` (in
  /// order): from `plan`'s templates when it has them and the allocated
  /// addresses align as when they were made, else planned in full (and
  /// remembered when `plan` was new).
  Expected<std::vector<LaunchPlan>>
  planKernels(const std::vector<TensorArg> &tensors, int64_t numSms,
              const detail::SequencePlan &plan,
              const std::vector<uint64_t> &allocated,
              const TensorMapEncoder &encoder) const;

  bool isSequence_ = false;
  SequenceSpec spec_;
  std::vector<std::unique_ptr<Bundle>> kernels_;
  std::string kernelNames_;
  std::unique_ptr<detail::PlanCache<detail::SequencePlan>> plans_;
};

} // namespace fa::runtime

#endif // FA_RUNTIME_SEQUENCE_H
