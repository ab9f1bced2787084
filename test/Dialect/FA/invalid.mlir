// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of fa.attention and fa.attention_grad.

func.func @f(%q: tensor<8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'query' must have rank 4 (batch, heads, seq, head_dim in the op's layout), got rank 3}}
  %o = fa.attention %q, %k, %v : tensor<8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf64>, %k: tensor<2x2x16x32xf64>, %v: tensor<2x2x16x32xf64>) {
  // expected-error @+1 {{'query' element type must be f32, f16, bf16 or f8E4M3FN, got 'f64'}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf64>, tensor<2x2x16x32xf64>, tensor<2x2x16x32xf64> -> tensor<2x8x16x32xf64>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xbf16>) {
  // expected-error @+1 {{'value' element type must be 'f16' (the type of 'query'), got 'bf16'}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xbf16> -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x?xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'key' head_dim (dimension 3) must be static}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x?xf16>, tensor<2x2x16x32xf16> -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x0xf16>, %k: tensor<2x2x16x0xf16>, %v: tensor<2x2x16x0xf16>) {
  // expected-error @+1 {{head dims must be positive}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x0xf16>, tensor<2x2x16x0xf16>, tensor<2x2x16x0xf16> -> tensor<2x8x16x0xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'key' dimension 3 (head_dim) is 64, expected 32 (the head_dim of 'query')}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x32xf16> -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<3x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'key' dimension 0 (batch) is 3, expected 2 (the batch of 'query')}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<3x2x16x32xf16>, tensor<2x2x16x32xf16> -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x4x16x32xf16>) {
  // expected-error @+1 {{'value' dimension 1 (heads_kv) is 4, expected 2 (the heads_kv of 'key')}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x4x16x32xf16> -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x20x32xf16>) {
  // expected-error @+1 {{'value' dimension 2 (seq_k) is 20, expected 16 (the seq_k of 'key')}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x20x32xf16> -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x3x16x32xf16>, %v: tensor<2x3x16x32xf16>) {
  // expected-error @+1 {{heads_kv (3, of 'key') must divide heads_q (8, of 'query') for grouped-query attention}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x3x16x32xf16>, tensor<2x3x16x32xf16> -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'scale' must be finite and non-zero, got 0}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> {scale = 0.0 : f32} -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'scale' must be finite and non-zero, got INF}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> {scale = 0x7F800000 : f32} -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'softcap' must be finite and > 0, got -1}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> {softcap = -1.0 : f32} -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'softcap' must be finite and > 0, got 0}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> {softcap = 0.0 : f32} -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'window' must have 2 elements (left, right), got 3}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> {window = array<i64: 1, 2, 3>} -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'window' sizes must be >= 0, got [-1, 0]}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> {window = array<i64: -1, 0>} -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'mask_alignment' needs 'causal' or 'window'}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> {mask_alignment = #fa<mask_alignment bottom_right>} -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %b: tensor<16x16xf32>) {
  // expected-error @+1 {{'bias' must have rank 4 [batch|1, heads_q|1, seq_q, seq_k], got rank 2}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> bias(%b : tensor<16x16xf32>) -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %b: tensor<1x1x16x16xbf16>) {
  // expected-error @+1 {{'bias' element type must be f32 or 'f16' (the type of 'query'), got 'bf16'}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> bias(%b : tensor<1x1x16x16xbf16>) -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %b: tensor<1x2x16x16xf32>) {
  // expected-error @+1 {{'bias' dimension 1 (heads_q) is 2, expected 8 or 1 (the heads_q of 'query')}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> bias(%b : tensor<1x2x16x16xf32>) -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %b: tensor<1x1x16x17xf32>) {
  // expected-error @+1 {{'bias' dimension 3 (seq_k) is 17, expected 16 (the seq_k of 'key')}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> bias(%b : tensor<1x1x16x17xf32>) -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'output' element type must be 'f16' (the type of 'query'), got 'f32'}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> -> tensor<2x8x16x32xf32>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'output' must have rank 4, got rank 3}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> -> tensor<8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'output' dimension 3 (head_dim_v) is 64, expected 32 (the head_dim_v of 'value')}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> -> tensor<2x8x16x64xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'lse' must be a rank-3 f32 tensor [batch, heads_q, seq_q] = [2, 8, 16], got 'tensor<2x8x16xf16>'}}
  %o, %l = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> -> tensor<2x8x16x32xf16>, tensor<2x8x16xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'lse' dimension 1 (heads_q) is 2, expected 8 (the heads_q of 'query')}}
  %o, %l = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> -> tensor<2x8x16x32xf16>, tensor<2x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %d: tensor<f32>) {
  // expected-error @+1 {{descale operands are only for f8E4M3FN inputs, not 'f16'}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf8E4M3FN>, %k: tensor<2x2x16x32xf8E4M3FN>, %v: tensor<2x2x16x32xf8E4M3FN>, %d: tensor<f32>) {
  // expected-error @+1 {{f8E4M3FN inputs need descale operands (query_descale, key_descale, value_descale)}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN> -> tensor<2x8x16x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf8E4M3FN>, %k: tensor<2x2x16x32xf8E4M3FN>, %v: tensor<2x2x16x32xf8E4M3FN>, %d: tensor<f32>) {
  // expected-error @+1 {{'output' element type must be bf16, f16 or f32 for f8E4M3FN inputs, got 'f8E4M3FN'}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2x8x16x32xf8E4M3FN>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf8E4M3FN>, %k: tensor<2x2x16x32xf8E4M3FN>, %v: tensor<2x2x16x32xf8E4M3FN>, %d: tensor<f32>, %e: tensor<2x8xf32>) {
  // expected-error @+1 {{'key_descale' dimension 1 (heads_kv) is 8, expected 2 (the heads_kv of 'key')}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN> descale(%d, %e, %d : tensor<f32>, tensor<2x8xf32>, tensor<f32>) -> tensor<2x8x16x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf8E4M3FN>, %k: tensor<2x2x16x32xf8E4M3FN>, %v: tensor<2x2x16x32xf8E4M3FN>, %d: tensor<f32>, %b: tensor<1x1x16x16xf8E4M3FN>) {
  // expected-error @+1 {{'bias' element type must not be f8E4M3FN}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN> bias(%b : tensor<1x1x16x16xf8E4M3FN>) descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2x8x16x32xbf16>
  return
}

// -----

func.func @f(%do: tensor<2x8x16x32xbf16>, %q: tensor<2x8x16x32xf8E4M3FN>, %k: tensor<2x2x16x32xf8E4M3FN>, %v: tensor<2x2x16x32xf8E4M3FN>, %o: tensor<2x8x16x32xbf16>, %l: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'query' element type must be f32, f16 or bf16, got 'f8E4M3FN'}}
  %a, %b, %c = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xbf16>, tensor<2x8x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x8x16x32xbf16>, tensor<2x8x16xf32> -> tensor<2x8x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>
  return
}

// -----

func.func @f(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf32>, %l: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'output' must be the forward's output, of element type 'f16', got 'tensor<2x8x16x32xf32>'}}
  %a, %b, %c = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf32>, tensor<2x8x16xf32> -> tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>
  return
}

// -----

func.func @f(%do: tensor<2x8x16x32xbf16>, %q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'grad_output' type must be 'tensor<2x8x16x32xf16>' (the type of 'output'), got 'tensor<2x8x16x32xbf16>'}}
  %a, %b, %c = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xbf16>, tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8x16xf32> -> tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>
  return
}

// -----

func.func @f(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8xf32>) {
  // expected-error @+1 {{'lse' must be a rank-3 f32 tensor [batch, heads_q, seq_q] = [2, 8, 16], got 'tensor<2x8xf32>'}}
  %a, %b, %c = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8xf32> -> tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>
  return
}

// -----

func.func @f(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'grad_key' type must be 'tensor<2x2x16x32xf16>' (the type of 'key'), got 'tensor<2x8x16x32xf16>'}}
  %a, %b, %c = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8x16xf32> -> tensor<2x8x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>
  return
}

// -----

func.func @f(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'grad_query' type must be 'tensor<2x8x16x32xf16>' (the type of 'query'), got 'tensor<2x8x16x32xf32>'}}
  %a, %b, %c = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8x16xf32> -> tensor<2x8x16x32xf32>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>
  return
}

// -----

func.func @f(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'grad_value' type must be 'tensor<2x2x16x32xf16>' (the type of 'value'), got 'tensor<2x2x16x32xf32>'}}
  %a, %b, %c = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8x16xf32> -> tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf32>
  return
}

// -----

func.func @f(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8x16xf32>, %bias: tensor<1x1x16x16xf32>) {
  // The custom form pairs them (a missing type is a parse error,
  // invalid-sinks.mlir); the generic form can leave the gradient out.
  // expected-error @+1 {{'grad_bias' must be returned exactly when 'bias' is given}}
  %a, %b, %c = "fa.attention_grad"(%do, %q, %k, %v, %o, %l, %bias) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> ({}, {}) : (tensor<2x8x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8x16xf32>, tensor<1x1x16x16xf32>) -> (tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>)
  return
}

// -----

func.func @f(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8x16xf32>, %bias: tensor<1x1x16x16xf32>) {
  // expected-error @+1 {{'grad_bias' type must be 'tensor<1x1x16x16xf32>' (the type of 'bias'), got 'tensor<2x8x16x16xf32>'}}
  %a, %b, %c, %d = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8x16xf32> bias(%bias : tensor<1x1x16x16xf32>) -> tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x16xf32>
  return
}

// -----

func.func @f(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'softcap' must be finite and > 0, got -2}}
  %a, %b, %c = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8x16xf32> {softcap = -2.0 : f32} -> tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>
  return
}

// -----

func.func @f(%q: tensor<1x1x16x8xf32>, %k: tensor<1x1x4611686018427387904x8xf32>, %v: tensor<1x1x4611686018427387904x8xf32>) {
  // expected-error @+1 {{'key' of type 'tensor<1x1x4611686018427387904x8xf32>' holds 2^63 bytes or more: its offsets overflow 64 bits}}
  %o = fa.attention %q, %k, %v : tensor<1x1x16x8xf32>, tensor<1x1x4611686018427387904x8xf32>, tensor<1x1x4611686018427387904x8xf32> -> tensor<1x1x16x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x1x16x8xf16>, %k: tensor<1x1x1125899906842624x8xf16>, %v: tensor<1x1x1125899906842624x8xf16>) {
  // expected-error @+1 {{seq_k (1125899906842624, of 'key') must be below 2^48 with a 'window'}}
  %o = fa.attention %q, %k, %v : tensor<1x1x16x8xf16>, tensor<1x1x1125899906842624x8xf16>, tensor<1x1x1125899906842624x8xf16> {window = array<i64: 4, 4>} -> tensor<1x1x16x8xf16>
  return
}

// -----

// Per-block descales (descale_block).

func.func @f(%q: tensor<2x8x100x32xf8E4M3FN>, %k: tensor<2x2x130x32xf8E4M3FN>, %v: tensor<2x2x130x32xf8E4M3FN>, %d: tensor<f32>, %b: tensor<2x2x3xf32>) {
  // expected-error @+1 {{'key_descale' is per block (rank 3), which needs the 'descale_block' attribute}}
  %o = fa.attention %q, %k, %v : tensor<2x8x100x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN> descale(%d, %b, %d : tensor<f32>, tensor<2x2x3xf32>, tensor<f32>)  -> tensor<2x8x100x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x100x32xf8E4M3FN>, %k: tensor<2x2x130x32xf8E4M3FN>, %v: tensor<2x2x130x32xf8E4M3FN>, %d: tensor<f32>) {
  // expected-error @+1 {{'descale_block' is set but no descale operand is per block (rank 3)}}
  %o = fa.attention %q, %k, %v : tensor<2x8x100x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) {descale_block = array<i64: 64, 64>} -> tensor<2x8x100x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x100x32xf8E4M3FN>, %k: tensor<2x2x130x32xf8E4M3FN>, %v: tensor<2x2x130x32xf8E4M3FN>, %d: tensor<f32>, %b: tensor<2x2x3xf32>) {
  // expected-error @+1 {{'descale_block' must be [block_q, block_k], both positive, got [64, 0]}}
  %o = fa.attention %q, %k, %v : tensor<2x8x100x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN> descale(%d, %b, %d : tensor<f32>, tensor<2x2x3xf32>, tensor<f32>) {descale_block = array<i64: 64, 0>} -> tensor<2x8x100x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x100x32xf8E4M3FN>, %k: tensor<2x2x130x32xf8E4M3FN>, %v: tensor<2x2x130x32xf8E4M3FN>, %d: tensor<f32>, %b: tensor<2x2x3xf32>) {
  // expected-error @+1 {{'descale_block' must be [block_q, block_k], both positive, got [64]}}
  %o = fa.attention %q, %k, %v : tensor<2x8x100x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN> descale(%d, %b, %d : tensor<f32>, tensor<2x2x3xf32>, tensor<f32>) {descale_block = array<i64: 64>} -> tensor<2x8x100x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x100x32xf8E4M3FN>, %k: tensor<2x2x130x32xf8E4M3FN>, %v: tensor<2x2x130x32xf8E4M3FN>, %d: tensor<f32>, %b: tensor<2x2x4xf32>) {
  // expected-error @+1 {{'value_descale' dimension 2 (blocks) is 4, expected ceildiv(seq_k, block_k) = ceildiv(130, 64) = 3}}
  %o = fa.attention %q, %k, %v : tensor<2x8x100x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN> descale(%d, %d, %b : tensor<f32>, tensor<f32>, tensor<2x2x4xf32>) {descale_block = array<i64: 32, 64>} -> tensor<2x8x100x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x100x32xf8E4M3FN>, %k: tensor<2x2x130x32xf8E4M3FN>, %v: tensor<2x2x130x32xf8E4M3FN>, %d: tensor<f32>, %b: tensor<2x8x3xf32>) {
  // expected-error @+1 {{'query_descale' dimension 2 (blocks) is 3, expected ceildiv(seq_q, block_q) = ceildiv(100, 32) = 4}}
  %o = fa.attention %q, %k, %v : tensor<2x8x100x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN> descale(%b, %d, %d : tensor<2x8x3xf32>, tensor<f32>, tensor<f32>) {descale_block = array<i64: 32, 64>} -> tensor<2x8x100x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x100x32xf8E4M3FN>, %k: tensor<2x2x130x32xf8E4M3FN>, %v: tensor<2x2x130x32xf8E4M3FN>, %d: tensor<f32>, %b: tensor<2x2x4xf32>) {
  // expected-error @+1 {{'query_descale' dimension 1 (heads_q) is 2, expected 8 (the heads_q of 'query')}}
  %o = fa.attention %q, %k, %v : tensor<2x8x100x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN> descale(%b, %d, %d : tensor<2x2x4xf32>, tensor<f32>, tensor<f32>) {descale_block = array<i64: 32, 64>} -> tensor<2x8x100x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x100x32xf8E4M3FN>, %k: tensor<2x2x130x32xf8E4M3FN>, %v: tensor<2x2x130x32xf8E4M3FN>, %d: tensor<f32>, %b: tensor<2x8x3xf32>) {
  // expected-error @+1 {{'key_descale' dimension 1 (heads_kv) is 8, expected 2 (the heads_kv of 'key')}}
  %o = fa.attention %q, %k, %v : tensor<2x8x100x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN> descale(%d, %b, %d : tensor<f32>, tensor<2x8x3xf32>, tensor<f32>) {descale_block = array<i64: 32, 64>} -> tensor<2x8x100x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x100x32xf8E4M3FN>, %k: tensor<2x2x130x32xf8E4M3FN>, %v: tensor<2x2x130x32xf8E4M3FN>, %d: tensor<f32>, %b: tensor<2x2x3x1xf32>) {
  // expected-error @+1 {{'key_descale' must be tensor<f32>, tensor<2x2xf32> [batch, heads_kv] or tensor<2x2xceildiv(seq_k, block_k)xf32> per block, got 'tensor<2x2x3x1xf32>'}}
  %o = fa.attention %q, %k, %v : tensor<2x8x100x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN>, tensor<2x2x130x32xf8E4M3FN> descale(%d, %b, %d : tensor<f32>, tensor<2x2x3x1xf32>, tensor<f32>)  -> tensor<2x8x100x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'descale_block' is only for f8E4M3FN inputs with per-block descales}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> {descale_block = array<i64: 64, 64>} -> tensor<2x8x16x32xf16>
  return
}
