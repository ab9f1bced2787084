//===- SequenceKeptBuffersTest.cpp - "written_by" workspace buffers -------===//
//
// A workspace entry may name the kernel that computes it ("written_by",
// docs/BundleFormat.md, *Buffers a caller may keep*): a block-sparse
// forward's map, which the caller builds once and passes to every call.
// When the caller passes every buffer a kernel writes, the kernel is not
// launched. Inputs/bwd.json's pre kernel writes lse_log2 (and no other
// workspace buffer), so marking lse_log2 "written_by": 0 gives such a
// sequence over the stub cubin.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "TestUtil.h"

#include "fa/Runtime/Sequence.h"

#include <fstream>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

const char *const kLseLog2Init =
    R"J("shape": ["batch", "heads_q", "ceildiv(seq_q, 64) * 64"], "init": "none"})J";

/// Inputs/bwd.json with lse_log2 written by kernel `writer` (its other
/// text replaced `from` -> `to` first, when given).
Expected<std::unique_ptr<Sequence>>
keptSequence(const std::string &writer = "0", const std::string &from = "",
             const std::string &to = "") {
  std::string text = readInput("bwd.json");
  if (!from.empty())
    text = replaceOnce(text, from, to);
  text = replaceOnce(text, kLseLog2Init,
                     std::string(kLseLog2Init, std::strlen(kLseLog2Init) - 1) +
                         ", \"written_by\": " + writer + "}");
  return Sequence::fromText(text, inputsDir());
}

} // namespace

TEST(SequenceKeptBuffers, kept_buffer_skips_its_kernel) {
  FakeCudaState *fake = useFakeSequenceDriver();
  Expected<std::unique_ptr<Sequence>> s = keptSequence();
  ASSERT_OK(s);
  std::vector<TensorArg> t = backwardTensors();
  // Not passed: the pre kernel computes it, as in any sequence.
  ASSERT_OK((*s)->launch(t, nullptr));
  EXPECT_EQ(
      kinds(fake),
      std::string(
          "alloc alloc alloc memset32 memset32 launch(helper_kernel) "
          "launch(fa_fwd_bf16_d128) launch(helper_kernel) free free free"));
  // Passed: its contents are the caller's, the pre kernel is not launched
  // (and the buffer is not allocated); the others run as before.
  fake = useFakeSequenceDriver();
  t.push_back(tensor("lse_log2", DType::F32, {2, 16, 1024}, 0x68000000));
  ASSERT_OK((*s)->launch(t, nullptr));
  EXPECT_EQ(kinds(fake),
            std::string("alloc alloc memset32 memset32 "
                        "launch(fa_fwd_bf16_d128) launch(helper_kernel) "
                        "free free"));
  // The grid check reports the first kernel that runs: main's, not pre's.
  Expected<std::array<uint32_t, 3>> grid = (*s)->check(t, 132);
  ASSERT_OK(grid);
  Expected<std::array<uint32_t, 3>> all = (*s)->check(backwardTensors(), 132);
  ASSERT_OK(all);
  EXPECT_NE((*grid)[0], (*all)[0]);
}

TEST(SequenceKeptBuffers, kept_buffer_is_still_checked) {
  Expected<std::unique_ptr<Sequence>> s = keptSequence();
  ASSERT_OK(s);
  std::vector<TensorArg> t = backwardTensors();
  t.push_back(tensor("lse_log2", DType::F32, {2, 16, 1000}, 0x68000000));
  EXPECT_ERROR(checkStatus(**s, t), ErrorCode::Tensor,
               "operand 'lse_log2': dimension 2 (seq) is 1000, expected 1024");
}

TEST(SequenceKeptBuffers, all_or_none_of_a_kernels_buffers) {
  // The pre kernel also writes a second buffer: passing one of the two
  // would run it over the caller's contents, or skip it and leave the
  // other unwritten.
  TempDir dir;
  std::string pre = replaceOnce(
      readInput("bwd_pre.json"), "\"scratch\": [",
      R"J("scratch": [{"name": "lse_copy", "dtype": "f32", "dims": ["n"], "shape": ["batch"]},)J");
  pre = replaceOnce(
      pre, R"J({"kind": "ptr", "operand": "lse_log2"},)J",
      R"J({"kind": "ptr", "operand": "lse_log2"}, {"kind": "ptr", "operand": "lse_copy"},)J");
  std::string seq = replaceOnce(
      readInput("bwd.json"), "\"workspace\": [",
      R"J("workspace": [{"name": "lse_copy", "dtype": "f32", "dims": ["n"], "shape": ["batch"], "init": "none", "written_by": 0},)J");
  seq = replaceOnce(seq, kLseLog2Init,
                    std::string(kLseLog2Init, std::strlen(kLseLog2Init) - 1) +
                        ", \"written_by\": 0}");
  std::ofstream(dir.path() + "/bwd.json") << seq;
  std::ofstream(dir.path() + "/bwd_pre.json") << pre;
  for (const char *name : {"bwd_main.json", "bwd_post.json"})
    std::ofstream(dir.path() + "/" + name) << readInput(name);
  std::ofstream(dir.path() + "/stub_kernels.cubin", std::ios::binary)
      << readInput("stub_kernels.cubin");
  Expected<std::unique_ptr<Sequence>> s =
      Sequence::load(dir.path() + "/bwd.json");
  ASSERT_OK(s);
  std::vector<TensorArg> t = backwardTensors();
  EXPECT_OK(checkStatus(**s, t));
  t.push_back(tensor("lse_log2", DType::F32, {2, 16, 1024}, 0x68000000));
  EXPECT_ERROR(
      checkStatus(**s, t), ErrorCode::Tensor,
      "operand 'lse_copy' is missing: kernel 0 ('helper_kernel') writes "
      "[lse_log2, lse_copy]; pass all of them");
  t.push_back(tensor("lse_copy", DType::F32, {2}, 0x69000000));
  EXPECT_OK(checkStatus(**s, t));
}

TEST(SequenceKeptBuffers, written_by_errors) {
  EXPECT_ERROR(
      keptSequence("3"), ErrorCode::InvalidBundle,
      "workspace[1].written_by: kernel 3 is not in \"kernels\" (3 entries)");
  EXPECT_ERROR(keptSequence("-1"), ErrorCode::InvalidBundle,
               "workspace[1].written_by");
  EXPECT_ERROR(keptSequence("\"0\""), ErrorCode::InvalidBundle,
               "workspace[1].written_by");
  // The post kernel does not declare lse_log2.
  EXPECT_ERROR(
      keptSequence("2"), ErrorCode::InvalidBundle,
      "workspace[1].written_by: kernel 2 ('helper_kernel') does not declare "
      "'lse_log2' as scratch");
  // The main kernel also writes dq_accum: skipping it would leave that
  // buffer unwritten.
  EXPECT_ERROR(keptSequence("1"), ErrorCode::InvalidBundle,
               "kernels[1]: scratch 'dq_accum' is not written_by it");
  // A zeroed buffer cannot hold the caller's contents.
  EXPECT_ERROR(
      keptSequence("0", R"J("128"], "init": "zero"})J",
                   R"J("128"], "init": "zero", "written_by": 1})J"),
      ErrorCode::InvalidBundle,
      "workspace[0].written_by: a buffer with \"init\": \"zero\" cannot be "
      "written by a kernel");
}
