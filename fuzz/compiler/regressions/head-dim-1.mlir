func.func @f(%q: tensor<1x1x16x1xf32>, %k: tensor<1x1x20x1xf32>, %v: tensor<1x1x20x1xf32>) -> tensor<1x1x16x1xf32> {
  %o = fa.attention %q, %k, %v : tensor<1x1x16x1xf32>, tensor<1x1x20x1xf32>, tensor<1x1x20x1xf32> -> tensor<1x1x16x1xf32>
  return %o : tensor<1x1x16x1xf32>
}
