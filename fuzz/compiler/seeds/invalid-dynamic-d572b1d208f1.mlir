func.func @grad_key_value_batch(%do: tensor<?x8x16x32xf16>, %q: tensor<?x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<3x2x16x32xf16>, %o: tensor<?x8x16x32xf16>, %l: tensor<?x8x16xf32>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x8x16x32xf16>, tensor<?x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<3x2x16x32xf16>, tensor<?x8x16x32xf16>, tensor<?x8x16xf32> -> tensor<?x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<3x2x16x32xf16>
  return
}
