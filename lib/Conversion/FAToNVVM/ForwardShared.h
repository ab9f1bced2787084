//===- ForwardShared.h - The forward kernel's shared memory, by part -*- C++ -*-===//
//
// Who owns which region (docs/HopperKernel.md, "Shared memory, by part"),
// in the order ForwardShared::plan reserves them from the 1024-aligned base:
//
//   mainloop        Q's tile, the K ring, the V ring (128B-swizzled boxes,
//                   1024-aligned), Q's full barrier, the rings' barriers,
//                   Q's empty barrier (persistent)      ForwardProducer.cpp
//   tile scheduler  the dynamic one's handover barriers and tile slot
//                                                       TileScheduler.cpp
//   work tile       a ragged one-tile kernel's stashed lengths
//                                                       ForwardTiles.cpp
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_FORWARDSHARED_H
#define FA_LIB_CONVERSION_FATONVVM_FORWARDSHARED_H

#include "KernelConfig.h"
#include "SharedLayout.h"
#include "TileScheduler.h"

namespace mlir::fa::nvvm_kernel {

/// The forward mainloop's regions: the producer fills them, the consumers
/// read them.
struct MainloopShared {
  SharedRegion q, kRing, vRing;
  SharedRegion qFull;
  /// Full K, full V, empty K, empty V, `stages` each (the order of the
  /// kernel before it was split into parts: it keeps the PTX unchanged).
  SharedRegion ringBarriers;
  /// Persistent: the consumers arrive when done with Q.
  SharedRegion qEmpty;
  int64_t stages = 0;

  static MainloopShared reserve(SharedLayout &layout, const AttentionKernelConfig &cfg);
  int64_t kFull() const { return ringBarriers.barrier(0); }
  int64_t vFull() const { return ringBarriers.barrier(stages); }
  int64_t kEmpty() const { return ringBarriers.barrier(2 * stages); }
  int64_t vEmpty() const { return ringBarriers.barrier(3 * stages); }
};

/// The forward kernel's shared memory: each part's regions and the layout
/// they make.
struct ForwardShared {
  SharedLayout layout;
  MainloopShared mainloop;
  SchedulerShared scheduler;
  /// ForwardKernel::storeStash's lengths (stashesLengths only).
  SharedRegion stash;

  /// The parts' regions in the kernel's order (ForwardKernel.cpp).
  static ForwardShared plan(const AttentionKernelConfig &cfg, const TileScheduler &scheduler);
  /// With `cfg`'s scheduler (TileScheduler::forConfig).
  static ForwardShared plan(const AttentionKernelConfig &cfg);
};

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_FORWARDSHARED_H
