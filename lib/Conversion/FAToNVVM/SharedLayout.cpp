//===- SharedLayout.cpp - A kernel's shared memory, reserved by its parts -===//
#include "SharedLayout.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

SharedRegion SharedLayout::reserve(StringRef part, StringRef what, int64_t bytes, int64_t align) {
  assert(bytes >= 0 && align > 0 && "a region has a size and an alignment");
  int64_t offset = llvm::alignTo(usedBytes(), align);
  SharedRegion region{offset, bytes, /*reserved=*/true};
  entries.push_back({part.str(), what.str(), region});
  return region;
}

const SharedLayout::Entry *SharedLayout::firstOverflow() const {
  for (const Entry &e : entries)
    if (e.region.end() + kSwizzleAlign > kLimit)
      return &e;
  return nullptr;
}

std::string SharedLayout::Entry::describe() const {
  return llvm::formatv("the {0}'s {1} ({2} B at offset {3})", part, what, region.bytes,
                       region.offset)
      .str();
}
