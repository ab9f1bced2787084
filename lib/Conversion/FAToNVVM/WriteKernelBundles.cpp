//===- WriteKernelBundles.cpp - fa-write-kernel-bundles -------------------===//
#include "fa/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FAWRITEKERNELBUNDLES
#include "fa/Conversion/Passes.h.inc"
} // namespace mlir::fa

using namespace mlir;

namespace {

LogicalResult writeFile(Operation *op, StringRef path, StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return op->emitError("cannot write ") << path << ": " << ec.message();
  os << data;
  return success();
}

struct FAWriteKernelBundlesPass
    : fa::impl::FAWriteKernelBundlesBase<FAWriteKernelBundlesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto bundles = module->getAttrOfType<DictionaryAttr>("fa.kernel_bundles");
    if (!bundles)
      return;
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      module.emitError("cannot create ") << dir << ": " << ec.message();
      return signalPassFailure();
    }
    for (auto binary : module.getOps<gpu::BinaryOp>()) {
      auto json = bundles.getAs<StringAttr>(binary.getName());
      if (!json)
        continue;
      auto object = dyn_cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      if (!object)
        continue;
      bool isBinary = object.getFormat() == gpu::CompilationTarget::Binary ||
                      object.getFormat() == gpu::CompilationTarget::Fatbin;
      std::string file = (binary.getName() + (isBinary ? ".cubin" : ".ptx")).str();
      llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json.getValue());
      if (!parsed) {
        binary.emitError("bad bundle JSON: ") << llvm::toString(parsed.takeError());
        return signalPassFailure();
      }
      llvm::json::Object *root = parsed->getAsObject();
      (*root)["cubin"] = file;
      if (!isBinary)
        (*root)["ptx"] = true;
      SmallString<256> objPath(dir), jsonPath(dir);
      llvm::sys::path::append(objPath, file);
      llvm::sys::path::append(jsonPath, (binary.getName() + ".json").str());
      std::string text;
      llvm::raw_string_ostream os(text);
      os << llvm::formatv("{0:2}", llvm::json::Value(std::move(*root))) << "\n";
      if (failed(writeFile(binary, objPath, object.getObject().getValue())) ||
          failed(writeFile(binary, jsonPath, text)))
        return signalPassFailure();
    }
  }
};

} // namespace
