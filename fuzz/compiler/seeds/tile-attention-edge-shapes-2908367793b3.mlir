func.func @head_dim_1_backward(%do: tensor<1x2x16x1xf32>, %q: tensor<1x2x16x4xf32>, %k: tensor<1x1x20x4xf32>, %v: tensor<1x1x20x1xf32>, %o: tensor<1x2x16x1xf32>, %l: tensor<1x2x16xf32>) -> (tensor<1x2x16x4xf32>, tensor<1x1x20x4xf32>, tensor<1x1x20x1xf32>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<1x2x16x1xf32>, tensor<1x2x16x4xf32>, tensor<1x1x20x4xf32>, tensor<1x1x20x1xf32>, tensor<1x2x16x1xf32>, tensor<1x2x16xf32> -> tensor<1x2x16x4xf32>, tensor<1x1x20x4xf32>, tensor<1x1x20x1xf32>
  return %dq, %dk, %dv : tensor<1x2x16x4xf32>, tensor<1x1x20x4xf32>, tensor<1x1x20x1xf32>
}
