// RUN: fa-opt %s -split-input-file | fa-opt -split-input-file | FileCheck %s
// RUN: fa-opt %s -split-input-file -mlir-print-op-generic | fa-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @plain
// CHECK: %[[O:.+]] = fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16> -> tensor<2x8x128x64xf16>
func.func @plain(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16> {
  %o = fa.attention %q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16> -> tensor<2x8x128x64xf16>
  return %o : tensor<2x8x128x64xf16>
}

// -----

// GQA, dynamic sequence lengths, V head dim != QK head dim, every attribute.
// CHECK-LABEL: func @everything
// CHECK: fa.attention {{.+}} bias(%{{.+}} : tensor<1x32x?x?xf32>) {causal, layout = #fa<layout bshd>, mask_alignment = #fa<mask_alignment bottom_right>, scale = 1.250000e-01 : f32, softcap = 3.000000e+01 : f32, window = array<i64: 256, 0>} -> tensor<2x?x32x96xbf16>, tensor<2x32x?xf32>
func.func @everything(%q: tensor<2x?x32x128xbf16>, %k: tensor<2x?x8x128xbf16>, %v: tensor<2x?x8x96xbf16>, %b: tensor<1x32x?x?xf32>) -> (tensor<2x?x32x96xbf16>, tensor<2x32x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<2x?x32x128xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x96xbf16> bias(%b : tensor<1x32x?x?xf32>) {layout = #fa<layout bshd>, scale = 0.125 : f32, causal, mask_alignment = #fa<mask_alignment bottom_right>, window = array<i64: 256, 0>, softcap = 30.0 : f32} -> tensor<2x?x32x96xbf16>, tensor<2x32x?xf32>
  return %o, %lse : tensor<2x?x32x96xbf16>, tensor<2x32x?xf32>
}

// -----

// The enum attributes also parse as #fa.layout<...> / #fa.mask_alignment<...>
// (the generated reference's spelling); they print as #fa<layout ...>.
// CHECK-LABEL: func @angled_enums
// CHECK: fa.attention {{.+}} {causal, layout = #fa<layout bshd>, mask_alignment = #fa<mask_alignment bottom_right>}
func.func @angled_enums(%q: tensor<1x8x2x16xf32>, %k: tensor<1x4x2x16xf32>, %v: tensor<1x4x2x16xf32>) -> tensor<1x8x2x16xf32> {
  %o = fa.attention %q, %k, %v : tensor<1x8x2x16xf32>, tensor<1x4x2x16xf32>, tensor<1x4x2x16xf32> {causal, layout = #fa.layout<bshd>, mask_alignment = #fa.mask_alignment<bottom_right>} -> tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}

// -----

// FP8 with per-(batch, kv-head) descales; MQA.
// CHECK-LABEL: func @fp8
// CHECK: fa.attention {{.+}} descale(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4x1xf32>, tensor<4x1xf32>, tensor<f32>) -> tensor<4x16x512x128xbf16>
func.func @fp8(%q: tensor<4x16x512x128xf8E4M3FN>, %k: tensor<4x1x512x128xf8E4M3FN>, %v: tensor<4x1x512x128xf8E4M3FN>, %dq: tensor<4x1xf32>, %dk: tensor<4x1xf32>, %dv: tensor<f32>) -> tensor<4x16x512x128xbf16> {
  %o = fa.attention %q, %k, %v : tensor<4x16x512x128xf8E4M3FN>, tensor<4x1x512x128xf8E4M3FN>, tensor<4x1x512x128xf8E4M3FN> descale(%dq, %dk, %dv : tensor<4x1xf32>, tensor<4x1xf32>, tensor<f32>) -> tensor<4x16x512x128xbf16>
  return %o : tensor<4x16x512x128xbf16>
}

// -----

// FP8 with per-block descales: Q per (batch, query head, 64 rows), K per
// (batch, kv head, 32 keys), V per tensor; dynamic seq_q.
// CHECK-LABEL: func @fp8_blocks
// CHECK: fa.attention {{.+}} descale(%{{.+}}, %{{.+}}, %{{.+}} : tensor<2x4x?xf32>, tensor<2x2x4xf32>, tensor<f32>) {descale_block = array<i64: 64, 32>} -> tensor<2x4x?x64xf16>
func.func @fp8_blocks(%q: tensor<2x4x?x64xf8E4M3FN>, %k: tensor<2x2x100x64xf8E4M3FN>, %v: tensor<2x2x100x64xf8E4M3FN>, %dq: tensor<2x4x?xf32>, %dk: tensor<2x2x4xf32>, %dv: tensor<f32>) -> tensor<2x4x?x64xf16> {
  %o = fa.attention %q, %k, %v : tensor<2x4x?x64xf8E4M3FN>, tensor<2x2x100x64xf8E4M3FN>, tensor<2x2x100x64xf8E4M3FN> descale(%dq, %dk, %dv : tensor<2x4x?xf32>, tensor<2x2x4xf32>, tensor<f32>) {descale_block = array<i64: 64, 32>} -> tensor<2x4x?x64xf16>
  return %o : tensor<2x4x?x64xf16>
}

// -----

// CHECK-LABEL: func @grad
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} = fa.attention_grad %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : {{.+}} bias(%{{.+}} : tensor<2x1x?x?xf16>) {causal} -> tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x1x?x?xf16>
func.func @grad(%do: tensor<2x8x?x64xf16>, %q: tensor<2x8x?x64xf16>, %k: tensor<2x2x?x64xf16>, %v: tensor<2x2x?x64xf16>, %o: tensor<2x8x?x64xf16>, %lse: tensor<2x8x?xf32>, %b: tensor<2x1x?x?xf16>) -> (tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x1x?x?xf16>) {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?xf32> bias(%b : tensor<2x1x?x?xf16>) {causal} -> tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x1x?x?xf16>
  return %dq, %dk, %dv, %db : tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x1x?x?xf16>
}

// -----

// CHECK-LABEL: func @split_kv_hint
// CHECK: fa.attention {{.+}} {causal, mask_alignment = #fa<mask_alignment bottom_right>, num_splits = 0 : i64} -> tensor<2x8x1x64xf16>
func.func @split_kv_hint(%q: tensor<2x8x1x64xf16>, %k: tensor<2x2x?x64xf16>, %v: tensor<2x2x?x64xf16>) -> tensor<2x8x1x64xf16> {
  %o = fa.attention %q, %k, %v : tensor<2x8x1x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16> {causal, mask_alignment = #fa<mask_alignment bottom_right>, num_splits = 0 : i64} -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

// CHECK-LABEL: func @combine
// CHECK: %{{.+}}, %{{.+}} = fa.combine %{{.+}}, %{{.+}} : tensor<?x2x8x1x128xf32>, tensor<?x2x8x1xf32> -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
func.func @combine(%po: tensor<?x2x8x1x128xf32>, %pl: tensor<?x2x8x1xf32>) -> (tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>) {
  %o, %l = fa.combine %po, %pl : tensor<?x2x8x1x128xf32>, tensor<?x2x8x1xf32> -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
  return %o, %l : tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
}

// -----

// CHECK-LABEL: func @kvcache_paged_append
// CHECK: fa.attention_kvcache %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<?x1x8x64xbf16>, tensor<64x16x2x64xbf16>, tensor<64x16x2x64xbf16>, tensor<?xi32> block_table(%{{.+}} : tensor<?x8xi32>) append(%{{.+}}, %{{.+}} : tensor<?x1x2x64xbf16>, tensor<?x1x2x64xbf16>) {causal, num_splits = 0 : i64} -> tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>, tensor<64x16x2x64xbf16>, tensor<64x16x2x64xbf16>
func.func @kvcache_paged_append(%q: tensor<?x1x8x64xbf16>, %kc: tensor<64x16x2x64xbf16>, %vc: tensor<64x16x2x64xbf16>, %lens: tensor<?xi32>, %bt: tensor<?x8xi32>, %k: tensor<?x1x2x64xbf16>, %v: tensor<?x1x2x64xbf16>) -> (tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>, tensor<64x16x2x64xbf16>, tensor<64x16x2x64xbf16>) {
  %o, %lse, %kc2, %vc2 = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<?x1x8x64xbf16>, tensor<64x16x2x64xbf16>, tensor<64x16x2x64xbf16>, tensor<?xi32> block_table(%bt : tensor<?x8xi32>) append(%k, %v : tensor<?x1x2x64xbf16>, tensor<?x1x2x64xbf16>) {causal, num_splits = 0 : i64} -> tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>, tensor<64x16x2x64xbf16>, tensor<64x16x2x64xbf16>
  return %o, %lse, %kc2, %vc2 : tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>, tensor<64x16x2x64xbf16>, tensor<64x16x2x64xbf16>
}

// -----

// CHECK-LABEL: func @kvcache_contiguous
// CHECK: fa.attention_kvcache %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x3x4x16xf32>, tensor<2x40x2x16xf32>, tensor<2x40x2x16xf32>, tensor<2xi32> {window = array<i64: 8, 0>} -> tensor<2x3x4x16xf32>, tensor<2x4x3xf32>
func.func @kvcache_contiguous(%q: tensor<2x3x4x16xf32>, %kc: tensor<2x40x2x16xf32>, %vc: tensor<2x40x2x16xf32>, %lens: tensor<2xi32>) -> (tensor<2x3x4x16xf32>, tensor<2x4x3xf32>) {
  %o, %lse = fa.attention_kvcache %q, %kc, %vc, %lens : tensor<2x3x4x16xf32>, tensor<2x40x2x16xf32>, tensor<2x40x2x16xf32>, tensor<2xi32> {window = array<i64: 8, 0>} -> tensor<2x3x4x16xf32>, tensor<2x4x3xf32>
  return %o, %lse : tensor<2x3x4x16xf32>, tensor<2x4x3xf32>
}

// -----

// CHECK-LABEL: func @varlen_grad
// CHECK: fa.attention_varlen_grad %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<?x8x32xf16>, tensor<?x8x64xf16>, tensor<?x2x64xf16>, tensor<?x2x32xf16>, tensor<?x8x32xf16>, tensor<8x?xf32>, tensor<?xi32>, tensor<?xi32> {causal, mask_alignment = #fa<mask_alignment bottom_right>, max_seqlen_q = 512 : i64, softcap = 3.000000e+01 : f32, window = array<i64: 64, 0>} -> tensor<?x8x64xf16>, tensor<?x2x64xf16>, tensor<?x2x32xf16>
func.func @varlen_grad(%do: tensor<?x8x32xf16>, %q: tensor<?x8x64xf16>, %k: tensor<?x2x64xf16>, %v: tensor<?x2x32xf16>, %o: tensor<?x8x32xf16>, %lse: tensor<8x?xf32>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> (tensor<?x8x64xf16>, tensor<?x2x64xf16>, tensor<?x2x32xf16>) {
  %dq, %dk, %dv = fa.attention_varlen_grad %do, %q, %k, %v, %o, %lse, %cq, %ck : tensor<?x8x32xf16>, tensor<?x8x64xf16>, tensor<?x2x64xf16>, tensor<?x2x32xf16>, tensor<?x8x32xf16>, tensor<8x?xf32>, tensor<?xi32>, tensor<?xi32> {causal, mask_alignment = #fa<mask_alignment bottom_right>, window = array<i64: 64, 0>, softcap = 30.0 : f32, max_seqlen_q = 512 : i64} -> tensor<?x8x64xf16>, tensor<?x2x64xf16>, tensor<?x2x32xf16>
  return %dq, %dk, %dv : tensor<?x8x64xf16>, tensor<?x2x64xf16>, tensor<?x2x32xf16>
}

// -----

// CHECK-LABEL: func @varlen
// CHECK: fa.attention_varlen %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<?x8x64xf16>, tensor<?x2x64xf16>, tensor<?x2x32xf16>, tensor<?xi32>, tensor<?xi32> {causal, max_seqlen_k = 512 : i64, max_seqlen_q = 512 : i64} -> tensor<?x8x32xf16>, tensor<8x?xf32>
func.func @varlen(%q: tensor<?x8x64xf16>, %k: tensor<?x2x64xf16>, %v: tensor<?x2x32xf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> (tensor<?x8x32xf16>, tensor<8x?xf32>) {
  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : tensor<?x8x64xf16>, tensor<?x2x64xf16>, tensor<?x2x32xf16>, tensor<?xi32>, tensor<?xi32> {causal, max_seqlen_q = 512 : i64, max_seqlen_k = 512 : i64} -> tensor<?x8x32xf16>, tensor<8x?xf32>
  return %o, %lse : tensor<?x8x32xf16>, tensor<8x?xf32>
}

// -----

// ALiBi as a score_mod reading its slopes, a document mask as a mask_mod
// reading the document ids: regions with the captures as trailing arguments.
// CHECK-LABEL: func @modifiers
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16> captures(%{{.+}}, %{{.+}} : tensor<4xf32>, tensor<2x64xi32>) {causal} -> tensor<2x4x64x32xbf16> score_mod {
// CHECK-NEXT: ^bb0(%{{.+}}: f32, %{{.+}}: index, %{{.+}}: index, %{{.+}}: index, %{{.+}}: index, %{{.+}}: tensor<4xf32>, %{{.+}}: tensor<2x64xi32>):
// CHECK: tensor.extract
// CHECK: fa.yield %{{.+}} : f32
// CHECK-NEXT: } mask_mod {
// CHECK: arith.cmpi eq
// CHECK: fa.yield %{{.+}} : i1
// CHECK: fa.attention_grad {{.+}} captures(%{{.+}} : tensor<4xf32>) {causal} -> {{.+}} score_mod {
func.func @modifiers(%q: tensor<2x4x64x32xbf16>, %k: tensor<2x4x64x32xbf16>, %v: tensor<2x4x64x32xbf16>, %slopes: tensor<4xf32>, %doc: tensor<2x64xi32>, %do: tensor<2x4x64x32xbf16>, %lse: tensor<2x4x64xf32>) -> (tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16>) {
  %o = fa.attention %q, %k, %v : tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16> captures(%slopes, %doc : tensor<4xf32>, tensor<2x64xi32>) {causal} -> tensor<2x4x64x32xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>, %d: tensor<2x64xi32>):
    %m = tensor.extract %sl[%h] : tensor<4xf32>
    %dist = arith.subi %j, %i : index
    %di = arith.index_cast %dist : index to i64
    %df = arith.sitofp %di : i64 to f32
    %bias = arith.mulf %m, %df : f32
    %r = arith.addf %s, %bias : f32
    fa.yield %r : f32
  } mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>, %d: tensor<2x64xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<2x64xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<2x64xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1
  }
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16>, tensor<2x4x64xf32> captures(%slopes : tensor<4xf32>) {causal} -> tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>):
    %m = tensor.extract %sl[%h] : tensor<4xf32>
    %r = arith.addf %s, %m : f32
    fa.yield %r : f32
  }
  return %o, %dq : tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16>
}

// -----

// The inference ops take the same regions: captures after their operands
// (after the block table and the append of a KV cache), regions after the
// result types.
// CHECK-LABEL: func @sequence_modifiers
// CHECK: fa.attention_varlen {{.+}} : tensor<?x4x32xbf16>, tensor<?x2x32xbf16>, tensor<?x2x32xbf16>, tensor<3xi32>, tensor<3xi32> captures(%{{.+}} : tensor<4xf32>) {causal} -> tensor<?x4x32xbf16>, tensor<4x?xf32> score_mod {
// CHECK: fa.yield %{{.+}} : f32
// CHECK: fa.attention_varlen_grad {{.+}} captures(%{{.+}} : tensor<2x64xi32>) -> tensor<?x4x32xbf16>, tensor<?x2x32xbf16>, tensor<?x2x32xbf16> mask_mod {
// CHECK: fa.yield %{{.+}} : i1
// CHECK: fa.attention_kvcache {{.+}} block_table(%{{.+}} : tensor<2x4xi32>) append(%{{.+}}, %{{.+}} : tensor<2x1x2x32xbf16>, tensor<2x1x2x32xbf16>) captures(%{{.+}}, %{{.+}} : tensor<4xf32>, tensor<2x64xi32>) {causal} -> tensor<2x1x4x32xbf16>, tensor<2x4x1xf32>, tensor<9x16x2x32xbf16>, tensor<9x16x2x32xbf16> score_mod {
// CHECK: } mask_mod {
func.func @sequence_modifiers(%q: tensor<?x4x32xbf16>, %k: tensor<?x2x32xbf16>, %v: tensor<?x2x32xbf16>, %cu: tensor<3xi32>, %slopes: tensor<4xf32>, %doc: tensor<2x64xi32>, %qc: tensor<2x1x4x32xbf16>, %kc: tensor<9x16x2x32xbf16>, %lens: tensor<2xi32>, %bt: tensor<2x4xi32>, %kn: tensor<2x1x2x32xbf16>) {
  %o, %lse = fa.attention_varlen %q, %k, %v, %cu, %cu : tensor<?x4x32xbf16>, tensor<?x2x32xbf16>, tensor<?x2x32xbf16>, tensor<3xi32>, tensor<3xi32> captures(%slopes : tensor<4xf32>) {causal} -> tensor<?x4x32xbf16>, tensor<4x?xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>):
    %m = tensor.extract %sl[%h] : tensor<4xf32>
    %r = arith.addf %s, %m : f32
    fa.yield %r : f32
  }
  %dq, %dk, %dv = fa.attention_varlen_grad %q, %q, %k, %v, %o, %lse, %cu, %cu : tensor<?x4x32xbf16>, tensor<?x4x32xbf16>, tensor<?x2x32xbf16>, tensor<?x2x32xbf16>, tensor<?x4x32xbf16>, tensor<4x?xf32>, tensor<3xi32>, tensor<3xi32> captures(%doc : tensor<2x64xi32>) -> tensor<?x4x32xbf16>, tensor<?x2x32xbf16>, tensor<?x2x32xbf16> mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<2x64xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<2x64xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<2x64xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1
  }
  %o2, %lse2, %kc2, %vc2 = fa.attention_kvcache %qc, %kc, %kc, %lens : tensor<2x1x4x32xbf16>, tensor<9x16x2x32xbf16>, tensor<9x16x2x32xbf16>, tensor<2xi32> block_table(%bt : tensor<2x4xi32>) append(%kn, %kn : tensor<2x1x2x32xbf16>, tensor<2x1x2x32xbf16>) captures(%slopes, %doc : tensor<4xf32>, tensor<2x64xi32>) {causal} -> tensor<2x1x4x32xbf16>, tensor<2x4x1xf32>, tensor<9x16x2x32xbf16>, tensor<9x16x2x32xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>, %d: tensor<2x64xi32>):
    %m = tensor.extract %sl[%h] : tensor<4xf32>
    %r = arith.addf %s, %m : f32
    fa.yield %r : f32
  } mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>, %d: tensor<2x64xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<2x64xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<2x64xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1
  }
  return
}

// -----

// Attention sinks: the operand after bias, before captures; the backward's
// grad_sinks after grad_bias.
// CHECK-LABEL: func @sinks
// CHECK: fa.attention {{.+}} bias(%{{.+}} : tensor<1x8x?x?xf32>) sinks(%{{.+}} : tensor<8xf32>) captures(%{{.+}} : tensor<8xf32>) {causal} -> tensor<2x8x?x64xf16>, tensor<2x8x?xf32> score_mod
// CHECK: fa.attention_grad {{.+}} bias(%{{.+}} : tensor<1x8x?x?xf32>) sinks(%{{.+}} : tensor<8xf32>) {causal} -> tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<1x8x?x?xf32>, tensor<8xf32>
// CHECK: fa.attention_grad {{.+}} sinks(%{{.+}} : tensor<?xf32>) -> tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<?xf32>{{$}}
func.func @sinks(%do: tensor<2x8x?x64xf16>, %q: tensor<2x8x?x64xf16>, %k: tensor<2x2x?x64xf16>, %v: tensor<2x2x?x64xf16>, %b: tensor<1x8x?x?xf32>, %s: tensor<8xf32>, %sd: tensor<?xf32>) -> (tensor<8xf32>, tensor<?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16> bias(%b : tensor<1x8x?x?xf32>) sinks(%s : tensor<8xf32>) captures(%s : tensor<8xf32>) {causal} -> tensor<2x8x?x64xf16>, tensor<2x8x?xf32> score_mod {
  ^bb0(%x: f32, %bi: index, %h: index, %i: index, %j: index, %sl: tensor<8xf32>):
    %m = tensor.extract %sl[%h] : tensor<8xf32>
    %r = arith.addf %x, %m : f32
    fa.yield %r : f32
  }
  %dq, %dk, %dv, %db, %ds = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?xf32> bias(%b : tensor<1x8x?x?xf32>) sinks(%s : tensor<8xf32>) {causal} -> tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<1x8x?x?xf32>, tensor<8xf32>
  %dq2, %dk2, %dv2, %ds2 = fa.attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?xf32> sinks(%sd : tensor<?xf32>) -> tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<?xf32>
  return %ds, %ds2 : tensor<8xf32>, tensor<?xf32>
}
