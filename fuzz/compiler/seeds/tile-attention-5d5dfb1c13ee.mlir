func.func @forward_fp8(%q: tensor<1x2x100x32xf8E4M3FN>, %k: tensor<1x1x100x32xf8E4M3FN>, %v: tensor<1x1x100x32xf8E4M3FN>, %dq: tensor<f32>, %dk: tensor<1x1xf32>, %dv: tensor<f32>) -> tensor<1x2x100x32xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x2x100x32xf8E4M3FN>, tensor<1x1x100x32xf8E4M3FN>, tensor<1x1x100x32xf8E4M3FN> descale(%dq, %dk, %dv : tensor<f32>, tensor<1x1xf32>, tensor<f32>) -> tensor<1x2x100x32xbf16>
  return %o : tensor<1x2x100x32xbf16>
}
