//===- FileLimitsTest.cpp - What Bundle::load refuses to read -------------===//
//
// A bundle names its image by path; a path to a device, a FIFO, a directory
// or a huge file must be an error, not a read that never ends.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <climits>
#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

/// The example bundle, its "cubin" field set to `cubin`, written to `dir`.
std::string writeBundle(const std::string &dir, const std::string &cubin) {
  std::string text = replaceOnce(exampleBundleText(),
                                 "\"cubin\": \"stub_kernels.cubin\"",
                                 "\"cubin\": \"" + cubin + "\"");
  std::string path = dir + "/bundle.json";
  std::ofstream(path) << text;
  return path;
}

} // namespace

TEST(FileLimits, DeviceImageIsRefused) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  EXPECT_ERROR(Bundle::load(writeBundle(dir.path(), "/dev/zero")),
               ErrorCode::Io, "'/dev/zero' is not a regular file");
}

TEST(FileLimits, FifoImageIsRefusedWithoutBlocking) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string fifo = dir.path() + "/image.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_ERROR(Bundle::load(writeBundle(dir.path(), fifo)), ErrorCode::Io,
               "is not a regular file");
}

TEST(FileLimits, DirectoryImageIsRefused) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  EXPECT_ERROR(Bundle::load(writeBundle(dir.path(), dir.path())),
               ErrorCode::Io, "is not a regular file");
}

TEST(FileLimits, OversizedImageIsRefused) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  // Sparse: no disk space is used for the size.
  std::string image = dir.path() + "/huge.cubin";
  std::ofstream(image).close();
  ASSERT_EQ(::truncate(image.c_str(), kMaxImageBytes + 1), 0);
  EXPECT_ERROR(Bundle::load(writeBundle(dir.path(), image)), ErrorCode::Io,
               "bytes; at most " + std::to_string(kMaxImageBytes));
}

TEST(FileLimits, BundleJsonMustBeASmallRegularFile) {
  EXPECT_ERROR(Bundle::load("/dev/zero"), ErrorCode::Io,
               "'/dev/zero' is not a regular file");
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string json = dir.path() + "/big.json";
  std::ofstream(json).close();
  ASSERT_EQ(::truncate(json.c_str(), kMaxBundleJsonBytes + 1), 0);
  EXPECT_ERROR(Bundle::load(json), ErrorCode::Io,
               "bytes; at most " + std::to_string(kMaxBundleJsonBytes));
}

TEST(FileLimits, RegularImageStillLoads) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string image = inputsDir() + "/stub_kernels.cubin";
  char resolved[PATH_MAX];
  ASSERT_TRUE(::realpath(image.c_str(), resolved));
  EXPECT_OK(Bundle::load(writeBundle(dir.path(), resolved)));
}
