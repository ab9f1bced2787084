func.func @forward_plain(%q: tensor<1x2x130x64xf32>, %k: tensor<1x2x100x64xf32>, %v: tensor<1x2x100x64xf32>) -> (tensor<1x2x130x64xf32>, tensor<1x2x130xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<1x2x130x64xf32>, tensor<1x2x100x64xf32>, tensor<1x2x100x64xf32> -> tensor<1x2x130x64xf32>, tensor<1x2x130xf32>
  return %o, %lse : tensor<1x2x130x64xf32>, tensor<1x2x130xf32>
}
