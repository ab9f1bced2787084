func.func @forward_window(%q: tensor<1x1x1000x32xbf16>, %k: tensor<1x1x1000x32xbf16>, %v: tensor<1x1x1000x32xbf16>) -> tensor<1x1x1000x32xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x1x1000x32xbf16>, tensor<1x1x1000x32xbf16>, tensor<1x1x1000x32xbf16> {window = array<i64: 100, 10>} -> tensor<1x1x1000x32xbf16>
  return %o : tensor<1x1x1000x32xbf16>
}
