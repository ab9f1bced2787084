func.func @backward_causal_gqa(%do: tensor<1x4x300x32xf32>, %q: tensor<1x4x300x32xf32>, %k: tensor<1x2x300x32xf32>, %v: tensor<1x2x300x32xf32>, %o: tensor<1x4x300x32xf32>, %lse: tensor<1x4x300xf32>) -> (tensor<1x4x300x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x4x300x32xf32>, tensor<1x4x300x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32>, tensor<1x4x300x32xf32>, tensor<1x4x300xf32> {causal} -> tensor<1x4x300x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32>
  return %dq, %dk, %dv : tensor<1x4x300x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32>
}
