// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm --verify-diagnostics

func.func @f32(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32> {
  // expected-error @+1 {{convert-fa-to-nvvm: element type must be bf16 or f16 for the sm_90a kernel}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32> -> tensor<1x4x128x64xf32>
  return %o : tensor<1x4x128x64xf32>
}

// -----

func.func @head_dim_96(%q: tensor<1x4x128x96xbf16>, %k: tensor<1x4x128x96xbf16>, %v: tensor<1x4x128x96xbf16>) -> tensor<1x4x128x96xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: head dim must be 64 or 128}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x96xbf16>, tensor<1x4x128x96xbf16>, tensor<1x4x128x96xbf16> -> tensor<1x4x128x96xbf16>
  return %o : tensor<1x4x128x96xbf16>
}

// -----

func.func @softcap(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: softcap is not supported by the sm_90a kernel yet}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> {softcap = 30.0 : f32} -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @window(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: sliding window is not supported by the sm_90a kernel yet}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> {window = array<i64: 64, 0>} -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @bias(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>, %b: tensor<1x1x128x128xbf16>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: bias is not supported by the sm_90a kernel yet}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> bias(%b : tensor<1x1x128x128xbf16>) -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}
