//===- IREELinalgExt.h - IREE's attention op, as printed --------*- C++ -*-===//
#ifndef FA_DIALECT_IREELINALGEXT_IR_IREELINALGEXT_H
#define FA_DIALECT_IREELINALGEXT_IR_IREELINALGEXT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fa/Dialect/IREELinalgExt/IR/IREELinalgExtDialect.h.inc"

#define GET_OP_CLASSES
#include "fa/Dialect/IREELinalgExt/IR/IREELinalgExtOps.h.inc"

#endif // FA_DIALECT_IREELINALGEXT_IR_IREELINALGEXT_H
