//===- FAPlugin.cpp - fa-mlir as an mlir-opt plugin -----------------------===//
#include "fa/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FA", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) { fa::registerAll(*registry); }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FAPasses", LLVM_VERSION_STRING,
          []() { fa::registerPassesAndPipelines(); }};
}
