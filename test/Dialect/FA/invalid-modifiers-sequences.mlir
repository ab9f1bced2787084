// RUN: fa-opt %s -split-input-file -verify-diagnostics

// The score_mod / mask_mod regions of fa.attention_varlen,
// fa.attention_varlen_grad and fa.attention_kvcache go through fa.attention's
// verifier (ModifierRegions.cpp): one case per op and message kind
// (signature, capture types, captures without a region, the ops, the yield,
// isolation).

func.func @f(%q: tensor<?x2x16xf32>, %k: tensor<?x2x16xf32>, %v: tensor<?x2x16xf32>, %cu: tensor<3xi32>, %t: tensor<2xf32>) {
  // expected-error @+1 {{'score_mod' must have 6 arguments (f32 score, index batch, head, query, key, then one per capture), got 5}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cu, %cu : tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<3xi32>, tensor<3xi32> captures(%t : tensor<2xf32>) -> tensor<?x2x16xf32>, tensor<2x?xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    fa.yield %s : f32
  }
  return
}

// -----

func.func @f(%q: tensor<?x2x16xf32>, %k: tensor<?x2x16xf32>, %v: tensor<?x2x16xf32>, %cu: tensor<3xi32>, %t: tensor<2xf32>) {
  // expected-error @+1 {{has captures but no 'score_mod' or 'mask_mod' region to read them}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cu, %cu : tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<3xi32>, tensor<3xi32> captures(%t : tensor<2xf32>) -> tensor<?x2x16xf32>, tensor<2x?xf32>
  return
}

// -----

func.func @f(%q: tensor<?x2x16xf32>, %k: tensor<?x2x16xf32>, %v: tensor<?x2x16xf32>, %cu: tensor<3xi32>) {
  %o, %lse = fa.attention_varlen %q, %k, %v, %cu, %cu : tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<3xi32>, tensor<3xi32> -> tensor<?x2x16xf32>, tensor<2x?xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    // expected-error @+1 {{'fa.yield' op in 'mask_mod' must yield 'i1', got 'index'}}
    fa.yield %j : index
  }
  return
}

// -----

// The sequences' cu_seqlens are operands of the op, not of its regions: a
// region reads them only as a capture.
func.func @f(%q: tensor<?x2x16xf32>, %k: tensor<?x2x16xf32>, %v: tensor<?x2x16xf32>, %cu: tensor<3xi32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cu, %cu : tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<3xi32>, tensor<3xi32> -> tensor<?x2x16xf32>, tensor<2x?xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    // expected-error @+1 {{using value defined outside the region}}
    %n = tensor.extract %cu[%b] : tensor<3xi32>
    %c0 = arith.constant 0 : i32
    %keep = arith.cmpi sgt, %n, %c0 : i32
    fa.yield %keep : i1
  }
  return
}

// -----

func.func @f(%do: tensor<?x2x16xf32>, %q: tensor<?x2x16xf32>, %k: tensor<?x2x16xf32>, %v: tensor<?x2x16xf32>, %o: tensor<?x2x16xf32>, %lse: tensor<2x?xf32>, %cu: tensor<3xi32>, %p: tensor<2xi32>) {
  // expected-error @+1 {{'mask_mod' argument #4 must be 'tensor<2xi32>' (the type of its capture), got 'tensor<3xi32>'}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cu, %cu : tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<2x?xf32>, tensor<3xi32>, tensor<3xi32> captures(%p : tensor<2xi32>) -> tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %x: tensor<3xi32>):
    %true = arith.constant true
    fa.yield %true : i1
  }
  return
}

// -----

func.func @f(%do: tensor<?x2x16xf32>, %q: tensor<?x2x16xf32>, %k: tensor<?x2x16xf32>, %v: tensor<?x2x16xf32>, %o: tensor<?x2x16xf32>, %lse: tensor<2x?xf32>, %cu: tensor<3xi32>) {
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cu, %cu : tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<2x?xf32>, tensor<3xi32>, tensor<3xi32> -> tensor<?x2x16xf32>, tensor<?x2x16xf32>, tensor<?x2x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %x = arith.constant 1.0 : f32
    // expected-error @+1 {{'scf.execute_region' op is not allowed in 'score_mod': a modifier region holds only arith and math ops, tensor.extract and tensor.dim}}
    %y = scf.execute_region -> f32 {
      scf.yield %x : f32
    }
    %r = arith.addf %s, %y : f32
    fa.yield %r : f32
  }
  return
}

// -----

func.func @f(%q: tensor<2x1x2x16xf32>, %kc: tensor<2x32x2x16xf32>, %vc: tensor<2x32x2x16xf32>, %lens: tensor<2xi32>, %t: tensor<2xcomplex<f32>>) {
  // expected-error @+1 {{capture #0 must be an integer, index or float scalar or a ranked tensor of them, got 'tensor<2xcomplex<f32>>'}}
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x1x2x16xf32>, tensor<2x32x2x16xf32>, tensor<2x32x2x16xf32>, tensor<2xi32> captures(%t : tensor<2xcomplex<f32>>) -> tensor<2x1x2x16xf32>, tensor<2x2x1xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: tensor<2xcomplex<f32>>):
    fa.yield %s : f32
  }
  return
}

// -----

func.func @f(%q: tensor<2x1x2x16xf32>, %kc: tensor<2x32x2x16xf32>, %vc: tensor<2x32x2x16xf32>, %lens: tensor<2xi32>) {
  // expected-error @+1 {{'score_mod' argument #3 must be 'index', got 'i32'}}
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x1x2x16xf32>, tensor<2x32x2x16xf32>, tensor<2x32x2x16xf32>, tensor<2xi32> {causal} -> tensor<2x1x2x16xf32>, tensor<2x2x1xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: i32, %j: index):
    fa.yield %s : f32
  }
  return
}

// -----

func.func @f(%q: tensor<2x1x2x16xf32>, %kc: tensor<2x32x2x16xf32>, %vc: tensor<2x32x2x16xf32>, %lens: tensor<2xi32>, %k: tensor<2x1x2x16xf32>, %v: tensor<2x1x2x16xf32>, %t: tensor<2x33xi32>) {
  %o, %lse, %kc2, %vc2 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x1x2x16xf32>, tensor<2x32x2x16xf32>, tensor<2x32x2x16xf32>, tensor<2xi32> append(%k, %v : tensor<2x1x2x16xf32>, tensor<2x1x2x16xf32>) captures(%t : tensor<2x33xi32>) -> tensor<2x1x2x16xf32>, tensor<2x2x1xf32>, tensor<2x32x2x16xf32>, tensor<2x32x2x16xf32> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<2x33xi32>):
    %c1 = arith.constant 1 : i32
    // expected-error @+1 {{'tensor.insert' op is not allowed in 'mask_mod': a modifier region holds only arith and math ops, tensor.extract and tensor.dim}}
    %e = tensor.insert %c1 into %d[%b, %i] : tensor<2x33xi32>
    %true = arith.constant true
    fa.yield %true : i1
  }
  return
}
