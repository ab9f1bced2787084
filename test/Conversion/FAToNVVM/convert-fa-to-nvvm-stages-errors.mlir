// RUN: fa-opt %s --convert-fa-to-nvvm="stages=8" --verify-diagnostics

// Eight K/V stages of a d256 kernel do not fit an sm_90a CTA's shared memory
// at any key tile the plan allows.
func.func @d256_four_stages(%q: tensor<1x4x128x256xbf16>, %k: tensor<1x4x128x256xbf16>, %v: tensor<1x4x128x256xbf16>) -> tensor<1x4x128x256xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: stages=8 with head dims 256/256 needs}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x256xbf16>, tensor<1x4x128x256xbf16>, tensor<1x4x128x256xbf16> -> tensor<1x4x128x256xbf16>
  return %o : tensor<1x4x128x256xbf16>
}
