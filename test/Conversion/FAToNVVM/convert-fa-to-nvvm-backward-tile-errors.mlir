// RUN: fa-opt %s --convert-fa-to-nvvm="bwd-query-tile=96" --verify-diagnostics

// The backward's query tile (the A/B knob bwd-query-tile) is 64, 80, 128 or 0
// (chosen per configuration); any other value is refused, naming the option.
func.func @grad(%do: tensor<?x?x?x64xbf16>, %q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %o: tensor<?x?x?x64xbf16>, %l: tensor<?x?x?xf32>) -> tensor<?x?x?x64xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: bwd-query-tile must be 0 (choose), 64, 80 or 128, got 96}}
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?xf32> {causal} -> tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>
  return %dq : tensor<?x?x?x64xbf16>
}
