//===- FADialect.td - The fa dialect -----------------------*- tablegen -*-===//
#ifndef FA_DIALECT_FA_IR_FADIALECT_TD
#define FA_DIALECT_FA_IR_FADIALECT_TD

include "mlir/IR/OpBase.td"

def FA_Dialect : Dialect {
  let name = "fa";
  let cppNamespace = "::mlir::fa";
  let summary = "Exact softmax attention as first-class operations";
  let description = [{
    The `fa` dialect states attention exactly: forward (`fa.attention`) and
    backward (`fa.attention_grad`), with the tensor layout, grouped-query heads,
    scale, causal and sliding-window masks, logit softcap, an additive bias and
    element types down to FP8. Passes raise framework IR to these ops, tile
    them into FlashAttention's online-softmax loops, and lower them to the CPU
    and to NVIDIA Hopper.
  }];
  let useDefaultAttributePrinterParser = 1;
}

#endif // FA_DIALECT_FA_IR_FADIALECT_TD
