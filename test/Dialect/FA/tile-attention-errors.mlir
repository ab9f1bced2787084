// RUN: not fa-opt %s --fa-tile-attention="dq-accumulation=sometimes" 2>&1 | FileCheck %s --check-prefix=BADMODE
// RUN: not fa-opt %s --fa-tile-attention="block-q=0" 2>&1 | FileCheck %s --check-prefix=BADBLOCK

// BADMODE: dq-accumulation must be 'deterministic' or 'atomic', got 'sometimes'
// BADBLOCK: block-q and block-k must be positive, got 0 and 64

func.func @grad(%do: tensor<1x1x8x8xf32>, %q: tensor<1x1x8x8xf32>, %k: tensor<1x1x8x8xf32>, %v: tensor<1x1x8x8xf32>, %o: tensor<1x1x8x8xf32>, %lse: tensor<1x1x8xf32>) -> tensor<1x1x8x8xf32> {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8xf32> -> tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>
  return %dq : tensor<1x1x8x8xf32>
}
