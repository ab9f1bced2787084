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
// Printed `#fa<layout bshd>`; `#fa.layout<bshd>` parses too. The syntax is
// hand-written (parse/print in FADialect.cpp) so that the generated reference
// shows the spelling the printer writes, not a generic `#fa.layout<...>`.
class FA_EnumAttr<EnumAttrInfo info, string name, string example>
    : EnumAttr<FA_Dialect, info, name> {
  let assemblyFormat = ?;
  let hasCustomAssemblyFormat = 1;
  let description = "Written `#fa<" # name # " " # example # ">` (the printed "
      # "form) or `#fa." # name # "<" # example # ">`.";
}

def FA_LayoutAttr : FA_EnumAttr<FA_Layout, "layout", "bshd">;

def FA_AlignTopLeft : I32EnumAttrCase<"top_left", 0>;
def FA_AlignBottomRight : I32EnumAttrCase<"bottom_right", 1>;
def FA_MaskAlignment : I32EnumAttr<"MaskAlignment",
    "how query row i lines up with key column j when seq_q != seq_k",
    [FA_AlignTopLeft, FA_AlignBottomRight]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fa";
}
def FA_MaskAlignmentAttr
    : FA_EnumAttr<FA_MaskAlignment, "mask_alignment",
                  "bottom_right">;

#endif // FA_DIALECT_FA_IR_FAATTRS_TD
