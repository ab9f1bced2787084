func.func @f(%q: tensor<1x1x16x1xf8E4M3FN>, %k: tensor<1x1x4611686018427387904x1xf8E4M3FN>, %v: tensor<1x1x4611686018427387904x1xf8E4M3FN>, %d: tensor<f32>) -> tensor<1x1x16x1xf32> {
  %o = fa.attention %q, %k, %v : tensor<1x1x16x1xf8E4M3FN>, tensor<1x1x4611686018427387904x1xf8E4M3FN>, tensor<1x1x4611686018427387904x1xf8E4M3FN> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<1x1x16x1xf32>
  return %o : tensor<1x1x16x1xf32>
}
