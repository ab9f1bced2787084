// A causal GQA bf16 attention: 8 query heads over 2 key/value heads.
func.func @attention(%q: tensor<2x8x512x64xbf16>, %k: tensor<2x2x512x64xbf16>, %v: tensor<2x2x512x64xbf16>) -> tensor<2x8x512x64xbf16> {
  %o = fa.attention %q, %k, %v : tensor<2x8x512x64xbf16>, tensor<2x2x512x64xbf16>, tensor<2x2x512x64xbf16> {causal} -> tensor<2x8x512x64xbf16>
  return %o : tensor<2x8x512x64xbf16>
}
