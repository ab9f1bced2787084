func.func @f(%q: tensor<1x1x16x8xf32>, %k: tensor<1x1x4611686018427387904x8xf32>, %v: tensor<1x1x4611686018427387904x8xf32>) {
  %o = fa.attention %q, %k, %v : tensor<1x1x16x8xf32>, tensor<1x1x4611686018427387904x8xf32>, tensor<1x1x4611686018427387904x8xf32> -> tensor<1x1x16x8xf32>
  return
}
