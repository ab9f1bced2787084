// RUN: fa-opt %s --split-input-file --convert-fa-to-nvvm | FileCheck %s

// Every variant of fa.attention the sm_90a kernel takes: what each adds to
// the kernel (its name, the bundle's config and params, the ops it needs).

// A sliding window: the key-tile range comes from the mask rule (divisions
// of the band's edges), so tiles outside the window are never loaded; no
// floordivsi/ceildivsi (they would need arith-expand, which also turns
// maxnumf into compare + select).
// CHECK-LABEL: module attributes
// CHECK-SAME: fa_fwd_bf16_d128_bhsd_w256_0_m128n128s2o
// CHECK-SAME: \22window\22: [\0A{{ *}}256,\0A{{ *}}0\0A{{ *}}]
// CHECK: llvm.func @fa_fwd_bf16_d128_bhsd_w256_0_m128n128s2o
// CHECK-NOT: floordivsi
// CHECK-NOT: ceildivsi
// CHECK: arith.divsi
// CHECK: scf.for
func.func @window(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> {window = array<i64: 256, 0>} -> tensor<?x?x?x128xbf16>
  return %o : tensor<?x?x?x128xbf16>
}

// -----

// Softcap: scores go through tanh.approx and leave the raw-score fast path
// (the max is taken on the capped scores).
// CHECK-LABEL: module attributes
// CHECK-SAME: \22softcap\22: 50
// CHECK: llvm.func @fa_fwd_bf16_d256_bhsd_cap0x42480000_m128n80s2o
// CHECK: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 80, k = 16>
// CHECK: llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f"
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
func.func @softcap_d256(%q: tensor<?x?x?x256xbf16>, %k: tensor<?x?x?x256xbf16>, %v: tensor<?x?x?x256xbf16>) -> tensor<?x?x?x256xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x256xbf16>, tensor<?x?x?x256xbf16>, tensor<?x?x?x256xbf16> {softcap = 50.0 : f32} -> tensor<?x?x?x256xbf16>
  return %o : tensor<?x?x?x256xbf16>
}

// -----

// An additive bias: a pointer and three strides the runtime evaluates
// (stride(bias, dim), 0 where the bias broadcasts); loads are widened to f32.
// CHECK-LABEL: module attributes
// CHECK-SAME: \22bias\22: true
// CHECK-SAME: \22bias_dtype\22: \22f16\22
// CHECK-SAME: stride(bias, batch)
// CHECK-SAME: stride(bias, head)
// CHECK-SAME: stride(bias, seq_q)
// CHECK: llvm.func @fa_fwd_f16_d64_bshd_causal_biasf16_lse_m128n128s2o({{.+}}: !llvm.ptr {llvm.noalias}, %{{.+}}: !llvm.ptr {llvm.noalias}, %{{.+}}: !llvm.ptr {llvm.noalias}, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32)
// CHECK: llvm.load %{{.+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK: arith.extf %{{.+}} : f16 to f32
func.func @bias(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>, %b: tensor<1x?x?x?xf16>) -> (tensor<?x?x?x64xf16>, tensor<?x?x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> bias(%b : tensor<1x?x?x?xf16>) {layout = #fa<layout bshd>, causal} -> tensor<?x?x?x64xf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x64xf16>, tensor<?x?x?xf32>
}

// -----

// V head dim below the QK head dim (DeepSeek MLA's 192/128): Q and K take
// three 64-wide boxes, V two; P V is n128.
// CHECK-LABEL: module attributes
// CHECK-SAME: \22head_dim\22: 192
// CHECK-SAME: \22head_dim_v\22: 128
// CHECK: llvm.func @fa_fwd_bf16_d192v128_bhsd_m128n128s2o
// CHECK-COUNT-12: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 16>
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
func.func @mla(%q: tensor<?x?x?x192xbf16>, %k: tensor<?x?x?x192xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x192xbf16>, tensor<?x?x?x192xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16>
  return %o : tensor<?x?x?x128xbf16>
}

// -----

// Head dim 96 is padded to two 64-wide boxes (TMA zero-fills columns 96-127);
// only the 96 real output columns are stored.
// CHECK-LABEL: module attributes
// CHECK: llvm.func @fa_fwd_bf16_d96_bhsd_m128n128s2o
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 16>
func.func @d96(%q: tensor<?x?x?x96xbf16>, %k: tensor<?x?x?x96xbf16>, %v: tensor<?x?x?x96xbf16>) -> tensor<?x?x?x96xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x96xbf16>, tensor<?x?x?x96xbf16>, tensor<?x?x?x96xbf16> -> tensor<?x?x?x96xbf16>
  return %o : tensor<?x?x?x96xbf16>
}
