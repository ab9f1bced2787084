//===- Passes.cpp - C API of fa's passes and pipelines --------------------===//
#include "fa-c/Passes.h"

#include "fa/Conversion/Passes.h"
#include "fa/Dialect/FA/Transforms/Passes.h"
#include "fa/Pipelines/CPUPasses.h"
#include "fa/Registration.h"

#include "mlir/CAPI/Pass.h"

using namespace mlir;
using namespace mlir::fa;

// The generated definitions call register<Prefix>Passes() and
// create<PassName>() unqualified.
#include "fa-c/FACPUPasses.capi.cpp.inc"
#include "fa-c/FAConversionPasses.capi.cpp.inc"
#include "fa-c/FAPasses.capi.cpp.inc"

void mlirRegisterAllFAPassesAndPipelines(void) { registerPassesAndPipelines(); }
