func.func @bias_dynamic_batch_heads(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x20x8xf32>, %v: tensor<2x2x20x8xf32>, %b: tensor<?x?x16x20xf32>) -> tensor<2x2x16x8xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x2x16x8xf32>, tensor<2x2x20x8xf32>, tensor<2x2x20x8xf32> bias(%b : tensor<?x?x16x20xf32>) -> tensor<2x2x16x8xf32>
  return %o : tensor<2x2x16x8xf32>
}
