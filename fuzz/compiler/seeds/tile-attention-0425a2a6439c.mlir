func.func @forward_causal(%q: tensor<1x2x1024x64xf32>, %k: tensor<1x2x1024x64xf32>, %v: tensor<1x2x1024x64xf32>) -> tensor<1x2x1024x64xf32> {
  %o = fa.attention %q, %k, %v : tensor<1x2x1024x64xf32>, tensor<1x2x1024x64xf32>, tensor<1x2x1024x64xf32> {causal} -> tensor<1x2x1024x64xf32>
  return %o : tensor<1x2x1024x64xf32>
}
