//===- SequenceTest.cpp - fa-kernel-sequence loading and launching --------===//
//
// Inputs/bwd.json ties three bundles of the stub cubin (bwd_pre.json,
// bwd_main.json, bwd_post.json) into one call with three workspace buffers,
// the shape of the sm_90a backward. Validation errors mutate its text; the
// launch tests run it against the fake driver, which records the order of
// allocations, memsets, launches and frees.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "TestUtil.h"

#include "fa/Runtime/Sequence.h"
#include "fa/Runtime/fa_runtime.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

std::string sequenceText() { return readInput("bwd.json"); }

Expected<std::unique_ptr<Sequence>> sequenceWith(const std::string &from = "",
                                                 const std::string &to = "") {
  std::string text = sequenceText();
  if (!from.empty())
    text = replaceOnce(text, from, to);
  return Sequence::fromText(text, inputsDir());
}

// ceildiv(1000, 64) * 64 = 1024 rows per head.
const int64_t kDqAccumBytes = 2 * 16 * 1024 * 128 * 4;
const int64_t kLseLog2Bytes = 2 * 16 * 1024 * 4;
const int64_t kSemaphoreBytes = 2 * 16 * 16 * 4;

std::unique_ptr<Sequence> loaded() {
  Expected<std::unique_ptr<Sequence>> s =
      Sequence::load(inputsDir() + "/bwd.json");
  EXPECT_OK(s);
  return s.ok() ? std::move(*s) : nullptr;
}

template <typename T> T paramAs(const FakeCudaState *s, int i) {
  T v;
  std::memcpy(&v, s->params[i], sizeof(T));
  return v;
}

} // namespace

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

TEST(Sequence, sequence_load) {
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  EXPECT_TRUE(s->isSequence());
  EXPECT_EQ(s->kernels().size(), size_t(3));
  EXPECT_EQ(s->op(), std::string("attention_bwd"));
  EXPECT_EQ(s->chip(), std::string("sm_90a"));
  EXPECT_EQ(s->kernelNames(), std::string("helper_kernel,fa_fwd_bf16_d128,helper_kernel"));
  EXPECT_EQ(s->numParams(), size_t(11));
  // The op's operands, then what the kernels add; no workspace names.
  std::string req;
  for (const auto &r : s->requiredOperands())
    req += (req.empty() ? "" : ",") + r;
  EXPECT_EQ(req, std::string("query,key,value,output,lse,grad_output,grad_query,"
                             "grad_key,grad_value"));
  EXPECT_TRUE(s->workspaceJson().find("\"dq_semaphore\"") != std::string::npos);
  EXPECT_TRUE(s->json().find("\"fa-kernel-sequence\"") != std::string::npos);
  EXPECT_TRUE(s->configJson().find("\"deterministic\":false") != std::string::npos);
}

TEST(Sequence, sequence_load_plain_bundle) {
  Expected<std::unique_ptr<Sequence>> s =
      Sequence::load(inputsDir() + "/attention_fwd.json");
  ASSERT_OK(s);
  EXPECT_FALSE((*s)->isSequence());
  EXPECT_EQ((*s)->kernelNames(), std::string("fa_fwd_bf16_d128"));
  EXPECT_EQ((*s)->workspaceJson(), std::string("[]"));
  EXPECT_EQ((*s)->op(), std::string("attention_fwd"));
  Expected<int64_t> bytes = (*s)->workspaceBytes(exampleTensors(), -1);
  ASSERT_OK(bytes);
  EXPECT_EQ(*bytes, int64_t(0));
  // Bundle errors are the bundle's own.
  EXPECT_ERROR(Sequence::load(inputsDir() + "/bad_syntax.json"), ErrorCode::Parse,
               "bundle '");
}

TEST(Sequence, sequence_error_format) {
  EXPECT_ERROR(sequenceWith(R"("fa-kernel-sequence")", R"("fa-kernel-bundles")"),
               ErrorCode::InvalidBundle, "format: \"fa-kernel-bundles\" is not");
}

TEST(Sequence, sequence_error_version) {
  EXPECT_ERROR(sequenceWith(R"("version": 1)", R"("version": 2)"),
               ErrorCode::InvalidBundle, "version: unsupported sequence version 2");
}

TEST(Sequence, sequence_error_no_kernels) {
  EXPECT_ERROR(sequenceWith(R"(["bwd_pre.json", "bwd_main.json", "bwd_post.json"])", "[]"),
               ErrorCode::InvalidBundle, "kernels: expected an array of 1 to 8");
}

TEST(Sequence, sequence_error_too_many_kernels) {
  std::string nine = "[";
  for (int i = 0; i < 9; ++i)
    nine += std::string(i ? ", " : "") + "\"bwd_pre.json\"";
  EXPECT_ERROR(sequenceWith(R"(["bwd_pre.json", "bwd_main.json", "bwd_post.json"])",
                            nine + "]"),
               ErrorCode::InvalidBundle, "kernels: expected an array of 1 to 8");
}

TEST(Sequence, sequence_error_kernel_not_a_string) {
  EXPECT_ERROR(sequenceWith(R"("bwd_main.json")", "7"), ErrorCode::InvalidBundle,
               "kernels[1]: expected a path string, got number");
}

TEST(Sequence, sequence_error_kernel_missing) {
  EXPECT_ERROR(sequenceWith(R"("bwd_main.json")", R"("nope.json")"), ErrorCode::Io,
               "kernels[1]: cannot read '");
}

TEST(Sequence, sequence_error_kernel_invalid) {
  EXPECT_ERROR(sequenceWith(R"("bwd_main.json")", R"("bad_syntax.json")"),
               ErrorCode::Parse, "kernels[1]: bundle '");
}

TEST(Sequence, sequence_error_nested) {
  EXPECT_ERROR(sequenceWith(R"("bwd_main.json")", R"("bwd.json")"),
               ErrorCode::InvalidBundle, "kernels[1]: '");
  EXPECT_ERROR(sequenceWith(R"("bwd_main.json")", R"("bwd.json")"),
               ErrorCode::InvalidBundle, "sequences do not nest");
}

TEST(Sequence, sequence_error_chip) {
  EXPECT_ERROR(sequenceWith(R"("chip": "sm_90a")", R"("chip": "sm_90")"),
               ErrorCode::InvalidBundle,
               "kernels[0].chip: \"sm_90a\" differs from the sequence's \"sm_90\"");
}

TEST(Sequence, sequence_error_config) {
  EXPECT_ERROR(sequenceWith(R"("layout": "bshd")", R"("layout": "bhsd")"),
               ErrorCode::InvalidBundle,
               "kernels[0].config.layout: bshd differs from the sequence's bhsd");
}

TEST(Sequence, sequence_error_workspace_differs) {
  EXPECT_ERROR(sequenceWith(R"x("ceildiv(seq_q, 64) * 64", "128"])x",
                            R"x("ceildiv(seq_q, 128) * 128", "128"])x"),
               ErrorCode::InvalidBundle,
               "kernels[1]: scratch 'dq_accum' differs from workspace[0]: shape[2] "
               "\"ceildiv(seq_q, 64) * 64\" vs \"ceildiv(seq_q, 128) * 128\"");
  EXPECT_ERROR(sequenceWith(R"("dtype": "i32")", R"("dtype": "u8")"),
               ErrorCode::InvalidBundle,
               "kernels[1]: scratch 'dq_semaphore' differs from workspace[2]: dtype i32 "
               "vs u8");
}

TEST(Sequence, sequence_error_scratch_not_in_workspace) {
  EXPECT_ERROR(sequenceWith(R"("name": "dq_semaphore")", R"("name": "dq_sem")"),
               ErrorCode::InvalidBundle,
               "kernels[1]: scratch 'dq_semaphore' is not in the sequence's workspace");
}

TEST(Sequence, sequence_error_workspace_unused) {
  EXPECT_ERROR(
      sequenceWith(R"("init": "none"},)",
                   R"("init": "none"},
    {"name": "extra", "dtype": "f32", "dims": ["n"], "shape": ["batch"], "init": "none"},)"),
      ErrorCode::InvalidBundle, "workspace[2]: 'extra' is used by no kernel");
}

TEST(Sequence, sequence_error_init) {
  EXPECT_ERROR(sequenceWith(R"("init": "none")", R"("init": "ones")"),
               ErrorCode::InvalidBundle,
               "workspace[1].init: unknown init \"ones\" (known: zero, none)");
  EXPECT_ERROR(sequenceWith(R"(, "init": "none")", ""), ErrorCode::InvalidBundle,
               "workspace[1]: missing field \"init\"");
}

TEST(Sequence, sequence_error_workspace_unknown_key) {
  EXPECT_ERROR(sequenceWith(R"("init": "none")", R"("init": "none", "align": 16)"),
               ErrorCode::InvalidBundle, "workspace[1].align: unknown field");
}

TEST(Sequence, sequence_error_workspace_name) {
  EXPECT_ERROR(sequenceWith(R"("name": "lse_log2")", R"("name": "lse")"),
               ErrorCode::InvalidBundle,
               "workspace[1].name: \"lse\" is a standard operand role");
  EXPECT_ERROR(sequenceWith(R"("name": "lse_log2")", R"("name": "dq_accum")"),
               ErrorCode::InvalidBundle,
               "workspace[1].name: duplicate workspace name \"dq_accum\"");
}

TEST(Sequence, sequence_error_workspace_shape) {
  EXPECT_ERROR(sequenceWith(R"x("ceildiv(seq_q, 64)"], "init")x", R"x("seqq"], "init")x"),
               ErrorCode::InvalidBundle, "workspace[2].shape[2]: ");
}

//===----------------------------------------------------------------------===//
// Checks without a GPU
//===----------------------------------------------------------------------===//

TEST(Sequence, sequence_check) {
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  std::vector<TensorArg> t = backwardTensors();
  Expected<std::array<uint32_t, 3>> grid = s->check(t, 132);
  ASSERT_OK(grid);
  // The first kernel's grid: ceildiv(1000, 128), heads_q, batch.
  EXPECT_EQ((*grid)[0], 8u);
  EXPECT_EQ((*grid)[1], 16u);
  EXPECT_EQ((*grid)[2], 2u);
  Expected<int64_t> bytes = s->workspaceBytes(t, -1);
  ASSERT_OK(bytes);
  EXPECT_EQ(*bytes, kDqAccumBytes + kLseLog2Bytes + kSemaphoreBytes);
  // The sequence requires the union of its kernels' operands.
  t.erase(t.begin() + 7); // grad_key
  EXPECT_ERROR(s->check(t, 132), ErrorCode::Tensor, "missing operand 'grad_key'");
  std::vector<TensorArg> u = backwardTensors();
  u.push_back(tensor("unknown", DType::F32, {1}, 0x1000));
  EXPECT_ERROR(s->check(u, 132), ErrorCode::Tensor, "unknown operand role 'unknown'");
  // A kernel's own check names the kernel.
  std::vector<TensorArg> v = backwardTensors();
  find(v, "query").data += 8; // not 16-byte aligned for the main kernel's TMA
  EXPECT_ERROR(s->check(v, 132), ErrorCode::Tensor,
               "kernel 1 ('fa_fwd_bf16_d128'): operand 'query': address");
}

// score_mod/mask_mod captures read by kernels of a sequence (a block-sparse
// forward's _block_map pre-kernel and the forward): operands of the call,
// required, and declared alike by every kernel that reads them.
namespace {

void writeText(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// bwd.json and its kernels in a fresh folder, capture0 read by the pre and
/// post kernels as `preDtype` and `postDtype`.
std::string sequenceWithCaptures(const std::string &name,
                                 const std::string &preDtype,
                                 const std::string &postDtype) {
  std::string dir =
      ::testing::TempDir() + "/" + name + "_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  auto capture = [](const std::string &dtype) {
    return R"("captures": [{"name": "capture0", "dtype": ")" + dtype +
           R"(", "dims": ["dim0"]}], "params": [)";
  };
  writeText(dir + "/stub_kernels.cubin", readInput("stub_kernels.cubin"));
  writeText(dir + "/bwd.json", readInput("bwd.json"));
  writeText(dir + "/bwd_main.json", readInput("bwd_main.json"));
  writeText(dir + "/bwd_pre.json",
            replaceOnce(readInput("bwd_pre.json"), R"("params": [)",
                        capture(preDtype)));
  writeText(dir + "/bwd_post.json",
            replaceOnce(readInput("bwd_post.json"), R"("params": [)",
                        capture(postDtype)));
  return dir + "/bwd.json";
}

} // namespace

TEST(Sequence, sequence_captures) {
  Expected<std::unique_ptr<Sequence>> s =
      Sequence::load(sequenceWithCaptures("seq_captures", "i32", "i32"));
  ASSERT_OK(s);
  const std::vector<std::string> &required = (*s)->requiredOperands();
  EXPECT_NE(std::find(required.begin(), required.end(), "capture0"),
            required.end());
  std::vector<TensorArg> t = backwardTensors();
  EXPECT_ERROR((*s)->check(t, 132), ErrorCode::Tensor,
               "missing operand 'capture0'");
  t.push_back(tensor("capture0", DType::I32, {2}, 0x80000000));
  EXPECT_OK((*s)->check(t, 132));
  find(t, "capture0").dtype = DType::F32;
  EXPECT_ERROR((*s)->check(t, 132), ErrorCode::Tensor,
               "operand 'capture0': dtype is f32, expected i32");
}

TEST(Sequence, sequence_error_captures_differ) {
  EXPECT_ERROR(
      Sequence::load(sequenceWithCaptures("seq_captures_differ", "i32", "f32")),
      ErrorCode::InvalidBundle,
      "kernels[2]: capture 'capture0' differs from an earlier kernel's: dtype "
      "f32 vs i32");
}

TEST(Sequence, sequence_check_passed_workspace) {
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  std::vector<TensorArg> t = backwardTensors();
  t.push_back(tensor("dq_accum", DType::F32, {2, 16, 1024, 128}, 0x60000000));
  EXPECT_OK(s->check(t, 132));
  find(t, "dq_accum").sizes[2] = 1000;
  EXPECT_ERROR(s->check(t, 132), ErrorCode::Tensor,
               "operand 'dq_accum': dimension 2 (seq) is 1000, expected 1024 "
               "(ceildiv(seq_q, 64) * 64)");
  find(t, "dq_accum").sizes[2] = 1024;
  find(t, "dq_accum").dtype = DType::F16;
  EXPECT_ERROR(s->check(t, 132), ErrorCode::Tensor,
               "operand 'dq_accum': dtype is f16, expected f32");
  // A zero-initialised buffer is cleared with one memset: it must be dense.
  find(t, "dq_accum").dtype = DType::F32;
  find(t, "dq_accum").strides = {16 * 1024 * 256, 1024 * 256, 256, 1};
  EXPECT_ERROR(s->check(t, 132), ErrorCode::Tensor,
               "operand 'dq_accum': a workspace buffer with \"init\": \"zero\" must be "
               "dense");
}

//===----------------------------------------------------------------------===//
// Launching (fake driver)
//===----------------------------------------------------------------------===//

TEST(Sequence, sequence_launch_allocates) {
  FakeCudaState *fake = useFakeSequenceDriver();
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  void *stream = reinterpret_cast<void *>(0x5000);
  EXPECT_OK(s->launch(backwardTensors(), stream));
  EXPECT_EQ(kinds(fake),
            std::string("alloc alloc alloc memset32 memset32 launch(helper_kernel) "
                        "launch(fa_fwd_bf16_d128) launch(helper_kernel) free free free"));
  ASSERT_EQ(fake->numEvents, 11);
  const FakeEvent *e = fake->events;
  EXPECT_EQ(e[0].count, uint64_t(kDqAccumBytes));
  EXPECT_EQ(e[1].count, uint64_t(kLseLog2Bytes));
  EXPECT_EQ(e[2].count, uint64_t(kSemaphoreBytes));
  // dq_accum and dq_semaphore ("init": "zero") are cleared, lse_log2 is not.
  EXPECT_EQ(e[3].ptr, e[0].ptr);
  EXPECT_EQ(e[3].count, uint64_t(kDqAccumBytes / 4));
  EXPECT_EQ(e[4].ptr, e[2].ptr);
  EXPECT_EQ(e[4].count, uint64_t(kSemaphoreBytes / 4));
  for (int i = 0; i < 11; ++i)
    EXPECT_TRUE(e[i].stream == stream) << "event " << i;
  // Everything allocated is freed, after the last launch.
  EXPECT_EQ(e[8].ptr, e[0].ptr);
  EXPECT_EQ(e[9].ptr, e[1].ptr);
  EXPECT_EQ(e[10].ptr, e[2].ptr);
  EXPECT_EQ(fake->moduleLoads, 3);
  // The last kernel (post) received dq_accum and stride(grad_query, seq).
  EXPECT_EQ(paramAs<uint64_t>(fake, 0), e[0].ptr);
  EXPECT_EQ(paramAs<int64_t>(fake, 1), int64_t(16 * 128));
  EXPECT_EQ(fake->grid[0], 16u); // ceildiv(1000, 64)
  EXPECT_EQ(fake->block[0], 256u);
}

TEST(Sequence, sequence_launch_passed_workspace) {
  FakeCudaState *fake = useFakeSequenceDriver();
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  std::vector<TensorArg> t = backwardTensors();
  t.push_back(tensor("dq_accum", DType::F32, {2, 16, 1024, 128}, 0x60000000));
  t.push_back(tensor("lse_log2", DType::F32, {2, 16, 1024}, 0x68000000));
  EXPECT_OK(s->launch(t, nullptr));
  EXPECT_EQ(kinds(fake),
            std::string("alloc memset32 memset32 launch(helper_kernel) "
                        "launch(fa_fwd_bf16_d128) launch(helper_kernel) free"));
  ASSERT_EQ(fake->numEvents, 7);
  EXPECT_EQ(fake->events[0].count, uint64_t(kSemaphoreBytes));
  EXPECT_EQ(fake->events[1].ptr, uint64_t(0x60000000)); // the caller's dq_accum
  EXPECT_EQ(fake->events[2].ptr, fake->events[0].ptr);
  EXPECT_EQ(fake->events[6].ptr, fake->events[0].ptr);  // only ours is freed
  EXPECT_EQ(paramAs<uint64_t>(fake, 0), uint64_t(0x60000000));
  // All passed: nothing is allocated, the zero-init ones are still cleared.
  fake = useFakeSequenceDriver();
  t.push_back(tensor("dq_semaphore", DType::I32, {2, 16, 16}, 0x69000000));
  EXPECT_OK(s->launch(t, nullptr));
  EXPECT_EQ(fake->allocs, 0);
  EXPECT_EQ(fake->frees, 0);
  EXPECT_EQ(fake->memsets, 2);
  EXPECT_EQ(fake->launches, 3);
}

TEST(Sequence, sequence_launch_kernel_failure_frees) {
  FakeCudaState *fake = useFakeSequenceDriver();
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  fake->launchFailAt = 2;
  EXPECT_ERROR(s->launch(backwardTensors(), nullptr), ErrorCode::Driver,
               "kernel 1: kernel 'fa_fwd_bf16_d128': cuLaunchKernelEx failed: "
               "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
  EXPECT_EQ(fake->launches, 1);
  EXPECT_EQ(fake->allocs, 3);
  EXPECT_EQ(fake->frees, 3);
  EXPECT_EQ(kinds(fake), std::string("alloc alloc alloc memset32 memset32 "
                                     "launch(helper_kernel) free free free"));
}

TEST(Sequence, sequence_launch_alloc_failure_frees) {
  FakeCudaState *fake = useFakeSequenceDriver();
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  fake->allocFailAt = 2;
  EXPECT_ERROR(s->launch(backwardTensors(), nullptr), ErrorCode::Driver,
               "workspace 'lse_log2' (131072 bytes): cuMemAllocAsync failed: "
               "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(kinds(fake), std::string("alloc free"));
  EXPECT_EQ(fake->launches, 0);
}

TEST(Sequence, sequence_launch_operand_error_queues_nothing) {
  FakeCudaState *fake = useFakeSequenceDriver();
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  std::vector<TensorArg> t = backwardTensors();
  find(t, "query").data += 8; // only the main kernel's TMA rejects it
  EXPECT_ERROR(s->launch(t, nullptr), ErrorCode::Tensor,
               "kernel 1 ('fa_fwd_bf16_d128'): operand 'query'");
  EXPECT_EQ(kinds(fake), std::string("alloc alloc alloc free free free"));
  // Operand errors the sequence sees itself allocate nothing.
  fake = useFakeSequenceDriver();
  find(t, "query").data -= 8;
  find(t, "grad_key").dtype = DType::F16;
  EXPECT_ERROR(s->launch(t, nullptr), ErrorCode::Tensor,
               "operand 'grad_key': dtype is f16, expected bf16");
  EXPECT_EQ(fake->numEvents, 0);
}

TEST(Sequence, sequence_launch_empty_kernel_is_skipped) {
  FakeCudaState *fake = useFakeSequenceDriver();
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  std::vector<TensorArg> t = backwardTensors();
  // seq_k = 0: the main kernel's grid is empty; pre and post still run.
  find(t, "key").sizes[1] = 0;
  find(t, "value").sizes[1] = 0;
  find(t, "grad_key").sizes[1] = 0;
  find(t, "grad_value").sizes[1] = 0;
  EXPECT_OK(s->launch(t, nullptr));
  EXPECT_EQ(kinds(fake), std::string("alloc alloc alloc memset32 memset32 "
                                     "launch(helper_kernel) launch(helper_kernel) "
                                     "free free free"));
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

namespace {


} // namespace

TEST(Sequence, sequence_capi) {
  std::string path = inputsDir() + "/bwd.json";
  fa_bundle *b = nullptr;
  ASSERT_EQ(fa_bundle_load(path.c_str(), &b), int(FA_OK));
  EXPECT_EQ(fa_bundle_num_kernels(b), 3);
  EXPECT_EQ(fa_bundle_num_params(b), 11);
  EXPECT_EQ(std::string(fa_bundle_kernel_name(b)),
            std::string("helper_kernel,fa_fwd_bf16_d128,helper_kernel"));
  EXPECT_EQ(std::string(fa_bundle_op(b)), std::string("attention_bwd"));
  EXPECT_TRUE(std::string(fa_bundle_workspace(b)).find("\"init\":\"zero\"") !=
              std::string::npos);
  EXPECT_EQ(std::string(fa_bundle_required_operands(b)),
            std::string("query,key,value,output,lse,grad_output,grad_query,grad_key,"
                        "grad_value"));
  std::vector<TensorArg> args = backwardTensors();
  std::vector<fa_tensor> t;
  for (const TensorArg &a : args)
    t.push_back(cTensor(a));
  uint32_t grid[3] = {0, 0, 0};
  EXPECT_EQ(fa_bundle_check(b, t.data(), int(t.size()), 132, grid), int(FA_OK));
  EXPECT_EQ(grid[0], 8u);
  int64_t bytes = -1;
  EXPECT_EQ(fa_bundle_workspace_bytes(b, t.data(), int(t.size()), &bytes), int(FA_OK));
  EXPECT_EQ(bytes, kDqAccumBytes + kLseLog2Bytes + kSemaphoreBytes);
  EXPECT_EQ(fa_bundle_workspace_bytes(b, t.data(), int(t.size()), nullptr),
            int(FA_ERROR_INVALID_ARGUMENT));
  fa_bundle_free(b);

  std::string plain = inputsDir() + "/attention_fwd.json";
  ASSERT_EQ(fa_bundle_load(plain.c_str(), &b), int(FA_OK));
  EXPECT_EQ(fa_bundle_num_kernels(b), 1);
  EXPECT_EQ(std::string(fa_bundle_workspace(b)), std::string("[]"));
  EXPECT_EQ(fa_bundle_workspace_bytes(b, nullptr, 0, &bytes), int(FA_OK));
  EXPECT_EQ(bytes, int64_t(0));
  EXPECT_EQ(fa_bundle_num_kernels(nullptr), -1);
  fa_bundle_free(b);

  std::string bad = inputsDir() + "/nope_seq.json";
  EXPECT_EQ(fa_bundle_load(bad.c_str(), &b), int(FA_ERROR_IO));
}
