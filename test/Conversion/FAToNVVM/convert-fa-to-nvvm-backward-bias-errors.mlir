// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm="deterministic=true" --verify-diagnostics

// Deterministic mode fixes every sum's order. dBias of a bias that
// broadcasts over batch or heads is summed in a fixed order where the bias
// has the inputs' type (convert-fa-to-nvvm-backward-bias-ordered.mlir); an
// f32 bias's is summed with f32 atomics, so it is refused there (per-batch,
// per-head biases are stored once per element and pass).
func.func @broadcast_batch(%q: tensor<2x4x128x64xbf16>, %k: tensor<2x4x128x64xbf16>, %v: tensor<2x4x128x64xbf16>, %o: tensor<2x4x128x64xbf16>, %do: tensor<2x4x128x64xbf16>, %lse: tensor<2x4x128xf32>, %b: tensor<1x4x128x128xf32>) -> tensor<1x4x128x128xf32> {
  // expected-error @+1 {{convert-fa-to-nvvm: a bias that broadcasts over batch or heads is supported by the deterministic sm_90a backward only in the inputs' element type (dBias of an f32 bias sums over them with f32 atomics)}}
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128xf32> bias(%b : tensor<1x4x128x128xf32>) -> tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<1x4x128x128xf32>
  return %db : tensor<1x4x128x128xf32>
}

// -----

// A per-batch, per-head bias is deterministic (one store per element).
func.func @per_head_ok(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %o: tensor<?x?x?x64xbf16>, %do: tensor<?x?x?x64xbf16>, %lse: tensor<?x?x?xf32>, %b: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?xf32> bias(%b : tensor<?x?x?x?xf32>) -> tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x?xf32>
  return %db : tensor<?x?x?x?xf32>
}
