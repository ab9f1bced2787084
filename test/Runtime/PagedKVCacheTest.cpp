//===- PagedKVCacheTest.cpp - Paged caches and appends of the decode op ---===//
//
// The roles, symbols and ops of the decode sequences with paged caches and
// in-place appends (docs/BundleFormat.md): Inputs/kvcache_paged.json (a
// partial kernel reading key_cache/value_cache through the block table,
// then the combine), kvcache_paged_append.json (the kvcache_append kernel
// first) and kvcache_append.json (an append into contiguous caches), all
// over the stub cubin.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "TestUtil.h"

#include "fa/Runtime/Sequence.h"

#include <cstring>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

// batch 2, seq_q 4, heads_q 16, heads_kv 4, d 128; 40 pages of 64 rows, 20
// pages per sequence; 3 tokens appended.
constexpr int64_t kPages = 40, kPageSize = 64, kMaxPages = 20, kSeqNew = 3;

std::vector<TensorArg> pagedTensors() {
  return {
      tensor("query", DType::BF16, {2, 4, 16, 128}, 0x10000000),
      tensor("key_cache", DType::BF16, {kPages, kPageSize, 4, 128}, 0x20000000),
      tensor("value_cache", DType::BF16, {kPages, kPageSize, 4, 128}, 0x30000000),
      tensor("block_table", DType::I32, {2, kMaxPages}, 0x40000000),
      tensor("cache_seqlens", DType::I32, {2}, 0x41000000),
      tensor("output", DType::BF16, {2, 4, 16, 128}, 0x50000000),
      tensor("lse", DType::F32, {2, 16, 4}, 0x60000000),
  };
}

std::vector<TensorArg> withNewTokens(std::vector<TensorArg> t) {
  t.push_back(tensor("key_new", DType::BF16, {2, kSeqNew, 4, 128}, 0x70000000));
  t.push_back(tensor("value_new", DType::BF16, {2, kSeqNew, 4, 128}, 0x71000000));
  return t;
}

/// Plus the workspace of kvcache_paged.json (2 splits), for a kernel of it
/// planned alone.
std::vector<TensorArg> withPartials(std::vector<TensorArg> t) {
  t.push_back(tensor("o_partial", DType::F32, {2, 2, 16, 4, 128}, 0x80000000));
  t.push_back(tensor("lse_partial", DType::F32, {2, 2, 16, 4}, 0x81000000));
  return t;
}

/// The contiguous-append operands: caches [batch, capacity 1000, ...].
std::vector<TensorArg> appendTensors() {
  std::vector<TensorArg> t = exampleTensors(4, 1000);
  t.push_back(tensor("cache_seqlens", DType::I32, {2}, 0x41000000));
  return withNewTokens(t);
}

std::unique_ptr<Sequence> load(const std::string &name) {
  Expected<std::unique_ptr<Sequence>> s = Sequence::load(inputsDir() + "/" + name);
  EXPECT_OK(s);
  return s.ok() ? std::move(*s) : nullptr;
}

BundleSpec pagedSpec(const std::string &layout = "bshd") {
  std::string text = replaceOnce(readInput("kvcache_paged_partial.json"),
                                 R"("layout": "bshd")",
                                 "\"layout\": \"" + layout + "\"");
  Expected<BundleSpec> spec = parseBundleSpec(text, inputsDir());
  EXPECT_OK(spec);
  return spec.ok() ? *spec : BundleSpec();
}

Status check(const Sequence &s, const std::vector<TensorArg> &t) { return checkStatus(s, t); }

template <typename T> T readAt(const PackedParams &p, size_t offset) {
  T v;
  std::memcpy(&v, p.bytes() + offset, sizeof(T));
  return v;
}

} // namespace

TEST(PagedKVCache, symbols) {
  for (const char *name : {"num_pages", "page_size", "max_pages", "seq_new"}) {
    std::optional<Symbol> s = parseSymbol(name);
    ASSERT_TRUE(s.has_value()) << name;
    EXPECT_EQ(std::string(symbolName(*s)), std::string(name));
  }
  EXPECT_EQ(symbolNameList(),
            std::string("batch, heads_q, heads_kv, seq_q, seq_k, head_dim, head_dim_v, "
                        "num_sms, num_pages, page_size, max_pages, seq_new, num_seqs, splits, "
                        "rows"));
  EXPECT_OK(Expr::parse("ceildiv(max_pages * page_size, 128) + seq_new + num_pages"));
  EXPECT_ERROR(Expr::parse("pages"), ErrorCode::InvalidBundle,
               "unknown symbol 'pages' (known: batch, heads_q, heads_kv, seq_q, seq_k, "
               "head_dim, head_dim_v, num_sms, num_pages, page_size, max_pages, seq_new, "
               "num_seqs, splits, rows)");
}

TEST(PagedKVCache, roles) {
  for (const char *role : {"key_cache", "value_cache", "block_table", "key_new", "value_new"})
    EXPECT_TRUE(isStandardRole(role)) << role;
  for (const char *layout : {"bshd", "bhsd"}) {
    BundleSpec spec = pagedSpec(layout);
    // The caches and the block table have one order whatever the layout.
    EXPECT_EQ(joined(operandDims(spec, "key_cache")), std::string("page,row,head,dim"));
    EXPECT_EQ(joined(operandDims(spec, "value_cache")), std::string("page,row,head,dim"));
    EXPECT_EQ(joined(operandDims(spec, "block_table")), std::string("batch,page"));
    // The new tokens are laid out like key and value.
    EXPECT_EQ(joined(operandDims(spec, "key_new")), joined(operandDims(spec, "key")));
    EXPECT_EQ(joined(operandDims(spec, "value_new")), joined(operandDims(spec, "value")));
    EXPECT_FALSE(followsLayout("key_cache"));
    EXPECT_TRUE(followsLayout("key_new"));
    EXPECT_TRUE(*operandDType(spec, "key_cache") == DType::BF16);
    EXPECT_TRUE(*operandDType(spec, "value_new") == DType::BF16);
    EXPECT_TRUE(*operandDType(spec, "block_table") == DType::I32);
  }
  EXPECT_EQ(joined(operandDims(pagedSpec("bhsd"), "key_new")),
            std::string("batch,head,seq,dim"));
}

TEST(PagedKVCache, required_operands) {
  struct Case {
    const char *file, *op, *required;
  };
  const Case cases[] = {
      {"kvcache_paged.json", "attention_kvcache_paged",
       "query,key_cache,value_cache,block_table,output,lse,cache_seqlens"},
      {"kvcache_paged_append.json", "attention_kvcache_paged_append",
       "query,key_cache,value_cache,block_table,output,lse,cache_seqlens,key_new,value_new"},
      {"kvcache_append.json", "attention_kvcache_append",
       "query,key,value,key_new,value_new,output,lse,cache_seqlens"},
  };
  for (const Case &c : cases) {
    std::unique_ptr<Sequence> s = load(c.file);
    ASSERT_TRUE(s != nullptr) << c.file;
    EXPECT_EQ(s->op(), std::string(c.op));
    EXPECT_EQ(joined(s->requiredOperands()), std::string(c.required));
  }
  // The op requires what its kernels do not name (the combine stub reads
  // no output, no kernel of kvcache_paged.json names query).
  std::unique_ptr<Sequence> paged = load("kvcache_paged.json");
  ASSERT_TRUE(paged != nullptr);
  for (const char *role : {"query", "output", "block_table"}) {
    std::vector<TensorArg> t = pagedTensors();
    t.erase(std::find_if(t.begin(), t.end(),
                         [&](const TensorArg &a) { return a.role == role; }));
    EXPECT_ERROR(check(*paged, t), ErrorCode::Tensor,
                 std::string("missing operand '") + role +
                     "' (this attention_kvcache_paged bundle needs: query, key_cache");
  }
  std::unique_ptr<Sequence> append = load("kvcache_paged_append.json");
  ASSERT_TRUE(append != nullptr);
  EXPECT_ERROR(check(*append, pagedTensors()), ErrorCode::Tensor,
               "missing operand 'key_new'");
}

TEST(PagedKVCache, paged_symbols_grid_and_workspace) {
  std::unique_ptr<Sequence> s = load("kvcache_paged.json");
  ASSERT_TRUE(s != nullptr);
  Expected<OperandSet> set =
      checkOperands(s->kernels()[0]->spec(), withPartials(pagedTensors()), 132);
  ASSERT_OK(set);
  EXPECT_EQ(*set->symbols.get(Symbol::NumPages), kPages);
  EXPECT_EQ(*set->symbols.get(Symbol::PageSize), kPageSize);
  EXPECT_EQ(*set->symbols.get(Symbol::MaxPages), kMaxPages);
  EXPECT_EQ(*set->symbols.get(Symbol::HeadsKV), 4);
  EXPECT_EQ(*set->symbols.get(Symbol::Batch), 2);
  EXPECT_FALSE(set->symbols.get(Symbol::SeqK).has_value());
  EXPECT_FALSE(set->symbols.get(Symbol::SeqNew).has_value());
  // ceildiv(20 * 64, 1024) = 2 splits.
  Expected<std::array<uint32_t, 3>> grid = s->check(pagedTensors(), 132);
  ASSERT_OK(grid);
  EXPECT_EQ((*grid)[0], 2u);
  EXPECT_EQ((*grid)[1], 4u);
  EXPECT_EQ((*grid)[2], 2u);
  Expected<int64_t> bytes = s->workspaceBytes(pagedTensors(), -1);
  ASSERT_OK(bytes);
  EXPECT_EQ(*bytes, int64_t(2 * 2 * 16 * 4 * 128 * 4 + 2 * 2 * 16 * 4 * 4));
}

TEST(PagedKVCache, paged_operand_errors) {
  std::unique_ptr<Sequence> s = load("kvcache_paged_append.json");
  ASSERT_TRUE(s != nullptr);
  expectOperandErrors(*s, withNewTokens(pagedTensors()), {
      {"block_table", [](TensorArg &t) { t.dtype = DType::I64; },
       "operand 'block_table': dtype is i64, expected i32"},
      {"block_table", [](TensorArg &t) { t.sizes = {3, kMaxPages}; },
       "operand 'block_table': dimension 0 (batch) is 3, expected 2 (batch, from 'query')"},
      {"block_table", [](TensorArg &t) { t.sizes = {2 * kMaxPages}; t.strides = {1}; },
       "operand 'block_table': expected rank 2 [batch, page], got rank 1"},
      {"key_cache", [](TensorArg &t) { t.sizes.pop_back(); t.strides.pop_back(); },
       "operand 'key_cache': expected rank 4 [page, row, head, dim], got rank 3"},
      {"key_cache", [](TensorArg &t) { t.dtype = DType::F16; },
       "operand 'key_cache': dtype is f16, expected bf16"},
      {"value_cache", [](TensorArg &t) { t.sizes[1] = 32; t.strides = contiguousStrides(t.sizes); },
       "operand 'value_cache': dimension 1 (row) is 32, expected 64 (page_size, from "
       "'key_cache')"},
      {"value_cache", [](TensorArg &t) { t.sizes[0] = 41; t.strides = contiguousStrides(t.sizes); },
       "operand 'value_cache': dimension 0 (page) is 41, expected 40 (num_pages, from "
       "'key_cache')"},
      {"key_new", [](TensorArg &t) { t.sizes[2] = 2; t.strides = contiguousStrides(t.sizes); },
       "operand 'key_new': dimension 2 (head) is 2, expected 4 (heads_kv, from 'key_cache')"},
      {"value_new", [](TensorArg &t) { t.sizes[1] = 5; t.strides = contiguousStrides(t.sizes); },
       "operand 'value_new': dimension 1 (seq) is 5, expected 3 (seq_new, from 'key_new')"},
      {"key_new", [](TensorArg &t) { t.dtype = DType::F32; },
       "operand 'key_new': dtype is f32, expected bf16"},
      {"key_new", [](TensorArg &t) { t.data += 8; },
       "operand 'key_new': address 0x70000008 is not 16-byte aligned (params[0], ptr)"},
  });
  EXPECT_OK(check(*s, withNewTokens(pagedTensors())));
}

// config.page_size (the compiler writes it: the kernel is tiled by the page)
// fixes the page size a launch's caches must have.
TEST(PagedKVCache, config_page_size) {
  auto specWith = [](const std::string &pageSize) {
    Expected<BundleSpec> spec = parseBundleSpec(
        replaceOnce(readInput("kvcache_paged_partial.json"), R"("layout": "bshd")",
                    R"("layout": "bshd", "page_size": )" + pageSize),
        inputsDir());
    return spec;
  };
  Expected<BundleSpec> same = specWith(std::to_string(kPageSize));
  ASSERT_OK(same);
  EXPECT_EQ(same->config.pageSize, kPageSize);
  EXPECT_OK(checkOperands(*same, withPartials(pagedTensors()), 132));
  Expected<BundleSpec> other = specWith("16");
  ASSERT_OK(other);
  EXPECT_ERROR(checkOperands(*other, withPartials(pagedTensors()), 132), ErrorCode::Tensor,
               "operand 'key_cache': dimension 1 (row) is 64, expected 16 (page_size, "
               "config.page_size: the kernel is tiled by it)");
  EXPECT_ERROR(specWith("0"), ErrorCode::InvalidBundle,
               "config.page_size: value 0 is out of range");
  EXPECT_ERROR(specWith("\"16\""), ErrorCode::InvalidBundle, "config.page_size");
}

TEST(PagedKVCache, unbound_symbol_fails_only_when_used) {
  // A paged launch binds no seq_k. A bundle that does not read it launches;
  // one that does fails at launch, saying where seq_k would come from.
  std::string text = readInput("kvcache_paged_partial.json");
  Expected<std::unique_ptr<Bundle>> reads = bundleFromText(
      replaceOnce(text, R"("value": "max_pages"})", R"("value": "seq_k"})"));
  ASSERT_OK(reads);
  auto noEncode = [](const TensorMapRequest &, void *) { return Status::success(); };
  std::vector<TensorArg> t = withPartials(pagedTensors());
  EXPECT_ERROR((*reads)->plan(t, 132, noEncode), ErrorCode::Expression,
               "expression \"seq_k\": symbol 'seq_k' has no value at this launch (no "
               "operand provides it; seq_k is read off key, value, bias, grad_key, "
               "grad_value, grad_bias)");
  Expected<std::unique_ptr<Bundle>> plain = bundleFromText(text);
  ASSERT_OK(plain);
  EXPECT_OK((*plain)->plan(t, 132, noEncode));
}

TEST(PagedKVCache, append_params) {
  std::unique_ptr<Sequence> s = load("kvcache_paged_append.json");
  ASSERT_TRUE(s != nullptr);
  const Bundle &append = *s->kernels()[0];
  EXPECT_EQ(append.spec().op, std::string("kvcache_append"));
  std::vector<TensorArg> t = withNewTokens(pagedTensors());
  // New tokens with padded rows: the kernel gets the caller's strides.
  find(t, "key_new").strides = {kSeqNew * 8 * 128, 8 * 128, 128, 1};
  auto noEncode = [](const TensorMapRequest &, void *) { return Status::success(); };
  Expected<LaunchPlan> plan = append.plan(t, 132, noEncode);
  ASSERT_OK(plan);
  EXPECT_EQ(plan->grid[0], 1u); // ceildiv(3, 16)
  EXPECT_EQ(plan->grid[1], 4u);
  EXPECT_EQ(plan->grid[2], 2u);
  const PackedParams &p = plan->params;
  EXPECT_EQ(readAt<uint64_t>(p, 0), uint64_t(0x70000000));
  EXPECT_EQ(readAt<uint64_t>(p, 16), uint64_t(0x20000000));
  EXPECT_EQ(readAt<uint64_t>(p, 32), uint64_t(0x40000000));
  const int64_t strides[] = {kSeqNew * 8 * 128, 8 * 128,            // key_new
                             kSeqNew * 4 * 128, 4 * 128,            // value_new
                             kPageSize * 4 * 128, 4 * 128,          // key_cache
                             kPageSize * 4 * 128, 4 * 128, kMaxPages}; // value_cache, table
  for (size_t i = 0; i < 9; ++i)
    EXPECT_EQ(readAt<int64_t>(p, 48 + 8 * i), strides[i]) << "stride " << i;
  EXPECT_EQ(readAt<int32_t>(p, 120), int32_t(kPageSize));
  EXPECT_EQ(readAt<int32_t>(p, 124), int32_t(kSeqNew));
}

TEST(PagedKVCache, contiguous_append) {
  std::unique_ptr<Sequence> s = load("kvcache_append.json");
  ASSERT_TRUE(s != nullptr);
  EXPECT_OK(check(*s, appendTensors()));
  std::vector<TensorArg> t = appendTensors();
  find(t, "key_new").sizes[0] = 3;
  find(t, "key_new").strides = contiguousStrides(find(t, "key_new").sizes);
  EXPECT_ERROR(check(*s, t), ErrorCode::Tensor,
               "operand 'key_new': dimension 0 (batch) is 3, expected 2 (batch, from 'query')");
  // The appended tokens follow the layout: bshd, so rank 4 in that order.
  t = appendTensors();
  find(t, "value_new").sizes = {2, 3, 4};
  find(t, "value_new").strides = {12, 4, 1};
  EXPECT_ERROR(check(*s, t), ErrorCode::Tensor,
               "operand 'value_new': expected rank 4 [bshd: batch, seq, head, dim], got rank 3");
}

TEST(PagedKVCache, paged_launch) {
  FakeCudaState *fake = useFakeDriver();
  std::strcpy(fake->functions[0].name, "helper_kernel");
  fake->functions[0].paramSizes[0] = 8;
  fake->functions[0].paramSizes[1] = 8;
  std::unique_ptr<Sequence> s = load("kvcache_paged.json");
  ASSERT_TRUE(s != nullptr);
  EXPECT_OK(s->launch(pagedTensors(), nullptr));
  ASSERT_EQ(fake->launches, 2);
  EXPECT_EQ(fake->allocs, 2);
  EXPECT_EQ(fake->frees, 2);
  // The partial kernel's tensor maps: key_cache as [dim, row, head, page].
  ASSERT_GE(fake->encodes, 2);
  const FakeEncodeCall &k = fake->lastEncodes[0];
  EXPECT_EQ(k.address, uint64_t(0x20000000));
  EXPECT_EQ(k.rank, 4u);
  const uint64_t dims[] = {128, uint64_t(kPageSize), 4, uint64_t(kPages)};
  const uint64_t bytes[] = {4 * 128 * 2, 128 * 2, uint64_t(kPageSize) * 4 * 128 * 2};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(k.dims[i], dims[i]) << "dim " << i;
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(k.strides[i], bytes[i]) << "stride " << i;
  // The combine ran last: o_partial, then the split count.
  EXPECT_EQ(fake->grid[0], 1u); // ceildiv(seq_q 4, 4)
  int64_t splits;
  std::memcpy(&splits, fake->params[1], 8);
  EXPECT_EQ(splits, 2);
}
