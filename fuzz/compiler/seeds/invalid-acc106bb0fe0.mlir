func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> {window = array<i64: 1, 2, 3>} -> tensor<2x8x16x32xf16>
  return
}
