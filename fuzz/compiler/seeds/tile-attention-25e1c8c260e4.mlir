func.func @forward_gqa(%q: tensor<2x8x100x16xf32>, %k: tensor<2x2x100x16xf32>, %v: tensor<2x2x100x16xf32>) -> tensor<2x8x100x16xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x8x100x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32> -> tensor<2x8x100x16xf32>
  return %o : tensor<2x8x100x16xf32>
}
