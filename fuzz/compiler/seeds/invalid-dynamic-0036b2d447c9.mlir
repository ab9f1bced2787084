func.func @bshd_output_seq(%q: tensor<2x16x8x32xf16>, %k: tensor<2x?x2x32xf16>, %v: tensor<2x?x2x32xf16>, %b: tensor<1x1x16x20xf32>) {
  %o = fa.attention %q, %k, %v : tensor<2x16x8x32xf16>, tensor<2x?x2x32xf16>, tensor<2x?x2x32xf16> bias(%b : tensor<1x1x16x20xf32>) {layout = #fa<layout bshd>} -> tensor<2x12x8x32xf16>
  return
}
