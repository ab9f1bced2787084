func.func @agreeing(%q: tensor<?x?x?x32xf16>, %k: tensor<2x?x16x32xf16>, %v: tensor<?x2x?x64xf16>, %b: tensor<1x8x?x16xf32>) -> (tensor<2x8x?x64xf16>, tensor<?x?x12xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<?x?x?x32xf16>, tensor<2x?x16x32xf16>, tensor<?x2x?x64xf16> bias(%b : tensor<1x8x?x16xf32>) -> tensor<2x8x?x64xf16>, tensor<?x?x12xf32>
  return %o, %l : tensor<2x8x?x64xf16>, tensor<?x?x12xf32>
}
