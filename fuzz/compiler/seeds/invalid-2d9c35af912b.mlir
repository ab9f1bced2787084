func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %d: tensor<f32>) {
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2x8x16x32xf16>
  return
}
