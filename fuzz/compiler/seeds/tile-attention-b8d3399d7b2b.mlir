func.func @forward_bias_softcap(%q: tensor<2x2x70x16xf32>, %k: tensor<2x2x70x16xf32>, %v: tensor<2x2x70x16xf32>, %bias: tensor<1x2x70x70xf32>) -> tensor<2x2x70x16xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x2x70x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x16xf32> bias(%bias : tensor<1x2x70x70xf32>) {softcap = 30.0 : f32} -> tensor<2x2x70x16xf32>
  return %o : tensor<2x2x70x16xf32>
}
