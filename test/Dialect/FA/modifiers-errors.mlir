// RUN: fa-opt %s -split-input-file --fa-decompose-attention -verify-diagnostics
// RUN: fa-opt %s -split-input-file --fa-tile-attention -verify-diagnostics

// The backward needs d score_mod / d score: an op the score flows through
// without a derivative rule is refused, named, by both lowerings.

func.func @f(%do: tensor<1x1x8x8xf32>, %q: tensor<1x1x8x8xf32>, %k: tensor<1x1x8x8xf32>, %v: tensor<1x1x8x8xf32>, %o: tensor<1x1x8x8xf32>, %lse: tensor<1x1x8xf32>) -> tensor<1x1x8x8xf32> {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8xf32> -> tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 2.0 : f32
    %x = arith.mulf %s, %c : f32
    // expected-error @+1 {{'math.erf' op in 'score_mod' depends on the score and cannot be differentiated (the backward needs d score_mod / d score); differentiable: arith addf}}
    %e = math.erf %x : f32
    fa.yield %e : f32
  }
  return %dq : tensor<1x1x8x8xf32>
}

// -----

// erf of the position only (no score in it) needs no derivative, and the
// forward takes any allowed op.
func.func @f(%do: tensor<1x1x8x8xf32>, %q: tensor<1x1x8x8xf32>, %k: tensor<1x1x8x8xf32>, %v: tensor<1x1x8x8xf32>, %o: tensor<1x1x8x8xf32>, %lse: tensor<1x1x8xf32>) -> (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8xf32> -> tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %e = math.erf %f : f32
    %r = arith.addf %s, %e : f32
    fa.yield %r : f32
  }
  %fwd = fa.attention %q, %k, %v : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32> -> tensor<1x1x8x8xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %e = math.erf %s : f32
    fa.yield %e : f32
  }
  return %dq, %fwd : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>
}
