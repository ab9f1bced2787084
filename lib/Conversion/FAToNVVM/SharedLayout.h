//===- SharedLayout.h - A kernel's shared memory, reserved by its parts -*- C++ -*-===//
//
// FlashAttention-3 gives each part of a kernel (mainloop, epilogue, tile
// scheduler) its own SharedStorage struct, and the kernel lays them out
// side by side. Here each part reserves its named regions of one
// SharedLayout, in the order the kernel composes the parts; the kernel
// reads each region's offset from what the part kept, and the bytes to
// request (checked against what an sm_90a CTA may use) from the layout.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_SHAREDLAYOUT_H
#define FA_LIB_CONVERSION_FATONVVM_SHAREDLAYOUT_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::fa::nvvm_kernel {

/// One region of a kernel's dynamic shared memory: bytes from the
/// 1024-aligned base (KernelBuilder::alignedSharedBase).
struct SharedRegion {
  int64_t offset = 0, bytes = 0;
  bool reserved = false; // absent where the configuration has no such part
  explicit operator bool() const { return reserved; }
  int64_t end() const { return offset + bytes; }
  /// Entry `index` of a region of `stride`-byte entries (a ring's slot).
  int64_t at(int64_t index, int64_t stride) const { return offset + index * stride; }
  /// mbarrier `index` of a region of mbarriers.
  int64_t barrier(int64_t index) const { return at(index, 8); }
};

/// The regions of one kernel's shared memory in reservation order.
class SharedLayout {
public:
  /// 128B-swizzled boxes (TMA destinations, wgmma operands) start on 1024
  /// bytes: the swizzle phase comes from address bits 7-9.
  static constexpr int64_t kSwizzleAlign = 1024;
  /// Dynamic shared memory an sm_90a CTA may use.
  static constexpr int64_t kLimit = 227 * 1024;

  struct Entry {
    std::string part; // who owns it: "mainloop", "tile scheduler", ...
    std::string what; // "K ring", "tile handover barriers", ...
    SharedRegion region;
    /// "the mainloop's V ring (65536 B at offset 98304)".
    std::string describe() const;
  };

  /// Reserves `bytes` for `part`'s `what` at the first multiple of `align`
  /// past the regions reserved before.
  SharedRegion reserve(StringRef part, StringRef what, int64_t bytes, int64_t align);
  /// `count` mbarriers (8 bytes each, 8-aligned).
  SharedRegion reserveBarriers(StringRef part, StringRef what, int64_t count) {
    return reserve(part, what, 8 * count, 8);
  }

  /// Bytes from the aligned base to the end of the last region.
  int64_t usedBytes() const { return entries.empty() ? 0 : entries.back().region.end(); }
  /// The dynamic shared memory to request: the regions and the slack that
  /// rounding the base up to kSwizzleAlign at run time may take.
  int64_t requestBytes() const { return usedBytes() + kSwizzleAlign; }
  bool fits() const { return requestBytes() <= kLimit; }
  /// The first region that ends past what fits (with the slack); null when
  /// every region fits.
  const Entry *firstOverflow() const;
  ArrayRef<Entry> regions() const { return entries; }

private:
  SmallVector<Entry> entries;
};

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_SHAREDLAYOUT_H
