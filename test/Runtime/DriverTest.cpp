//===- DriverTest.cpp - Launch path against missing and fake drivers ------===//
//
// FA_RUNTIME_LIBCUDA selects the driver library: a path that does not exist
// exercises the "no libcuda" path that a GPU-less machine takes, and
// libfa-fake-cuda.so (FA_FAKE_CUDA_PATH) the whole launch without a GPU.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "TestUtil.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

std::unique_ptr<Bundle> bundleWith(const std::string &from = "",
                                   const std::string &to = "") {
  std::string text = exampleBundleText();
  if (!from.empty())
    text = replaceOnce(text, from, to);
  Expected<std::unique_ptr<Bundle>> b = bundleFromText(text);
  EXPECT_OK(b);
  return b.ok() ? std::move(*b) : nullptr;
}

template <typename T> T paramAs(const FakeCudaState *s, int i) {
  T v;
  std::memcpy(&v, s->params[i], sizeof(T));
  return v;
}

} // namespace

TEST(Driver, driver_missing_library) {
  setenv("FA_RUNTIME_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  std::unique_ptr<Bundle> b = bundleWith();
  std::vector<TensorArg> t = exampleTensors();
  Status s = b->launch(t, nullptr);
  EXPECT_ERROR(s, ErrorCode::NoDriver,
              "cannot load the CUDA driver library '/nonexistent/libcuda.so.1' (named by "
              "FA_RUNTIME_LIBCUDA): ");
  EXPECT_ERROR(s, ErrorCode::NoDriver, "Launching needs an NVIDIA GPU driver (libcuda.so.1)");
}

TEST(Driver, driver_default_library) {
  unsetenv("FA_RUNTIME_LIBCUDA");
  std::unique_ptr<Bundle> b = bundleWith();
  std::vector<TensorArg> t = exampleTensors();
  Status s = b->launch(t, nullptr);
  // On a machine without a driver the message must say why. Where one exists
  // the outcome depends on the machine (no GPU, or a launch of the empty stub
  // kernel), so it is only reported.
  if (s.code() == ErrorCode::NoDriver)
    EXPECT_ERROR(s, ErrorCode::NoDriver, "cannot load the CUDA driver library 'libcuda.so.1': ");
  else
    std::cout << "  note: libcuda.so.1 is present here (" << errorCodeName(s.code()) << ")\n";
}

TEST(Driver, driver_missing_entry_points) {
  setenv("FA_RUNTIME_LIBCUDA", "libm.so.6", 1);
  std::unique_ptr<Bundle> b = bundleWith();
  std::vector<TensorArg> t = exampleTensors();
  EXPECT_ERROR(b->launch(t, nullptr), ErrorCode::NoDriver,
              "the CUDA driver library 'libm.so.6' lacks the entry point cuInit");
}

TEST(Driver, fake_no_device) {
  FakeCudaState *fake = useFakeDriver();
  std::unique_ptr<Bundle> b = bundleWith();
  std::vector<TensorArg> t = exampleTensors();
  fake->initResult = 100;
  EXPECT_ERROR(b->launch(t, nullptr), ErrorCode::NoDevice,
              "no CUDA GPU is available: cuInit failed: CUDA_ERROR_NO_DEVICE (100): no "
              "CUDA-capable device is detected");
  fake->initResult = 0;
  fake->deviceCount = 0;
  EXPECT_ERROR(b->launch(t, nullptr), ErrorCode::NoDevice, "cuDeviceGetCount returned 0");
  EXPECT_EQ(fake->launches, 0);
}

TEST(Driver, fake_launch_example) {
  FakeCudaState *fake = useFakeDriver();
  std::unique_ptr<Bundle> b = bundleWith();
  std::vector<TensorArg> t = exampleTensors();
  EXPECT_OK(b->launch(t, nullptr));
  // No current context: device 0's primary context was made current (it is
  // retained once per process, so maybe by an earlier test).
  EXPECT_TRUE(fake->primaryRetains <= 1);
  EXPECT_EQ(fake->setCurrents, 1);
  EXPECT_TRUE(fake->currentCtx == reinterpret_cast<void *>(0xC0C0));
  EXPECT_EQ(fake->moduleLoads, 1);
  EXPECT_EQ(std::string(fake->lastFunctionName), std::string("fa_fwd_bf16_d128"));
  EXPECT_EQ(fake->lastSmemAttr, 197632); // > 48 KiB: attribute raised
  EXPECT_EQ(fake->nonPortableClusterAttr, 0);
  EXPECT_EQ(fake->launches, 1);
  EXPECT_EQ(fake->grid[0], 8u);
  EXPECT_EQ(fake->grid[1], 16u);
  EXPECT_EQ(fake->grid[2], 2u);
  EXPECT_EQ(fake->block[0], 384u);
  EXPECT_EQ(fake->block[1], 1u);
  EXPECT_EQ(fake->sharedMem, 197632u);
  EXPECT_TRUE(fake->stream == nullptr);
  EXPECT_EQ(fake->numAttrs, 0u); // cluster [1,1,1]: no attribute
  // Parameters as the kernel receives them.
  EXPECT_EQ(int(fake->params[0][0]), 0xE1); // first encoded map
  EXPECT_EQ(int(fake->params[0][127]), 0xE1);
  EXPECT_EQ(int(fake->params[1][0]), 0xE2);
  EXPECT_EQ(paramAs<uint64_t>(fake, 2), uint64_t(0x40000000));
  EXPECT_EQ(paramAs<uint64_t>(fake, 3), uint64_t(0x50000000));
  EXPECT_EQ(paramAs<int32_t>(fake, 4), 1000);
  EXPECT_EQ(paramAs<int32_t>(fake, 5), 333);
  EXPECT_EQ(paramAs<float>(fake, 6), float(1.4426950408889634 * 0.08838834764831845));
  // The encoder received the driver's enum values.
  EXPECT_EQ(fake->encodes, 2);
  const FakeEncodeCall &q = fake->lastEncodes[0];
  EXPECT_EQ(q.dataType, 9); // BFLOAT16
  EXPECT_EQ(q.rank, 4u);
  EXPECT_EQ(q.address, uint64_t(0x10000000));
  EXPECT_EQ(q.dims[0], uint64_t(128));
  EXPECT_EQ(q.dims[1], uint64_t(1000));
  EXPECT_EQ(q.strides[0], uint64_t(4096));
  EXPECT_EQ(q.box[1], 128u);
  EXPECT_EQ(q.swizzle, 3);
  EXPECT_EQ(q.l2, 2);
  EXPECT_EQ(q.oob, 0);
  EXPECT_EQ(q.interleave, 0);
}

TEST(Driver, fake_context_cache) {
  FakeCudaState *fake = useFakeDriver();
  {
    std::unique_ptr<Bundle> b = bundleWith();
    std::vector<TensorArg> t = exampleTensors();
    EXPECT_OK(b->launch(t, nullptr));
    EXPECT_OK(b->launch(t, nullptr));
    EXPECT_EQ(fake->moduleLoads, 1); // cached for the context
    EXPECT_EQ(fake->launches, 2);
    // A stream of another context: the module is loaded there, the context
    // is pushed for the launch and popped after.
    void *stream = reinterpret_cast<void *>(0x5000);
    EXPECT_OK(b->launch(t, stream));
    EXPECT_EQ(fake->moduleLoads, 2);
    EXPECT_TRUE(fake->launchCtx == reinterpret_cast<void *>(0x5100));
    EXPECT_TRUE(fake->stream == stream);
    EXPECT_EQ(fake->pushes, 1);
    EXPECT_EQ(fake->pops, 1);
    EXPECT_OK(b->launch(t, stream));
    EXPECT_EQ(fake->moduleLoads, 2);
    EXPECT_EQ(fake->pushes, fake->pops);
    EXPECT_TRUE(fake->currentCtx == reinterpret_cast<void *>(0xC0C0));
  }
  EXPECT_EQ(fake->moduleUnloads, 2); // one per context, when the bundle dies
}

TEST(Driver, fake_driver_errors) {
  FakeCudaState *fake = useFakeDriver();
  std::unique_ptr<Bundle> b = bundleWith();
  std::vector<TensorArg> t = exampleTensors();
  fake->moduleLoadResult = 200;
  EXPECT_ERROR(b->launch(t, nullptr), ErrorCode::Driver,
              "stub_kernels.cubin': cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (200): "
              "device kernel image is invalid");
  fake->moduleLoadResult = 0;
  fake->getFunctionResult = 500;
  EXPECT_ERROR(b->launch(t, nullptr), ErrorCode::Driver,
              "kernel 'fa_fwd_bf16_d128': cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND");
  EXPECT_EQ(fake->moduleUnloads, 1); // the half-loaded module was released
  fake->getFunctionResult = 0;
  fake->encodeResult = 1;
  EXPECT_ERROR(b->launch(t, nullptr), ErrorCode::Driver,
              "params[0] (tensor_map of 'query'): cuTensorMapEncodeTiled failed: "
              "CUDA_ERROR_INVALID_VALUE (1): invalid argument [data type 9, rank 4, address "
              "0x10000000, dims {128, 1000, 16, 2}, strides (bytes) {4096, 256, 4096000}, box "
              "{64, 128, 1, 1}, swizzle 3]");
  fake->encodeResult = 0;
  fake->launchResult = 701;
  EXPECT_ERROR(b->launch(t, nullptr), ErrorCode::Driver,
              "kernel 'fa_fwd_bf16_d128': cuLaunchKernelEx failed: "
              "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (701): too many resources requested");
  fake->launchResult = 999;
  EXPECT_ERROR(b->launch(t, nullptr), ErrorCode::Driver,
              "cuLaunchKernelEx failed: unknown CUDA error (999): no description");
  fake->launchResult = 0;
  EXPECT_OK(b->launch(t, nullptr)); // failures were not cached
  EXPECT_EQ(fake->launches, 1);
  // Operand errors come through launch too.
  find(t, "key").dtype = DType::F16;
  EXPECT_ERROR(b->launch(t, nullptr), ErrorCode::Tensor,
              "operand 'key': dtype is f16, expected bf16");
}

TEST(Driver, fake_unsupported_device) {
  FakeCudaState *fake = useFakeDriver();
  std::vector<TensorArg> t = exampleTensors();
  fake->ccMajor = 8;
  EXPECT_ERROR(bundleWith()->launch(t, nullptr), ErrorCode::UnsupportedDevice,
              "kernel 'fa_fwd_bf16_d128' is compiled for sm_90a, which device 0 (sm_80) "
              "cannot run");
  fake->ccMajor = 10;
  EXPECT_ERROR(bundleWith()->launch(t, nullptr), ErrorCode::UnsupportedDevice, "(sm_100)");
  // Without the "a" suffix later minors of the same major are fine.
  fake->ccMajor = 9;
  fake->ccMinor = 1;
  EXPECT_ERROR(bundleWith()->launch(t, nullptr), ErrorCode::UnsupportedDevice, "(sm_91)");
  EXPECT_OK(bundleWith(R"("sm_90a")", R"("sm_90")")->launch(t, nullptr));
  fake->ccMinor = 0;
  fake->maxSmemOptin = 100000;
  EXPECT_ERROR(bundleWith()->launch(t, nullptr), ErrorCode::UnsupportedDevice,
              "needs 197632 bytes of shared memory but device 0 (sm_90) allows at most "
              "100000");
  EXPECT_EQ(fake->moduleLoads, 1);
}

TEST(Driver, fake_kernel_signature) {
  FakeCudaState *fake = useFakeDriver();
  std::vector<TensorArg> t = exampleTensors();
  fake->numKernelParams = 6;
  EXPECT_ERROR(bundleWith()->launch(t, nullptr), ErrorCode::InvalidBundle,
              "kernel 'fa_fwd_bf16_d128' takes 6 parameters but the bundle lists 7");
  fake->numKernelParams = -1;
  fake->kernelParamSizes[4] = 8;
  EXPECT_ERROR(bundleWith()->launch(t, nullptr), ErrorCode::InvalidBundle,
              "params[4] (i32) is 4 bytes but parameter 4 of kernel 'fa_fwd_bf16_d128' is 8 "
              "bytes");
  EXPECT_EQ(fake->moduleLoads, fake->moduleUnloads);
  EXPECT_EQ(fake->launches, 0);
}

TEST(Driver, fake_cluster_and_shared_memory) {
  FakeCudaState *fake = useFakeDriver();
  std::vector<TensorArg> t = exampleTensors();
  EXPECT_OK(bundleWith("[1, 1, 1]", "[2, 1, 1]")->launch(t, nullptr));
  EXPECT_EQ(fake->numAttrs, 1u);
  EXPECT_EQ(fake->attrId, 4); // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
  EXPECT_EQ(fake->cluster[0], 2u);
  EXPECT_EQ(fake->cluster[1], 1u);
  EXPECT_EQ(fake->cluster[2], 1u);
  EXPECT_EQ(fake->nonPortableClusterAttr, 0);
  std::vector<TensorArg> t2 = exampleTensors(2048, 333);
  EXPECT_OK(bundleWith("[1, 1, 1]", "[16, 1, 1]")->launch(t2, nullptr));
  EXPECT_EQ(fake->nonPortableClusterAttr, 1);
  EXPECT_EQ(fake->cluster[0], 16u);
  // 48 KiB or less: the attribute is left alone.
  fake = useFakeDriver();
  EXPECT_OK(bundleWith("197632", "49152")->launch(t, nullptr));
  EXPECT_EQ(fake->funcAttrCalls, 0);
  EXPECT_EQ(fake->sharedMem, 49152u);
}

TEST(Driver, fake_global_tensor_map) {
  FakeCudaState *fake = useFakeDriver();
  fake->kernelParamSizes[1] = 8;
  std::unique_ptr<Bundle> b = bundleWith(R"({"kind": "tensor_map", "operand": "key")",
                                         R"({"kind": "tensor_map_global", "operand": "key")");
  std::vector<TensorArg> t = exampleTensors();
  EXPECT_OK(b->launch(t, nullptr));
  EXPECT_EQ(fake->allocs, 1);
  EXPECT_EQ(fake->copies, 1);
  EXPECT_EQ(fake->frees, 1);
  EXPECT_EQ(fake->lastFree, fake->lastAlloc);
  EXPECT_EQ(paramAs<uint64_t>(fake, 1), fake->lastAlloc); // pointer patched in
  EXPECT_EQ(int(fake->deviceMaps[0][0]), 0xE2);           // the key's descriptor
  EXPECT_EQ(int(fake->deviceMaps[0][127]), 0xE2);
  EXPECT_EQ(paramAs<uint64_t>(fake, 2), uint64_t(0x40000000));
}

TEST(Driver, fake_empty_launch) {
  FakeCudaState *fake = useFakeDriver();
  std::vector<TensorArg> t = exampleTensors(0, 333);
  EXPECT_OK(bundleWith()->launch(t, nullptr));
  EXPECT_EQ(fake->launches, 0);
  EXPECT_EQ(fake->encodes, 0);
}

TEST(Driver, fake_launch_bias_strides) {
  // The strides of a broadcast bias, as the kernel receives them.
  FakeCudaState *fake = useFakeDriver();
  const size_t sizes[] = {128, 128, 8, 8, 4, 4, 8, 8, 8, 8, 4};
  for (int i = 0; i < 11; ++i)
    fake->kernelParamSizes[i] = sizes[i];
  Expected<std::unique_ptr<Bundle>> b =
      bundleFromText(readInput("attention_fwd_bias.json"));
  EXPECT_OK(b);
  if (!b.ok())
    return;
  std::vector<TensorArg> t = exampleTensors();
  t.push_back(tensor("bias", DType::F32, {2, 1, 1000, 333}, 0x60000000));
  t.back().strides = {1000 * 336, 7, 336, 1}; // seq_k padded to 336
  EXPECT_OK((*b)->launch(t, nullptr));
  EXPECT_EQ(fake->launches, 1);
  EXPECT_EQ(paramAs<uint64_t>(fake, 6), uint64_t(0x60000000));
  EXPECT_EQ(paramAs<int64_t>(fake, 7), int64_t(1000 * 336)); // batch
  EXPECT_EQ(paramAs<int64_t>(fake, 8), int64_t(0));          // head: broadcast
  EXPECT_EQ(paramAs<int64_t>(fake, 9), int64_t(336));        // seq_q
  EXPECT_EQ(paramAs<float>(fake, 10), float(1.4426950408889634 * 0.08838834764831845));
  useFakeDriver(); // back to the example's kernel for the tests that follow
}
