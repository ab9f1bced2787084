/*===- fa-c/RaisePatterns.h - fa-raise-attention as patterns ------*- C -*-===*\
|*                                                                            *|
|* The recognizer of fa-raise-attention as rewrite patterns, for compilers    *|
|* that raise attention inside their own greedy rewrite (see                  *|
|* fa/Dialect/FA/Transforms/RaisePatterns.h; as a pass:                       *|
|* mlirCreateFAFARaiseAttention() in fa-c/Passes.h).                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FA_C_RAISEPATTERNS_H
#define FA_C_RAISEPATTERNS_H

#include "mlir-c/IR.h"
#include "mlir-c/Rewrite.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Adds the pattern that replaces attention written as generic ops by
/// fa.attention (and its backward by fa.attention_grad). Apply it top-down
/// (mlirGreedyRewriteDriverConfigSetUseTopDownTraversal); the context must
/// have the fa dialect loaded.
MLIR_CAPI_EXPORTED void
mlirFAPopulateRaiseAttentionPatterns(MlirRewritePatternSet patterns);

/// Folds the reshapes and transposes a raise put around fa.attention with
/// the view ops the program had there; run it after the patterns.
MLIR_CAPI_EXPORTED void mlirFAFoldRaiseGlue(MlirOperation root);

#ifdef __cplusplus
}
#endif

#endif // FA_C_RAISEPATTERNS_H
