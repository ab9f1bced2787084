//===- CombineTest.cpp - The standalone fa.combine bundle -----------------===//
//
// The roles partial_output/partial_lse, the symbols splits/rows and the op
// combine (docs/BundleFormat.md, *Combine*), on Inputs/combine.json: the
// parameters fa-compile writes for an fa.combine, over a stub cubin kernel
// (the fake driver is told its parameter sizes).
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "TestUtil.h"

#include "fa/Runtime/Sequence.h"
#include "fa/Runtime/fa_runtime.h"

#include <cstring>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

// 4 splits of 1001 rows of 128 columns, merged into bf16.
constexpr int64_t kSplits = 4, kRows = 1001, kDim = 128;

std::vector<TensorArg> combineTensors() {
  return {
      tensor("partial_output", DType::F32, {kSplits, kRows, kDim}, 0x10000000),
      tensor("partial_lse", DType::F32, {kSplits, kRows}, 0x20000000),
      tensor("output", DType::BF16, {kRows, kDim}, 0x30000000),
      tensor("lse", DType::F32, {kRows}, 0x40000000),
  };
}

const BundleSpec &specOf(const Sequence &s) { return s.kernels()[0]->spec(); }

/// The stub kernel takes the combine's 11 parameters.
FakeCudaState *useCombineDriver() {
  FakeCudaState *fake = useFakeDriver();
  const size_t sizes[] = {8, 8, 8, 8, 4, 4, 8, 8, 8, 8, 8};
  for (int i = 0; i < 11; ++i)
    fake->kernelParamSizes[i] = sizes[i];
  fake->kernelParamSizes[11] = 0;
  return fake;
}

} // namespace

TEST(Combine, symbols_and_roles) {
  for (const char *name : {"splits", "rows"}) {
    ASSERT_TRUE(parseSymbol(name).has_value()) << name;
    EXPECT_EQ(std::string(symbolName(*parseSymbol(name))), std::string(name));
  }
  std::unique_ptr<Sequence> b = singleFromText(readInput("combine.json"));
  ASSERT_TRUE(b != nullptr);
  const BundleSpec &spec = specOf(*b);
  EXPECT_TRUE(isStandardRole("partial_output") && isStandardRole("partial_lse"));
  EXPECT_TRUE(isPartial("partial_lse") && !isPartial("lse"));
  EXPECT_EQ(joined(operandDims(spec, "partial_output")), std::string("split,row,dim"));
  EXPECT_EQ(joined(operandDims(spec, "partial_lse")), std::string("split,row"));
  // A combine's results are rows; an attention bundle's keep their dims.
  EXPECT_EQ(joined(operandDims(spec, "output")), std::string("row,dim"));
  EXPECT_EQ(joined(operandDims(spec, "lse")), std::string("row"));
  std::unique_ptr<Sequence> fwd = singleFromText(exampleBundleText());
  ASSERT_TRUE(fwd != nullptr);
  EXPECT_EQ(joined(operandDims(specOf(*fwd), "lse")), std::string("batch,head,seq"));
  EXPECT_TRUE(*operandDType(spec, "partial_output") == DType::F32);
  EXPECT_TRUE(*operandDType(spec, "output") == DType::BF16);
  EXPECT_EQ(joined(spec.requiredOperands), std::string("partial_output,partial_lse,output,lse"));
  EXPECT_EQ(joined(opOperands("combine")), std::string("partial_output,partial_lse,output,lse"));
}

TEST(Combine, config) {
  std::string text = readInput("combine.json");
  EXPECT_ERROR(bundleFromText(replaceOnce(text, R"("dtype": "f32")", R"("dtype": "bf16")")),
               ErrorCode::InvalidBundle,
               "config.dtype: op combine reads f32 partials (partial_output, partial_lse), "
               "got bf16");
  // No layout for a combine (its operands have one order); any other op
  // still needs one.
  EXPECT_ERROR(bundleFromText(replaceOnce(text, R"("op": "combine")", R"("op": "other")")),
               ErrorCode::InvalidBundle, "layout");
  EXPECT_OK(bundleFromText(
      replaceOnce(text, R"("head_dim": 128)", R"("head_dim": 128, "layout": "bhsd")")));
  // stride() knows the combine's dims by name.
  EXPECT_ERROR(bundleFromText(replaceOnce(text, "stride(output, row)", "stride(output, seq)")),
               ErrorCode::InvalidBundle,
               "operand 'output' has no dimension 'seq' (its dims: row, dim)");
}

TEST(Combine, operand_errors) {
  std::unique_ptr<Sequence> b = singleFromText(readInput("combine.json"));
  ASSERT_TRUE(b != nullptr);
  expectOperandErrors(*b, combineTensors(), {
      {"partial_output", [](TensorArg &t) { t.dtype = DType::BF16; },
       "operand 'partial_output': dtype is bf16, expected f32"},
      {"partial_lse", [](TensorArg &t) { t.dtype = DType::F16; },
       "operand 'partial_lse': dtype is f16, expected f32"},
      {"output", [](TensorArg &t) { t.dtype = DType::F16; },
       "operand 'output': dtype is f16, expected bf16"},
      {"lse", [](TensorArg &t) { t.dtype = DType::BF16; },
       "operand 'lse': dtype is bf16, expected f32"},
      {"partial_output",
       [](TensorArg &t) { t.sizes = {1, kSplits, kRows, kDim}; t.strides = contiguousStrides(t.sizes); },
       "operand 'partial_output': expected rank 3 [split, row, dim], got rank 4"},
      {"output",
       [](TensorArg &t) { t.sizes = {1, kRows, 1, kDim}; t.strides = contiguousStrides(t.sizes); },
       "operand 'output': expected rank 2 [row, dim], got rank 4"},
      {"lse", [](TensorArg &t) { t.sizes = {1, kRows}; t.strides = contiguousStrides(t.sizes); },
       "operand 'lse': expected rank 1 [row], got rank 2"},
      {"partial_lse", [](TensorArg &t) { t.sizes = {3, kRows}; t.strides = contiguousStrides(t.sizes); },
       "operand 'partial_lse': dimension 0 (split) is 3, expected 4 (splits, from 'partial_output')"},
      {"partial_output",
       [](TensorArg &t) { t.sizes = {kSplits, kRows, 64}; t.strides = contiguousStrides(t.sizes); },
       "operand 'partial_output': dimension 2 (dim) is 64, expected 128 (head_dim, from the "
       "bundle config)"},
      {"lse", [](TensorArg &t) { t.sizes = {1000}; },
       "operand 'lse': dimension 0 (row) is 1000, expected 1001 (rows, from 'output')"},
      {"output", [](TensorArg &t) { t.strides = {kDim, 2}; },
       "operand 'output': the innermost dimension (dim) must have stride 1, got 2"},
      {"partial_lse", [](TensorArg &t) { t.data += 2; },
       "operand 'partial_lse': address 0x20000002 is not aligned to its element size (4 bytes)"},
  });
  for (const char *role : {"partial_output", "partial_lse", "output", "lse"}) {
    std::vector<TensorArg> t = combineTensors();
    t.erase(std::find_if(t.begin(), t.end(), [&](const TensorArg &a) { return a.role == role; }));
    EXPECT_ERROR(checkStatus(*b, t), ErrorCode::Tensor,
                 std::string("missing operand '") + role +
                     "' (this combine bundle needs: partial_output, partial_lse, output, lse)");
  }
  EXPECT_OK(checkStatus(*b, combineTensors()));
}

TEST(Combine, launch) {
  FakeCudaState *fake = useCombineDriver();
  Expected<std::unique_ptr<Sequence>> s = Sequence::load(inputsDir() + "/combine.json");
  ASSERT_OK(s);
  // A strided view of the partials (rows 256 floats apart): the kernel
  // reads them through their strides.
  std::vector<TensorArg> t = combineTensors();
  find(t, "partial_output").strides = {kRows * 256, 256, 1};
  EXPECT_OK((*s)->launch(t, nullptr));
  ASSERT_EQ(fake->launches, 1);
  EXPECT_EQ(fake->grid[0], 251u); // ceildiv(1001, 4): a warp per row
  EXPECT_EQ(fake->grid[1], 1u);
  EXPECT_EQ(fake->grid[2], 1u);
  EXPECT_EQ(fake->block[0], 128u);
  EXPECT_EQ(readParam<uint64_t>(fake, 0), uint64_t(0x10000000));
  EXPECT_EQ(readParam<uint64_t>(fake, 3), uint64_t(0x40000000));
  EXPECT_EQ(readParam<int32_t>(fake, 4), int32_t(kSplits));
  EXPECT_EQ(readParam<int32_t>(fake, 5), int32_t(kRows));
  EXPECT_EQ(readParam<int64_t>(fake, 6), kRows * 256);
  EXPECT_EQ(readParam<int64_t>(fake, 7), 256);
  EXPECT_EQ(readParam<int64_t>(fake, 8), kRows);
  EXPECT_EQ(readParam<int64_t>(fake, 9), 1);
  EXPECT_EQ(readParam<int64_t>(fake, 10), kDim);
  // No rows: nothing to launch.
  for (TensorArg &a : t) {
    a.sizes[a.role.rfind("partial", 0) == 0 ? 1 : 0] = 0;
    a.strides = contiguousStrides(a.sizes);
  }
  EXPECT_OK((*s)->launch(t, nullptr));
  EXPECT_EQ(fake->launches, 1);
}

TEST(Combine, c_api) {
  FakeCudaState *fake = useCombineDriver();
  std::string path = inputsDir() + "/combine.json";
  fa_bundle *b = nullptr;
  ASSERT_EQ(fa_bundle_load(path.c_str(), &b), int(FA_OK));
  EXPECT_EQ(std::string(fa_bundle_op(b)), std::string("combine"));
  std::vector<TensorArg> args = combineTensors(); // the role strings outlive c
  std::vector<fa_tensor> c;
  for (const TensorArg &t : args)
    c.push_back(cTensor(t));
  EXPECT_EQ(fa_bundle_launch(b, c.data(), int(c.size()), nullptr), int(FA_OK))
      << fa_last_error();
  EXPECT_EQ(fake->launches, 1);
  c[3].dtype = FA_DTYPE_BF16;
  EXPECT_EQ(fa_bundle_launch(b, c.data(), int(c.size()), nullptr), int(FA_ERROR_TENSOR));
  EXPECT_NE(std::string(fa_last_error()).find("operand 'lse': dtype is bf16, expected f32"),
            std::string::npos);
  fa_bundle_free(b);
}
