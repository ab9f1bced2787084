//===- CPUBlocks.h - the contract between the CPU block passes --*- C++ -*-===//
#ifndef FA_LIB_PIPELINES_CPUBLOCKS_H
#define FA_LIB_PIPELINES_CPUBLOCKS_H

#include "llvm/ADT/StringRef.h"

namespace mlir::fa {
/// fa-cpu-tile-blocks marks each block it makes with this attribute (its
/// block sizes); fa-cpu-vectorize-blocks vectorizes the marked ops.
inline constexpr llvm::StringLiteral kCPUBlockAttr = "fa.cpu_block";
} // namespace mlir::fa

#endif // FA_LIB_PIPELINES_CPUBLOCKS_H
