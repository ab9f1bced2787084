//===- Registration.h - Register everything fa-mlir provides ----*- C++ -*-===//
#ifndef FA_REGISTRATION_H
#define FA_REGISTRATION_H

namespace mlir {
class DialectRegistry;
namespace fa {
/// Inserts the fa dialect into `registry`.
void registerDialects(DialectRegistry &registry);
/// Registers fa's passes and pipelines with the global pass registry.
/// Idempotent: fa-opt and the plugin may both call it.
void registerPassesAndPipelines();
/// Both of the above.
void registerAll(DialectRegistry &registry);
} // namespace fa
} // namespace mlir

#endif // FA_REGISTRATION_H
