//===- CApiTest.cpp - fa_runtime.h ----------------------------------------===//
#include "TestUtil.h"

#include "fa/Runtime/fa_runtime.h"

#include <cstdlib>
#include <cstring>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

fa_tensor cTensor(const char *role, int32_t dtype, std::vector<int64_t> sizes,
                  uint64_t data) {
  fa_tensor t;
  std::memset(&t, 0, sizeof(t));
  t.role = role;
  t.data = reinterpret_cast<void *>(data);
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(sizes.size());
  std::vector<int64_t> strides = contiguousStrides(sizes);
  for (size_t i = 0; i < sizes.size(); ++i) {
    t.sizes[i] = sizes[i];
    t.strides[i] = strides[i];
  }
  return t;
}

std::vector<fa_tensor> cExampleTensors() {
  return {
      cTensor("query", FA_DTYPE_BF16, {2, 1000, 16, 128}, 0x10000000),
      cTensor("key", FA_DTYPE_BF16, {2, 333, 4, 128}, 0x20000000),
      cTensor("value", FA_DTYPE_BF16, {2, 333, 4, 128}, 0x30000000),
      cTensor("output", FA_DTYPE_BF16, {2, 1000, 16, 128}, 0x40000000),
      cTensor("lse", FA_DTYPE_F32, {2, 16, 1000}, 0x50000000),
  };
}

bool contains(const char *text, const std::string &part) {
  return text && std::string(text).find(part) != std::string::npos;
}

} // namespace

TEST(CApi, capi_abi) {
  EXPECT_EQ(sizeof(fa_tensor), size_t(8 + 8 + 4 + 4 + 64 + 64));
  EXPECT_EQ(offsetof(fa_tensor, sizes), size_t(24));
  EXPECT_EQ(fa_runtime_abi_version(), FA_RUNTIME_ABI_VERSION);
  EXPECT_EQ(fa_bundle_format_version(), 1);
  EXPECT_EQ(std::string(fa_status_name(FA_OK)), std::string("FA_OK"));
  EXPECT_EQ(std::string(fa_status_name(FA_ERROR_TENSOR)), std::string("FA_ERROR_TENSOR"));
  EXPECT_EQ(std::string(fa_status_name(99)), std::string("FA_ERROR_UNKNOWN"));
  EXPECT_EQ(std::string(fa_status_name(-1)), std::string("FA_ERROR_UNKNOWN"));
  EXPECT_EQ(int(FA_ERROR_INTERNAL), int(ErrorCode::Internal));
  EXPECT_EQ(int(FA_DTYPE_U8), int(DType::U8));
  EXPECT_EQ(std::string(fa_dtype_name(FA_DTYPE_BF16)), std::string("bf16"));
  EXPECT_TRUE(fa_dtype_name(42) == nullptr);
  int32_t d = -1;
  EXPECT_EQ(fa_dtype_from_name("f8E4M3FN", &d), int(FA_OK));
  EXPECT_EQ(d, int32_t(FA_DTYPE_F8E4M3FN));
  EXPECT_EQ(fa_dtype_from_name("float", &d), int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_TRUE(contains(fa_last_error(), "unknown dtype \"float\""));
  EXPECT_EQ(fa_dtype_from_name(nullptr, &d), int(FA_ERROR_INVALID_ARGUMENT));
}

TEST(CApi, capi_load_and_query) {
  std::string path = inputsDir() + "/attention_fwd.json";
  fa_bundle *b = nullptr;
  EXPECT_EQ(fa_bundle_load(path.c_str(), &b), int(FA_OK));
  EXPECT_EQ(std::string(fa_last_error()), std::string(""));
  if (!b)
    return;
  EXPECT_EQ(std::string(fa_bundle_kernel_name(b)), std::string("fa_fwd_bf16_d128"));
  EXPECT_EQ(std::string(fa_bundle_op(b)), std::string("attention_fwd"));
  EXPECT_EQ(std::string(fa_bundle_chip(b)), std::string("sm_90a"));
  EXPECT_TRUE(contains(fa_bundle_config_json(b), "\"head_dim\":128"));
  EXPECT_TRUE(contains(fa_bundle_json(b), "\"format\":\"fa-kernel-bundle\""));
  EXPECT_EQ(std::string(fa_bundle_required_operands(b)),
           std::string("query,key,value,output,lse"));
  EXPECT_EQ(fa_bundle_num_params(b), 7);
  fa_bundle_free(b);
  fa_bundle_free(nullptr); // allowed, like free()

  fa_bundle *bad = reinterpret_cast<fa_bundle *>(0x1);
  std::string wrong = inputsDir() + "/wrong_kernel.json";
  EXPECT_EQ(fa_bundle_load(wrong.c_str(), &bad), int(FA_ERROR_INVALID_BUNDLE));
  EXPECT_TRUE(bad == nullptr);
  EXPECT_TRUE(contains(fa_last_error(), "defines no kernel named \"fa_fwd_missing\""));
  std::string syntax = inputsDir() + "/bad_syntax.json";
  EXPECT_EQ(fa_bundle_load(syntax.c_str(), &bad), int(FA_ERROR_PARSE));
  EXPECT_TRUE(contains(fa_last_error(), "line 17, column 11"));
  EXPECT_EQ(fa_bundle_load("/nonexistent.json", &bad), int(FA_ERROR_IO));
  EXPECT_EQ(fa_bundle_load(nullptr, &bad), int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_EQ(fa_bundle_load(path.c_str(), nullptr), int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_TRUE(contains(fa_last_error(), "fa_bundle_load: null argument"));
  EXPECT_EQ(std::string(fa_bundle_kernel_name(nullptr)), std::string(""));
  EXPECT_EQ(fa_bundle_num_params(nullptr), -1);
}

TEST(CApi, capi_check_and_launch) {
  std::string path = inputsDir() + "/attention_fwd.json";
  fa_bundle *b = nullptr;
  EXPECT_EQ(fa_bundle_load(path.c_str(), &b), int(FA_OK));
  if (!b)
    return;
  std::vector<fa_tensor> t = cExampleTensors();
  uint32_t grid[3] = {0, 0, 0};
  EXPECT_EQ(fa_bundle_check(b, t.data(), int(t.size()), 132, grid), int(FA_OK));
  EXPECT_EQ(grid[0], 8u);
  EXPECT_EQ(grid[1], 16u);
  EXPECT_EQ(grid[2], 2u);
  EXPECT_EQ(fa_bundle_check(b, t.data(), int(t.size()), 132, nullptr), int(FA_OK));

  t[1].sizes[0] = 3;
  EXPECT_EQ(fa_bundle_check(b, t.data(), int(t.size()), 132, grid), int(FA_ERROR_TENSOR));
  EXPECT_TRUE(contains(fa_last_error(),
                 "operand 'key': dimension 0 (batch) is 3, expected 2 (batch, from 'query')"));
  t = cExampleTensors();
  t[0].data = reinterpret_cast<void *>(0x10000008);
  EXPECT_EQ(fa_bundle_check(b, t.data(), int(t.size()), 132, grid), int(FA_ERROR_TENSOR));
  EXPECT_TRUE(contains(fa_last_error(), "is not 16-byte aligned, as TMA requires"));
  t = cExampleTensors();
  EXPECT_EQ(fa_bundle_check(b, t.data(), 4, 132, grid), int(FA_ERROR_TENSOR));
  EXPECT_TRUE(contains(fa_last_error(), "missing operand 'lse'"));
  t[2].rank = 9;
  EXPECT_EQ(fa_bundle_check(b, t.data(), int(t.size()), 132, grid),
           int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_TRUE(contains(fa_last_error(), "tensors[2] ('value'): rank 9 is not in [0, 8]"));
  t = cExampleTensors();
  t[3].dtype = 77;
  EXPECT_EQ(fa_bundle_check(b, t.data(), int(t.size()), 132, grid),
           int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_TRUE(contains(fa_last_error(), "tensors[3] ('output'): unknown dtype value 77"));
  t = cExampleTensors();
  t[4].role = nullptr;
  EXPECT_EQ(fa_bundle_check(b, t.data(), int(t.size()), 132, grid),
           int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_TRUE(contains(fa_last_error(), "tensors[4]: role is null"));
  EXPECT_EQ(fa_bundle_check(b, nullptr, 3, 132, grid), int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_EQ(fa_bundle_check(nullptr, nullptr, 0, 132, grid), int(FA_ERROR_INVALID_ARGUMENT));

  // No driver: launch fails cleanly and says why.
  setenv("FA_RUNTIME_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  t = cExampleTensors();
  EXPECT_EQ(fa_bundle_launch(b, t.data(), int(t.size()), nullptr), int(FA_ERROR_NO_DRIVER));
  EXPECT_TRUE(contains(fa_last_error(), "cannot load the CUDA driver library"));
  int devices = -1;
  EXPECT_EQ(fa_driver_check(&devices), int(FA_ERROR_NO_DRIVER));
  EXPECT_EQ(devices, 0);
  EXPECT_EQ(fa_bundle_launch(nullptr, t.data(), 5, nullptr), int(FA_ERROR_INVALID_ARGUMENT));

  // Through the fake driver the same call launches.
  setenv("FA_RUNTIME_LIBCUDA", FA_FAKE_CUDA_PATH, 1);
  EXPECT_EQ(fa_driver_check(&devices), int(FA_OK));
  EXPECT_EQ(devices, 1);
  EXPECT_EQ(fa_bundle_launch(b, t.data(), int(t.size()), nullptr), int(FA_OK));
  EXPECT_EQ(std::string(fa_last_error()), std::string(""));
  fa_bundle_free(b);
  unsetenv("FA_RUNTIME_LIBCUDA");
}

TEST(CApi, capi_bias_strides) {
  // Inputs/attention_fwd_bias.json: the example plus a bias pointer and
  // stride(bias, batch|head|seq_q) as i64 parameters.
  std::string path = inputsDir() + "/attention_fwd_bias.json";
  fa_bundle *b = nullptr;
  EXPECT_EQ(fa_bundle_load(path.c_str(), &b), int(FA_OK));
  if (!b)
    return;
  EXPECT_EQ(std::string(fa_bundle_required_operands(b)),
           std::string("query,key,value,output,lse,bias"));
  EXPECT_EQ(fa_bundle_num_params(b), 11);
  std::vector<fa_tensor> t = cExampleTensors();
  uint32_t grid[3] = {0, 0, 0};
  EXPECT_EQ(fa_bundle_check(b, t.data(), int(t.size()), 132, grid), int(FA_ERROR_TENSOR));
  EXPECT_TRUE(contains(fa_last_error(), "missing operand 'bias'"));
  // A broadcast bias [1, 1, Sq, Sk] whose leading strides are anything.
  t.push_back(cTensor("bias", FA_DTYPE_F32, {1, 1, 1000, 333}, 0x60000000));
  t.back().strides[0] = 0;
  t.back().strides[1] = 12345;
  EXPECT_EQ(fa_bundle_check(b, t.data(), int(t.size()), 132, grid), int(FA_OK));
  EXPECT_EQ(grid[0], 8u);
  fa_bundle_free(b);
}
