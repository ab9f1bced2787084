func.func @f(%q: tensor<2x8x16x32xf64>, %k: tensor<2x2x16x32xf64>, %v: tensor<2x2x16x32xf64>) {
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf64>, tensor<2x2x16x32xf64>, tensor<2x2x16x32xf64> -> tensor<2x8x16x32xf64>
  return
}
