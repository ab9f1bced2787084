func.func @f(%q: tensor<2x8x16x32xf8E4M3FN>, %k: tensor<2x2x16x32xf8E4M3FN>, %v: tensor<2x2x16x32xf8E4M3FN>, %d: tensor<f32>, %b: tensor<1x1x16x16xf8E4M3FN>) {
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN> bias(%b : tensor<1x1x16x16xf8E4M3FN>) descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2x8x16x32xbf16>
  return
}
