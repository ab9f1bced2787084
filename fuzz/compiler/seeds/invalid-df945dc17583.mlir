func.func @f(%do: tensor<2x8x16x32xbf16>, %q: tensor<2x8x16x32xf8E4M3FN>, %k: tensor<2x2x16x32xf8E4M3FN>, %v: tensor<2x2x16x32xf8E4M3FN>, %o: tensor<2x8x16x32xbf16>, %l: tensor<2x8x16xf32>) {
  %a, %b, %c = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xbf16>, tensor<2x8x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x8x16x32xbf16>, tensor<2x8x16xf32> -> tensor<2x8x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>
  return
}
