#include "Tiling.h"
using namespace mlir;
LogicalResult mlir::fa::tiling::tileBackward(AttentionGradOp op,
                                             RewriterBase &rewriter,
                                             const TileOptions &options) {
  return op.emitOpError() << "not yet";
}
