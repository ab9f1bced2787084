// RUN: fa-opt %s -split-input-file -verify-diagnostics

// Conflicts between two static sizes that a dynamic dim of another operand
// would hide: the verifier compares every pair of static sizes of every
// operand, not each against the first operand only.

func.func @key_value_batch(%q: tensor<?x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<3x2x16x32xf16>) {
  // expected-error @+1 {{'value' dimension 0 (batch) is 3, expected 2 (the batch of 'key')}}
  %o = fa.attention %q, %k, %v : tensor<?x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<3x2x16x32xf16> -> tensor<?x8x16x32xf16>
  return
}

// -----

func.func @output_lse_seq(%q: tensor<2x8x?x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>) {
  // expected-error @+1 {{'lse' dimension 2 (seq_q) is 20, expected 16 (the seq_q of 'output')}}
  %o, %l = fa.attention %q, %k, %v : tensor<2x8x?x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> -> tensor<2x8x16x32xf16>, tensor<2x8x20xf32>
  return
}

// -----

func.func @zero_kv_heads(%q: tensor<2x?x16x32xf16>, %k: tensor<2x0x16x32xf16>, %v: tensor<2x0x16x32xf16>) {
  // expected-error @+1 {{heads_kv (0, of 'key') must be positive: every query head reads one key/value head}}
  %o = fa.attention %q, %k, %v : tensor<2x?x16x32xf16>, tensor<2x0x16x32xf16>, tensor<2x0x16x32xf16> -> tensor<2x?x16x32xf16>
  return
}

// -----

func.func @zero_kv_heads_of_value(%q: tensor<2x?x16x32xf16>, %k: tensor<2x?x16x32xf16>, %v: tensor<2x0x16x32xf16>) {
  // expected-error @+1 {{heads_kv (0, of 'value') must be positive}}
  %o = fa.attention %q, %k, %v : tensor<2x?x16x32xf16>, tensor<2x?x16x32xf16>, tensor<2x0x16x32xf16> -> tensor<2x?x16x32xf16>
  return
}

// -----

func.func @gqa_ratio_from_output(%q: tensor<2x?x16x32xf16>, %k: tensor<2x3x16x32xf16>, %v: tensor<2x3x16x32xf16>) {
  // expected-error @+1 {{heads_kv (3, of 'key') must divide heads_q (8, of 'output') for grouped-query attention}}
  %o = fa.attention %q, %k, %v : tensor<2x?x16x32xf16>, tensor<2x3x16x32xf16>, tensor<2x3x16x32xf16> -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @bias_seq_k_against_value(%q: tensor<2x8x16x32xf16>, %k: tensor<2x2x?x32xf16>, %v: tensor<2x2x16x32xf16>, %b: tensor<1x1x16x20xf32>) {
  // expected-error @+1 {{'bias' dimension 3 (seq_k) is 20, expected 16 (the seq_k of 'value')}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf16>, tensor<2x2x?x32xf16>, tensor<2x2x16x32xf16> bias(%b : tensor<1x1x16x20xf32>) -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @output_batch_against_bias(%q: tensor<?x8x16x32xf16>, %k: tensor<?x2x16x32xf16>, %v: tensor<?x2x16x32xf16>, %b: tensor<3x1x16x16xf32>) {
  // expected-error @+1 {{'output' dimension 0 (batch) is 2, expected 3 (the batch of 'bias')}}
  %o = fa.attention %q, %k, %v : tensor<?x8x16x32xf16>, tensor<?x2x16x32xf16>, tensor<?x2x16x32xf16> bias(%b : tensor<3x1x16x16xf32>) -> tensor<2x8x16x32xf16>
  return
}

// -----

func.func @lse_heads_against_bias(%q: tensor<2x?x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %b: tensor<1x4x16x16xf32>) {
  // expected-error @+1 {{'lse' dimension 1 (heads_q) is 6, expected 4 (the heads_q of 'bias')}}
  %o, %l = fa.attention %q, %k, %v : tensor<2x?x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16> bias(%b : tensor<1x4x16x16xf32>) -> tensor<2x?x16x32xf16>, tensor<2x6x16xf32>
  return
}

// -----

func.func @bshd_output_seq(%q: tensor<2x16x8x32xf16>, %k: tensor<2x?x2x32xf16>, %v: tensor<2x?x2x32xf16>, %b: tensor<1x1x16x20xf32>) {
  // expected-error @+1 {{'output' dimension 1 (seq_q) is 12, expected 16 (the seq_q of 'query')}}
  %o = fa.attention %q, %k, %v : tensor<2x16x8x32xf16>, tensor<2x?x2x32xf16>, tensor<2x?x2x32xf16> bias(%b : tensor<1x1x16x20xf32>) {layout = #fa<layout bshd>} -> tensor<2x12x8x32xf16>
  return
}

// -----

func.func @descale_batch_against_output(%q: tensor<?x8x16x32xf8E4M3FN>, %k: tensor<?x2x16x32xf8E4M3FN>, %v: tensor<?x2x16x32xf8E4M3FN>, %d: tensor<f32>, %e: tensor<3x2xf32>) {
  // expected-error @+1 {{'key_descale' dimension 0 (batch) is 3, expected 2 (the batch of 'output')}}
  %o = fa.attention %q, %k, %v : tensor<?x8x16x32xf8E4M3FN>, tensor<?x2x16x32xf8E4M3FN>, tensor<?x2x16x32xf8E4M3FN> descale(%d, %e, %d : tensor<f32>, tensor<3x2xf32>, tensor<f32>) -> tensor<2x8x16x32xbf16>
  return
}

// -----

func.func @descales_disagree(%q: tensor<?x8x16x32xf8E4M3FN>, %k: tensor<?x?x16x32xf8E4M3FN>, %v: tensor<?x?x16x32xf8E4M3FN>, %d: tensor<2x2xf32>, %e: tensor<2x4xf32>) {
  // expected-error @+1 {{'value_descale' dimension 1 (heads_kv) is 4, expected 2 (the heads_kv of 'query_descale')}}
  %o = fa.attention %q, %k, %v : tensor<?x8x16x32xf8E4M3FN>, tensor<?x?x16x32xf8E4M3FN>, tensor<?x?x16x32xf8E4M3FN> descale(%d, %d, %e : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>) -> tensor<?x8x16x32xbf16>
  return
}

// -----

func.func @descale_rank(%q: tensor<2x8x16x32xf8E4M3FN>, %k: tensor<2x2x16x32xf8E4M3FN>, %v: tensor<2x2x16x32xf8E4M3FN>, %d: tensor<f32>, %e: tensor<2xf32>) {
  // expected-error @+1 {{'value_descale' must be tensor<f32>, tensor<2x2xf32> [batch, heads_kv] or tensor<2x2xceildiv(seq_k, block_k)xf32> per block, got 'tensor<2xf32>'}}
  %o = fa.attention %q, %k, %v : tensor<2x8x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN>, tensor<2x2x16x32xf8E4M3FN> descale(%d, %d, %e : tensor<f32>, tensor<f32>, tensor<2xf32>) -> tensor<2x8x16x32xbf16>
  return
}

// -----

// Dynamic dims that agree with every static one are fine.
func.func @agreeing(%q: tensor<?x?x?x32xf16>, %k: tensor<2x?x16x32xf16>, %v: tensor<?x2x?x64xf16>, %b: tensor<1x8x?x16xf32>) -> (tensor<2x8x?x64xf16>, tensor<?x?x12xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<?x?x?x32xf16>, tensor<2x?x16x32xf16>, tensor<?x2x?x64xf16> bias(%b : tensor<1x8x?x16xf32>) -> tensor<2x8x?x64xf16>, tensor<?x?x12xf32>
  return %o, %l : tensor<2x8x?x64xf16>, tensor<?x?x12xf32>
}

// -----

// fa.attention_grad binds the same sizes from all of its operands.

func.func @grad_key_value_batch(%do: tensor<?x8x16x32xf16>, %q: tensor<?x8x16x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<3x2x16x32xf16>, %o: tensor<?x8x16x32xf16>, %l: tensor<?x8x16xf32>) {
  // expected-error @+1 {{'value' dimension 0 (batch) is 3, expected 2 (the batch of 'key')}}
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x8x16x32xf16>, tensor<?x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<3x2x16x32xf16>, tensor<?x8x16x32xf16>, tensor<?x8x16xf32> -> tensor<?x8x16x32xf16>, tensor<2x2x16x32xf16>, tensor<3x2x16x32xf16>
  return
}

// -----

func.func @grad_output_lse_seq(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x?x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8x20xf32>) {
  // expected-error @+1 {{'lse' dimension 2 (seq_q) is 20, expected 16 (the seq_q of 'output')}}
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x?x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8x20xf32> -> tensor<2x8x?x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>
  return
}

// -----

func.func @grad_zero_kv_heads(%do: tensor<2x?x16x32xf16>, %q: tensor<2x?x16x32xf16>, %k: tensor<2x0x16x32xf16>, %v: tensor<2x0x16x32xf16>, %o: tensor<2x?x16x32xf16>, %l: tensor<2x?x16xf32>) {
  // expected-error @+1 {{heads_kv (0, of 'key') must be positive}}
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x?x16x32xf16>, tensor<2x?x16x32xf16>, tensor<2x0x16x32xf16>, tensor<2x0x16x32xf16>, tensor<2x?x16x32xf16>, tensor<2x?x16xf32> -> tensor<2x?x16x32xf16>, tensor<2x0x16x32xf16>, tensor<2x0x16x32xf16>
  return
}

// -----

func.func @grad_bias_seq_q_against_output(%do: tensor<2x8x16x32xf16>, %q: tensor<2x8x?x32xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x32xf16>, %o: tensor<2x8x16x32xf16>, %l: tensor<2x8x?xf32>, %b: tensor<1x1x12x16xf32>) {
  // expected-error @+1 {{'output' dimension 2 (seq_q) is 16, expected 12 (the seq_q of 'bias')}}
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x8x16x32xf16>, tensor<2x8x?x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<2x8x16x32xf16>, tensor<2x8x?xf32> bias(%b : tensor<1x1x12x16xf32>) -> tensor<2x8x?x32xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x32xf16>, tensor<1x1x12x16xf32>
  return
}

// -----

func.func @grad_heads_from_lse(%do: tensor<2x?x16x32xf16>, %q: tensor<2x?x16x32xf16>, %k: tensor<2x4x16x32xf16>, %v: tensor<2x4x16x32xf16>, %o: tensor<2x?x16x32xf16>, %l: tensor<2x6x16xf32>) {
  // expected-error @+1 {{heads_kv (4, of 'key') must divide heads_q (6, of 'lse') for grouped-query attention}}
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<2x?x16x32xf16>, tensor<2x?x16x32xf16>, tensor<2x4x16x32xf16>, tensor<2x4x16x32xf16>, tensor<2x?x16x32xf16>, tensor<2x6x16xf32> -> tensor<2x?x16x32xf16>, tensor<2x4x16x32xf16>, tensor<2x4x16x32xf16>
  return
}
