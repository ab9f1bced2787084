// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Grouped-query attention as HF Llama's eager attention writes it and
// torch-mlir lowers it: repeat_kv (unsqueeze, expand, reshape) on K and V,
// bf16 matmuls, an additive [B, 1, S, S] mask, softmax in f32 between extf
// and truncf, and the output transposed to [B, S, H, D]. The broadcast head
// atom that K and V lack is the GQA group.

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#tile = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d3, d4)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#bmask = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
// Llama-3-8B-like: 32 query heads, 8 kv heads, head_dim 128, bf16.
// CHECK-LABEL: func.func @llama_gqa_bf16
// CHECK-SAME: (%[[Q:.+]]: tensor<1x32x64x128xbf16>, %[[K:.+]]: tensor<1x8x64x128xbf16>, %[[V:.+]]: tensor<1x8x64x128xbf16>, %[[M:.+]]: tensor<1x1x64x64xbf16>)
// CHECK: %[[O:.+]] = fa.attention %[[Q]], %[[K]], %[[V]] : tensor<1x32x64x128xbf16>, tensor<1x8x64x128xbf16>, tensor<1x8x64x128xbf16> bias(%[[M]] : tensor<1x1x64x64xbf16>) {scale = 0.0883789062 : f32} -> tensor<1x32x64x128xbf16>
// CHECK: %[[C:.+]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x32x64x128xbf16> into tensor<32x64x128xbf16>
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[C]] : tensor<32x64x128xbf16>) outs(%{{.+}} : tensor<64x32x128xbf16>) permutation = [1, 0, 2]
// CHECK: %[[E:.+]] = tensor.expand_shape %[[T]] {{\[}}[0, 1], [2], [3]] output_shape [1, 64, 32, 128]
// CHECK: return %[[E]]
func.func @llama_gqa_bf16(%q: tensor<1x32x64x128xbf16>, %k: tensor<1x8x64x128xbf16>, %v: tensor<1x8x64x128xbf16>, %mask: tensor<1x1x64x64xbf16>) -> tensor<1x64x32x128xbf16> {
  %zero = arith.constant 0.0 : bf16
  %zf = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0_i64 = arith.constant 0 : i64
  %scale = arith.constant 0.08838834764831845 : f64
  // repeat_kv: unsqueeze, expand, reshape
  %ku = tensor.expand_shape %k [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 64, 128] : tensor<1x8x64x128xbf16> into tensor<1x8x1x64x128xbf16>
  %vu = tensor.expand_shape %v [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 64, 128] : tensor<1x8x64x128xbf16> into tensor<1x8x1x64x128xbf16>
  %e5 = tensor.empty() : tensor<1x8x4x64x128xbf16>
  %kx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%ku : tensor<1x8x1x64x128xbf16>) outs(%e5 : tensor<1x8x4x64x128xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<1x8x4x64x128xbf16>
  %vx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%vu : tensor<1x8x1x64x128xbf16>) outs(%e5 : tensor<1x8x4x64x128xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<1x8x4x64x128xbf16>
  %kr = tensor.collapse_shape %kx [[0], [1, 2], [3], [4]] : tensor<1x8x4x64x128xbf16> into tensor<1x32x64x128xbf16>
  %vr = tensor.collapse_shape %vx [[0], [1, 2], [3], [4]] : tensor<1x8x4x64x128xbf16> into tensor<1x32x64x128xbf16>
  // q @ k.transpose(2, 3)
  %e_kt = tensor.empty() : tensor<1x32x128x64xbf16>
  %kt = linalg.transpose ins(%kr : tensor<1x32x64x128xbf16>) outs(%e_kt : tensor<1x32x128x64xbf16>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x32x64x128xbf16> into tensor<32x64x128xbf16>
  %ktc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x32x128x64xbf16> into tensor<32x128x64xbf16>
  %e_s3 = tensor.empty() : tensor<32x64x64xbf16>
  %f_s3 = linalg.fill ins(%zero : bf16) outs(%e_s3 : tensor<32x64x64xbf16>) -> tensor<32x64x64xbf16>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<32x64x128xbf16>, tensor<32x128x64xbf16>) outs(%f_s3 : tensor<32x64x64xbf16>) -> tensor<32x64x64xbf16>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 32, 64, 64] : tensor<32x64x64xbf16> into tensor<1x32x64x64xbf16>
  %e_s = tensor.empty() : tensor<1x32x64x64xbf16>
  %ss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se : tensor<1x32x64x64xbf16>) outs(%e_s : tensor<1x32x64x64xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %c = arith.truncf %scale : f64 to bf16
    %r = arith.mulf %in, %c : bf16
    linalg.yield %r : bf16
  } -> tensor<1x32x64x64xbf16>
  %sm = linalg.generic {indexing_maps = [#id4, #bmask, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ss, %mask : tensor<1x32x64x64xbf16>, tensor<1x1x64x64xbf16>) outs(%e_s : tensor<1x32x64x64xbf16>) {
  ^bb0(%in: bf16, %m: bf16, %out: bf16):
    %r = arith.addf %in, %m : bf16
    linalg.yield %r : bf16
  } -> tensor<1x32x64x64xbf16>
  // softmax(..., dtype=torch.float32).to(query.dtype)
  %e_sf = tensor.empty() : tensor<1x32x64x64xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sm : tensor<1x32x64x64xbf16>) outs(%e_sf : tensor<1x32x64x64xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %r = arith.extf %in : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<1x32x64x64xf32>
  %e_r = tensor.empty() : tensor<1x32x64xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x32x64xf32>) -> tensor<1x32x64xf32>
  %e_ri = tensor.empty() : tensor<1x32x64xi64>
  %f_i = linalg.fill ins(%c0_i64 : i64) outs(%e_ri : tensor<1x32x64xi64>) -> tensor<1x32x64xi64>
  %mx:2 = linalg.generic {indexing_maps = [#id4, #row4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x32x64x64xf32>) outs(%f_m, %f_i : tensor<1x32x64xf32>, tensor<1x32x64xi64>) {
  ^bb0(%in: f32, %out: f32, %out_i: i64):
    %idx = linalg.index 3 : index
    %i = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %out : f32
    %c = arith.cmpf ogt, %in, %out : f32
    %sel = arith.select %c, %i, %out_i : i64
    linalg.yield %m, %sel : f32, i64
  } -> (tensor<1x32x64xf32>, tensor<1x32x64xi64>)
  %mxe = tensor.expand_shape %mx#0 [[0], [1], [2, 3]] output_shape [1, 32, 64, 1] : tensor<1x32x64xf32> into tensor<1x32x64x1xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mxe : tensor<1x32x64x64xf32>, tensor<1x32x64x1xf32>) outs(%e_sf : tensor<1x32x64x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %r = arith.subf %in, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x32x64x64xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x32x64x64xf32>) outs(%e_sf : tensor<1x32x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<1x32x64x64xf32>
  %e_r4 = tensor.empty() : tensor<1x32x64x1xf32>
  %f_l = linalg.fill ins(%zf : f32) outs(%e_r4 : tensor<1x32x64x1xf32>) -> tensor<1x32x64x1xf32>
  %l = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x32x64x64xf32>) outs(%f_l : tensor<1x32x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x32x64x1xf32>
  %pf = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x32x64x64xf32>, tensor<1x32x64x1xf32>) outs(%e_sf : tensor<1x32x64x64xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %r = arith.divf %in, %sum : f32
    linalg.yield %r : f32
  } -> tensor<1x32x64x64xf32>
  %p = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pf : tensor<1x32x64x64xf32>) outs(%e_s : tensor<1x32x64x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1x32x64x64xbf16>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x32x64x64xbf16> into tensor<32x64x64xbf16>
  %vc = tensor.collapse_shape %vr [[0, 1], [2], [3]] : tensor<1x32x64x128xbf16> into tensor<32x64x128xbf16>
  %e_o = tensor.empty() : tensor<32x64x128xbf16>
  %f_o = linalg.fill ins(%zero : bf16) outs(%e_o : tensor<32x64x128xbf16>) -> tensor<32x64x128xbf16>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 32 query heads / 8 kv heads, scale 8.837891e-02, bias)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<32x64x64xbf16>, tensor<32x64x128xbf16>) outs(%f_o : tensor<32x64x128xbf16>) -> tensor<32x64x128xbf16>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 32, 64, 128] : tensor<32x64x128xbf16> into tensor<1x32x64x128xbf16>
  %e_ot = tensor.empty() : tensor<1x64x32x128xbf16>
  %ot = linalg.transpose ins(%oe : tensor<1x32x64x128xbf16>) outs(%e_ot : tensor<1x64x32x128xbf16>) permutation = [0, 2, 1, 3]
  return %ot : tensor<1x64x32x128xbf16>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#tile = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d3, d4)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#bmask = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
// Multi-query attention (one kv head), f32, no mask.
// CHECK-LABEL: func.func @mqa_f32
// CHECK: %[[O:.+]] = fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x8x32x64xf32>, tensor<2x1x32x64xf32>, tensor<2x1x32x64xf32> {scale = 1.250000e-01 : f32} -> tensor<2x8x32x64xf32>
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[O]] : tensor<2x8x32x64xf32>) outs(%{{.+}} : tensor<2x32x8x64xf32>) permutation = [0, 2, 1, 3]
// CHECK: return %[[T]]
func.func @mqa_f32(%q: tensor<2x8x32x64xf32>, %k: tensor<2x1x32x64xf32>, %v: tensor<2x1x32x64xf32>) -> tensor<2x32x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %zf = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0_i64 = arith.constant 0 : i64
  %scale = arith.constant 0.125 : f64
  // repeat_kv: unsqueeze, expand, reshape
  %ku = tensor.expand_shape %k [[0], [1, 2], [3], [4]] output_shape [2, 1, 1, 32, 64] : tensor<2x1x32x64xf32> into tensor<2x1x1x32x64xf32>
  %vu = tensor.expand_shape %v [[0], [1, 2], [3], [4]] output_shape [2, 1, 1, 32, 64] : tensor<2x1x32x64xf32> into tensor<2x1x1x32x64xf32>
  %e5 = tensor.empty() : tensor<2x1x8x32x64xf32>
  %kx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%ku : tensor<2x1x1x32x64xf32>) outs(%e5 : tensor<2x1x8x32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x1x8x32x64xf32>
  %vx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%vu : tensor<2x1x1x32x64xf32>) outs(%e5 : tensor<2x1x8x32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x1x8x32x64xf32>
  %kr = tensor.collapse_shape %kx [[0], [1, 2], [3], [4]] : tensor<2x1x8x32x64xf32> into tensor<2x8x32x64xf32>
  %vr = tensor.collapse_shape %vx [[0], [1, 2], [3], [4]] : tensor<2x1x8x32x64xf32> into tensor<2x8x32x64xf32>
  // q @ k.transpose(2, 3)
  %e_kt = tensor.empty() : tensor<2x8x64x32xf32>
  %kt = linalg.transpose ins(%kr : tensor<2x8x32x64xf32>) outs(%e_kt : tensor<2x8x64x32xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x8x32x64xf32> into tensor<16x32x64xf32>
  %ktc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x8x64x32xf32> into tensor<16x64x32xf32>
  %e_s3 = tensor.empty() : tensor<16x32x32xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<16x32x32xf32>) -> tensor<16x32x32xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<16x32x64xf32>, tensor<16x64x32xf32>) outs(%f_s3 : tensor<16x32x32xf32>) -> tensor<16x32x32xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 8, 32, 32] : tensor<16x32x32xf32> into tensor<2x8x32x32xf32>
  %e_s = tensor.empty() : tensor<2x8x32x32xf32>
  %ss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se : tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.truncf %scale : f64 to f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  // softmax(..., dtype=torch.float32).to(query.dtype)
  %e_sf = tensor.empty() : tensor<2x8x32x32xf32>
  %x = tensor.cast %ss : tensor<2x8x32x32xf32> to tensor<2x8x32x32xf32>
  %e_r = tensor.empty() : tensor<2x8x32xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %e_ri = tensor.empty() : tensor<2x8x32xi64>
  %f_i = linalg.fill ins(%c0_i64 : i64) outs(%e_ri : tensor<2x8x32xi64>) -> tensor<2x8x32xi64>
  %mx:2 = linalg.generic {indexing_maps = [#id4, #row4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<2x8x32x32xf32>) outs(%f_m, %f_i : tensor<2x8x32xf32>, tensor<2x8x32xi64>) {
  ^bb0(%in: f32, %out: f32, %out_i: i64):
    %idx = linalg.index 3 : index
    %i = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %out : f32
    %c = arith.cmpf ogt, %in, %out : f32
    %sel = arith.select %c, %i, %out_i : i64
    linalg.yield %m, %sel : f32, i64
  } -> (tensor<2x8x32xf32>, tensor<2x8x32xi64>)
  %mxe = tensor.expand_shape %mx#0 [[0], [1], [2, 3]] output_shape [2, 8, 32, 1] : tensor<2x8x32xf32> into tensor<2x8x32x1xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mxe : tensor<2x8x32x32xf32>, tensor<2x8x32x1xf32>) outs(%e_sf : tensor<2x8x32x32xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %r = arith.subf %in, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<2x8x32x32xf32>) outs(%e_sf : tensor<2x8x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %e_r4 = tensor.empty() : tensor<2x8x32x1xf32>
  %f_l = linalg.fill ins(%zf : f32) outs(%e_r4 : tensor<2x8x32x1xf32>) -> tensor<2x8x32x1xf32>
  %l = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x8x32x32xf32>) outs(%f_l : tensor<2x8x32x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x1xf32>
  %pf = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x8x32x32xf32>, tensor<2x8x32x1xf32>) outs(%e_sf : tensor<2x8x32x32xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %r = arith.divf %in, %sum : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %p = tensor.cast %pf : tensor<2x8x32x32xf32> to tensor<2x8x32x32xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x8x32x32xf32> into tensor<16x32x32xf32>
  %vc = tensor.collapse_shape %vr [[0, 1], [2], [3]] : tensor<2x8x32x64xf32> into tensor<16x32x64xf32>
  %e_o = tensor.empty() : tensor<16x32x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<16x32x64xf32>) -> tensor<16x32x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 1 kv heads, scale 1.250000e-01)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<16x32x32xf32>, tensor<16x32x64xf32>) outs(%f_o : tensor<16x32x64xf32>) -> tensor<16x32x64xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 8, 32, 64] : tensor<16x32x64xf32> into tensor<2x8x32x64xf32>
  %e_ot = tensor.empty() : tensor<2x32x8x64xf32>
  %ot = linalg.transpose ins(%oe : tensor<2x8x32x64xf32>) outs(%e_ot : tensor<2x32x8x64xf32>) permutation = [0, 2, 1, 3]
  return %ot : tensor<2x32x8x64xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#tile = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d3, d4)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#bmask = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
// K.repeat(1, 4, 1, 1): query head h reads kv head h mod 2 (tiling, not
// repeat_interleave). The query heads are permuted so that each group is
// contiguous, and the output is permuted back.
// CHECK-LABEL: func.func @tiled_kv_heads
// CHECK: linalg.transpose
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x8x32x64xf32>, tensor<2x2x32x64xf32>, tensor<2x2x32x64xf32> {scale = 1.250000e-01 : f32} -> tensor<2x8x32x64xf32>
// CHECK: linalg.transpose
func.func @tiled_kv_heads(%q: tensor<2x8x32x64xf32>, %k: tensor<2x2x32x64xf32>, %v: tensor<2x2x32x64xf32>) -> tensor<2x32x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %zf = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0_i64 = arith.constant 0 : i64
  %scale = arith.constant 0.125 : f64
  // repeat_kv: unsqueeze, expand, reshape
  %ku = tensor.expand_shape %k [[0], [1, 2], [3], [4]] output_shape [2, 1, 2, 32, 64] : tensor<2x2x32x64xf32> into tensor<2x1x2x32x64xf32>
  %vu = tensor.expand_shape %v [[0], [1, 2], [3], [4]] output_shape [2, 1, 2, 32, 64] : tensor<2x2x32x64xf32> into tensor<2x1x2x32x64xf32>
  %e5 = tensor.empty() : tensor<2x4x2x32x64xf32>
  %kx = linalg.generic {indexing_maps = [#tile, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%ku : tensor<2x1x2x32x64xf32>) outs(%e5 : tensor<2x4x2x32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x4x2x32x64xf32>
  %vx = linalg.generic {indexing_maps = [#tile, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%vu : tensor<2x1x2x32x64xf32>) outs(%e5 : tensor<2x4x2x32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x4x2x32x64xf32>
  %kr = tensor.collapse_shape %kx [[0], [1, 2], [3], [4]] : tensor<2x4x2x32x64xf32> into tensor<2x8x32x64xf32>
  %vr = tensor.collapse_shape %vx [[0], [1, 2], [3], [4]] : tensor<2x4x2x32x64xf32> into tensor<2x8x32x64xf32>
  // q @ k.transpose(2, 3)
  %e_kt = tensor.empty() : tensor<2x8x64x32xf32>
  %kt = linalg.transpose ins(%kr : tensor<2x8x32x64xf32>) outs(%e_kt : tensor<2x8x64x32xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x8x32x64xf32> into tensor<16x32x64xf32>
  %ktc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x8x64x32xf32> into tensor<16x64x32xf32>
  %e_s3 = tensor.empty() : tensor<16x32x32xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<16x32x32xf32>) -> tensor<16x32x32xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<16x32x64xf32>, tensor<16x64x32xf32>) outs(%f_s3 : tensor<16x32x32xf32>) -> tensor<16x32x32xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 8, 32, 32] : tensor<16x32x32xf32> into tensor<2x8x32x32xf32>
  %e_s = tensor.empty() : tensor<2x8x32x32xf32>
  %ss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se : tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.truncf %scale : f64 to f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  // softmax(..., dtype=torch.float32).to(query.dtype)
  %e_sf = tensor.empty() : tensor<2x8x32x32xf32>
  %x = tensor.cast %ss : tensor<2x8x32x32xf32> to tensor<2x8x32x32xf32>
  %e_r = tensor.empty() : tensor<2x8x32xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %e_ri = tensor.empty() : tensor<2x8x32xi64>
  %f_i = linalg.fill ins(%c0_i64 : i64) outs(%e_ri : tensor<2x8x32xi64>) -> tensor<2x8x32xi64>
  %mx:2 = linalg.generic {indexing_maps = [#id4, #row4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<2x8x32x32xf32>) outs(%f_m, %f_i : tensor<2x8x32xf32>, tensor<2x8x32xi64>) {
  ^bb0(%in: f32, %out: f32, %out_i: i64):
    %idx = linalg.index 3 : index
    %i = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %out : f32
    %c = arith.cmpf ogt, %in, %out : f32
    %sel = arith.select %c, %i, %out_i : i64
    linalg.yield %m, %sel : f32, i64
  } -> (tensor<2x8x32xf32>, tensor<2x8x32xi64>)
  %mxe = tensor.expand_shape %mx#0 [[0], [1], [2, 3]] output_shape [2, 8, 32, 1] : tensor<2x8x32xf32> into tensor<2x8x32x1xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mxe : tensor<2x8x32x32xf32>, tensor<2x8x32x1xf32>) outs(%e_sf : tensor<2x8x32x32xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %r = arith.subf %in, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<2x8x32x32xf32>) outs(%e_sf : tensor<2x8x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %e_r4 = tensor.empty() : tensor<2x8x32x1xf32>
  %f_l = linalg.fill ins(%zf : f32) outs(%e_r4 : tensor<2x8x32x1xf32>) -> tensor<2x8x32x1xf32>
  %l = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x8x32x32xf32>) outs(%f_l : tensor<2x8x32x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x1xf32>
  %pf = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x8x32x32xf32>, tensor<2x8x32x1xf32>) outs(%e_sf : tensor<2x8x32x32xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %r = arith.divf %in, %sum : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %p = tensor.cast %pf : tensor<2x8x32x32xf32> to tensor<2x8x32x32xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x8x32x32xf32> into tensor<16x32x32xf32>
  %vc = tensor.collapse_shape %vr [[0, 1], [2], [3]] : tensor<2x8x32x64xf32> into tensor<16x32x64xf32>
  %e_o = tensor.empty() : tensor<16x32x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<16x32x64xf32>) -> tensor<16x32x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 2 kv heads, scale 1.250000e-01)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<16x32x32xf32>, tensor<16x32x64xf32>) outs(%f_o : tensor<16x32x64xf32>) -> tensor<16x32x64xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 8, 32, 64] : tensor<16x32x64xf32> into tensor<2x8x32x64xf32>
  %e_ot = tensor.empty() : tensor<2x32x8x64xf32>
  %ot = linalg.transpose ins(%oe : tensor<2x8x32x64xf32>) outs(%e_ot : tensor<2x32x8x64xf32>) permutation = [0, 2, 1, 3]
  return %ot : tensor<2x32x8x64xf32>
}
