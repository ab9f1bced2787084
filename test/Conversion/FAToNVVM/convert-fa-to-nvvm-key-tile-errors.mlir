// RUN: fa-opt %s --convert-fa-to-nvvm="fwd-key-tile=100" --verify-diagnostics

// The forward's key tile (the A/B knob fwd-key-tile) is 0 (chosen per
// configuration) or a multiple of 16 up to 256 (a wgmma N and a TMA box of
// whole 16-key k-steps); any other value is refused, naming the option.
func.func @fwd(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: fwd-key-tile must be 0 (choose) or a multiple of 16 up to 256, got 100}}
  %o = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> {layout = #fa<layout bhsd>} -> tensor<?x?x?x128xbf16>
  return %o : tensor<?x?x?x128xbf16>
}
