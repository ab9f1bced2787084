func.func @grad_bias_seq_q_against_output(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x?x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8x?xf32>, %b: tensor<1x1x12x16xf32>) {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x?x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8x?xf32> bias(%b : tensor<1x1x12x16xf32>) -> tensor<2x8x?x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<1x1x12x16xf32>
  return
}
