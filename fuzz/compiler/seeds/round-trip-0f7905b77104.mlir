func.func @fp8(%q: tensor<4x16x512x128xf8E4M3FN>, %k: tensor<4x1x512x128xf8E4M3FN>, %v: tensor<4x1x512x128xf8E4M3FN>, %dq: tensor<4x1xf32>, %dk: tensor<4x1xf32>, %dv: tensor<f32>) -> tensor<4x16x512x128xbf16> {
  %o = fa.attention %q, %k, %v : tensor<4x16x512x128xf8E4M3FN>, tensor<4x1x512x128xf8E4M3FN>, tensor<4x1x512x128xf8E4M3FN> descale(%dq, %dk, %dv : tensor<4x1xf32>, tensor<4x1xf32>, tensor<f32>) -> tensor<4x16x512x128xbf16>
  return %o : tensor<4x16x512x128xbf16>
}
