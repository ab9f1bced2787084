//===- RaisePatterns.cpp - C API of fa-raise-attention's patterns ---------===//
#include "fa-c/RaisePatterns.h"

#include "fa/Dialect/FA/Transforms/RaisePatterns.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Rewrite.h"

void mlirFAPopulateRaiseAttentionPatterns(MlirRewritePatternSet patterns) {
  mlir::fa::populateFARaiseAttentionPatterns(*unwrap(patterns));
}

void mlirFAFoldRaiseGlue(MlirOperation root) {
  mlir::fa::foldFARaiseGlue(unwrap(root));
}
