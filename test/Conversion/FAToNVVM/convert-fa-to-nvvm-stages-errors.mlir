// RUN: fa-opt %s --convert-fa-to-nvvm="stages=8" --split-input-file --verify-diagnostics

// Eight K/V stages of a d256 kernel do not fit an sm_90a CTA's shared memory
// at any key tile the plan allows; the error names the part's region that
// ends past the limit (SharedLayout): here the mainloop's V ring, after the
// 64 KB Q tile and eight 32-key K slots.
func.func @d256_eight_stages(%q: tensor<1x4x128x256xbf16>, %k: tensor<1x4x128x256xbf16>, %v: tensor<1x4x128x256xbf16>) -> tensor<1x4x128x256xbf16> {
  // expected-error @+1 {{convert-fa-to-nvvm: stages=8 with head dims 256/256 needs 328968 B of shared memory, more than the 227 KB an sm_90a CTA may use: the mainloop's V ring (131072 B at offset 196608) does not fit}}
  %o = fa.attention %q, %k, %v : tensor<1x4x128x256xbf16>, tensor<1x4x128x256xbf16>, tensor<1x4x128x256xbf16> -> tensor<1x4x128x256xbf16>
  return %o : tensor<1x4x128x256xbf16>
}

// -----

// FP8's key tile is fixed (128 keys at head dim 256), so eight of its K
// slots already pass the limit: the K ring is named.
func.func @fp8_d256_eight_stages(%q: tensor<1x4x128x256xf8E4M3FN>, %k: tensor<1x4x128x256xf8E4M3FN>, %v: tensor<1x4x128x64xf8E4M3FN>, %d: tensor<f32>) -> (tensor<1x4x128x64xbf16>, tensor<1x4x128xf32>) {
  // expected-error @+1 {{the mainloop's K ring (262144 B at offset 32768) does not fit}}
  %o, %lse = fa.attention %q, %k, %v : tensor<1x4x128x256xf8E4M3FN>, tensor<1x4x128x256xf8E4M3FN>, tensor<1x4x128x64xf8E4M3FN> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<1x4x128x64xbf16>, tensor<1x4x128xf32>
  return %o, %lse : tensor<1x4x128x64xbf16>, tensor<1x4x128xf32>
}
