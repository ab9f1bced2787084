//===- SequenceCapturesTest.cpp - Captures of a kernel sequence -----------===//
//
// The sm_90a backward with score_mod/mask_mod regions is a sequence whose
// main kernel reads the regions' captures (docs/BundleFormat.md,
// *Captures*): the caller passes them to the sequence once, by role, and
// the runtime hands each to the kernels that list it. capturesSequence()
// writes Inputs/bwd.json's sequence with the main kernel last (the fake
// driver keeps the last launch's parameters) and listing a capture.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "TestUtil.h"

#include "fa/Runtime/Sequence.h"

#include <fstream>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

const char *const kMainParamsEnd =
    R"J({"kind": "f32", "value": "1.4426950408889634 * 0.08838834764831845"})J";
// A [rows, keys] f32 table (a bias table per head, say).
const char *const kTable =
    R"J({"name": "capture0", "dtype": "f32", "dims": ["dim0", "dim1"]})J";

/// `text` (a kernel bundle) reading capture `capture` (a captures entry)
/// through a pointer and its first stride.
std::string withCapture(std::string text, const std::string &capture,
                        const std::string &name = "capture0") {
  text = replaceOnce(text, "\"params\": [",
                     "\"captures\": [" + capture + "],\n  \"params\": [");
  return replaceOnce(text, kMainParamsEnd,
                     std::string(kMainParamsEnd) +
                         R"J(, {"kind": "ptr", "operand": ")J" + name +
                         R"J("}, {"kind": "i64", "value": "stride()J" + name +
                         R"J(, dim0)"})J");
}

/// The sequence of Inputs/bwd.json with its kernels in the order pre, post,
/// main (main as `main`), in `dir`; `pre` replaces the pre kernel's text
/// when given. Returns the sequence's path.
std::string capturesSequence(const TempDir &dir, const std::string &main,
                             const std::string &pre = "") {
  std::string seq =
      replaceOnce(readInput("bwd.json"),
                  R"J(["bwd_pre.json", "bwd_main.json", "bwd_post.json"])J",
                  R"J(["bwd_pre.json", "bwd_post.json", "bwd_main.json"])J");
  std::ofstream(dir.path() + "/bwd.json") << seq;
  std::ofstream(dir.path() + "/bwd_main.json") << main;
  std::ofstream(dir.path() + "/bwd_pre.json")
      << (pre.empty() ? readInput("bwd_pre.json") : pre);
  std::ofstream(dir.path() + "/bwd_post.json") << readInput("bwd_post.json");
  std::ofstream(dir.path() + "/stub_kernels.cubin", std::ios::binary)
      << readInput("stub_kernels.cubin");
  return dir.path() + "/bwd.json";
}

std::string mainWithTable() {
  return withCapture(readInput("bwd_main.json"), kTable);
}

} // namespace

TEST(SequenceCaptures, captures_required_and_checked) {
  TempDir dir;
  Expected<std::unique_ptr<Sequence>> s =
      Sequence::load(capturesSequence(dir, mainWithTable()));
  ASSERT_OK(s);
  // The op's operands, then the capture the main kernel reads.
  EXPECT_EQ(
      joined((*s)->requiredOperands()),
      std::string("query,key,value,output,lse,grad_output,grad_query,grad_key,"
                  "grad_value,capture0"));
  std::vector<TensorArg> t = backwardTensors();
  EXPECT_ERROR(checkStatus(**s, t), ErrorCode::Tensor,
               "missing operand 'capture0'");
  t.push_back(tensor("capture0", DType::F32, {4, 16}, 0x70000000));
  EXPECT_OK(checkStatus(**s, t));
  // Checked at the sequence as a bundle checks it: dtype and rank.
  find(t, "capture0").dtype = DType::I32;
  EXPECT_ERROR(checkStatus(**s, t), ErrorCode::Tensor,
               "operand 'capture0': dtype is i32, expected f32");
}

TEST(SequenceCaptures, capture_reaches_its_kernel) {
  FakeCudaState *fake = useFakeSequenceDriver();
  fake->kernelParamSizes[7] = 8; // the capture's pointer and stride
  fake->kernelParamSizes[8] = 8;
  TempDir dir;
  Expected<std::unique_ptr<Sequence>> s =
      Sequence::load(capturesSequence(dir, mainWithTable()));
  ASSERT_OK(s);
  std::vector<TensorArg> t = backwardTensors();
  TensorArg table = tensor("capture0", DType::F32, {4, 16}, 0x70000000);
  table.strides = {24, 1}; // rows of a wider buffer
  t.push_back(table);
  ASSERT_OK((*s)->launch(t, nullptr));
  EXPECT_EQ(fake->launches, 3);
  EXPECT_EQ(readParam<uint64_t>(fake, 7), uint64_t(0x70000000));
  EXPECT_EQ(readParam<int64_t>(fake, 8), int64_t(24)); // stride(capture0, dim0)
}

TEST(SequenceCaptures, capture_shared_by_kernels_must_agree) {
  TempDir dir;
  // The pre kernel lists capture0 with another dtype: one operand cannot
  // be both.
  std::string pre = replaceOnce(
      readInput("bwd_pre.json"), "\"params\": [",
      R"J("captures": [{"name": "capture0", "dtype": "i32", "dims": ["dim0"]}],
  "params": [{"kind": "ptr", "operand": "capture0"},)J");
  EXPECT_ERROR(Sequence::load(capturesSequence(dir, mainWithTable(), pre)),
               ErrorCode::InvalidBundle,
               "kernels[2]: capture 'capture0' differs from an earlier "
               "kernel's: dtype f32 vs i32");
}

TEST(SequenceCaptures, capture_named_like_workspace) {
  TempDir dir;
  // A main kernel without the semaphore, reading a capture of that name:
  // the sequence allocates a workspace buffer so named for another kernel.
  std::string main = readInput("bwd_main.json");
  main = replaceOnce(
      main,
      R"J({"name": "dq_semaphore", "dtype": "i32", "dims": ["batch", "head", "seq"],
     "shape": ["batch", "heads_q", "ceildiv(seq_q, 64)"]},)J",
      "");
  main =
      replaceOnce(main, R"J({"kind": "ptr", "operand": "dq_semaphore"},)J", "");
  main = withCapture(
      main, R"J({"name": "dq_semaphore", "dtype": "i32", "dims": ["dim0"]})J",
      "dq_semaphore");
  std::string pre = replaceOnce(
      readInput("bwd_pre.json"), "\"scratch\": [",
      R"J("scratch": [{"name": "dq_semaphore", "dtype": "i32", "dims": ["batch", "head", "seq"],
     "shape": ["batch", "heads_q", "ceildiv(seq_q, 64)"]},)J");
  EXPECT_ERROR(
      Sequence::load(capturesSequence(dir, main, pre)),
      ErrorCode::InvalidBundle,
      "capture 'dq_semaphore' is also a workspace buffer of the sequence");
}
