func.func @output_batch_against_bias(%q: tensor<?x8x16x32xf16>, %k: tensor<?x2x16x32xf16>, %v: tensor<?x2x16x32xf16>, %b: tensor<3x1x16x16xf32>) {
  %o = fa.attention %q, %k, %v : tensor<?x8x16x32xf16>, tensor<?x2x16x32xf16>, tensor<?x2x16x32xf16> bias(%b : tensor<3x1x16x16xf32>) -> tensor<2x8x16x32xf16>
  return
}
