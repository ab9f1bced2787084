//===- DeviceMemoryTest.cpp - Embedded bundles and device buffers ---------===//
//
// What a compiled host program calls to run its attention without CUDA of
// its own: a bundle loaded from memory, device buffers allocated, filled,
// read back and freed through the runtime's driver (the fake one here).
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "TestUtil.h"

#include "fa/Runtime/fa_runtime.h"

#include <cstdlib>
#include <cstring>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

bool contains(const char *text, const std::string &part) {
  return std::string(text).find(part) != std::string::npos;
}

void *const kStream = reinterpret_cast<void *>(0x5000);

} // namespace

TEST(DeviceMemory, capi_load_from_memory) {
  std::string json = exampleBundleText();
  std::string image = readInput("stub_kernels.cubin");
  fa_bundle *b = nullptr;
  EXPECT_EQ(fa_bundle_load_from_memory(json.data(), json.size(), image.data(),
                                       image.size(), &b),
            int(FA_OK));
  if (!b)
    return;
  EXPECT_EQ(std::string(fa_bundle_kernel_name(b)),
            std::string("fa_fwd_bf16_d128"));
  EXPECT_EQ(std::string(fa_bundle_required_operands(b)),
            std::string("query,key,value,output,lse"));
  fa_bundle_free(b);

  // The JSON is validated as from a file, and errors say where it came from.
  std::string broken = replaceOnce(json, "\"kernel\"", "\"kernels\"");
  fa_bundle *bad = reinterpret_cast<fa_bundle *>(0x1);
  EXPECT_NE(fa_bundle_load_from_memory(broken.data(), broken.size(),
                                       image.data(), image.size(), &bad),
            int(FA_OK));
  EXPECT_TRUE(bad == nullptr);
  EXPECT_TRUE(contains(fa_last_error(), "bundle in memory"));
  // An image without the bundle's kernel is refused.
  std::string other = "not an image";
  EXPECT_EQ(fa_bundle_load_from_memory(json.data(), json.size(), other.data(),
                                       other.size(), &bad),
            int(FA_ERROR_INVALID_BUNDLE));
  EXPECT_EQ(
      fa_bundle_load_from_memory(nullptr, 0, image.data(), image.size(), &bad),
      int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_TRUE(contains(fa_last_error(), "fa_bundle_load_from_memory: null"));
}

TEST(DeviceMemory, capi_device_memory_without_driver) {
  setenv("FA_RUNTIME_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  void *ptr = reinterpret_cast<void *>(0x1);
  EXPECT_EQ(fa_device_alloc(256, nullptr, &ptr), int(FA_ERROR_NO_DRIVER));
  EXPECT_TRUE(ptr == nullptr);
  EXPECT_TRUE(contains(fa_last_error(), "/nonexistent/libcuda.so.1"));
  char host[4];
  EXPECT_EQ(fa_copy_to_host(host, reinterpret_cast<void *>(0x7000), 4, nullptr),
            int(FA_ERROR_NO_DRIVER));
  EXPECT_EQ(fa_stream_synchronize(nullptr), int(FA_ERROR_NO_DRIVER));
  unsetenv("FA_RUNTIME_LIBCUDA");
}

TEST(DeviceMemory, capi_device_memory_round_trip) {
  FakeCudaState *s = useFakeDriver();
  void *dev = nullptr;
  EXPECT_EQ(fa_device_alloc(4096, kStream, &dev), int(FA_OK));
  EXPECT_EQ(s->allocs, 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(dev), uintptr_t(s->lastAlloc));
  EXPECT_EQ(s->events[0].kind, int(kFakeAlloc));
  EXPECT_EQ(s->events[0].count, uint64_t(4096));
  EXPECT_EQ(s->events[0].stream, kStream);

  char host[64] = "query";
  EXPECT_EQ(fa_copy_to_device(dev, host, sizeof host, kStream), int(FA_OK));
  EXPECT_EQ(s->lastCopyDst, uint64_t(reinterpret_cast<uintptr_t>(dev)));
  EXPECT_EQ(s->lastCopySrc, uint64_t(reinterpret_cast<uintptr_t>(host)));
  EXPECT_EQ(s->lastCopyBytes, uint64_t(sizeof host));
  EXPECT_EQ(s->lastCopyStream, kStream);

  EXPECT_EQ(fa_copy_to_host(host, dev, 16, kStream), int(FA_OK));
  EXPECT_EQ(s->copiesToHost, 1);
  EXPECT_EQ(s->lastCopyDst, uint64_t(reinterpret_cast<uintptr_t>(host)));
  EXPECT_EQ(s->lastCopySrc, uint64_t(reinterpret_cast<uintptr_t>(dev)));
  EXPECT_EQ(s->lastCopyBytes, uint64_t(16));

  EXPECT_EQ(fa_stream_synchronize(kStream), int(FA_OK));
  EXPECT_EQ(s->syncs, 1);
  EXPECT_EQ(s->lastSyncStream, kStream);

  EXPECT_EQ(fa_device_free(dev, kStream), int(FA_OK));
  EXPECT_EQ(s->frees, 1);
  EXPECT_EQ(s->lastFree, uint64_t(reinterpret_cast<uintptr_t>(dev)));
  EXPECT_EQ(fa_device_free(nullptr, kStream), int(FA_OK)); // like free()
  EXPECT_EQ(s->frees, 1);
  unsetenv("FA_RUNTIME_LIBCUDA");
}

TEST(DeviceMemory, capi_device_memory_errors) {
  FakeCudaState *s = useFakeDriver();
  s->allocFailAt = 1;
  void *dev = reinterpret_cast<void *>(0x1);
  EXPECT_EQ(fa_device_alloc(1 << 20, nullptr, &dev), int(FA_ERROR_DRIVER));
  EXPECT_TRUE(dev == nullptr);
  EXPECT_TRUE(contains(fa_last_error(), "cuMemAllocAsync"));
  EXPECT_EQ(fa_device_alloc(16, nullptr, nullptr),
            int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_EQ(fa_copy_to_device(nullptr, &dev, 8, nullptr),
            int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_TRUE(contains(fa_last_error(), "fa_copy_to_device: null pointer"));
  EXPECT_EQ(fa_copy_to_host(&dev, nullptr, 8, nullptr),
            int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_EQ(s->copies + s->copiesToHost, 0);
  unsetenv("FA_RUNTIME_LIBCUDA");
}

namespace {

/// fa_launch_embedded's words for the example bundle's operands (the
/// shapes of CApiTest's), at made-up host addresses.
std::vector<int64_t> exampleWords() {
  struct Operand {
    int64_t address, dtype, direction;
    std::vector<int64_t> sizes;
  };
  std::vector<Operand> operands = {
      {0x10000000, FA_DTYPE_BF16, 1, {2, 1000, 16, 128}},
      {0x20000000, FA_DTYPE_BF16, 1, {2, 333, 4, 128}},
      {0x30000000, FA_DTYPE_BF16, 1, {2, 333, 4, 128}},
      {0x40000000, FA_DTYPE_BF16, 2, {2, 1000, 16, 128}},
      {0x50000000, FA_DTYPE_F32, 2, {2, 16, 1000}}};
  std::vector<int64_t> words;
  for (const Operand &o : operands) {
    words.insert(words.end(),
                 {o.address, o.dtype, o.direction, int64_t(o.sizes.size())});
    words.insert(words.end(), o.sizes.begin(), o.sizes.end());
    std::vector<int64_t> strides = contiguousStrides(o.sizes);
    words.insert(words.end(), strides.begin(), strides.end());
  }
  return words;
}

const char *const kRoles = "query,key,value,output,lse";

} // namespace

TEST(DeviceMemory, capi_launch_embedded) {
  FakeCudaState *s = useFakeDriver();
  std::string json = exampleBundleText();
  std::string image = readInput("stub_kernels.cubin");
  std::vector<int64_t> words = exampleWords();
  void *cache = nullptr;
  EXPECT_EQ(fa_launch_embedded(json.data(), int64_t(json.size()), image.data(),
                               int64_t(image.size()), &cache, kRoles, 5,
                               words.data()),
            int(FA_OK))
      << fa_last_error();
  EXPECT_TRUE(cache != nullptr);
  // Five buffers of the operands' sizes; the three inputs copied in, the
  // output and the LSE copied back; all freed; one launch.
  EXPECT_EQ(s->allocs, 5);
  EXPECT_EQ(s->events[0].count, uint64_t(2 * 1000 * 16 * 128 * 2));
  EXPECT_EQ(s->copies, 3);
  EXPECT_EQ(s->copiesToHost, 2);
  EXPECT_EQ(s->lastCopyDst, uint64_t(0x50000000)); // the LSE, last
  EXPECT_EQ(s->lastCopyBytes, uint64_t(2 * 16 * 1000 * 4));
  EXPECT_EQ(s->frees, 5);
  EXPECT_EQ(s->launches, 1);
  EXPECT_EQ(s->moduleLoads, 1);

  // The call site's bundle is loaded once.
  EXPECT_EQ(fa_launch_embedded(json.data(), int64_t(json.size()), image.data(),
                               int64_t(image.size()), &cache, kRoles, 5,
                               words.data()),
            int(FA_OK));
  EXPECT_EQ(s->launches, 2);
  EXPECT_EQ(s->moduleLoads, 1);
  fa_bundle_free(static_cast<fa_bundle *>(cache));
  unsetenv("FA_RUNTIME_LIBCUDA");
}

TEST(DeviceMemory, capi_launch_embedded_errors) {
  FakeCudaState *s = useFakeDriver();
  std::string json = exampleBundleText();
  std::string image = readInput("stub_kernels.cubin");
  std::vector<int64_t> words = exampleWords();
  void *cache = nullptr;
  auto launch = [&](const char *roles, int64_t n) {
    return fa_launch_embedded(json.data(), int64_t(json.size()), image.data(),
                              int64_t(image.size()), &cache, roles, n,
                              words.data());
  };
  EXPECT_EQ(launch("query,key,value,output", 5),
            int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_TRUE(contains(fa_last_error(), "4 roles for 5 operands"));
  words[2] = 7; // the query's direction
  EXPECT_EQ(launch(kRoles, 5), int(FA_ERROR_INVALID_ARGUMENT));
  EXPECT_TRUE(contains(fa_last_error(), "operand 'query' has direction 7"));
  words = exampleWords();
  words[1] = FA_DTYPE_F16; // the query's dtype
  EXPECT_EQ(launch(kRoles, 5), int(FA_ERROR_TENSOR));
  EXPECT_TRUE(contains(fa_last_error(), "'query'"));
  EXPECT_EQ(s->allocs, 0); // checked before anything is allocated

  // A failing launch frees what it allocated and names the kernel.
  words = exampleWords();
  s->launchFailAt = 1;
  int allocs = s->allocs;
  EXPECT_EQ(launch(kRoles, 5), int(FA_ERROR_DRIVER));
  EXPECT_TRUE(contains(fa_last_error(), "fa_fwd_bf16_d128"));
  EXPECT_EQ(s->allocs, allocs + 5);
  EXPECT_EQ(s->frees, s->allocs);
  EXPECT_EQ(s->copiesToHost, 0);

  // An embedded bundle that does not load is reported as such.
  void *fresh = nullptr;
  std::string broken = "{}";
  EXPECT_EQ(fa_launch_embedded(broken.data(), 2, image.data(),
                               int64_t(image.size()), &fresh, kRoles, 5,
                               words.data()),
            int(FA_ERROR_INVALID_BUNDLE));
  EXPECT_TRUE(contains(fa_last_error(), "embedded bundle: "));
  EXPECT_TRUE(fresh == nullptr);
  fa_bundle_free(static_cast<fa_bundle *>(cache));
  unsetenv("FA_RUNTIME_LIBCUDA");
}
