//===- KernelSignature.cpp - A kernel's parameters, declared once ---------===//
#include "KernelSignature.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;
using llvm::json::Object;

void KernelSignature::tensorMap(Value *slot, Object bundleParam) {
  params.push_back({Kind::TensorMap, std::move(bundleParam), slot});
}

void KernelSignature::ptr(Value *slot, StringRef operand, bool aligned) {
  Object o{{"kind", "ptr"}, {"operand", operand.str()}};
  if (aligned)
    o["align"] = 16;
  params.push_back({Kind::Ptr, std::move(o), slot});
}

void KernelSignature::i32(Value *slot, const BundleExpr &value) {
  params.push_back({Kind::I32, Object{{"kind", "i32"}, {"value", value.str()}}, slot});
}

void KernelSignature::strides(ArrayRef<Value *> slots, StringRef operand,
                              ArrayRef<StringRef> dims) {
  for (auto [i, dim] : llvm::enumerate(dims))
    params.push_back({Kind::I64,
                      Object{{"kind", "i64"}, {"value", BundleExpr::stride(operand, dim).str()}},
                      slots[i]});
}

SmallVector<Type> KernelSignature::types(MLIRContext *ctx) const {
  SmallVector<Type> out;
  for (const Param &p : params) {
    switch (p.kind) {
    case Kind::TensorMap:
    case Kind::Ptr:
      out.push_back(LLVM::LLVMPointerType::get(ctx));
      break;
    case Kind::I32:
      out.push_back(IntegerType::get(ctx, 32));
      break;
    case Kind::I64:
      out.push_back(IntegerType::get(ctx, 64));
      break;
    }
  }
  return out;
}

unsigned KernelSignature::leadingTensorMaps() const {
  unsigned n = 0;
  while (n < params.size() && params[n].kind == Kind::TensorMap)
    ++n;
  assert(llvm::none_of(llvm::drop_begin(params, n),
                       [](const Param &p) { return p.kind == Kind::TensorMap; }) &&
         "tensor maps come first");
  return n;
}

void KernelSignature::markNoAliasPointers(OpBuilder &b, LLVM::LLVMFuncOp fn) const {
  for (auto [i, p] : llvm::enumerate(params))
    if (p.kind == Kind::Ptr)
      fn.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr());
}

void KernelSignature::bind(LLVM::LLVMFuncOp fn) const {
  for (auto [i, p] : llvm::enumerate(params))
    if (p.slot)
      *p.slot = fn.getArgument(i);
}

llvm::json::Array KernelSignature::bundleParams() const {
  llvm::json::Array out;
  for (const Param &p : params)
    out.push_back(Object(p.bundle));
  return out;
}
