func.func @forward_causal_bottom_right(%q: tensor<1x1x200x32xf16>, %k: tensor<1x1x300x32xf16>, %v: tensor<1x1x300x32xf16>) -> tensor<1x1x200x32xf16> {
  %o = fa.attention %q, %k, %v : tensor<1x1x200x32xf16>, tensor<1x1x300x32xf16>, tensor<1x1x300x32xf16> {causal, mask_alignment = #fa<mask_alignment bottom_right>} -> tensor<1x1x200x32xf16>
  return %o : tensor<1x1x200x32xf16>
}
