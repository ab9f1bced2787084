func.func @key_value_batch(%q: tensor<?x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<3x2x16x32xf16>) {
  %o = fa.attention %q, %k, %v : tensor<?x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<3x2x16x32xf16> -> tensor<?x8x16x32xf16>
  return
}
