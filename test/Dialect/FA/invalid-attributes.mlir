// RUN: fa-opt %s -split-input-file -verify-diagnostics

// Every fa op refuses attributes it does not declare: a misspelled or
// foreign attribute would verify and change nothing. Dialect-prefixed
// (discardable) attributes stay allowed.

func.func @f(%q: tensor<2x1x4x16xf32>, %kc: tensor<2x32x2x16xf32>, %vc: tensor<2x32x2x16xf32>, %lens: tensor<2xi32>) {
  // expected-error @+1 {{'fa.attention_kvcache' op does not take attribute 'mask_alignment': its masks always align bottom-right, per sequence; it takes 'causal', 'num_splits', 'scale', 'softcap', 'window'}}
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x1x4x16xf32>, tensor<2x32x2x16xf32>, tensor<2x32x2x16xf32>, tensor<2xi32> {causal, mask_alignment = #fa<mask_alignment top_left>} -> tensor<2x1x4x16xf32>, tensor<2x4x1xf32>
  return
}

// -----

func.func @f(%q: tensor<2x1x4x16xf32>, %kc: tensor<2x32x2x16xf32>, %vc: tensor<2x32x2x16xf32>, %lens: tensor<2xi32>) {
  // expected-error @+1 {{'fa.attention_kvcache' op does not take attribute 'layout': its query, caches and output are always bshd;}}
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x1x4x16xf32>, tensor<2x32x2x16xf32>, tensor<2x32x2x16xf32>, tensor<2xi32> {layout = #fa<layout bhsd>} -> tensor<2x1x4x16xf32>, tensor<2x4x1xf32>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'fa.attention' op does not take attribute 'casual' (did you mean 'causal'?); it takes 'causal', 'descale_block', 'layout', 'mask_alignment', 'num_splits', 'scale', 'softcap', 'window'}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> {casual} -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'fa.attention' op does not take attribute 'windows' (did you mean 'window'?)}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> {windows = array<i64: 4, 0>} -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) {
  // An unrelated name gets no guess.
  // expected-error @+1 {{'fa.attention' op does not take attribute 'dropout'; it takes}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> {dropout = 1.0e-01 : f32} -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @f(%do: tensor<1x1x8x8xf32>, %q: tensor<1x1x8x8xf32>, %k: tensor<1x1x8x8xf32>, %v: tensor<1x1x8x8xf32>, %o: tensor<1x1x8x8xf32>, %lse: tensor<1x1x8xf32>) {
  // expected-error @+1 {{'fa.attention_grad' op does not take attribute 'num_splits': the backward does not split the keys;}}
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8xf32> {num_splits = 2 : i64} -> tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'fa.attention_varlen' op does not take attribute 'layout': its tensors are packed [tokens, heads, head_dim];}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> {layout = #fa<layout bshd>} -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%po: tensor<4x2x8x16xf32>, %pl: tensor<4x2x8xf32>) {
  // expected-error @+1 {{'fa.combine' op does not take attribute 'causal'; it takes no attributes}}
  %o, %l = fa.combine %po, %pl : tensor<4x2x8x16xf32>, tensor<4x2x8xf32> {causal} -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) {
  // The fa prefix is the fa dialect's: only its own discardable attributes.
  // expected-error @+1 {{'fa.attention' op has unknown fa dialect attribute 'fa.causal' (did you mean 'causal'?); the fa dialect's discardable attributes are 'fa.kernel', 'fa.kernel_bundles', 'fa.raise_glue', 'fa.cpu_block'}}
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> {fa.causal} -> tensor<1x2x8x16xf32>
  return
}

// -----

// Dialect-prefixed attributes are the dialects' (fa's own discardable ones
// too): accepted.
func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) {
  %o = fa.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> {causal, fa.raise_glue, test.note = "kept"} -> tensor<1x2x8x16xf32>
  return
}
