func.func @grad_zero_kv_heads(%do: tensor<2x?x16x32xf16>, %q: tensor<2x?x16x32xf16>, %k: tensor<2x0x16x32xf16>, %v: tensor<2x0x16x32xf16>, %o: tensor<2x?x16x32xf16>, %l: tensor<2x?x16xf32>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x?x16x32xf16>, tensor<2x?x16x32xf16>, tensor<2x0x16x32xf16>, tensor<2x0x16x32xf16>, tensor<2x?x16x32xf16>, tensor<2x?x16xf32> -> tensor<2x?x16x32xf16>, tensor<2x0x16x32xf16>, tensor<2x0x16x32xf16>
  return
}
