//===- Fp8DescaleTest.cpp - The FP8 forward's descale operands ------------===//
//
// Inputs/fp8_block_fwd.json is the sm_90a FP8 forward sequence (V
// transposed, then the attention) with config.descale_block [64, 128]: the
// descales are per block, query_descale [batch, heads_q, ceildiv(seq_q, 64)],
// key_descale and value_descale [batch, heads_kv, ceildiv(seq_k, 128)].
// Inputs/fp8_fwd.json is the same without it: [batch, heads_kv] descales.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "fa/Runtime/ParamPack.h"
#include "fa/Runtime/Sequence.h"

#include <cstring>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

// bhsd, d=128: batch 3, heads_q 8, heads_kv 2, seq_q 300, seq_k 170, so 5
// query blocks of 64 rows and 2 key blocks of 128.
const int64_t kSeqQ = 300, kSeqK = 170;

std::vector<TensorArg> fp8Tensors(std::vector<int64_t> qDescale,
                                  std::vector<int64_t> kvDescale) {
  return {
      tensor("query", DType::F8E4M3FN, {3, 8, kSeqQ, 128}, 0x10000000),
      tensor("key", DType::F8E4M3FN, {3, 2, kSeqK, 128}, 0x20000000),
      tensor("value", DType::F8E4M3FN, {3, 2, kSeqK, 128}, 0x30000000),
      tensor("output", DType::BF16, {3, 8, kSeqQ, 128}, 0x40000000),
      tensor("lse", DType::F32, {3, 8, kSeqQ}, 0x50000000),
      tensor("query_descale", DType::F32, qDescale, 0x60000000),
      tensor("key_descale", DType::F32, kvDescale, 0x70000000),
      tensor("value_descale", DType::F32, kvDescale, 0x80000000),
  };
}

std::vector<TensorArg> perBlockTensors() {
  return fp8Tensors({3, 8, 5}, {3, 2, 2});
}

std::string blockSequenceText() { return readInput("fp8_block_fwd.json"); }
std::string blockMainText() { return readInput("fp8_block_fwd_main.json"); }

Expected<std::unique_ptr<Sequence>> blockSequence() {
  return Sequence::fromText(blockSequenceText(), inputsDir());
}

/// The attention kernel alone, with a value_t of the workspace's shape.
Expected<std::unique_ptr<Bundle>> blockMain(const std::string &from = "",
                                            const std::string &to = "") {
  std::string text = blockMainText();
  if (!from.empty())
    text = replaceOnce(text, from, to);
  return bundleFromText(text);
}

std::vector<TensorArg> withValueT(std::vector<TensorArg> t) {
  t.push_back(tensor("value_t", DType::F8E4M3FN, {3, 2, 128, 256}, 0x90000000));
  return t;
}

Status configError(const std::string &descaleBlock) {
  Expected<std::unique_ptr<Bundle>> b =
      blockMain("\"descale_block\": [64, 128]",
                "\"descale_block\": " + descaleBlock);
  return b.status();
}

TensorMapEncoder noEncode() {
  return [](const TensorMapRequest &, void *) { return Status::success(); };
}

} // namespace

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

TEST(Fp8Descale, per_block_config_is_read) {
  Expected<std::unique_ptr<Bundle>> b = blockMain();
  ASSERT_OK(b);
  const BundleConfig &c = (*b)->spec().config;
  ASSERT_TRUE(c.descaleBlock.has_value());
  EXPECT_EQ((*c.descaleBlock)[0], 64);
  EXPECT_EQ((*c.descaleBlock)[1], 128);
  std::vector<std::string> dims = operandDims((*b)->spec(), "key_descale");
  EXPECT_EQ(dims, (std::vector<std::string>{"batch", "head", "block"}));
}

TEST(Fp8Descale, per_head_config_has_no_blocks) {
  Expected<std::unique_ptr<Bundle>> b =
      bundleFromText(readInput("fp8_fwd_main.json"));
  ASSERT_OK(b);
  EXPECT_FALSE((*b)->spec().config.descaleBlock.has_value());
  std::vector<std::string> dims = operandDims((*b)->spec(), "query_descale");
  EXPECT_EQ(dims, (std::vector<std::string>{"batch", "head"}));
}

TEST(Fp8Descale, error_descale_block_not_a_pair) {
  EXPECT_ERROR(configError("[64]"), ErrorCode::InvalidBundle,
               "config.descale_block: expected [block_q, block_k], two "
               "integers in [1, 1048576]");
  EXPECT_ERROR(configError("[64, 128, 1]"), ErrorCode::InvalidBundle,
               "config.descale_block: expected [block_q, block_k]");
  EXPECT_ERROR(configError("128"), ErrorCode::InvalidBundle,
               "config.descale_block: expected [block_q, block_k]");
}

TEST(Fp8Descale, error_descale_block_not_integers) {
  EXPECT_ERROR(configError("[64, 128.5]"), ErrorCode::InvalidBundle,
               "config.descale_block[1]: expected block_k, an integer in "
               "[1, 1048576], got");
  EXPECT_ERROR(configError("[\"64\", 128]"), ErrorCode::InvalidBundle,
               "config.descale_block[0]: expected block_q, an integer");
  EXPECT_ERROR(configError("[null, 128]"), ErrorCode::InvalidBundle,
               "config.descale_block[0]: expected block_q");
}

TEST(Fp8Descale, error_descale_block_out_of_range) {
  EXPECT_ERROR(configError("[0, 128]"), ErrorCode::InvalidBundle,
               "config.descale_block[0]: expected block_q, an integer in "
               "[1, 1048576], got 0");
  EXPECT_ERROR(configError("[64, -128]"), ErrorCode::InvalidBundle,
               "config.descale_block[1]: expected block_k, an integer in "
               "[1, 1048576], got -128");
  EXPECT_ERROR(configError("[64, 2097152]"), ErrorCode::InvalidBundle,
               "config.descale_block[1]: expected block_k, an integer in "
               "[1, 1048576], got 2097152");
  EXPECT_OK(configError("[1048576, 1]"));
}

TEST(Fp8Descale, error_descale_block_without_fp8) {
  // The same kernel read as bf16: a tensor map's dtype would be refused
  // too, but the config is read first.
  std::string text =
      replaceOnce(blockMainText(), "\"dtype\": \"f8e4m3fn\", \"out_dtype\"",
                  "\"dtype\": \"bf16\", \"out_dtype\"");
  EXPECT_ERROR(bundleFromText(text), ErrorCode::InvalidBundle,
               "config.descale_block: per-block descales are for FP8 "
               "inputs, but config.dtype is bf16");
}

TEST(Fp8Descale, error_block_stride_of_a_per_head_bundle) {
  // Without descale_block the descales have no block dim to take a stride of.
  std::string text = replaceOnce(
      readInput("fp8_fwd_main.json"),
      "{\"kind\": \"i64\", \"value\": \"stride(key_descale, batch)\"},",
      "{\"kind\": \"i64\", \"value\": \"stride(key_descale, block)\"},");
  EXPECT_ERROR(bundleFromText(text), ErrorCode::InvalidBundle,
               "stride(key_descale, block)");
}

TEST(Fp8Descale, error_sequence_and_kernel_disagree) {
  // Each kernel checks the descales with its own config: all must agree.
  std::string text = replaceOnce(blockSequenceText(), "[64, 128]", "[128, 128]");
  EXPECT_ERROR(Sequence::fromText(text, inputsDir()), ErrorCode::InvalidBundle,
               "kernels[0].config.descale_block: [64, 128] differs from the "
               "sequence's [128, 128]");
  text = replaceOnce(blockSequenceText(),
                     ",\n             \"descale_block\": [64, 128]", "");
  EXPECT_ERROR(Sequence::fromText(text, inputsDir()), ErrorCode::InvalidBundle,
               "kernels[0].config.descale_block: [64, 128] differs from the "
               "sequence's absent");
}

//===----------------------------------------------------------------------===//
// Operand checks
//===----------------------------------------------------------------------===//

TEST(Fp8Descale, per_block_operands_are_accepted) {
  Expected<std::unique_ptr<Sequence>> s = blockSequence();
  ASSERT_OK(s);
  Expected<std::array<uint32_t, 3>> grid = (*s)->check(perBlockTensors(), 132);
  ASSERT_OK(grid);
  // The first kernel's grid (transpose_v): ceildiv(170, 128), Hkv, B.
  EXPECT_EQ(*grid, (std::array<uint32_t, 3>{2, 2, 3}));
}

TEST(Fp8Descale, per_block_descales_broadcast_along_batch) {
  // Stride 0 along batch (one set of blocks for every batch row) is fine;
  // the block dim must be dense, as every innermost dim.
  Expected<std::unique_ptr<Sequence>> s = blockSequence();
  ASSERT_OK(s);
  std::vector<TensorArg> t = perBlockTensors();
  find(t, "key_descale").strides = {0, 2, 1};
  EXPECT_OK((*s)->check(t, 132));
  find(t, "key_descale").strides = {0, 1, 0};
  EXPECT_ERROR((*s)->check(t, 132), ErrorCode::Tensor,
               "operand 'key_descale': the innermost dimension (block) must "
               "have stride 1, got 0");
}

TEST(Fp8Descale, per_block_strides_are_passed) {
  // stride(op, block) resolves: the kernel gets three strides per descale.
  Expected<std::unique_ptr<Bundle>> b = blockMain();
  ASSERT_OK(b);
  std::vector<TensorArg> t = withValueT(perBlockTensors());
  find(t, "value_descale").strides = {0, 7, 1}; // heads padded to 7 floats
  Expected<LaunchPlan> plan = (*b)->plan(t, 132, noEncode());
  ASSERT_OK(plan);
  EXPECT_EQ(i64Params((*b)->spec(), *plan),
            (std::vector<int64_t>{40, 5, 1, 4, 2, 1, 0, 7, 1}));
}

TEST(Fp8Descale, error_query_block_count) {
  Expected<std::unique_ptr<Sequence>> s = blockSequence();
  ASSERT_OK(s);
  EXPECT_ERROR((*s)->check(fp8Tensors({3, 8, 4}, {3, 2, 2}), 132),
               ErrorCode::Tensor,
               "operand 'query_descale': dimension 2 (block) is 4, expected 5 "
               "(ceildiv(seq_q, 64))");
  // One block per 128 keys would be the key's count, not the query's.
  EXPECT_ERROR((*s)->check(fp8Tensors({3, 8, 3}, {3, 2, 2}), 132),
               ErrorCode::Tensor,
               "operand 'query_descale': dimension 2 (block) is 3, expected 5");
}

TEST(Fp8Descale, error_key_block_count) {
  Expected<std::unique_ptr<Sequence>> s = blockSequence();
  ASSERT_OK(s);
  std::vector<TensorArg> t = perBlockTensors();
  find(t, "key_descale").sizes = {3, 2, 3};
  find(t, "key_descale").strides = contiguousStrides({3, 2, 3});
  EXPECT_ERROR((*s)->check(t, 132), ErrorCode::Tensor,
               "operand 'key_descale': dimension 2 (block) is 3, expected 2 "
               "(ceildiv(seq_k, 128))");
}

TEST(Fp8Descale, error_value_block_count) {
  Expected<std::unique_ptr<Sequence>> s = blockSequence();
  ASSERT_OK(s);
  std::vector<TensorArg> t = perBlockTensors();
  find(t, "value_descale").sizes = {3, 2, 1};
  find(t, "value_descale").strides = contiguousStrides({3, 2, 1});
  EXPECT_ERROR((*s)->check(t, 132), ErrorCode::Tensor,
               "operand 'value_descale': dimension 2 (block) is 1, expected 2 "
               "(ceildiv(seq_k, 128))");
}

TEST(Fp8Descale, error_block_count_checked_by_each_kernel) {
  // The attention kernel alone rejects it as well (a plain bundle's check).
  Expected<std::unique_ptr<Bundle>> b = blockMain();
  ASSERT_OK(b);
  EXPECT_ERROR((*b)->plan(withValueT(fp8Tensors({3, 8, 6}, {3, 2, 2})), 132,
                          noEncode()),
               ErrorCode::Tensor,
               "operand 'query_descale': dimension 2 (block) is 6, expected 5 "
               "(ceildiv(seq_q, 64))");
}

TEST(Fp8Descale, error_query_descale_per_kv_head) {
  // Per block, every query head has its own descales.
  Expected<std::unique_ptr<Sequence>> s = blockSequence();
  ASSERT_OK(s);
  EXPECT_ERROR((*s)->check(fp8Tensors({3, 2, 5}, {3, 2, 2}), 132),
               ErrorCode::Tensor,
               "operand 'query_descale': dimension 1 (head) is 2, expected 8 "
               "(heads_q, from 'query')");
}

TEST(Fp8Descale, error_key_descale_per_query_head) {
  Expected<std::unique_ptr<Sequence>> s = blockSequence();
  ASSERT_OK(s);
  std::vector<TensorArg> t = perBlockTensors();
  find(t, "key_descale").sizes = {3, 8, 2};
  find(t, "key_descale").strides = contiguousStrides({3, 8, 2});
  EXPECT_ERROR((*s)->check(t, 132), ErrorCode::Tensor,
               "operand 'key_descale': dimension 1 (head) is 8, expected 2 "
               "(heads_kv, from 'key')");
}

TEST(Fp8Descale, error_descale_batch) {
  Expected<std::unique_ptr<Sequence>> s = blockSequence();
  ASSERT_OK(s);
  EXPECT_ERROR((*s)->check(fp8Tensors({3, 8, 5}, {2, 2, 2}), 132),
               ErrorCode::Tensor,
               "operand 'key_descale': dimension 0 (batch) is 2, expected 3 "
               "(batch, from 'query')");
}

TEST(Fp8Descale, error_per_head_descale_given_to_a_per_block_bundle) {
  Expected<std::unique_ptr<Sequence>> s = blockSequence();
  ASSERT_OK(s);
  EXPECT_ERROR((*s)->check(fp8Tensors({3, 8, 5}, {3, 2}), 132),
               ErrorCode::Tensor,
               "operand 'key_descale': expected rank 3 [batch, head, block], "
               "got rank 2");
}

TEST(Fp8Descale, error_per_block_descale_given_to_a_per_head_bundle) {
  Expected<std::unique_ptr<Sequence>> s =
      Sequence::load(inputsDir() + "/fp8_fwd.json");
  ASSERT_OK(s);
  EXPECT_OK((*s)->check(fp8Tensors({3, 2}, {3, 2}), 132));
  EXPECT_ERROR((*s)->check(fp8Tensors({3, 8, 5}, {3, 2}), 132),
               ErrorCode::Tensor,
               "operand 'query_descale': expected rank 2 [batch, head], got "
               "rank 3");
}

TEST(Fp8Descale, error_block_count_without_a_sequence_length) {
  // A kernel that reads only key_descale: nothing gives seq_k to count
  // its blocks against.
  Expected<std::unique_ptr<Bundle>> b = bundleFromText(R"({
    "format": "fa-kernel-bundle", "version": 1, "chip": "sm_90a",
    "kernel": "helper_kernel", "cubin": "stub_kernels.cubin",
    "op": "descales_only",
    "config": {"dtype": "f8e4m3fn", "layout": "bhsd", "head_dim": 128,
               "descale_block": [64, 128]},
    "block": [128, 1, 1], "shared_memory_bytes": 0, "grid": [1, 1, 1],
    "params": [{"kind": "ptr", "operand": "key_descale"}]})");
  ASSERT_OK(b);
  std::vector<TensorArg> t = {
      tensor("key_descale", DType::F32, {3, 2, 2}, 0x70000000)};
  EXPECT_ERROR((*b)->plan(t, 132, noEncode()), ErrorCode::Tensor,
               "operand 'key_descale': its block count is ceildiv(seq_k, "
               "128), but no operand of this launch gives seq_k");
}
