// RUN: fa-opt %s -split-input-file --fa-fp8-quantize | FileCheck %s --check-prefix=TENSOR
// RUN: fa-opt %s -split-input-file --fa-fp8-quantize="block=64" | FileCheck %s --check-prefix=BLOCK
// RUN: fa-opt %s -split-input-file --fa-fp8-quantize="incoherent=true seed=7" | FileCheck %s --check-prefix=INCOH
// RUN: fa-opt %s -split-input-file --fa-fp8-quantize -verify-diagnostics -o /dev/null
// RUN: not fa-opt %s -split-input-file --fa-fp8-quantize="block=-1" 2>&1 | FileCheck %s --check-prefix=NEG

// NEG: fa-fp8-quantize: block must be >= 0 (0: per tensor), got -1

// Per tensor: amax over all of Q (a reduction into a rank-0 tensor),
// scale = amax / 448 (1 where amax = 0), Q / scale encoded to FP8 by bit
// manipulation; the FP8 op keeps the attributes and the output type.
// TENSOR-LABEL: func.func @bhsd
// TENSOR:         %[[AMAX:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%arg0 : tensor<1x2x100x4xbf16>) outs(%{{.+}} : tensor<f32>)
// TENSOR:           arith.extf
// TENSOR:           arith.maximumf
// TENSOR:         %[[DQ:.+]] = linalg.generic {{.+}} ins(%[[AMAX]] : tensor<f32>) outs(%{{.+}} : tensor<f32>)
// TENSOR:           arith.cmpf oeq
// TENSOR:           arith.divf %{{.+}}, %{{.+}} : f32
// TENSOR:         %[[Q8:.+]] = linalg.generic {{.+}} ins(%arg0, %[[DQ]] : tensor<1x2x100x4xbf16>, tensor<f32>) outs(%{{.+}} : tensor<1x2x100x4xf8E4M3FN>)
// TENSOR:           arith.divf
// TENSOR:           arith.bitcast %{{.+}} : i8 to f8E4M3FN
// TENSOR:         %[[K8:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<1x1x100x4xf8E4M3FN>)
// TENSOR:         %[[V8:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<1x1x100x4xf8E4M3FN>)
// TENSOR:         fa.attention %[[Q8]], %[[K8]], %[[V8]] : tensor<1x2x100x4xf8E4M3FN>, tensor<1x1x100x4xf8E4M3FN>, tensor<1x1x100x4xf8E4M3FN> descale(%[[DQ]], %{{.+}}, %{{.+}} : tensor<f32>, tensor<f32>, tensor<f32>) {causal} -> tensor<1x2x100x4xbf16>
// TENSOR-NOT:     descale_block
// Per block of 64 rows: one scale per (batch, head, block), read through
// (b, h, s floordiv 64); ceildiv(100, 64) = 2 blocks.
// BLOCK-DAG:     #[[BLK:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 64)>
// BLOCK-LABEL: func.func @bhsd
// BLOCK:         linalg.generic {indexing_maps = [#{{.+}}, #[[BLK]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%arg0 : {{.+}}) outs(%{{.+}} : tensor<1x2x2xf32>)
// BLOCK:         fa.attention {{.+}} descale(%{{.+}}, %{{.+}}, %{{.+}} : tensor<1x2x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>) {causal, descale_block = array<i64: 64, 64>} -> tensor<1x2x100x4xbf16>
// Incoherent: Q and K (not V) times diag(s) H / 2 (seed 7's signs).
// INCOH-LABEL: func.func @bhsd
// INCOH:         %[[M:.+]] = arith.constant dense<{{\[}}[5.000000e-01, 5.000000e-01, 5.000000e-01, 5.000000e-01], [5.000000e-01, -5.000000e-01, 5.000000e-01, -5.000000e-01], [-5.000000e-01, -5.000000e-01, 5.000000e-01, 5.000000e-01], [-5.000000e-01, 5.000000e-01, 5.000000e-01, -5.000000e-01]]> : tensor<4x4xf32>
// INCOH:         %[[QH:.+]] = linalg.generic {{.+}} ins(%arg0, %[[M]] : tensor<1x2x100x4xbf16>, tensor<4x4xf32>)
// INCOH:         %[[KH:.+]] = linalg.generic {{.+}} ins(%arg1, %[[M]] : tensor<1x1x100x4xbf16>, tensor<4x4xf32>)
// INCOH-NOT:     ins(%arg2, %[[M]]
// INCOH:         linalg.generic {{.+}} ins(%[[QH]] : tensor<1x2x100x4xf32>)
// INCOH:         fa.attention
func.func @bhsd(%q: tensor<1x2x100x4xbf16>, %k: tensor<1x1x100x4xbf16>, %v: tensor<1x1x100x4xbf16>) -> tensor<1x2x100x4xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x2x100x4xbf16>, tensor<1x1x100x4xbf16>, tensor<1x1x100x4xbf16> {causal} -> tensor<1x2x100x4xbf16>
  return %o : tensor<1x2x100x4xbf16>
}

// -----

// bshd, dynamic seq_q: the scale map follows the layout (b, s, h, d) ->
// (b, h, s floordiv 64) and the block count is computed.
// BLOCK-DAG:     #[[BSHD:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1 floordiv 64)>
// BLOCK-LABEL: func.func @bshd_dynamic
// BLOCK:         %[[N:.+]] = arith.ceildivui %{{.+}}, %c64
// BLOCK:         tensor.empty(%[[N]]) : tensor<2x4x?xf32>
// BLOCK:         linalg.generic {indexing_maps = [#{{.+}}, #[[BSHD]]]
// BLOCK:         fa.attention {{.+}} descale({{.+}} : tensor<2x4x?xf32>, tensor<2x2x3xf32>, tensor<2x2x3xf32>) {descale_block = array<i64: 64, 64>, layout = #fa<layout bshd>} -> tensor<2x?x4x32xf32>, tensor<2x4x?xf32>
func.func @bshd_dynamic(%q: tensor<2x?x4x32xf32>, %k: tensor<2x130x2x32xf32>, %v: tensor<2x130x2x32xf32>) -> (tensor<2x?x4x32xf32>, tensor<2x4x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<2x?x4x32xf32>, tensor<2x130x2x32xf32>, tensor<2x130x2x32xf32> {layout = #fa<layout bshd>} -> tensor<2x?x4x32xf32>, tensor<2x4x?xf32>
  return %o, %lse : tensor<2x?x4x32xf32>, tensor<2x4x?xf32>
}

// -----

// A head dim that is not a power of two (6 = 4 + 2): block-diagonal
// Hadamard, each block normalised by its own size (1/2, 1/sqrt(2)).
// INCOH-LABEL: func.func @head_dim_6
// INCOH:         arith.constant dense<{{\[}}[5.000000e-01, 5.000000e-01, 5.000000e-01, 5.000000e-01, 0.000000e+00, 0.000000e+00], [5.000000e-01, -5.000000e-01, 5.000000e-01, -5.000000e-01, 0.000000e+00, 0.000000e+00], [-5.000000e-01, -5.000000e-01, 5.000000e-01, 5.000000e-01, 0.000000e+00, 0.000000e+00], [-5.000000e-01, 5.000000e-01, 5.000000e-01, -5.000000e-01, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.707106769, 0.707106769], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.707106769, -0.707106769]]> : tensor<6x6xf32>
func.func @head_dim_6(%q: tensor<1x2x10x6xf32>, %k: tensor<1x1x10x6xf32>, %v: tensor<1x1x10x6xf32>) -> tensor<1x2x10x6xf32> {
  %o = fa.attention %q, %k, %v : tensor<1x2x10x6xf32>, tensor<1x1x10x6xf32>, tensor<1x1x10x6xf32> -> tensor<1x2x10x6xf32>
  return %o : tensor<1x2x10x6xf32>
}

// -----

// Left as they are: FP8 ops (quantized already) and, with a remark, ops
// with a bf16 bias or feeding a backward.
// TENSOR-LABEL: func.func @kept
// TENSOR-NOT:     linalg.generic
// TENSOR:         fa.attention %arg0, %arg1, %arg2 : {{.+}} descale(%arg3, %arg3, %arg3
// TENSOR:         fa.attention %arg4, %arg5, %arg5 : {{.+}} bias(%arg6 : tensor<1x1x8x8xbf16>)
// TENSOR:         fa.attention %arg4, %arg5, %arg5 : tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16> -> tensor<1x1x8x8xbf16>, tensor<1x1x8xf32>
// TENSOR:         fa.attention_grad
func.func @kept(%q: tensor<1x1x8x8xf8E4M3FN>, %k: tensor<1x1x8x8xf8E4M3FN>, %v: tensor<1x1x8x8xf8E4M3FN>, %d: tensor<f32>, %x: tensor<1x1x8x8xbf16>, %y: tensor<1x1x8x8xbf16>, %b: tensor<1x1x8x8xbf16>) -> (tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>) {
  %o = fa.attention %q, %k, %v : tensor<1x1x8x8xf8E4M3FN>, tensor<1x1x8x8xf8E4M3FN>, tensor<1x1x8x8xf8E4M3FN> descale(%d, %d, %d : tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<1x1x8x8xbf16>
  // expected-remark @+1 {{attention not quantized: its bias is not f32 (the FP8 op takes only f32 biases)}}
  %o2 = fa.attention %x, %y, %y : tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16> bias(%b : tensor<1x1x8x8xbf16>) -> tensor<1x1x8x8xbf16>
  // expected-remark @+1 {{attention not quantized: it feeds an fa.attention_grad (the backward would differentiate the quantized forward, not this one)}}
  %o3, %lse = fa.attention %x, %y, %y : tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16> -> tensor<1x1x8x8xbf16>, tensor<1x1x8xf32>
  %dq, %dk, %dv = fa.attention_grad %x, %x, %y, %y, %o3, %lse : tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>, tensor<1x1x8xf32> -> tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>
  return %o, %o2, %dq : tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>, tensor<1x1x8x8xbf16>
}

// -----

// The modifier regions act on the scores and travel with the op.
// TENSOR-LABEL: func @score_mod
// TENSOR: fa.attention {{.+}} : tensor<1x2x64x32xf8E4M3FN>, {{.+}} captures(%{{.+}} : tensor<2xf32>) -> tensor<1x2x64x32xbf16> score_mod {
// TENSOR: tensor.extract
// TENSOR: fa.yield
func.func @score_mod(%q: tensor<1x2x64x32xbf16>, %k: tensor<1x2x64x32xbf16>, %v: tensor<1x2x64x32xbf16>, %sl: tensor<2xf32>) -> tensor<1x2x64x32xbf16> {
  %o = fa.attention %q, %k, %v : tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16> captures(%sl : tensor<2xf32>) -> tensor<1x2x64x32xbf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: tensor<2xf32>):
    %m = tensor.extract %x[%h] : tensor<2xf32>
    %r = arith.addf %s, %m : f32
    fa.yield %r : f32
  }
  return %o : tensor<1x2x64x32xbf16>
}
