// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of fa.attention_varlen.

func.func @f(%q: tensor<81x4x16xf64>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'query' element type must be f32, f16 or bf16, got 'f64'}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf64>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<1x99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'key' must have rank 3 [tokens, heads, head_dim], got rank 4}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<1x99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xbf16>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'value' element type must be 'f32' (the type of 'query'), got 'bf16'}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xbf16>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x?xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'query' head dim (dimension 2) must be static and positive}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x?xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi64>) {
  // expected-error @+1 {{'cu_seqlens_k' must be a rank-1 i32 tensor [batch + 1] (at least 1 entry), got 'tensor<6xi64>'}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi64> -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<0xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'cu_seqlens_q' must be a rank-1 i32 tensor [batch + 1] (at least 1 entry), got 'tensor<0xi32>'}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<0xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<5xi32>) {
  // expected-error @+1 {{'cu_seqlens_k' dimension 0 (batch + 1) is 5, expected 6 (the batch + 1 of 'cu_seqlens_q')}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<5xi32> -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'output' must be a rank-3 'f32' tensor [total_q, heads_q, head_dim_v], got 'tensor<1x81x4x16xf32>'}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<1x81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'lse' must be a rank-2 f32 tensor [heads_q, total_q], got 'tensor<81x4xf16>'}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<81x4xf16>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'lse' dimension 0 (heads_q) is 81, expected 4 (the heads_q of 'query')}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<81x4xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<98x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'value' dimension 0 (total_k) is 98, expected 99 (the total_k of 'key')}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<98x2x16xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x8xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'key' dimension 2 (head_dim) is 8, expected 16 (the head_dim of 'query')}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x8xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'output' dimension 2 (head_dim_v) is 8, expected 16 (the head_dim_v of 'value')}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x8xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x3x16xf32>, %v: tensor<99x3x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{heads_kv (3, of 'key') must be positive and divide heads_q (4)}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x3x16xf32>, tensor<99x3x16xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'max_seqlen_q' (82) exceeds the packed tokens (81)}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> {max_seqlen_q = 82 : i64} -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'max_seqlen_k' (100) exceeds the packed tokens (99)}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> {max_seqlen_k = 100 : i64} -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{attribute 'max_seqlen_k' failed to satisfy constraint}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> {max_seqlen_k = -1 : i64} -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'mask_alignment' needs 'causal' or 'window'}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> {mask_alignment = #fa<mask_alignment bottom_right>} -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}

// -----

func.func @f(%q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x16xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'window' sizes must be >= 0, got [-1, 0]}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>, tensor<6xi32>, tensor<6xi32> {window = array<i64: -1, 0>} -> tensor<81x4x16xf32>, tensor<4x81xf32>
  return
}
