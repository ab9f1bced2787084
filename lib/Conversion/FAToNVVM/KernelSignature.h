//===- KernelSignature.h - A kernel's parameters, declared once -*- C++ -*-===//
//
// The contract between a kernel and the runtime that launches it: each
// parameter's kind, how the runtime fills it (its entry in the bundle's
// `params`, docs/BundleFormat.md) and where the kernel's code finds it. A
// kernel declares its parameters once, in order, each under the condition
// that makes it present; the llvm.func's types and attributes, the
// binding of the function's arguments to the kernel's variables and the
// bundle's `params` are all generated from that one list, so they cannot
// disagree.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_KERNELSIGNATURE_H
#define FA_LIB_CONVERSION_FATONVVM_KERNELSIGNATURE_H

#include "BundleExpr.h"
#include "KernelBuilder.h"

#include "llvm/Support/JSON.h"

#include <functional>

#include <vector>

namespace mlir::fa::nvvm_kernel {

class KernelSignature {
public:
  enum class Kind {
    TensorMap, // a 128-byte CUtensorMap by value (grid constant)
    Ptr,       // a device pointer
    I32,
    I64,
  };

  /// A tensor map; `bundleParam` says over what and with which box.
  void tensorMap(Value *slot, llvm::json::Object bundleParam);
  /// A pointer to `operand`'s data; `aligned`: the kernel reads it 16 bytes
  /// at a time (the runtime checks the address and the strides).
  void ptr(Value *slot, StringRef operand, bool aligned = false);
  /// An i32 of the bundle expression `value` (sym::SeqQ,
  /// sym::HeadsQ / sym::HeadsKV).
  void i32(Value *slot, const BundleExpr &value);
  /// i64 strides "stride(operand, dim)" of each of `dims`, into *slots[i].
  void strides(ArrayRef<Value *> slots, StringRef operand, ArrayRef<StringRef> dims);

  /// The llvm.func's parameter types, in order.
  SmallVector<Type> types(MLIRContext *ctx) const;
  /// Marks every pointer parameter of `fn` noalias (its operand overlaps
  /// no other).
  void markNoAliasPointers(OpBuilder &b, LLVM::LLVMFuncOp fn) const;
  /// Binds each declared slot to its argument of `fn`.
  void bind(LLVM::LLVMFuncOp fn) const;
  /// The bundle's `params`, in order.
  llvm::json::Array bundleParams() const;
  /// How many parameters come first as tensor maps (all of them: the
  /// kernels take their tensor maps first).
  unsigned leadingTensorMaps() const;

private:
  struct Param {
    Kind kind;
    llvm::json::Object bundle;
    Value *slot;
  };
  std::vector<Param> params;
};

/// Appends to `moduleBody` a kernel `name` (createKernelFunction) with the
/// parameters of `sig` (its tensor maps marked as such), preceded by its
/// dynamic shared memory symbol `name`_smem when `sharedMemory`;
/// `noAliasPointers` marks its pointers noalias. `body` emits it (the
/// return is added after).
void buildKernelFunction(OpBuilder &builder, Location loc, Block &moduleBody, StringRef name,
                         const KernelSignature &sig, int64_t threads, bool sharedMemory,
                         bool noAliasPointers,
                         function_ref<void(KernelBuilder &, LLVM::LLVMFuncOp)> body);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_KERNELSIGNATURE_H
