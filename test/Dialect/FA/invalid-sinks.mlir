// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier message (and parse error) of the attention sinks
// operand of fa.attention / fa.attention_grad and their gradient.

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %s: tensor<2x1xf32>) {
  // expected-error @+1 {{'sinks' must be a rank-1 f32 tensor [heads_q] = [2] (one sink logit per query head), got 'tensor<2x1xf32>'}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> sinks(%s : tensor<2x1xf32>) -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>, %s: tensor<2xf16>) {
  // expected-error @+1 {{'sinks' must be a rank-1 f32 tensor [heads_q] = [2] (one sink logit per query head), got 'tensor<2xf16>'}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> sinks(%s : tensor<2xf16>) -> tensor<1x2x8x16xf16>
  return
}

// -----

// One sink per query head, not per key/value head (GQA: 4 on 2).
func.func @f(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'sinks' dimension 0 (heads_q) is 2, expected 4 (the heads_q of 'query')}}
  %o = fa.attention %q, %k, %v : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> sinks(%s : tensor<2xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

// A static sink count fixes a dynamic heads_q for the other operands.
func.func @f(%q: tensor<1x?x8x16xf32>, %k: tensor<1x?x8x16xf32>, %v: tensor<1x?x8x16xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'output' dimension 1 (heads_q) is 4, expected 3 (the heads_q of 'sinks')}}
  %o = fa.attention %q, %k, %v : tensor<1x?x8x16xf32>, tensor<1x?x8x16xf32>, tensor<1x?x8x16xf32> sinks(%s : tensor<3xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @f(%do: tensor<1x2x8x16xf32>, %q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'sinks' dimension 0 (heads_q) is 3, expected 2 (the heads_q of 'query')}}
  %dq, %dk, %dv, %ds = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32> sinks(%s : tensor<3xf32>) -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<3xf32>
  return
}

// -----

func.func @f(%do: tensor<1x2x8x16xf32>, %q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'grad_sinks' type must be 'tensor<2xf32>' (the type of 'sinks'), got 'tensor<?xf32>'}}
  %dq, %dk, %dv, %ds = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32> sinks(%s : tensor<2xf32>) -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<?xf32>
  return
}

// -----

// The custom form always pairs them; the generic form can leave one out.
func.func @f(%do: tensor<1x2x8x16xf32>, %q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'grad_sinks' must be returned exactly when 'sinks' is given}}
  %dq, %dk, %dv = "fa.attention_grad"(%do, %q, %k, %v, %o, %lse, %s) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> ({}, {}) : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<2xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>)
  return
}

// -----

func.func @f(%do: tensor<1x2x8x16xf32>, %q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'grad_sinks' must be returned exactly when 'sinks' is given}}
  %dq, %dk, %dv, %ds = "fa.attention_grad"(%do, %q, %k, %v, %o, %lse) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0, 1>}> ({}, {}) : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<2xf32>)
  return
}

// -----

// With sinks (or a bias) the gradient's type follows dV's (dBias first).
func.func @f(%do: tensor<1x2x8x16xf32>, %q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8xf32>, %s: tensor<2xf32>) {
  %dq, %dk, %dv, %ds = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32> sinks(%s : tensor<2xf32>) -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  // The error is at the token after the last type.
  // expected-error @+1 {{expected ', ' and the type of 'grad_sinks': 'sinks' is given, so its gradient is a result}}
  return
}

// -----

func.func @f(%do: tensor<1x2x8x16xf32>, %q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8xf32>, %bias: tensor<1x1x8x8xf32>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32> bias(%bias : tensor<1x1x8x8xf32>) -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  // expected-error @+1 {{expected ', ' and the type of 'grad_bias': 'bias' is given, so its gradient is a result}}
  return
}
