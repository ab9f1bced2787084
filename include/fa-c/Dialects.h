/*===- fa-c/Dialects.h - C API of the fa dialect ------------------*- C -*-===*\
|*                                                                            *|
|* The fa dialect's handle, in the convention of mlir-c/Dialect/Linalg.h:     *|
|* mlirGetDialectHandle__fa__() with mlirDialectHandleInsertDialect (into a   *|
|* registry) or mlirDialectHandleLoadDialect (into a context).                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FA_C_DIALECTS_H
#define FA_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(FA, fa);

#ifdef __cplusplus
}
#endif

#endif // FA_C_DIALECTS_H
