// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm --verify-diagnostics

func.func @f32(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32> {
  // expected-error @+1 {{convert-fa-to-nvvm: element type must be bf16, f16 or f8E4M3FN for the sm_90a kernel}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32> -> tensor<1x4x128x64xf32>
  return %o : tensor<1x4x128x64xf32>
}

// -----

func.func @head_dim_100(%q: tensor<1x4x128x100xbf16>, %k: tensor<1x4x128x100xbf16>, %v: tensor<1x4x128x100xbf16>) -> tensor<1x4x128x100xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: head dim of Q and K must be a static multiple of 8 in [8, 256]}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x100xbf16>, tensor<1x4x128x100xbf16>, tensor<1x4x128x100xbf16> -> tensor<1x4x128x100xbf16>
  return %o : tensor<1x4x128x100xbf16>
}

// -----

func.func @head_dim_512(%q: tensor<1x4x128x512xbf16>, %k: tensor<1x4x128x512xbf16>, %v: tensor<1x4x128x512xbf16>) -> tensor<1x4x128x512xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: head dim of Q and K must be a static multiple of 8 in [8, 256]}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x512xbf16>, tensor<1x4x128x512xbf16>, tensor<1x4x128x512xbf16> -> tensor<1x4x128x512xbf16>
  return %o : tensor<1x4x128x512xbf16>
}

// -----

func.func @head_dim_v_12(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x12xbf16>) -> tensor<1x4x128x12xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: head dim of V must be a static multiple of 8 in [8, 256]}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x12xbf16> -> tensor<1x4x128x12xbf16>
  return %o : tensor<1x4x128x12xbf16>
}

// -----

func.func @backward_f32(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>, %o: tensor<1x4x128x64xf32>, %do: tensor<1x4x128x64xf32>, %lse: tensor<1x4x128xf32>) -> tensor<1x4x128x64xf32> {
  // expected-error @+1 {{convert-fa-to-nvvm: element type must be bf16 or f16 for the sm_90a backward}}
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128xf32> -> tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>
  return %dq : tensor<1x4x128x64xf32>
}

// -----

func.func @backward_head_dim_192(%q: tensor<1x4x128x192xbf16>, %k: tensor<1x4x128x192xbf16>, %v: tensor<1x4x128x192xbf16>, %o: tensor<1x4x128x192xbf16>, %do: tensor<1x4x128x192xbf16>, %lse: tensor<1x4x128xf32>) -> tensor<1x4x128x192xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: head dim of Q and K must be a static multiple of 8 in [8, 128] for the sm_90a backward (dK and dV accumulate in registers)}}
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x4x128x192xbf16>, tensor<1x4x128x192xbf16>, tensor<1x4x128x192xbf16>, tensor<1x4x128x192xbf16>, tensor<1x4x128x192xbf16>, tensor<1x4x128xf32> -> tensor<1x4x128x192xbf16>, tensor<1x4x128x192xbf16>, tensor<1x4x128x192xbf16>
  return %dq : tensor<1x4x128x192xbf16>
}

// -----

// Paged caches need pages that nest with one of the key tiles on whole
// 8-row swizzle atoms (72 divides none and is a multiple of none; 20 is not
// a multiple of 8), and a static page size.
func.func @kvcache_page_not_nesting(%q: tensor<2x1x4x64xbf16>, %kc: tensor<9x72x2x64xbf16>, %vc: tensor<9x72x2x64xbf16>, %lens: tensor<2xi32>, %table: tensor<2x4xi32>) -> (tensor<2x1x4x64xbf16>, tensor<2x4x1xf32>) {
  // expected-error @+1 {{'fa.attention_kvcache' op convert-fa-to-nvvm: page_size 72 nests with none of the key tiles the sm_90a kernel can use at this head dim: it must be a multiple of 8 that divides or is a multiple of one of 128, 112, 96, 80, 64, 48, 32}}
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x1x4x64xbf16>, tensor<9x72x2x64xbf16>, tensor<9x72x2x64xbf16>, tensor<2xi32> block_table(%table : tensor<2x4xi32>) -> tensor<2x1x4x64xbf16>, tensor<2x4x1xf32>
  return %o, %lse : tensor<2x1x4x64xbf16>, tensor<2x4x1xf32>
}

// -----

func.func @kvcache_page_not_atoms(%q: tensor<2x1x4x64xbf16>, %kc: tensor<9x20x2x64xbf16>, %vc: tensor<9x20x2x64xbf16>, %lens: tensor<2xi32>, %table: tensor<2x4xi32>) -> (tensor<2x1x4x64xbf16>, tensor<2x4x1xf32>) {
  // expected-error @+1 {{'fa.attention_kvcache' op convert-fa-to-nvvm: page_size 20 nests with none of the key tiles}}
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x1x4x64xbf16>, tensor<9x20x2x64xbf16>, tensor<9x20x2x64xbf16>, tensor<2xi32> block_table(%table : tensor<2x4xi32>) -> tensor<2x1x4x64xbf16>, tensor<2x4x1xf32>
  return %o, %lse : tensor<2x1x4x64xbf16>, tensor<2x4x1xf32>
}

// -----

func.func @kvcache_page_dynamic(%q: tensor<2x1x4x64xbf16>, %kc: tensor<9x?x2x64xbf16>, %vc: tensor<9x?x2x64xbf16>, %lens: tensor<2xi32>, %table: tensor<2x4xi32>) -> (tensor<2x1x4x64xbf16>, tensor<2x4x1xf32>) {
  // expected-error @+1 {{'fa.attention_kvcache' op convert-fa-to-nvvm: a paged cache's page_size (dim 1 of key_cache and value_cache) must be static for the sm_90a kernel}}
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x1x4x64xbf16>, tensor<9x?x2x64xbf16>, tensor<9x?x2x64xbf16>, tensor<2xi32> block_table(%table : tensor<2x4xi32>) -> tensor<2x1x4x64xbf16>, tensor<2x4x1xf32>
  return %o, %lse : tensor<2x1x4x64xbf16>, tensor<2x4x1xf32>
}

// -----

func.func @kvcache_f32(%q: tensor<2x1x4x64xf32>, %kc: tensor<2x40x2x64xf32>, %vc: tensor<2x40x2x64xf32>, %lens: tensor<2xi32>) -> (tensor<2x1x4x64xf32>, tensor<2x4x1xf32>) {
  // expected-error @+1 {{'fa.attention_kvcache' op convert-fa-to-nvvm: element type must be bf16 or f16 for the sm_90a kernel}}
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x1x4x64xf32>, tensor<2x40x2x64xf32>, tensor<2x40x2x64xf32>, tensor<2xi32> -> tensor<2x1x4x64xf32>, tensor<2x4x1xf32>
  return %o, %lse : tensor<2x1x4x64xf32>, tensor<2x4x1xf32>
}

// -----

func.func @kvcache_hdim(%q: tensor<2x1x4x12xbf16>, %kc: tensor<2x40x2x12xbf16>, %vc: tensor<2x40x2x12xbf16>, %lens: tensor<2xi32>) -> (tensor<2x1x4x12xbf16>, tensor<2x4x1xf32>) {
  // expected-error @+1 {{'fa.attention_kvcache' op convert-fa-to-nvvm: head dim of Q and K must be a static multiple of 8 in [8, 256]}}
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x1x4x12xbf16>, tensor<2x40x2x12xbf16>, tensor<2x40x2x12xbf16>, tensor<2xi32> -> tensor<2x1x4x12xbf16>, tensor<2x4x1xf32>
  return %o, %lse : tensor<2x1x4x12xbf16>, tensor<2x4x1xf32>
}

// -----

func.func @split_bias(%q: tensor<1x4x8x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %b: tensor<1x4x8x128xf32>) -> tensor<1x4x8x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: num_splits with a bias is not supported by the sm_90a kernel yet}}
  %o = fa.attention %q, %k, %v : tensor<1x4x8x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> bias(%b : tensor<1x4x8x128xf32>) {num_splits = 2 : i64} -> tensor<1x4x8x64xbf16>
  return %o : tensor<1x4x8x64xbf16>
}

// -----

func.func @varlen_f32(%q: tensor<?x8x64xf32>, %k: tensor<?x2x64xf32>, %v: tensor<?x2x32xf32>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> (tensor<?x8x32xf32>, tensor<8x?xf32>) {
  // expected-error @+1 {{'fa.attention_varlen' op convert-fa-to-nvvm: element type must be bf16 or f16 for the sm_90a kernel}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<?x8x64xf32>, tensor<?x2x64xf32>, tensor<?x2x32xf32>, tensor<?xi32>, tensor<?xi32> {causal} -> tensor<?x8x32xf32>, tensor<8x?xf32>
  return %o, %lse : tensor<?x8x32xf32>, tensor<8x?xf32>
}

// -----

func.func @varlen_head_dim(%q: tensor<?x8x60xbf16>, %k: tensor<?x2x60xbf16>, %v: tensor<?x2x64xbf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> (tensor<?x8x64xbf16>, tensor<8x?xf32>) {
  // expected-error @+1 {{'fa.attention_varlen' op convert-fa-to-nvvm: head dim of Q and K must be a static multiple of 8 in [8, 256]}}
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<?x8x60xbf16>, tensor<?x2x60xbf16>, tensor<?x2x64xbf16>, tensor<?xi32>, tensor<?xi32> -> tensor<?x8x64xbf16>, tensor<8x?xf32>
  return %o, %lse : tensor<?x8x64xbf16>, tensor<8x?xf32>
}

// -----

// FP8 per-block descales (convert-fa-to-nvvm-fp8-block.mlir): every
// descale per block, so one kernel form reads them ...
func.func @fp8_block_descales_mixed(%q: tensor<1x4x128x64xf8E4M3FN>, %k: tensor<1x4x128x64xf8E4M3FN>, %v: tensor<1x4x128x64xf8E4M3FN>, %dq: tensor<1x4x2xf32>, %dk: tensor<1x4xf32>, %dv: tensor<1x4x1xf32>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: with descale_block the sm_90a FP8 kernel takes every descale per block; 'key_descale' is not (expand it to the per-block form)}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN> descale(%dq, %dk, %dv : tensor<1x4x2xf32>, tensor<1x4xf32>, tensor<1x4x1xf32>) {descale_block = array<i64: 64, 128>} -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}

// -----

// ... and each key tile lies in one K/V descale block.
func.func @fp8_block_k_not_a_tile_multiple(%q: tensor<1x4x128x64xf8E4M3FN>, %k: tensor<1x4x128x64xf8E4M3FN>, %v: tensor<1x4x128x64xf8E4M3FN>, %dq: tensor<1x4x2xf32>, %dk: tensor<1x4x2xf32>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: descale_block's block_k 64 must be a multiple of 128 (or of 192 or 224 at head dims above 64 up to 128) for the sm_90a FP8 kernel: each key tile lies in one descale block}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN> descale(%dq, %dk, %dk : tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>) {descale_block = array<i64: 64, 64>} -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}

// -----

// 192-key blocks fit the 192-key tiles of head dims above 64 up to 128
// only; head dim 256 uses 128-key tiles.
func.func @fp8_block_k_192_at_d256(%q: tensor<1x4x384x256xf8E4M3FN>, %k: tensor<1x4x384x256xf8E4M3FN>, %v: tensor<1x4x384x256xf8E4M3FN>, %dq: tensor<1x4x3xf32>, %dk: tensor<1x4x2xf32>) -> tensor<1x4x384x256xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: descale_block's block_k 192 must be a multiple of 128}}
  %o = fa.attention %q, %k, %v : tensor<1x4x384x256xf8E4M3FN>, tensor<1x4x384x256xf8E4M3FN>, tensor<1x4x384x256xf8E4M3FN> descale(%dq, %dk, %dk : tensor<1x4x3xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>) {descale_block = array<i64: 128, 192>} -> tensor<1x4x384x256xbf16>
  return %o : tensor<1x4x384x256xbf16>
}

// -----

func.func @fp8_f32_output(%q: tensor<1x4x128x64xf8E4M3FN>, %k: tensor<1x4x128x64xf8E4M3FN>, %v: tensor<1x4x128x64xf8E4M3FN>, %d: tensor<f32>) -> tensor<1x4x128x64xf32> {
  // expected-error @+1 {{convert-fa-to-nvvm: the output of f8E4M3FN inputs must be bf16 or f16 for the sm_90a kernel}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<1x4x128x64xf32>
  return %o : tensor<1x4x128x64xf32>
}

// -----

func.func @fp8_softcap(%q: tensor<1x4x128x64xf8E4M3FN>, %k: tensor<1x4x128x64xf8E4M3FN>, %v: tensor<1x4x128x64xf8E4M3FN>, %d: tensor<f32>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: softcap with f8E4M3FN inputs is not supported by the sm_90a kernel yet}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) {softcap = 30.0 : f32} -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @fp8_bias(%q: tensor<1x4x128x64xf8E4M3FN>, %k: tensor<1x4x128x64xf8E4M3FN>, %v: tensor<1x4x128x64xf8E4M3FN>, %b: tensor<1x4x128x128xf32>, %d: tensor<f32>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: a bias with f8E4M3FN inputs is not supported by the sm_90a kernel}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN> bias(%b : tensor<1x4x128x128xf32>) descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @fp8_head_dim_72(%q: tensor<1x4x128x72xf8E4M3FN>, %k: tensor<1x4x128x72xf8E4M3FN>, %v: tensor<1x4x128x72xf8E4M3FN>, %d: tensor<f32>) -> tensor<1x4x128x72xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: head dims of f8E4M3FN Q, K and V must be multiples of 16 for the sm_90a kernel}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x72xf8E4M3FN>, tensor<1x4x128x72xf8E4M3FN>, tensor<1x4x128x72xf8E4M3FN> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<1x4x128x72xbf16>
  return %o : tensor<1x4x128x72xbf16>
}

// -----

func.func @fp8_num_splits(%q: tensor<1x4x128x64xf8E4M3FN>, %k: tensor<1x4x128x64xf8E4M3FN>, %v: tensor<1x4x128x64xf8E4M3FN>, %d: tensor<f32>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: num_splits with f8E4M3FN inputs is not supported by the sm_90a kernel yet}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) {num_splits = 2 : i64} -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}

// -----

// Modifier regions the sm_90a kernels cannot evaluate are refused, never
// lowered without them (the kernel would compute plain attention).
func.func @score_mod_split(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %slopes: tensor<4xf32>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: score_mod/mask_mod regions with f8E4M3FN inputs or num_splits are not supported by the sm_90a kernels yet}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> captures(%slopes : tensor<4xf32>) {num_splits = 2 : i64} -> tensor<1x4x128x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>):
    %m = tensor.extract %sl[%h] : tensor<4xf32>
    %r = arith.addf %s, %m : f32
    fa.yield %r : f32
  }
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @scalar_capture_not_constant(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %c: f32) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: capture #0 is a scalar that is not a constant}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> captures(%c : f32) -> tensor<1x4x128x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: f32):
    %r = arith.addf %s, %x : f32
    fa.yield %r : f32
  }
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @rank0_capture(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %c: tensor<f32>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: capture #0 is a rank-0 tensor}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> captures(%c : tensor<f32>) -> tensor<1x4x128x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: tensor<f32>):
    %e = tensor.extract %x[] : tensor<f32>
    %r = arith.addf %s, %e : f32
    fa.yield %r : f32
  }
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @i1_capture(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %c: tensor<128xi1>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: capture #0 has element type i1, which the runtime cannot pass}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> captures(%c : tensor<128xi1>) -> tensor<1x4x128x64xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %x: tensor<128xi1>):
    %e = tensor.extract %x[%j] : tensor<128xi1>
    fa.yield %e : i1
  }
  return %o : tensor<1x4x128x64xbf16>
}

// -----

// The dim a region reads must be a constant (the kernel takes the size of
// each dynamic dim it names as a parameter).
func.func @computed_dim(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %c: tensor<?xf32>) -> tensor<1x4x128x64xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> captures(%c : tensor<?xf32>) -> tensor<1x4x128x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: tensor<?xf32>):
    // expected-error @+1 {{'tensor.dim' op in 'score_mod': convert-fa-to-nvvm: tensor.dim of a capture must name a constant dimension for the sm_90a kernels}}
    %n = tensor.dim %x, %b : tensor<?xf32>
    %ni = arith.index_cast %n : index to i64
    %nf = arith.sitofp %ni : i64 to f32
    %r = arith.addf %s, %nf : f32
    fa.yield %r : f32
  }
  return %o : tensor<1x4x128x64xbf16>
}

// -----

// A constant past the capture's rank names no dim either.
func.func @dim_past_rank(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %c: tensor<?xf32>) -> tensor<1x4x128x64xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> captures(%c : tensor<?xf32>) -> tensor<1x4x128x64xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %x: tensor<?xf32>):
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'tensor.dim' op in 'mask_mod': convert-fa-to-nvvm: tensor.dim of a capture must name a constant dimension}}
    %n = tensor.dim %x, %c1 : tensor<?xf32>
    %keep = arith.cmpi slt, %j, %n : index
    fa.yield %keep : i1
  }
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @unsupported_math(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>) -> tensor<1x4x128x64xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> -> tensor<1x4x128x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @+1 {{'math.erf' op in 'score_mod': convert-fa-to-nvvm: the sm_90a kernels do not compute math.erf}}
    %e = math.erf %s : f32
    fa.yield %e : f32
  }
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @f16_exp(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>) -> tensor<1x4x128x64xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> -> tensor<1x4x128x64xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %h16 = arith.truncf %s : f32 to f16
    // expected-error @+1 {{'math.exp' op in 'score_mod': convert-fa-to-nvvm: the sm_90a kernels compute math.exp on f32 only}}
    %e = math.exp %h16 : f16
    %r = arith.extf %e : f16 to f32
    fa.yield %r : f32
  }
  return %o : tensor<1x4x128x64xbf16>
}

// -----

// Attention sinks are refused where the kernel does not take them, never
// dropped (it would compute plain attention): with FP8 inputs (the epilogue's
// shifted P) and with num_splits (the partials' merge).
func.func @sinks_fp8(%q: tensor<1x4x128x64xf8E4M3FN>, %k: tensor<1x4x128x64xf8E4M3FN>, %v: tensor<1x4x128x64xf8E4M3FN>, %d: tensor<f32>, %sinks: tensor<4xf32>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: 'sinks' with f8E4M3FN inputs or num_splits is not supported by the sm_90a kernels yet}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) sinks(%sinks : tensor<4xf32>) -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @sinks_num_splits(%q: tensor<1x4x8x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %sinks: tensor<4xf32>) -> tensor<1x4x8x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: 'sinks' with f8E4M3FN inputs or num_splits is not supported by the sm_90a kernels yet}}
  %o = fa.attention %q, %k, %v : tensor<1x4x8x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> sinks(%sinks : tensor<4xf32>) {num_splits = 2 : i64} -> tensor<1x4x8x64xbf16>
  return %o : tensor<1x4x8x64xbf16>
}
