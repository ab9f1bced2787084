/*===- fa-c/Passes.h - C API of fa's passes and pipelines ---------*- C -*-===*\
|*                                                                            *|
|* Generated from the passes' TableGen (as in mlir-c/Dialect/Linalg.h):       *|
|*   mlirRegisterFAPasses(), mlirCreateFAFARaiseAttention(), ...  the fa      *|
|*     dialect's passes (fa-raise-attention, fa-tile-attention, ...)          *|
|*   mlirRegisterFACPUPasses(), mlirCreateFACPUFACPUTileBlocks(), ...  the    *|
|*     passes fa-cpu-pipeline is made of                                      *|
|*   mlirRegisterFAConversionPasses(),                                        *|
|*     mlirCreateFAConversionConvertFAToNVVM(), ...  the sm_90a conversion    *|
|* and, by hand, the registration of everything including the pipelines.     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FA_C_PASSES_H
#define FA_C_PASSES_H

#include "mlir-c/Pass.h"

#include "fa-c/FACPUPasses.capi.h.inc"
#include "fa-c/FAConversionPasses.capi.h.inc"
#include "fa-c/FAPasses.capi.h.inc"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every fa pass and the pipelines fa-cpu-pipeline and
/// fa-nvvm-pipeline with the global registry, so that
/// mlirParsePassPipeline and mlirOpPassManagerAddPipeline find them by name.
/// Idempotent.
MLIR_CAPI_EXPORTED void mlirRegisterAllFAPassesAndPipelines(void);

#ifdef __cplusplus
}
#endif

#endif // FA_C_PASSES_H
