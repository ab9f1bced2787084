func.func @gqa_causal(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> (tensor<1x8x128x64xbf16>, tensor<1x8x128xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> {causal} -> tensor<1x8x128x64xbf16>, tensor<1x8x128xf32>
  return %o, %l : tensor<1x8x128x64xbf16>, tensor<1x8x128xf32>
}
