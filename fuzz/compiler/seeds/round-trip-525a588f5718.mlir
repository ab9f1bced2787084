func.func @everything(%q: tensor<2x?x32x128xbf16>, %k: tensor<2x?x8x128xbf16>, %v: tensor<2x?x8x96xbf16>, %b: tensor<1x32x?x?xf32>) -> (tensor<2x?x32x96xbf16>, tensor<2x32x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<2x?x32x128xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x96xbf16> bias(%b : tensor<1x32x?x?xf32>) {layout = #fa<layout bshd>, scale = 0.125 : f32, causal, mask_alignment = #fa<mask_alignment bottom_right>, window = array<i64: 256, 0>, softcap = 30.0 : f32} -> tensor<2x?x32x96xbf16>, tensor<2x32x?xf32>
  return %o, %lse : tensor<2x?x32x96xbf16>, tensor<2x32x?xf32>
}
