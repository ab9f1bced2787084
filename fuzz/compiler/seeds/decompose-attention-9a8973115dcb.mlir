func.func @bshd_softcap(%q: tensor<2x?x4x32xf32>, %k: tensor<2x?x4x32xf32>, %v: tensor<2x?x4x32xf32>) -> tensor<2x?x4x32xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x?x4x32xf32>, tensor<2x?x4x32xf32>, tensor<2x?x4x32xf32> {layout = #fa<layout bshd>, softcap = 20.0 : f32} -> tensor<2x?x4x32xf32>
  return %o : tensor<2x?x4x32xf32>
}
