func.func @backward_batch_0(%do: tensor<0x2x16x8xf32>, %q: tensor<0x2x16x8xf32>, %k: tensor<0x2x16x8xf32>, %v: tensor<0x2x16x8xf32>, %o: tensor<0x2x16x8xf32>, %l: tensor<0x2x16xf32>, %b: tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16xf32> bias(%b : tensor<1x1x16x16xf32>) -> tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<1x1x16x16xf32>
  return %db : tensor<1x1x16x16xf32>
}
