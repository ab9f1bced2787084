func.func @descale_batch_against_output(%q: tensor<?x8x16x32xf8E4M3FN>, %k: tensor<?x2x16x32xf8E4M3FN>, %v: tensor<?x2x16x32xf8E4M3FN>, %d: tensor<f32>, %e: tensor<3x2xf32>) {
  %o = fa.attention %q, %k, %v : tensor<?x8x16x32xf8E4M3FN>, tensor<?x2x16x32xf8E4M3FN>, tensor<?x2x16x32xf8E4M3FN> descale(%d, %e, %d : tensor<f32>, tensor<3x2xf32>, tensor<f32>) -> tensor<2x8x16x32xbf16>
  return
}
