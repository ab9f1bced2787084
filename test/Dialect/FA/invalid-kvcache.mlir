// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of fa.attention_kvcache.

func.func @f(%q: tensor<3x2x4x16xf64>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'query' element type must be f32, f16 or bf16, got 'f64'}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf64>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'query' must have rank 4, got rank 3}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf16>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'value_cache' element type must be 'f32' (the type of 'query'), got 'f16'}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf16>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf16>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x?xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'key' head dim (dimension 3) must be static and positive}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x?xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi64>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'cache_seqlens' must be a rank-1 i32 tensor [batch], got 'tensor<3xi64>'}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi64> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<2x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'block_table' dimension 0 (batch) is 2, expected 3 (the batch of 'cache_seqlens')}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<2x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi64>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'block_table' must be a rank-2 i32 tensor [batch, max_pages], got 'tensor<3x5xi64>'}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi64>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<2x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'query' dimension 0 (batch) is 2, expected 3 (the batch of 'cache_seqlens')}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<2x2x4x16xf32>, tensor<2x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'key_cache' dimension 0 (batch) is 12, expected 3 (the batch of 'cache_seqlens')}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x4x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'value_cache' dimension 1 (cache_slots) is 4, expected 8 (the cache_slots of 'key_cache')}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x4x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x4x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x32xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'key_cache' dimension 3 (head_dim) is 32, expected 16 (the head_dim of 'query')}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x32xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x32xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x1x2x16xf32>) {
  // expected-error @+1 {{'value' dimension 1 (seq_new) is 1, expected 2 (the seq_new of 'key')}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x1x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x1x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'key' dimension 2 (heads_kv) is 1, expected 2 (the heads_kv of 'key_cache')}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x1x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x3x16xf32>, %vc: tensor<12x8x3x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x3x16xf32>, %v: tensor<3x2x3x16xf32>) {
  // expected-error @+1 {{heads_kv (3, of 'key_cache') must be positive and divide heads_q (4)}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x3x16xf32>, tensor<12x8x3x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x3x16xf32>, tensor<3x2x3x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x3x16xf32>, tensor<12x8x3x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x0x2x16xf32>, %vc: tensor<12x0x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{page_size ('key_cache' dimension 1) must be positive}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x0x2x16xf32>, tensor<12x0x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x0x2x16xf32>, tensor<12x0x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'output' must be a rank-4 'f32' tensor [batch, seq_q, heads_q, head_dim_v], got 'tensor<3x2x4x16xf16>'}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf16>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'output' dimension 1 (seq_q) is 1, expected 2 (the seq_q of 'query')}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x1x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'lse' must be a rank-3 f32 tensor [batch, heads_q, seq_q], got 'tensor<3x2x4xf16>'}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x2x4xf16>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'lse' dimension 1 (heads_q) is 2, expected 4 (the heads_q of 'query')}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x2x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{the updated caches must be returned exactly when 'key' and 'value' are appended}}
  %r0, %r1 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{the updated caches must have the caches' types}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf16>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'softcap' must be finite and > 0, got -1}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) {softcap = -1.0 : f32} -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'window' must have 2 elements (left, right), got 1}}
  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32> block_table(%bt : tensor<3x5xi32>) append(%k, %v : tensor<3x2x2x16xf32>, tensor<3x2x2x16xf32>) {window = array<i64: 4>} -> tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<3x2x4x16xf32>, %kc: tensor<12x8x2x16xf32>, %vc: tensor<12x8x2x16xf32>, %lens: tensor<3xi32>, %bt: tensor<3x5xi32>, %k: tensor<3x2x2x16xf32>, %v: tensor<3x2x2x16xf32>) {
  // expected-error @+1 {{'key' and 'value' are appended together: give both or neither}}
  %r0, %r1, %r2, %r3 = "fa.attention_kvcache"(%q, %kc, %vc, %lens, %bt, %k) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 1>}> ({}, {}) : (tensor<3x2x4x16xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>, tensor<3xi32>, tensor<3x5xi32>, tensor<3x2x2x16xf32>) -> (tensor<3x2x4x16xf32>, tensor<3x4x2xf32>, tensor<12x8x2x16xf32>, tensor<12x8x2x16xf32>)
  return
}
