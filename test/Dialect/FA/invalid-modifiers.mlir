// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the score_mod / mask_mod regions and
// their captures.

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %t: tensor<2xf32>) {
  // expected-error @+1 {{'score_mod' must have 6 arguments (f32 score, index batch, head, query, key, then one per capture), got 5}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> captures(%t : tensor<2xf32>) -> tensor<1x2x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    fa.yield %s : f32
  }
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'score_mod' argument #0 must be 'f32', got 'f16'}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32> score_mod {
  ^bb0(%s: f16, %b: index, %h: index, %i: index, %j: index):
    %x = arith.extf %s : f16 to f32
    fa.yield %x : f32
  }
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %t: tensor<2xf32>) {
  // expected-error @+1 {{'mask_mod' argument #4 must be 'tensor<2xf32>' (the type of its capture), got 'tensor<3xf32>'}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> captures(%t : tensor<2xf32>) -> tensor<1x2x8x16xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %x: tensor<3xf32>):
    %true = arith.constant true
    fa.yield %true : i1
  }
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) {
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %keep = arith.cmpi sle, %j, %i : index
    // expected-error @+1 {{'fa.yield' op in 'mask_mod' must yield 'i1', got 'index'}}
    fa.yield %j : index
  }
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %t: tensor<2xcomplex<f32>>) {
  // expected-error @+1 {{capture #0 must be an integer, index or float scalar or a ranked tensor of them, got 'tensor<2xcomplex<f32>>'}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> captures(%t : tensor<2xcomplex<f32>>) -> tensor<1x2x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: tensor<2xcomplex<f32>>):
    fa.yield %s : f32
  }
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %t: tensor<2xf32>) {
  // expected-error @+1 {{has captures but no 'score_mod' or 'mask_mod' region to read them}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> captures(%t : tensor<2xf32>) -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %t: tensor<2xf32>) {
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> captures(%t : tensor<2xf32>) -> tensor<1x2x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: tensor<2xf32>):
    // expected-error @+1 {{'tensor.insert' op is not allowed in 'score_mod': a modifier region holds only arith and math ops, tensor.extract and tensor.dim}}
    %y = tensor.insert %s into %x[%h] : tensor<2xf32>
    fa.yield %s : f32
  }
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) {
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @+1 {{'arith.constant' op in 'score_mod' must have scalar results (integer, index or float), got 'tensor<2xf32>'}}
    %table = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %x = tensor.extract %table[%h] : tensor<2xf32>
    %r = arith.addf %s, %x : f32
    fa.yield %r : f32
  }
  return
}

// -----

// A value from outside: the regions are isolated from above (captures say
// what they read).
func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %c: f32) {
  // expected-note @+1 {{required by region isolation constraints}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @+1 {{using value defined outside the region}}
    %r = arith.addf %s, %c : f32
    fa.yield %r : f32
  }
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) {
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> {causal} -> tensor<1x2x8x16xf32>
  // expected-error @+1 {{'fa.yield' op expects parent op to be one of 'fa.attention, fa.attention_grad, fa.attention_kvcache, fa.attention_varlen, fa.attention_varlen_grad'}}
  fa.yield %o : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @f(%do: tensor<1x1x8x8xf32>, %q: tensor<1x1x8x8xf32>, %k: tensor<1x1x8x8xf32>, %v: tensor<1x1x8x8xf32>, %o: tensor<1x1x8x8xf32>, %lse: tensor<1x1x8xf32>, %p: tensor<1xi32>) {
  // The backward takes the same regions; the same checks apply.
  // expected-error @+1 {{'mask_mod' must have 5 arguments (index batch, head, query, key, then one per capture), got 4}}
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8xf32> captures(%p : tensor<1xi32>) -> tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %true = arith.constant true
    fa.yield %true : i1
  }
  return
}
