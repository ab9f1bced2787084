func.func @lse_heads_against_bias(%q: tensor<2x?x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %b: tensor<1x4x16x16xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<2x?x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> bias(%b : tensor<1x4x16x16xf32>) -> tensor<2x?x16x32xf16>, tensor<2x6x16xf32>
  return
}
