//===- TMTensor.h - torch-mlir's tm_tensor ops, as printed ------*- C++ -*-===//
#ifndef FA_DIALECT_TMTENSOR_IR_TMTENSOR_H
#define FA_DIALECT_TMTENSOR_IR_TMTENSOR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fa/Dialect/TMTensor/IR/TMTensorDialect.h.inc"

#define GET_OP_CLASSES
#include "fa/Dialect/TMTensor/IR/TMTensorOps.h.inc"

#endif // FA_DIALECT_TMTENSOR_IR_TMTENSOR_H
