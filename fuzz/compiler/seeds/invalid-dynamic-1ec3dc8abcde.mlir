func.func @grad_output_lse_seq(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x?x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8x20xf32>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x?x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8x20xf32> -> tensor<2x8x?x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>
  return
}
