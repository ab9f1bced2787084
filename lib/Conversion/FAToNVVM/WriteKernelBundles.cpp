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
      Attribute entry = bundles.get(binary.getName());
      if (!entry)
        continue;
      auto object = dyn_cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      if (!object)
        continue;
      bool isBinary = object.getFormat() == gpu::CompilationTarget::Binary ||
                      object.getFormat() == gpu::CompilationTarget::Fatbin;
      std::string file = (binary.getName() + (isBinary ? ".cubin" : ".ptx")).str();
      // A forward is one bundle; a backward, a sequence and its kernels'
      // bundles (file stem -> JSON), all naming this binary's image.
      SmallVector<std::pair<StringRef, StringAttr>> jsons;
      if (auto one = dyn_cast<StringAttr>(entry))
        jsons.emplace_back(binary.getName(), one);
      else if (auto many = dyn_cast<DictionaryAttr>(entry))
        for (NamedAttribute named : many)
          if (auto text = dyn_cast<StringAttr>(named.getValue()))
            jsons.emplace_back(named.getName().getValue(), text);
      SmallString<256> objPath(dir);
      llvm::sys::path::append(objPath, file);
      if (failed(writeFile(binary, objPath, object.getObject().getValue())))
        return signalPassFailure();
      for (auto [stem, json] : jsons)
        if (failed(writeJson(binary, stem, json.getValue(), file, isBinary)))
          return signalPassFailure();
    }
  }

private:
  /// Writes `<dir>/<stem>.json`; a kernel bundle gets the image's file name.
  LogicalResult writeJson(Operation *op, StringRef stem, StringRef json, StringRef image,
                          bool isBinary) {
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
    if (!parsed)
      return op->emitError("bad bundle JSON: ") << llvm::toString(parsed.takeError());
    llvm::json::Object *root = parsed->getAsObject();
    if (root->getString("format") == "fa-kernel-bundle") {
      (*root)["cubin"] = image;
      if (!isBinary)
        (*root)["ptx"] = true;
    }
    SmallString<256> jsonPath(dir);
    llvm::sys::path::append(jsonPath, (stem + ".json").str());
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(*root))) << "\n";
    return writeFile(op, jsonPath, text);
  }
};

} // namespace
