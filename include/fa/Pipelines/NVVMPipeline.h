//===- NVVMPipeline.h - fa-nvvm-pipeline ------------------------*- C++ -*-===//
#ifndef FA_PIPELINES_NVVMPIPELINE_H
#define FA_PIPELINES_NVVMPIPELINE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
namespace fa {

/// The device code formats a bundle can hold, as `format=` spells them (a
/// `cl::values` list, so that any other spelling is a parse error that
/// lists these).
inline llvm::cl::ValuesClass deviceFormatValues() {
  return llvm::cl::values(
      clEnumValN(gpu::CompilationTarget::Assembly, "isa", "PTX"),
      clEnumValN(gpu::CompilationTarget::Binary, "bin", "cubin"),
      clEnumValN(gpu::CompilationTarget::Fatbin, "fatbin", "fatbinary"));
}

struct FANVVMPipelineOptions : public PassPipelineOptions<FANVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{*this, "chip",
                                        llvm::cl::desc("Target chip (sm_90a)"),
                                        llvm::cl::init("sm_90a")};
  PassOptions::Option<gpu::CompilationTarget> format{
      *this, "format", llvm::cl::desc("Device code format: isa (PTX), bin (cubin) or fatbin"),
      llvm::cl::init(gpu::CompilationTarget::Binary), deviceFormatValues()};
  PassOptions::Option<unsigned> stages{*this, "stages",
                                       llvm::cl::desc("K/V shared-memory ring depth"),
                                       llvm::cl::init(2)};
  PassOptions::Option<bool> overlap{
      *this, "overlap", llvm::cl::desc("Overlap the next Q K^T with the current softmax"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> pingPong{
      *this, "pingpong",
      llvm::cl::desc("With overlap: consumer warpgroups take turns issuing wgmma"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> deterministic{
      *this, "deterministic",
      llvm::cl::desc("Backward: add dQ partials in a fixed order (bitwise reproducible)"),
      llvm::cl::init(false)};
  PassOptions::Option<unsigned> bwdQueryTile{
      *this, "bwd-query-tile",
      llvm::cl::desc("Backward: query rows per main-kernel iteration, 64, 80 "
                     "or 128 (0: choose)"),
      llvm::cl::init(0)};
  PassOptions::Option<unsigned> fwdKeyTile{
      *this, "fwd-key-tile",
      llvm::cl::desc("16-bit forwards: key rows per K/V tile, a multiple of "
                     "16 up to 256 (0: choose)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> dynamicTiles{
      *this, "dynamic-tiles",
      llvm::cl::desc(
          "Persistent forwards take their tiles from an atomic counter (a "
          "ragged batch under a mask does without the option)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> bundleDir{
      *this, "bundle-dir",
      llvm::cl::desc("Write each kernel as a bundle (cubin + JSON) into this directory"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> ptxasOptions{
      *this, "ptxas-options", llvm::cl::desc("Extra options for ptxas (format=bin)"),
      llvm::cl::init("")};
};

/// fa.attention -> sm_90a kernels in gpu.modules (convert-fa-to-nvvm), their
/// bodies lowered to the LLVM dialect, then serialized by
/// gpu-module-to-binary; optionally written out as bundles.
void buildFANVVMPipeline(OpPassManager &pm, const FANVVMPipelineOptions &options);

/// Registers `fa-nvvm-pipeline`.
void registerFANVVMPipeline();

} // namespace fa
} // namespace mlir

#endif // FA_PIPELINES_NVVMPIPELINE_H
