// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm --verify-diagnostics

// What the sm_90a backward cannot take of score_mod/mask_mod regions, each
// named (docs/Modifiers.md). dS goes through d score_mod / d score, derived
// from the region: an op the score flows through without a derivative rule
// is an error at that op, although the forward kernel computes it.

func.func @not_differentiable(%do: tensor<1x4x128x64xbf16>, %q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %o: tensor<1x4x128x64xbf16>, %lse: tensor<1x4x128xf32>) -> tensor<1x4x128x64xbf16> {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128xf32> -> tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant -1.0 : f32
    // expected-error @+1 {{'math.copysign' op in 'score_mod' depends on the score and cannot be differentiated (the backward needs d score_mod / d score); differentiable: arith addf}}
    %r = math.copysign %s, %c : f32
    fa.yield %r : f32
  }
  return %dq : tensor<1x4x128x64xbf16>
}

// -----

// The same op on a value that does not depend on the score is fine; an op
// the sm_90a kernels do not compute at all is named as in the forward.
func.func @not_computed(%do: tensor<1x4x128x64xbf16>, %q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %o: tensor<1x4x128x64xbf16>, %lse: tensor<1x4x128xf32>) -> tensor<1x4x128x64xbf16> {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128xf32> -> tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %one = arith.constant 1.0 : f32
    %c = arith.constant -1.0 : f32
    %sign = math.copysign %one, %c : f32
    // expected-error @+1 {{'math.erf' op in 'score_mod': convert-fa-to-nvvm: the sm_90a kernels do not compute math.erf}}
    %e = math.erf %s : f32
    %r = arith.mulf %e, %sign : f32
    fa.yield %r : f32
  }
  return %dq : tensor<1x4x128x64xbf16>
}

// -----

// Captures as in the forward: a scalar capture must be a constant.
func.func @scalar_capture(%do: tensor<1x4x128x64xbf16>, %q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %o: tensor<1x4x128x64xbf16>, %lse: tensor<1x4x128xf32>, %x: f32) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: capture #0 is a scalar that is not a constant}}
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128xf32> captures(%x : f32) -> tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %c: f32):
    %r = arith.addf %s, %c : f32
    fa.yield %r : f32
  }
  return %dq : tensor<1x4x128x64xbf16>
}
