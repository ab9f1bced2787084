func.func @f(%do: tensor<1x2x128x64xf16>, %q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>, %o: tensor<1x2x128x64xf16>, %lse: tensor<1x2x128xf32>) -> tensor<1x2x128x64xf16> {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128xf32> -> tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant -1.0 : f32
    %r = math.copysign %s, %c : f32
    fa.yield %r : f32
  }
  return %dq : tensor<1x2x128x64xf16>
}
