func.func @descales_disagree(%q: tensor<?x8x16x32xf8E4M3FN>, %k: tensor<?x?x16x32xf8E4M3FN>, %v: tensor<?x?x16x32xf8E4M3FN>, %d: tensor<2x2xf32>, %e: tensor<2x4xf32>) {
  %o = fa.attention %q, %k, %v : tensor<?x8x16x32xf8E4M3FN>, tensor<?x?x16x32xf8E4M3FN>, tensor<?x?x16x32xf8E4M3FN> descale(%d, %d, %e : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>) -> tensor<?x8x16x32xbf16>
  return
}
