func.func @grad(%do: tensor<2x8x?x64xf16>, %q: tensor<2x8x?x64xf16>, %k: tensor<2x2x?x64xf16>, %v: tensor<2x2x?x64xf16>, %o: tensor<2x8x?x64xf16>, %lse: tensor<2x8x?xf32>, %b: tensor<2x1x?x?xf16>) -> (tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x1x?x?xf16>) {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?xf32> bias(%b : tensor<2x1x?x?xf16>) {causal} -> tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x1x?x?xf16>
  return %dq, %dk, %dv, %db : tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x1x?x?xf16>
}
