func.func @f(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf32>, %l: tensor<2x8x16xf32>) {
  %a, %b, %c = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf32>, tensor<2x8x16xf32> -> tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>
  return
}
