// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm --verify-diagnostics

func.func @f32(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32> {
  // expected-error @+1 {{convert-fa-to-nvvm: element type must be bf16 or f16 for the sm_90a kernel}}
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

func.func @backward_bias(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %o: tensor<1x4x128x64xbf16>, %do: tensor<1x4x128x64xbf16>, %lse: tensor<1x4x128xf32>, %b: tensor<1x4x128x128xf32>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: bias is not supported by the sm_90a backward yet}}
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128xf32> bias(%b : tensor<1x4x128x128xf32>) -> tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x128xf32>
  return %dq : tensor<1x4x128x64xbf16>
}

