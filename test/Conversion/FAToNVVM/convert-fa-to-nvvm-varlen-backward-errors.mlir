// RUN: fa-opt %s -split-input-file --convert-fa-to-nvvm -verify-diagnostics

// What the sm_90a ragged-batch backward refuses, naming it (the dense
// backward's limits: bf16/f16, head dims up to 128).

func.func @f32(%do: tensor<?x4x64xf32>, %q: tensor<?x4x64xf32>, %k: tensor<?x4x64xf32>, %v: tensor<?x4x64xf32>, %o: tensor<?x4x64xf32>, %l: tensor<4x?xf32>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> tensor<?x4x64xf32> {
  // expected-error @+1 {{convert-fa-to-nvvm: element type must be bf16 or f16 for the sm_90a backward}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %l, %cq, %ck : tensor<?x4x64xf32>, tensor<?x4x64xf32>, tensor<?x4x64xf32>, tensor<?x4x64xf32>, tensor<?x4x64xf32>, tensor<4x?xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x64xf32>, tensor<?x4x64xf32>, tensor<?x4x64xf32>
  return %dq : tensor<?x4x64xf32>
}

// -----

func.func @d256(%do: tensor<?x4x256xbf16>, %q: tensor<?x4x256xbf16>, %k: tensor<?x4x256xbf16>, %v: tensor<?x4x256xbf16>, %o: tensor<?x4x256xbf16>, %l: tensor<4x?xf32>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> tensor<?x4x256xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: head dim of Q and K must be a static multiple of 8 in [8, 128] for the sm_90a backward (dK and dV accumulate in registers)}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %l, %cq, %ck : tensor<?x4x256xbf16>, tensor<?x4x256xbf16>, tensor<?x4x256xbf16>, tensor<?x4x256xbf16>, tensor<?x4x256xbf16>, tensor<4x?xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x256xbf16>, tensor<?x4x256xbf16>, tensor<?x4x256xbf16>
  return %dq : tensor<?x4x256xbf16>
}

// -----

func.func @dv40(%do: tensor<?x4x36xbf16>, %q: tensor<?x4x64xbf16>, %k: tensor<?x4x64xbf16>, %v: tensor<?x4x36xbf16>, %o: tensor<?x4x36xbf16>, %l: tensor<4x?xf32>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> tensor<?x4x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: head dim of V must be a static multiple of 8 in [8, 128] for the sm_90a backward}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %l, %cq, %ck : tensor<?x4x36xbf16>, tensor<?x4x64xbf16>, tensor<?x4x64xbf16>, tensor<?x4x36xbf16>, tensor<?x4x36xbf16>, tensor<4x?xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x64xbf16>, tensor<?x4x64xbf16>, tensor<?x4x36xbf16>
  return %dq : tensor<?x4x64xbf16>
}

// -----

// Regions: the backward's kernels walk the packed rows as one batch, so they
// would not see a sequence's positions (the CPU lowering takes them).
func.func @regions(%do: tensor<?x4x64xbf16>, %q: tensor<?x4x64xbf16>, %k: tensor<?x4x64xbf16>, %v: tensor<?x4x64xbf16>, %o: tensor<?x4x64xbf16>, %l: tensor<4x?xf32>, %cq: tensor<?xi32>, %ck: tensor<?xi32>, %sl: tensor<4xf32>) -> tensor<?x4x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: score_mod/mask_mod regions on fa.attention_varlen_grad are not supported by the sm_90a backward yet (the CPU lowering takes them)}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %l, %cq, %ck : tensor<?x4x64xbf16>, tensor<?x4x64xbf16>, tensor<?x4x64xbf16>, tensor<?x4x64xbf16>, tensor<?x4x64xbf16>, tensor<4x?xf32>, tensor<?xi32>, tensor<?xi32> captures(%sl : tensor<4xf32>) -> tensor<?x4x64xbf16>, tensor<?x4x64xbf16>, tensor<?x4x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %m: tensor<4xf32>):
    %x = tensor.extract %m[%h] : tensor<4xf32>
    %r = arith.addf %s, %x : f32
    fa.yield %r : f32
  }
  return %dq : tensor<?x4x64xbf16>
}
