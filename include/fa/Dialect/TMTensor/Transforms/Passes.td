//===- Passes.td - tm_tensor lowering ----------------------*- tablegen -*-===//
#ifndef FA_DIALECT_TMTENSOR_TRANSFORMS_PASSES_TD
#define FA_DIALECT_TMTENSOR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FALowerTMTensor : Pass<"fa-lower-tm-tensor"> {
  let summary = "Raises tm_tensor.attention to fa.attention and lowers "
                "tm_tensor.scan to scf.for over tensor slices";
  let description = [{
    Makes torch-mlir's linalg-on-tensors output something the fa pipelines
    take: each `tm_tensor.attention` becomes `fa.attention` (what
    `fa-raise-attention` does for it, with a mask it cannot classify kept as
    the bias operand), each `tm_tensor.scan` an `scf.for` along the scanned
    dimension whose body applies the combiner to one slice with a
    `linalg.generic`. `fa-cpu-pipeline` runs it first.
  }];
  let dependentDialects = ["::mlir::fa::FADialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // FA_DIALECT_TMTENSOR_TRANSFORMS_PASSES_TD
