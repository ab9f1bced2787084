// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm --verify-diagnostics
// RUN: not fa-opt %s --split-input-file --convert-fa-to-nvvm="chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=CHIP

// What the standalone sm_90a fa.combine kernel refuses (the verifier
// checks element types and shapes): one row dim, a static row length it
// can hold in registers.

func.func @rows_rank2(%po: tensor<4x2x8x128xf32>, %pl: tensor<4x2x8xf32>) -> (tensor<2x8x128xbf16>, tensor<2x8xf32>) {
  // expected-error @+1 {{'fa.combine' op convert-fa-to-nvvm: 'partial_output' must be rank 3 [splits, rows, dim] for the sm_90a combine kernel, got rank 4 (collapse the row dims into one)}}
  %o, %l = fa.combine %po, %pl : tensor<4x2x8x128xf32>, tensor<4x2x8xf32> -> tensor<2x8x128xbf16>, tensor<2x8xf32>
  return %o, %l : tensor<2x8x128xbf16>, tensor<2x8xf32>
}

// -----

func.func @no_rows(%po: tensor<4x128xf32>, %pl: tensor<4xf32>) -> (tensor<128xf32>, tensor<f32>) {
  // expected-error @+1 {{'partial_output' must be rank 3 [splits, rows, dim] for the sm_90a combine kernel, got rank 2}}
  %o, %l = fa.combine %po, %pl : tensor<4x128xf32>, tensor<4xf32> -> tensor<128xf32>, tensor<f32>
  return %o, %l : tensor<128xf32>, tensor<f32>
}

// -----

func.func @dynamic_dim(%po: tensor<?x?x?xf32>, %pl: tensor<?x?xf32>) -> (tensor<?x?xf16>, tensor<?xf32>) {
  // expected-error @+1 {{'partial_output' dim (its last dimension) must be static and in [1, 512] for the sm_90a combine kernel (a row is held in one warp's registers), got ?}}
  %o, %l = fa.combine %po, %pl : tensor<?x?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf16>, tensor<?xf32>
  return %o, %l : tensor<?x?xf16>, tensor<?xf32>
}

// -----

func.func @too_wide(%po: tensor<?x?x520xf32>, %pl: tensor<?x?xf32>) -> (tensor<?x520xf32>, tensor<?xf32>) {
  // expected-error @+1 {{'partial_output' dim (its last dimension) must be static and in [1, 512] for the sm_90a combine kernel (a row is held in one warp's registers), got 520}}
  %o, %l = fa.combine %po, %pl : tensor<?x?x520xf32>, tensor<?x?xf32> -> tensor<?x520xf32>, tensor<?xf32>
  return %o, %l : tensor<?x520xf32>, tensor<?xf32>
}

// -----

func.func @empty_dim(%po: tensor<?x?x0xf32>, %pl: tensor<?x?xf32>) -> (tensor<?x0xf32>, tensor<?xf32>) {
  // expected-error @+1 {{'partial_output' dim (its last dimension) must be static and in [1, 512] for the sm_90a combine kernel (a row is held in one warp's registers), got 0}}
  %o, %l = fa.combine %po, %pl : tensor<?x?x0xf32>, tensor<?x?xf32> -> tensor<?x0xf32>, tensor<?xf32>
  return %o, %l : tensor<?x0xf32>, tensor<?xf32>
}

// -----

// Taken at sm_90a (the first RUN); refused for another chip.
// CHIP: 'fa.combine' op convert-fa-to-nvvm: only chip=sm_90a is supported, got sm_100a
func.func @other_chip(%po: tensor<?x?x64xf32>, %pl: tensor<?x?xf32>) -> (tensor<?x64xf32>, tensor<?xf32>) {
  %o, %l = fa.combine %po, %pl : tensor<?x?x64xf32>, tensor<?x?xf32> -> tensor<?x64xf32>, tensor<?xf32>
  return %o, %l : tensor<?x64xf32>, tensor<?xf32>
}
