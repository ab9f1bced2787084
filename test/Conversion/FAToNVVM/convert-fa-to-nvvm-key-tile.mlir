// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm="fwd-key-tile=176" | FileCheck %s

// fwd-key-tile=176 (FA3's tile for d128 without a mask): S = Q K^T is an
// m64n176 product, P V takes 11 16-key k-steps, the K/V boxes 176 rows.
// CHECK: llvm.func @fa_fwd_bf16_d128_bhsd_m128n176s2o
// CHECK: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 176, k = 16>
// CHECK-NOT: llvm.func
// CHECK-COUNT-11: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
func.func @d128(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> {layout = #fa<layout bhsd>} -> tensor<?x?x?x128xbf16>
  return %o : tensor<?x?x?x128xbf16>
}

// -----

// At head dim 256, 176-key slots do not fit shared memory: the plan's own
// choice (80 keys) is taken instead.
// CHECK: llvm.func @fa_fwd_bf16_d256_bhsd_m128n80s2o
func.func @d256(%q: tensor<?x?x?x256xbf16>, %k: tensor<?x?x?x256xbf16>, %v: tensor<?x?x?x256xbf16>) -> tensor<?x?x?x256xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x256xbf16>, tensor<?x?x?x256xbf16>, tensor<?x?x?x256xbf16> {layout = #fa<layout bhsd>} -> tensor<?x?x?x256xbf16>
  return %o : tensor<?x?x?x256xbf16>
}
