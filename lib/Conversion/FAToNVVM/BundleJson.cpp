//===- BundleJson.cpp - Pieces of kernel bundle JSON ----------------------===//
#include "KernelParts.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;
using llvm::json::Array;
using llvm::json::Object;

Object mlir::fa::nvvm_kernel::tensorMapParam(StringRef operand, StringRef dtype, int64_t rows,
                                             ArrayRef<StringRef> dims, int64_t boxInner) {
  Array dimNames;
  for (StringRef d : dims)
    dimNames.push_back(d.str());
  return Object{{"kind", "tensor_map"},
                {"operand", operand.str()},
                {"box", Array{boxInner, rows}},
                {"dims", std::move(dimNames)},
                {"swizzle", "128B"},
                {"dtype", dtype.str()}};
}

Object mlir::fa::nvvm_kernel::kernelBundleRoot(StringRef chip, StringRef cubinFile,
                                               StringRef kernel, StringRef op, Object config,
                                               int64_t threads, int64_t sharedMemoryBytes,
                                               Array grid, Array params) {
  return Object{{"format", "fa-kernel-bundle"},
                {"version", 1},
                {"chip", chip.str()},
                {"kernel", kernel.str()},
                {"cubin", cubinFile.str()},
                {"op", op.str()},
                {"config", std::move(config)},
                {"block", Array{threads, 1, 1}},
                {"cluster", Array{1, 1, 1}},
                {"shared_memory_bytes", sharedMemoryBytes},
                {"grid", std::move(grid)},
                {"params", std::move(params)}};
}

Object mlir::fa::nvvm_kernel::semanticsConfig(StringRef dtype, bool bshd, int64_t headDim,
                                              int64_t headDimV, const AttentionConfig &sem) {
  llvm::json::Value window = nullptr, softcap = nullptr;
  if (sem.window)
    window = Array{sem.window->first, sem.window->second};
  if (sem.softcap)
    softcap = *sem.softcap;
  Object config{{"dtype", dtype.str()},
                {"out_dtype", dtype},
                {"layout", bshd ? "bshd" : "bhsd"},
                {"head_dim", headDim},
                {"head_dim_v", headDimV},
                {"causal", sem.causal},
                {"mask_alignment",
                 sem.alignment == MaskAlignment::bottom_right ? "bottom_right" : "top_left"},
                {"window", std::move(window)},
                {"softcap", std::move(softcap)},
                {"scale", sem.scale}};
  if (sem.sinks) // absent without: the bundles of other kernels stay as they were
    config["sinks"] = true;
  return config;
}

std::string mlir::fa::nvvm_kernel::printJson(llvm::json::Value value) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", value);
  return out;
}
