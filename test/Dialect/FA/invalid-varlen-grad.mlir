// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of fa.attention_varlen_grad, and the forward's
// num_splits hint and a layout refused with their reasons.

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf64>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'query' element type must be f32, f16 or bf16, got 'f64'}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf64>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<1x81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'grad_output' must have rank 3 [tokens, heads, head_dim], got rank 4}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<1x81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xbf16>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'output' element type must be 'f32' (the type of 'query'), got 'bf16'}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xbf16>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'grad_key' head dim (dimension 2) must be static and positive}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x?xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x8xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'key' dimension 2 (head_dim) is 8, expected 16 (the head_dim of 'query')}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x8xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<98x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'value' dimension 0 (total_k) is 98, expected 99 (the total_k of 'key')}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<98x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x16xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'output' dimension 2 (head_dim_v) is 16, expected 8 (the head_dim_v of 'value')}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x16xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<80x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'grad_output' dimension 0 (total_q) is 80, expected 81 (the total_q of 'query')}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<80x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'grad_query' dimension 1 (heads_q) is 2, expected 4 (the heads_q of 'query')}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x2x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'grad_value' dimension 2 (head_dim_v) is 16, expected 8 (the head_dim_v of 'value')}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x16xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'grad_key' dimension 1 (heads_kv) is 4, expected 2 (the heads_kv of 'key')}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x4x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6x1xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'cu_seqlens_q' must be a rank-1 i32 tensor [batch + 1] (at least 1 entry), got 'tensor<6x1xi32>'}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6x1xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<0xi32>) {
  // expected-error @+1 {{'cu_seqlens_k' must be a rank-1 i32 tensor [batch + 1] (at least 1 entry), got 'tensor<0xi32>'}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<0xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<5xi32>) {
  // expected-error @+1 {{'cu_seqlens_k' dimension 0 (batch + 1) is 5, expected 6 (the batch + 1 of 'cu_seqlens_q')}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<5xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf16>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'lse' must be a rank-2 f32 tensor [heads_q, total_q], got 'tensor<4x81xf16>'}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf16>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<81x4xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'lse' dimension 0 (heads_q) is 81, expected 4 (the heads_q of 'query')}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<81x4xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x3x16xf32>, %v: tensor<99x3x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{heads_kv (3, of 'key') must be positive and divide heads_q (4)}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x3x16xf32>, tensor<99x3x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> -> tensor<81x4x16xf32>, tensor<99x3x16xf32>, tensor<99x3x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'max_seqlen_q' (82) exceeds the packed tokens (81)}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> {max_seqlen_q = 82 : i64} -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'max_seqlen_k' (100) exceeds the packed tokens (99)}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> {max_seqlen_k = 100 : i64} -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{attribute 'max_seqlen_k' failed to satisfy constraint}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> {max_seqlen_k = -1 : i64} -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'mask_alignment' needs 'causal' or 'window'}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> {mask_alignment = #fa.mask_alignment<bottom_right>} -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'window' sizes must be >= 0, got [-1, 0]}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> {window = array<i64: -1, 0>} -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'window' must have 2 elements (left, right), got 1}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> {window = array<i64: 4>} -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'softcap' must be finite and > 0, got 0}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> {softcap = 0.0 : f32} -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{'scale' must be finite and non-zero, got 0}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> {scale = 0.0 : f32} -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{does not take attribute 'num_splits': the backward does not split the keys}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> {num_splits = 2 : i64} -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}

// -----

func.func @f(%do: tensor<81x4x8xf32>, %q: tensor<81x4x16xf32>, %k: tensor<99x2x16xf32>, %v: tensor<99x2x8xf32>, %o: tensor<81x4x8xf32>, %lse: tensor<4x81xf32>, %cq: tensor<6xi32>, %ck: tensor<6xi32>) {
  // expected-error @+1 {{does not take attribute 'layout': its tensors are packed [tokens, heads, head_dim]}}
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<81x4x8xf32>, tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>, tensor<81x4x8xf32>, tensor<4x81xf32>, tensor<6xi32>, tensor<6xi32> {layout = #fa<layout bshd>} -> tensor<81x4x16xf32>, tensor<99x2x16xf32>, tensor<99x2x8xf32>
  return
}
