//===- CPUDynamicSchedule.cpp - fa-cpu-dynamic-schedule -------------------===//
//
// schedule(dynamic) on the OpenMP worksharing loops (CPUPasses.td has the
// details).
//
//===----------------------------------------------------------------------===//
#include "fa/Pipelines/CPUPasses.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FACPUDYNAMICSCHEDULE
#include "fa/Pipelines/CPUPasses.h.inc"
} // namespace mlir::fa

using namespace mlir;

namespace {

struct CPUDynamicSchedule
    : public fa::impl::FACPUDynamicScheduleBase<CPUDynamicSchedule> {
  void runOnOperation() override {
    getOperation()->walk([](omp::WsloopOp loop) {
      if (!loop.getScheduleKindAttr())
        loop.setScheduleKindAttr(omp::ClauseScheduleKindAttr::get(
            loop.getContext(), omp::ClauseScheduleKind::Dynamic));
    });
  }
};

} // namespace
