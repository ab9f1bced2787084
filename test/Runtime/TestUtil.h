//===- TestUtil.h - Shared fixtures of the runtime tests --------*- C++ -*-===//
#ifndef FA_RUNTIME_TEST_TESTUTIL_H
#define FA_RUNTIME_TEST_TESTUTIL_H

#include "FakeCuda.h"
#include "Matchers.h"

#include "fa/Runtime/Bundle.h"
#include "fa/Runtime/Sequence.h"
#include "fa/Runtime/fa_runtime.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>
#include <fstream>
#include <sstream>

namespace fa::runtime::test {

inline std::string readInput(const std::string &name) {
  std::ifstream in(inputsDir() + "/" + name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Inputs/attention_fwd.json: the example of docs/BundleFormat.md.
inline std::string exampleBundleText() {
  return readInput("attention_fwd.json");
}

/// `text` with the single occurrence of `from` replaced by `to`.
inline std::string replaceOnce(std::string text, const std::string &from,
                               const std::string &to) {
  size_t pos = text.find(from);
  bool once = pos != std::string::npos &&
              text.find(from, pos + 1) == std::string::npos;
  EXPECT_TRUE(once) << "replaceOnce: \"" << from
                    << "\" must occur exactly once";
  if (pos != std::string::npos)
    text.replace(pos, from.size(), to);
  return text;
}

/// A bundle from JSON text, with the stub cubin of Inputs/.
inline Expected<std::unique_ptr<Bundle>> bundleFromText(const std::string &text) {
  return Bundle::fromMemory(text, inputsDir(), readInput("stub_kernels.cubin"));
}

/// A single-kernel call from JSON text (what fa_bundle_load makes of a
/// bundle), or null after a test failure.
inline std::unique_ptr<Sequence> singleFromText(const std::string &text) {
  Expected<std::unique_ptr<Bundle>> b = bundleFromText(text);
  EXPECT_OK(b);
  return b.ok() ? Sequence::single(std::move(*b)) : nullptr;
}

/// The status of Sequence::check (132 SMs), without the grid.
inline Status checkStatus(const Sequence &s, const std::vector<TensorArg> &t) {
  Expected<std::array<uint32_t, 3>> grid = s.check(t, 132);
  return grid.ok() ? Status::success() : grid.status();
}

/// Kernel parameter `index` of the fake driver's last launch.
template <typename T> T readParam(const FakeCudaState *fake, int index) {
  T v;
  std::memcpy(&v, fake->params[index], sizeof(T));
  return v;
}

/// `a` as the C API's fa_tensor (its role points into `a`).
inline fa_tensor cTensor(const TensorArg &a) {
  fa_tensor t;
  std::memset(&t, 0, sizeof(t));
  t.role = a.role.c_str();
  t.data = reinterpret_cast<void *>(a.data);
  t.dtype = static_cast<int32_t>(a.dtype);
  t.rank = static_cast<int32_t>(a.sizes.size());
  for (size_t i = 0; i < a.sizes.size(); ++i) {
    t.sizes[i] = a.sizes[i];
    t.strides[i] = a.strides[i];
  }
  return t;
}

/// A fresh directory, removed (with what the test put there) at the end.
class TempDir {
public:
  TempDir() {
    char pattern[] = "/tmp/fa-runtime-test-XXXXXX";
    path_ = ::mkdtemp(pattern) ? pattern : "";
  }
  ~TempDir() {
    if (!path_.empty())
      (void)std::system(("rm -rf '" + path_ + "'").c_str());
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

inline std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;)
    strides[i - 1] = strides[i] * sizes[i];
  return strides;
}

inline TensorArg tensor(const std::string &role, DType dtype,
                        std::vector<int64_t> sizes, uint64_t data) {
  TensorArg t;
  t.role = role;
  t.dtype = dtype;
  t.strides = contiguousStrides(sizes);
  t.sizes = std::move(sizes);
  t.data = data;
  return t;
}

/// Operands for the example bundle (bshd, bf16, d=128): batch 2, seq_q 1000,
/// seq_k 333, heads_q 16, heads_kv 4.
inline std::vector<TensorArg> exampleTensors(int64_t seqQ = 1000,
                                             int64_t seqK = 333) {
  return {
      tensor("query", DType::BF16, {2, seqQ, 16, 128}, 0x10000000),
      tensor("key", DType::BF16, {2, seqK, 4, 128}, 0x20000000),
      tensor("value", DType::BF16, {2, seqK, 4, 128}, 0x30000000),
      tensor("output", DType::BF16, {2, seqQ, 16, 128}, 0x40000000),
      tensor("lse", DType::F32, {2, 16, seqQ}, 0x50000000),
  };
}

/// The backward's operands for the example sizes (bshd, bf16, d=128): batch
/// 2, seq_q 1000, seq_k 333, heads_q 16, heads_kv 4.
inline std::vector<TensorArg> backwardTensors() {
  std::vector<TensorArg> t = exampleTensors();
  t.push_back(
      tensor("grad_output", DType::BF16, {2, 1000, 16, 128}, 0x11000000));
  t.push_back(
      tensor("grad_query", DType::BF16, {2, 1000, 16, 128}, 0x12000000));
  t.push_back(tensor("grad_key", DType::BF16, {2, 333, 4, 128}, 0x13000000));
  t.push_back(tensor("grad_value", DType::BF16, {2, 333, 4, 128}, 0x14000000));
  return t;
}

/// `v` joined by ",".
inline std::string joined(const std::vector<std::string> &v) {
  std::string out;
  for (const auto &s : v)
    out += (out.empty() ? "" : ",") + s;
  return out;
}

/// The fake driver's stream events, e.g. "alloc memset32 launch(k) free".
inline std::string kinds(const FakeCudaState *s) {
  static const char *names[] = {"?", "alloc", "free", "memset8", "memset32",
                                "launch"};
  std::string out;
  for (int i = 0; i < s->numEvents && i < 64; ++i) {
    out += (out.empty() ? "" : " ") + std::string(names[s->events[i].kind]);
    if (s->events[i].kind == kFakeLaunch)
      out += std::string("(") + s->events[i].function + ")";
  }
  return out;
}

/// The values of a plan's i64 parameters, in order.
inline std::vector<int64_t> i64Params(const BundleSpec &spec,
                                      const LaunchPlan &plan) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < spec.params.size(); ++i) {
    if (spec.params[i].kind != ParamKind::I64)
      continue;
    int64_t v;
    std::memcpy(&v, plan.params.bytes() + plan.params.slots[i].offset,
                sizeof(v));
    out.push_back(v);
  }
  return out;
}

inline TensorArg &find(std::vector<TensorArg> &tensors, const std::string &role) {
  for (TensorArg &t : tensors)
    if (t.role == role)
      return t;
  ADD_FAILURE() << "no tensor with role " << role;
  return tensors.front();
}

/// An edit of one operand of a valid launch, and the error it must give.
struct OperandCase {
  const char *role;
  void (*edit)(TensorArg &);
  const char *message;
};

/// Each case, applied to a copy of `valid`, fails Sequence::check with its
/// message (a Tensor error).
inline void expectOperandErrors(const Sequence &s, const std::vector<TensorArg> &valid,
                                const std::vector<OperandCase> &cases) {
  for (const OperandCase &c : cases) {
    std::vector<TensorArg> t = valid;
    c.edit(find(t, c.role));
    EXPECT_ERROR(checkStatus(s, t), ErrorCode::Tensor, c.message);
  }
}

#ifdef FA_FAKE_CUDA_PATH
/// Points the runtime at the fake driver (FA_RUNTIME_LIBCUDA) and resets it
/// to a working sm_90 whose kernels take the example bundle's parameters.
inline FakeCudaState *useFakeDriver() {
  setenv("FA_RUNTIME_LIBCUDA", FA_FAKE_CUDA_PATH, 1);
  static void *handle = dlopen(FA_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
  EXPECT_TRUE(handle != nullptr);
  if (!handle)
    std::abort();
  auto reset = reinterpret_cast<void (*)()>(dlsym(handle, "fake_cuda_reset"));
  auto get = reinterpret_cast<FakeCudaState *(*)()>(dlsym(handle, "fake_cuda_state"));
  reset();
  FakeCudaState *s = get();
  const size_t sizes[] = {128, 128, 8, 8, 4, 4, 4}; // the example's kernel
  for (int i = 0; i < 7; ++i)
    s->kernelParamSizes[i] = sizes[i];
  return s;
}

/// The fake driver, with the stub helper kernel's two 8-byte parameters.
inline FakeCudaState *useFakeSequenceDriver() {
  FakeCudaState *s = useFakeDriver();
  std::strcpy(s->functions[0].name, "helper_kernel");
  s->functions[0].paramSizes[0] = 8;
  s->functions[0].paramSizes[1] = 8;
  return s;
}
#endif

} // namespace fa::runtime::test

#endif // FA_RUNTIME_TEST_TESTUTIL_H
