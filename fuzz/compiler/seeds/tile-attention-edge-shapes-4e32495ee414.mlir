func.func @forward_no_key(%q: tensor<?x2x16x8xf32>, %k: tensor<?x1x0x8xf32>, %v: tensor<?x1x0x8xf32>) -> (tensor<?x2x16x8xf32>, tensor<?x2x16xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<?x2x16x8xf32>, tensor<?x1x0x8xf32>, tensor<?x1x0x8xf32> -> tensor<?x2x16x8xf32>, tensor<?x2x16xf32>
  return %o, %l : tensor<?x2x16x8xf32>, tensor<?x2x16xf32>
}
