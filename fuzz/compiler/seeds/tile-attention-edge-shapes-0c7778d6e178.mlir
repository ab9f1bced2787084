func.func @head_dim_1(%q: tensor<1x2x16x1xf32>, %k: tensor<1x1x20x1xf32>, %v: tensor<1x1x20x1xf32>) -> (tensor<1x2x16x1xf32>, tensor<1x2x16xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<1x2x16x1xf32>, tensor<1x1x20x1xf32>, tensor<1x1x20x1xf32> {causal} -> tensor<1x2x16x1xf32>, tensor<1x2x16xf32>
  return %o, %l : tensor<1x2x16x1xf32>, tensor<1x2x16xf32>
}
