//===- FAAttrs.td - fa dialect attributes ------------------*- tablegen -*-===//
#ifndef FA_DIALECT_FA_IR_FAATTRS_TD
#define FA_DIALECT_FA_IR_FAATTRS_TD

include "fa/Dialect/FA/IR/FADialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def FA_LayoutBHSD : I32EnumAttrCase<"bhsd", 0>;
def FA_LayoutBSHD : I32EnumAttrCase<"bshd", 1>;
def FA_Layout : I32EnumAttr<"Layout",
    "order of the (batch, heads, seq, head_dim) dimensions of Q, K, V and O",
    [FA_LayoutBHSD, FA_LayoutBSHD]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fa";
}
def FA_LayoutAttr : EnumAttr<FA_Dialect, FA_Layout, "layout">;

def FA_AlignTopLeft : I32EnumAttrCase<"top_left", 0>;
def FA_AlignBottomRight : I32EnumAttrCase<"bottom_right", 1>;
def FA_MaskAlignment : I32EnumAttr<"MaskAlignment",
    "how query row i lines up with key column j when seq_q != seq_k",
    [FA_AlignTopLeft, FA_AlignBottomRight]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fa";
}
def FA_MaskAlignmentAttr
    : EnumAttr<FA_Dialect, FA_MaskAlignment, "mask_alignment">;

#endif // FA_DIALECT_FA_IR_FAATTRS_TD
