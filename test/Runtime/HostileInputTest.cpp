//===- HostileInputTest.cpp - Issue 16: bad bundles never crash -----------===//
//
// Each case once overflowed the stack, read without end or handed a wrapped
// stride to the driver. Each must now be an error with a message.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "fa/Runtime/Expr.h"
#include "fa/Runtime/ParamPack.h"
#include "fa/Runtime/fa_runtime.h"

#include <cstdio>
#include <fstream>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

std::string repeat(const std::string &s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

/// `n` terms "1+1+...+1".
std::string flatSum(size_t n) {
  return "1" + repeat("+1", n - 1);
}

/// The example bundle with grid[0] replaced by `expr`.
std::string withGrid0(const std::string &expr) {
  return replaceOnce(exampleBundleText(), "\"ceildiv(seq_q, 128)\"",
                     "\"" + expr + "\"");
}

const ErrorCode kBad = ErrorCode::InvalidBundle;

} // namespace

TEST(HostileInput, HugeExpressionsAreRejectedBeforeParsing) {
  struct Case {
    const char *what;
    std::string text;
  } cases[] = {
      {"20,000 parentheses", repeat("(", 20000) + "1" + repeat(")", 20000)},
      {"100,000 unary minus", repeat("-", 100000) + "1"},
      {"20,000 nested min(", repeat("min(1, ", 20000) + "1" + repeat(")", 20000)},
      {"60,000-term flat sum", flatSum(60000)},
      {"300,000-term flat sum", flatSum(300000)},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_ERROR(Expr::parse(c.text), kBad,
                 "characters: at most " + std::to_string(kMaxExprLength));
    // Through the bundle loader the field is named.
    EXPECT_ERROR(bundleFromText(withGrid0(c.text)), kBad, "grid[0]: expression of");
  }
}

TEST(HostileInput, NestingIsBoundedWithinTheLengthLimit) {
  size_t deep = kMaxExprNesting + 1;
  EXPECT_ERROR(Expr::parse(repeat("(", deep) + "1" + repeat(")", deep)), kBad,
               "nesting deeper than 32 levels");
  EXPECT_ERROR(Expr::parse(repeat("min(1, ", deep) + "1" + repeat(")", deep)), kBad,
               "nesting deeper than 32 levels");
  EXPECT_ERROR(Expr::parse(repeat("ceildiv(", deep) + "8" + repeat(", 2)", deep)),
               kBad, "nesting deeper than 32 levels");
  // At the limit it still works.
  size_t ok = kMaxExprNesting;
  Expected<Expr> e = Expr::parse(repeat("(", ok) + "7" + repeat(")", ok));
  ASSERT_OK(e);
  EXPECT_EQ(*e->evalInt(SymbolTable()), 7);
}

TEST(HostileInput, LongChainsWithinTheLimitEvaluateIteratively) {
  // The longest flat sum and unary chain that fit: evaluated on an explicit
  // stack, no recursion per term.
  size_t terms = (kMaxExprLength + 1) / 2;
  Expected<Expr> sum = Expr::parse(flatSum(terms));
  ASSERT_OK(sum);
  EXPECT_EQ(*sum->evalInt(SymbolTable()), int64_t(terms));
  Expected<Expr> neg = Expr::parse(repeat("-", kMaxExprLength - 2) + "5");
  ASSERT_OK(neg);
  EXPECT_EQ(*neg->evalInt(SymbolTable()), 5); // an even number of '-'
  EXPECT_ERROR(Expr::parse(repeat("-", kMaxExprLength) + "5"), kBad, "at most");
  // A long product overflows with an error, not a wrapped value.
  Expected<Expr> product = Expr::parse("2" + repeat("*2", 100));
  ASSERT_OK(product);
  EXPECT_ERROR(product->evalInt(SymbolTable()), ErrorCode::Expression,
               "integer overflow");
}

TEST(HostileInput, HugeExpressionAtFaBundleLoad) {
  // The C entry point, on a file: an error code and a message, no crash.
  std::string path = "/tmp/fa-runtime-hostile-" + std::to_string(::getpid()) + ".json";
  std::string text = replaceOnce(withGrid0(repeat("(", 20000) + "1" + repeat(")", 20000)),
                                 "\"stub_kernels.cubin\"",
                                 "\"" + inputsDir() + "/stub_kernels.cubin\"");
  std::ofstream(path) << text;
  fa_bundle *b = reinterpret_cast<fa_bundle *>(0x1);
  EXPECT_EQ(fa_bundle_load(path.c_str(), &b), int(FA_ERROR_INVALID_BUNDLE));
  EXPECT_TRUE(b == nullptr);
  EXPECT_NE(std::string(fa_last_error()).find("grid[0]: expression of 40001 characters"),
            std::string::npos)
      << fa_last_error();
  std::remove(path.c_str());
}

TEST(HostileInput, StrideOf2To62ElementsNeverReachesTheEncoder) {
  Expected<std::unique_ptr<Bundle>> bundle = bundleFromText(exampleBundleText());
  ASSERT_OK(bundle);
  bool encoderCalled = false;
  TensorMapEncoder encoder = [&](const TensorMapRequest &, void *) {
    encoderCalled = true;
    return Status::success();
  };
  for (int64_t stride : {int64_t(1) << 62, INT64_MAX, (int64_t(1) << 39) + 8}) {
    SCOPED_TRACE(stride);
    std::vector<TensorArg> t = exampleTensors();
    find(t, "key").strides[0] = stride; // bf16: 2^63 bytes wraps in int64
    EXPECT_ERROR((*bundle)->plan(t, 132, encoder), ErrorCode::Tensor,
                 "operand 'key': stride of dimension 0 (batch) is too large for TMA");
  }
  EXPECT_FALSE(encoderCalled);
}

TEST(HostileInput, TensorMapRequestChecksEveryByteStride) {
  Expected<BundleSpec> spec = parseBundleSpec(exampleBundleText(), "");
  ASSERT_OK(spec);
  // Directly, without the operand checks: an element stride whose byte
  // stride overflows, and a dense stride substituted for a size-1 dim that
  // exceeds TMA's 2^40 bytes (head stride 2^20 elements x 2^31 heads).
  TensorArg wrapped = tensor("query", DType::BF16, {2, 1000, 16, 128}, 0x10000000);
  wrapped.strides[1] = INT64_MAX;
  EXPECT_ERROR(makeTensorMapRequest(*spec, 0, wrapped), ErrorCode::Tensor,
               "operand 'query': the byte stride of seq overflows");
  TensorArg substituted = tensor("query", DType::BF16, {1, 1000, int64_t(1) << 31, 128},
                                 0x10000000);
  substituted.strides = {0, 128, int64_t(1) << 20, 1};
  EXPECT_ERROR(makeTensorMapRequest(*spec, 0, substituted), ErrorCode::Tensor,
               "the byte stride of batch overflows or is >= 2^40");
  EXPECT_OK(makeTensorMapRequest(*spec, 0, tensor("query", DType::BF16,
                                                  {2, 1000, 16, 128}, 0x10000000)));
}

TEST(HostileInput, ElementCountOverflowIsAnError) {
  Expected<std::unique_ptr<Bundle>> bundle = bundleFromText(exampleBundleText());
  ASSERT_OK(bundle);
  std::vector<TensorArg> t = exampleTensors();
  find(t, "output").sizes = {int64_t(1) << 40, int64_t(1) << 20, 16, 128};
  EXPECT_ERROR((*bundle)->plan(t, 132, [](const TensorMapRequest &, void *) {
    return Status::success();
  }), ErrorCode::Tensor, "operand 'output': the element count overflows 64 bits");
}
