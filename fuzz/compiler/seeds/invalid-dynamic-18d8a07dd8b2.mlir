func.func @descale_rank(%q: tensor<2x8x16x32xf8E4M3FN>, %k: tensor<2x2x16x32xf8E4M3FN>, %v: tensor<2x2x16x32xf8E4M3FN>, %d: tensor<f32>, %e: tensor<2xf32>) {
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN> descale(%d, %d, %e : tensor<f32>, tensor<f32>, tensor<2xf32>) -> tensor<2x8x16x32xbf16>
  return
}
