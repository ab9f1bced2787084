func.func @f(%q: tensor<1x1x16x8xf16>, %k: tensor<1x1x1125899906842624x8xf16>, %v: tensor<1x1x1125899906842624x8xf16>) {
  %o = fa.attention %q, %k, %v : tensor<1x1x16x8xf16>, tensor<1x1x1125899906842624x8xf16>, tensor<1x1x1125899906842624x8xf16> {window = array<i64: 4, 4>} -> tensor<1x1x16x8xf16>
  return
}
