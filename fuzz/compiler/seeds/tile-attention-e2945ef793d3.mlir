func.func @forward_bshd_dynamic(%q: tensor<?x?x?x32xf32>, %k: tensor<?x?x?x32xf32>, %v: tensor<?x?x?x48xf32>) -> tensor<?x?x?x48xf32> {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x32xf32>, tensor<?x?x?x32xf32>, tensor<?x?x?x48xf32> {layout = #fa<layout bshd>, causal} -> tensor<?x?x?x48xf32>
  return %o : tensor<?x?x?x48xf32>
}
