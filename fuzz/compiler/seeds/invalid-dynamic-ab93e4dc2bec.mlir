func.func @zero_kv_heads_of_value(%q: tensor<2x?x16x32xf16>, %k: tensor<2x?x16x32xf16>, %v: tensor<2x0x16x32xf16>) {
  %o = fa.attention %q, %k, %v : tensor<2x?x16x32xf16>, tensor<2x?x16x32xf16>, tensor<2x0x16x32xf16> -> tensor<2x?x16x32xf16>
  return
}
