//===- VarlenTest.cpp - Ragged batches (fa.attention_varlen) --------------===//
//
// The roles cu_seqlens_q/cu_seqlens_k, the symbol num_seqs and the op
// attention_varlen (docs/BundleFormat.md, *Ragged batches (varlen)*), on
// Inputs/varlen.json: a single kernel over the stub cubin whose grid and
// parameters read num_seqs.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "TestUtil.h"

#include "fa/Runtime/Sequence.h"

#include <cstring>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

// 4 sequences packed into total_q 1000 queries and total_k 333 keys;
// heads_q 16, heads_kv 4, d 128.
constexpr int64_t kTotalQ = 1000, kTotalK = 333, kNumSeqs = 4;

std::vector<TensorArg> varlenTensors() {
  return {
      tensor("query", DType::BF16, {1, kTotalQ, 16, 128}, 0x10000000),
      tensor("key", DType::BF16, {1, kTotalK, 4, 128}, 0x20000000),
      tensor("value", DType::BF16, {1, kTotalK, 4, 128}, 0x30000000),
      tensor("output", DType::BF16, {1, kTotalQ, 16, 128}, 0x40000000),
      tensor("lse", DType::F32, {1, 16, kTotalQ}, 0x50000000),
      tensor("cu_seqlens_q", DType::I32, {kNumSeqs + 1}, 0x60000000),
      tensor("cu_seqlens_k", DType::I32, {kNumSeqs + 1}, 0x61000000),
  };
}

std::unique_ptr<Sequence> load(const std::string &text) { return singleFromText(text); }

const BundleSpec &specOf(const Sequence &s) { return s.kernels()[0]->spec(); }

Status check(const Sequence &b, const std::vector<TensorArg> &t) { return checkStatus(b, t); }

std::vector<TensorArg> without(std::vector<TensorArg> t,
                               const std::string &role) {
  t.erase(std::find_if(t.begin(), t.end(),
                       [&](const TensorArg &a) { return a.role == role; }));
  return t;
}

} // namespace

TEST(Varlen, symbol) {
  std::optional<Symbol> s = parseSymbol("num_seqs");
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(*s == Symbol::NumSeqs);
  EXPECT_EQ(std::string(symbolName(*s)), std::string("num_seqs"));
  EXPECT_OK(Expr::parse("ceildiv(seq_q, 128) + num_seqs"));
}

TEST(Varlen, roles) {
  std::unique_ptr<Sequence> b = load(readInput("varlen.json"));
  ASSERT_TRUE(b != nullptr);
  for (const char *role : {"cu_seqlens_q", "cu_seqlens_k"}) {
    EXPECT_TRUE(isStandardRole(role)) << role;
    EXPECT_TRUE(isCuSeqlens(role)) << role;
    EXPECT_FALSE(followsLayout(role)) << role;
    EXPECT_EQ(joined(operandDims(specOf(*b), role)), std::string("seq_bound"));
    EXPECT_TRUE(*operandDType(specOf(*b), role) == DType::I32);
  }
  EXPECT_FALSE(isCuSeqlens("cache_seqlens"));
  // stride() knows the dim by its name.
  EXPECT_OK(bundleFromText(replaceOnce(readInput("varlen.json"),
                                       R"("value": "num_seqs"})",
                                       R"x("value": "stride(cu_seqlens_k, seq_bound)"})x")));
  EXPECT_ERROR(bundleFromText(replaceOnce(readInput("varlen.json"),
                                          R"("value": "num_seqs"})",
                                          R"x("value": "stride(cu_seqlens_k, batch)"})x")),
               ErrorCode::InvalidBundle,
               "stride(): operand 'cu_seqlens_k' has no dimension 'batch' (its dims: "
               "seq_bound)");
}

TEST(Varlen, layout_is_bshd_only) {
  std::string bhsd = replaceOnce(readInput("varlen.json"), R"("layout": "bshd")",
                                 R"("layout": "bhsd")");
  EXPECT_ERROR(bundleFromText(bhsd), ErrorCode::InvalidBundle,
               "config.layout: op attention_varlen takes layout bshd only (packed "
               "[1, total, heads, dim] tensors), got \"bhsd\"");
  // Another op keeps both layouts.
  EXPECT_OK(bundleFromText(replaceOnce(bhsd, R"("op": "attention_varlen")",
                                       R"("op": "varlen_helper")")));
}

TEST(Varlen, required_operands) {
  std::unique_ptr<Sequence> b = load(readInput("varlen.json"));
  ASSERT_TRUE(b != nullptr);
  EXPECT_EQ(specOf(*b).op, std::string("attention_varlen"));
  EXPECT_EQ(joined(specOf(*b).requiredOperands),
            std::string("query,key,value,output,lse,cu_seqlens_q,cu_seqlens_k"));
  EXPECT_EQ(joined(opOperands("attention_varlen")),
            std::string("query,key,value,output,lse,cu_seqlens_q,cu_seqlens_k"));
  for (const char *role : {"cu_seqlens_q", "cu_seqlens_k", "lse"})
    EXPECT_ERROR(check(*b, without(varlenTensors(), role)), ErrorCode::Tensor,
                 std::string("missing operand '") + role +
                     "' (this attention_varlen bundle needs: query, key, value, "
                     "output, lse, cu_seqlens_q, cu_seqlens_k)");
  // The op requires them even when no parameter names them.
  std::string text = replaceOnce(readInput("varlen.json"),
                                 R"({"kind": "ptr", "operand": "cu_seqlens_k"},)", "");
  text = replaceOnce(text, R"(+ num_seqs", "heads_q")", R"(", "heads_q")");
  std::unique_ptr<Sequence> unnamed = load(text);
  ASSERT_TRUE(unnamed != nullptr);
  EXPECT_ERROR(check(*unnamed, without(varlenTensors(), "cu_seqlens_k")),
               ErrorCode::Tensor, "missing operand 'cu_seqlens_k'");
}

TEST(Varlen, symbols_and_grid) {
  std::unique_ptr<Sequence> b = load(readInput("varlen.json"));
  ASSERT_TRUE(b != nullptr);
  Expected<OperandSet> set = checkOperands(specOf(*b), varlenTensors(), 132);
  ASSERT_OK(set);
  EXPECT_EQ(*set->symbols.get(Symbol::NumSeqs), kNumSeqs);
  EXPECT_EQ(*set->symbols.get(Symbol::Batch), 1);
  EXPECT_EQ(*set->symbols.get(Symbol::SeqQ), kTotalQ);
  EXPECT_EQ(*set->symbols.get(Symbol::SeqK), kTotalK);
  // ceildiv(1000, 128) + 4 tiles: one spare tile per sequence boundary.
  Expected<std::array<uint32_t, 3>> grid = b->check(varlenTensors(), 132);
  ASSERT_OK(grid);
  EXPECT_EQ((*grid)[0], 12u);
  EXPECT_EQ((*grid)[1], 16u);
  EXPECT_EQ((*grid)[2], 1u);
  // One bound: no sequence, an empty grid (nothing launched).
  std::vector<TensorArg> none = varlenTensors();
  for (const char *role : {"query", "output", "key", "value"}) {
    find(none, role).sizes[1] = 0;
    find(none, role).strides = contiguousStrides(find(none, role).sizes);
  }
  find(none, "lse").sizes = {1, 16, 0};
  find(none, "cu_seqlens_q").sizes = {1};
  find(none, "cu_seqlens_k").sizes = {1};
  grid = b->check(none, 132);
  ASSERT_OK(grid);
  EXPECT_EQ((*grid)[0], 0u);
}

TEST(Varlen, operand_errors) {
  std::unique_ptr<Sequence> b = load(readInput("varlen.json"));
  ASSERT_TRUE(b != nullptr);
  expectOperandErrors(*b, varlenTensors(), {
      {"cu_seqlens_q", [](TensorArg &t) { t.dtype = DType::I64; },
       "operand 'cu_seqlens_q': dtype is i64, expected i32"},
      {"cu_seqlens_k", [](TensorArg &t) { t.dtype = DType::F32; },
       "operand 'cu_seqlens_k': dtype is f32, expected i32"},
      {"cu_seqlens_q", [](TensorArg &t) { t.sizes = {1, 5}; t.strides = {5, 1}; },
       "operand 'cu_seqlens_q': expected rank 1 [seq_bound], got rank 2"},
      {"cu_seqlens_k", [](TensorArg &t) { t.sizes = {6}; },
       "operand 'cu_seqlens_k': has 6 entries, expected 5 (num_seqs + 1, num_seqs = 4 "
       "from 'cu_seqlens_q')"},
      {"cu_seqlens_q", [](TensorArg &t) { t.sizes = {3}; },
       "operand 'cu_seqlens_k': has 5 entries, expected 3 (num_seqs + 1, num_seqs = 2 "
       "from 'cu_seqlens_q')"},
      {"cu_seqlens_q", [](TensorArg &t) { t.sizes = {0}; },
       "operand 'cu_seqlens_q': needs at least one entry (num_seqs + 1 sequence "
       "bounds), got 0"},
      {"cu_seqlens_k", [](TensorArg &t) { t.sizes = {0}; },
       "operand 'cu_seqlens_k': needs at least one entry (num_seqs + 1 sequence "
       "bounds), got 0"},
      {"cu_seqlens_k", [](TensorArg &t) { t.strides = {2}; },
       "operand 'cu_seqlens_k': the innermost dimension (seq_bound) must have stride 1"},
      {"cu_seqlens_q", [](TensorArg &t) { t.data += 2; },
       "operand 'cu_seqlens_q': address 0x60000002 is not aligned to its element size "
       "(4 bytes)"},
      // The packed tensors are one batch row.
      {"query", [](TensorArg &t) { t.sizes[0] = 2; t.strides = contiguousStrides(t.sizes); },
       "operand 'query': dimension 0 (batch) is 2, expected 1 (batch, attention_varlen "
       "packs every sequence into batch 1)"},
      {"lse", [](TensorArg &t) { t.sizes = {1, 16, 999}; t.strides = contiguousStrides(t.sizes); },
       "operand 'lse': dimension 2 (seq) is 999, expected 1000 (seq_q, from 'query')"},
  });
  EXPECT_OK(check(*b, varlenTensors()));
}

TEST(Varlen, num_seqs_unset_elsewhere) {
  // A bundle of another op that reads num_seqs without cu_seqlens fails at
  // launch, saying where num_seqs comes from.
  std::string text = replaceOnce(exampleBundleText(), R"("value": "seq_k"})",
                                 R"("value": "num_seqs"})");
  std::unique_ptr<Sequence> b = load(text);
  ASSERT_TRUE(b != nullptr);
  auto noEncode = [](const TensorMapRequest &, void *) { return Status::success(); };
  EXPECT_ERROR(b->kernels()[0]->plan(exampleTensors(), 132, noEncode), ErrorCode::Expression,
               "symbol 'num_seqs' has no value at this launch (no operand provides it; "
               "num_seqs is read off cu_seqlens_q, cu_seqlens_k)");
}

TEST(Varlen, launch) {
  FakeCudaState *fake = useFakeDriver();
  const size_t sizes[] = {128, 128, 128, 8, 8, 8, 8, 4, 4, 4, 4};
  for (int i = 0; i < 11; ++i)
    fake->kernelParamSizes[i] = sizes[i];
  fake->kernelParamSizes[11] = 0;
  Expected<std::unique_ptr<Sequence>> s =
      Sequence::load(inputsDir() + "/varlen.json");
  ASSERT_OK(s);
  EXPECT_EQ(joined((*s)->requiredOperands()),
            std::string("query,key,value,output,lse,cu_seqlens_q,cu_seqlens_k"));
  EXPECT_OK((*s)->launch(varlenTensors(), nullptr));
  ASSERT_EQ(fake->launches, 1);
  EXPECT_EQ(fake->grid[0], 12u);
  EXPECT_EQ(fake->grid[1], 16u);
  EXPECT_EQ(fake->grid[2], 1u);
  // Q, K, V as [dim, seq, head, batch 1].
  ASSERT_EQ(fake->encodes, 3);
  const uint64_t qDims[] = {128, uint64_t(kTotalQ), 16, 1};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(fake->lastEncodes[0].dims[i], qDims[i]) << "dim " << i;
  EXPECT_EQ(fake->lastEncodes[1].dims[1], uint64_t(kTotalK));
  EXPECT_EQ(fake->lastEncodes[2].address, uint64_t(0x30000000));
  EXPECT_EQ(readParam<uint64_t>(fake, 5), uint64_t(0x60000000));
  EXPECT_EQ(readParam<uint64_t>(fake, 6), uint64_t(0x61000000));
  EXPECT_EQ(readParam<int32_t>(fake, 7), int32_t(kTotalQ));
  EXPECT_EQ(readParam<int32_t>(fake, 8), int32_t(kTotalK));
  EXPECT_EQ(readParam<int32_t>(fake, 9), 4);
  EXPECT_EQ(readParam<int32_t>(fake, 10), int32_t(kNumSeqs));
}

//===----------------------------------------------------------------------===//
// The backward: Inputs/varlen_bwd.json, a sequence of op attention_varlen_bwd
// (one main-like kernel over the stub cubin) whose grid and workspace read
// num_seqs (docs/BundleFormat.md, *Ragged batches (varlen)*, the backward).
//===----------------------------------------------------------------------===//

namespace {

std::vector<TensorArg> varlenBackwardTensors() {
  std::vector<TensorArg> t = varlenTensors();
  t.push_back(
      tensor("grad_output", DType::BF16, {1, kTotalQ, 16, 128}, 0x11000000));
  t.push_back(
      tensor("grad_query", DType::BF16, {1, kTotalQ, 16, 128}, 0x12000000));
  t.push_back(
      tensor("grad_key", DType::BF16, {1, kTotalK, 4, 128}, 0x13000000));
  t.push_back(
      tensor("grad_value", DType::BF16, {1, kTotalK, 4, 128}, 0x14000000));
  return t;
}

Expected<std::unique_ptr<Sequence>> varlenBackward(const std::string &from = "",
                                                   const std::string &to = "") {
  std::string text = readInput("varlen_bwd.json");
  if (!from.empty())
    text = replaceOnce(text, from, to);
  return Sequence::fromText(text, inputsDir());
}

} // namespace

TEST(VarlenBackward, required_operands) {
  const char *all =
      "query,key,value,output,lse,grad_output,grad_query,grad_key,"
      "grad_value,cu_seqlens_q,cu_seqlens_k";
  EXPECT_EQ(joined(opOperands("attention_varlen_bwd")), std::string(all));
  Expected<std::unique_ptr<Sequence>> s = varlenBackward();
  ASSERT_OK(s);
  EXPECT_EQ(joined((*s)->requiredOperands()), std::string(all));
  EXPECT_OK((*s)->check(varlenBackwardTensors(), 132));
  for (const char *role : {"cu_seqlens_k", "grad_value"})
    EXPECT_ERROR((*s)->check(without(varlenBackwardTensors(), role), 132),
                 ErrorCode::Tensor,
                 std::string("missing operand '") + role + "'");
}

TEST(VarlenBackward, packed_into_batch_one_bshd) {
  Expected<std::unique_ptr<Sequence>> s = varlenBackward();
  ASSERT_OK(s);
  std::vector<TensorArg> t = varlenBackwardTensors();
  find(t, "query") =
      tensor("query", DType::BF16, {2, kTotalQ / 2, 16, 128}, 0x10000000);
  EXPECT_ERROR((*s)->check(t, 132), ErrorCode::Tensor,
               "attention_varlen_bwd packs every sequence into batch 1");
  EXPECT_ERROR(varlenBackward(R"("layout": "bshd")", R"("layout": "bhsd")"),
               ErrorCode::InvalidBundle,
               "config.layout: op attention_varlen_bwd takes layout bshd only");
}

TEST(VarlenBackward, grid_and_workspace_read_num_seqs) {
  Expected<std::unique_ptr<Sequence>> s = varlenBackward();
  ASSERT_OK(s);
  // ceildiv(333, 128) + 4 + 1 padded key blocks.
  Expected<std::array<uint32_t, 3>> grid =
      (*s)->check(varlenBackwardTensors(), 132);
  ASSERT_OK(grid);
  EXPECT_EQ((*grid)[0], 8u);
  EXPECT_EQ((*grid)[1], 4u);
  EXPECT_EQ((*grid)[2], 1u);
  // (ceildiv(1000, 64) + 4 + 1) * 64 = 1344 padded rows per head.
  Expected<int64_t> bytes = (*s)->workspaceBytes(varlenBackwardTensors(), 132);
  ASSERT_OK(bytes);
  const int64_t rows = 16 * 1344;
  EXPECT_GE(*bytes, rows * 128 * 4 + rows * 4);
}
