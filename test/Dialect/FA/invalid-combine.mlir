// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of fa.combine, and the num_splits attribute.

func.func @f(%po: tensor<4x2x8x16xf16>, %pl: tensor<4x2x8xf32>) {
  // expected-error @+1 {{'partial_output' and 'partial_lse' must be f32, got 'f16' and 'f32'}}
  %o, %l = fa.combine %po, %pl : tensor<4x2x8x16xf16>, tensor<4x2x8xf32> -> tensor<2x8x16xf16>, tensor<2x8xf32>
  return
}

// -----

func.func @f(%po: tensor<4xf32>, %pl: tensor<f32>) {
  // expected-error @+1 {{'partial_output' must have rank >= 2 [splits, rows..., dim], got rank 1}}
  %o, %l = fa.combine %po, %pl : tensor<4xf32>, tensor<f32> -> tensor<f32>, tensor<f32>
  return
}

// -----

func.func @f(%po: tensor<4x2x8x16xf32>, %pl: tensor<4x2x8x16xf32>) {
  // expected-error @+1 {{'partial_lse' must have rank 3 ('partial_output' without its last dimension), got rank 4}}
  %o, %l = fa.combine %po, %pl : tensor<4x2x8x16xf32>, tensor<4x2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @f(%po: tensor<4x2x8x16xf32>, %pl: tensor<3x2x8xf32>) {
  // expected-error @+1 {{'partial_lse' dimension 0 is 3, expected 4 (dimension 0 of 'partial_output')}}
  %o, %l = fa.combine %po, %pl : tensor<4x2x8x16xf32>, tensor<3x2x8xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @f(%po: tensor<4x2x8x16xf32>, %pl: tensor<4x2x8xf32>) {
  // expected-error @+1 {{'output' element type must be f32, f16 or bf16, got 'f64'}}
  %o, %l = fa.combine %po, %pl : tensor<4x2x8x16xf32>, tensor<4x2x8xf32> -> tensor<2x8x16xf64>, tensor<2x8xf32>
  return
}

// -----

func.func @f(%po: tensor<4x2x8x16xf32>, %pl: tensor<4x2x8xf32>) {
  // expected-error @+1 {{'lse' element type must be f32, got 'f16'}}
  %o, %l = fa.combine %po, %pl : tensor<4x2x8x16xf32>, tensor<4x2x8xf32> -> tensor<2x8x16xf32>, tensor<2x8xf16>
  return
}

// -----

func.func @f(%po: tensor<4x2x8x16xf32>, %pl: tensor<4x2x8xf32>) {
  // expected-error @+1 {{'output' must have rank 3 ('partial_output' without its splits dimension), got rank 4}}
  %o, %l = fa.combine %po, %pl : tensor<4x2x8x16xf32>, tensor<4x2x8xf32> -> tensor<4x2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @f(%po: tensor<4x2x8x16xf32>, %pl: tensor<4x2x8xf32>) {
  // expected-error @+1 {{'output' dimension 2 is 32, expected 16 (dimension 3 of 'partial_output')}}
  %o, %l = fa.combine %po, %pl : tensor<4x2x8x16xf32>, tensor<4x2x8xf32> -> tensor<2x8x32xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @f(%po: tensor<4x2x8x16xf32>, %pl: tensor<4x2x8xf32>) {
  // expected-error @+1 {{'lse' must have rank 2 ('partial_lse' without its splits dimension), got rank 3}}
  %o, %l = fa.combine %po, %pl : tensor<4x2x8x16xf32>, tensor<4x2x8xf32> -> tensor<2x8x16xf32>, tensor<4x2x8xf32>
  return
}

// -----

func.func @f(%po: tensor<?x2x?x16xf32>, %pl: tensor<?x2x?xf32>) {
  // expected-error @+1 {{'lse' dimension 0 is 3, expected 2 (dimension 1 of 'partial_lse')}}
  %o, %l = fa.combine %po, %pl : tensor<?x2x?x16xf32>, tensor<?x2x?xf32> -> tensor<2x?x16xf32>, tensor<3x?xf32>
  return
}

// -----

func.func @f(%q: tensor<1x8x1x64xf32>, %k: tensor<1x8x256x64xf32>, %v: tensor<1x8x256x64xf32>) {
  // expected-error @+1 {{attribute 'num_splits' failed to satisfy constraint}}
  %o = fa.attention %q, %k, %v : tensor<1x8x1x64xf32>, tensor<1x8x256x64xf32>, tensor<1x8x256x64xf32> {num_splits = -1 : i64} -> tensor<1x8x1x64xf32>
  return
}
