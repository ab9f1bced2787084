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

func.func @backward(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %o: tensor<1x4x128x64xbf16>, %do: tensor<1x4x128x64xbf16>, %lse: tensor<1x4x128xf32>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: the sm_90a back end has no backward kernel yet; lower fa.attention_grad with fa-cpu-pipeline instead}}
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128xf32> -> tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>
  return %dq : tensor<1x4x128x64xbf16>
}
