// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Whole models (issue 15): two decoder layers in each front end's style,
// written by test/lib/model_ir.py (test/Execution/raise-models.py runs four
// layers of each through both lowerings). Every layer is raised; the shared
// constants (scale, finfo.min fill, the causal buffer and its slices, the
// index tensors of the TOSA mask) are not intermediates of any one layer.

// torch-mlir (HF GPT-2 shapes of ops): one 0-d scale, one 0-d fill and one
// constant lower-triangular buffer for both layers, sliced per layer.
// CHECK-LABEL: func.func @torch_mlir_2_layers
// CHECK-COUNT-2: fa.attention {{.+}} : tensor<2x16x4x16xf32>, tensor<2x16x4x16xf32>, tensor<2x16x4x16xf32> {causal, layout = #fa<layout bshd>, scale = 2.500000e-01 : f32}
// CHECK-NOT: linalg.batch_matmul
// CHECK-NOT: tensor.extract_slice
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#scalar4 = affine_map<(d0, d1, d2, d3) -> ()>
#bcast11 = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>
func.func @torch_mlir_2_layers(%h0: tensor<2x16x64xf32>, %wq0: tensor<64x64xf32>, %wk0: tensor<64x64xf32>, %wv0: tensor<64x64xf32>, %wo0: tensor<64x64xf32>, %wq1: tensor<64x64xf32>, %wk1: tensor<64x64xf32>, %wv1: tensor<64x64xf32>, %wo1: tensor<64x64xf32>) -> tensor<2x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant dense<4.0> : tensor<f64>
  %minval = arith.constant dense<-3.40282347E+38> : tensor<f32>
  %buf = arith.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x32x32xi1>
  %shared_mask = tensor.extract_slice %buf[0, 0, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x32x32xi1> to tensor<1x1x16x16xi1>
  // layer 0
  %hc0 = tensor.collapse_shape %h0 [[0, 1], [2]] : tensor<2x16x64xf32> into tensor<32x64xf32>
  %pe0 = tensor.empty() : tensor<32x64xf32>
  %pf0 = linalg.fill ins(%zero : f32) outs(%pe0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %qm0 = linalg.matmul ins(%hc0, %wq0 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%pf0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %qx0 = tensor.expand_shape %qm0 [[0, 1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<32x64xf32> into tensor<2x16x4x16xf32>
  %qpe0 = tensor.empty() : tensor<2x4x16x16xf32>
  %qp0 = linalg.transpose ins(%qx0 : tensor<2x16x4x16xf32>) outs(%qpe0 : tensor<2x4x16x16xf32>) permutation = [0, 2, 1, 3]
  %qc0 = tensor.collapse_shape %qp0 [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %km0 = linalg.matmul ins(%hc0, %wk0 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%pf0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %kx0 = tensor.expand_shape %km0 [[0, 1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<32x64xf32> into tensor<2x16x4x16xf32>
  %kpe0 = tensor.empty() : tensor<2x4x16x16xf32>
  %kp0 = linalg.transpose ins(%kx0 : tensor<2x16x4x16xf32>) outs(%kpe0 : tensor<2x4x16x16xf32>) permutation = [0, 2, 3, 1]
  %kc0 = tensor.collapse_shape %kp0 [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %vm0 = linalg.matmul ins(%hc0, %wv0 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%pf0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %vx0 = tensor.expand_shape %vm0 [[0, 1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<32x64xf32> into tensor<2x16x4x16xf32>
  %vpe0 = tensor.empty() : tensor<2x4x16x16xf32>
  %vp0 = linalg.transpose ins(%vx0 : tensor<2x16x4x16xf32>) outs(%vpe0 : tensor<2x4x16x16xf32>) permutation = [0, 2, 1, 3]
  %vc0 = tensor.collapse_shape %vp0 [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %se0 = tensor.empty() : tensor<8x16x16xf32>
  %sf0 = linalg.fill ins(%zero : f32) outs(%se0 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s0 = linalg.batch_matmul ins(%qc0, %kc0 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%sf0 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s40 = tensor.expand_shape %s0 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %e40 = tensor.empty() : tensor<2x4x16x16xf32>
  %sc0 = linalg.generic {indexing_maps = [#id4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s40, %scale : tensor<2x4x16x16xf32>, tensor<f64>) outs(%e40 : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %c: f64, %o: f32):
    %ct = arith.truncf %c : f64 to f32
    %r = arith.divf %in, %ct : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %mask0 = tensor.extract_slice %buf[0, 0, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x32x32xi1> to tensor<1x1x16x16xi1>
  %mk0 = linalg.generic {indexing_maps = [#bcast11, #id4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask0, %sc0, %minval : tensor<1x1x16x16xi1>, tensor<2x4x16x16xf32>, tensor<f32>) outs(%e40 : tensor<2x4x16x16xf32>) {
  ^bb0(%m: i1, %in: f32, %f: f32, %o: f32):
    %r = arith.select %m, %in, %f : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %re0 = tensor.empty() : tensor<2x4x16xf32>
  %mf0 = linalg.fill ins(%ninf : f32) outs(%re0 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %mx0 = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%mk0 : tensor<2x4x16x16xf32>) outs(%mf0 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  %ex0 = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mk0, %mx0 : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%e40 : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %lf0 = linalg.fill ins(%zero : f32) outs(%re0 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %l0 = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex0 : tensor<2x4x16x16xf32>) outs(%lf0 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.addf %in, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  %pe40 = tensor.empty() : tensor<2x4x16x16xf32>
  %p0 = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex0, %l0 : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%pe40 : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %p30 = tensor.collapse_shape %p0 [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %oe0 = tensor.empty() : tensor<8x16x16xf32>
  %of0 = linalg.fill ins(%zero : f32) outs(%oe0 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bshd, 4 query heads / 4 kv heads, scale 2.500000e-01, causal)}}
  %o0 = linalg.batch_matmul ins(%p30, %vc0 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%of0 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %o40 = tensor.expand_shape %o0 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %ope0 = tensor.empty() : tensor<2x16x4x16xf32>
  %op0 = linalg.transpose ins(%o40 : tensor<2x4x16x16xf32>) outs(%ope0 : tensor<2x16x4x16xf32>) permutation = [0, 2, 1, 3]
  %om0 = tensor.collapse_shape %op0 [[0, 1], [2, 3]] : tensor<2x16x4x16xf32> into tensor<32x64xf32>
  %y0 = linalg.matmul ins(%om0, %wo0 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%pf0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %y30 = tensor.expand_shape %y0 [[0, 1], [2]] output_shape [2, 16, 64] : tensor<32x64xf32> into tensor<2x16x64xf32>
  %he0 = tensor.empty() : tensor<2x16x64xf32>
  %h1 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h0, %y30 : tensor<2x16x64xf32>, tensor<2x16x64xf32>) outs(%he0 : tensor<2x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x16x64xf32>
  // layer 1
  %hc1 = tensor.collapse_shape %h1 [[0, 1], [2]] : tensor<2x16x64xf32> into tensor<32x64xf32>
  %pe1 = tensor.empty() : tensor<32x64xf32>
  %pf1 = linalg.fill ins(%zero : f32) outs(%pe1 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %qm1 = linalg.matmul ins(%hc1, %wq1 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%pf1 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %qx1 = tensor.expand_shape %qm1 [[0, 1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<32x64xf32> into tensor<2x16x4x16xf32>
  %qpe1 = tensor.empty() : tensor<2x4x16x16xf32>
  %qp1 = linalg.transpose ins(%qx1 : tensor<2x16x4x16xf32>) outs(%qpe1 : tensor<2x4x16x16xf32>) permutation = [0, 2, 1, 3]
  %qc1 = tensor.collapse_shape %qp1 [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %km1 = linalg.matmul ins(%hc1, %wk1 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%pf1 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %kx1 = tensor.expand_shape %km1 [[0, 1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<32x64xf32> into tensor<2x16x4x16xf32>
  %kpe1 = tensor.empty() : tensor<2x4x16x16xf32>
  %kp1 = linalg.transpose ins(%kx1 : tensor<2x16x4x16xf32>) outs(%kpe1 : tensor<2x4x16x16xf32>) permutation = [0, 2, 3, 1]
  %kc1 = tensor.collapse_shape %kp1 [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %vm1 = linalg.matmul ins(%hc1, %wv1 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%pf1 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %vx1 = tensor.expand_shape %vm1 [[0, 1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<32x64xf32> into tensor<2x16x4x16xf32>
  %vpe1 = tensor.empty() : tensor<2x4x16x16xf32>
  %vp1 = linalg.transpose ins(%vx1 : tensor<2x16x4x16xf32>) outs(%vpe1 : tensor<2x4x16x16xf32>) permutation = [0, 2, 1, 3]
  %vc1 = tensor.collapse_shape %vp1 [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %se1 = tensor.empty() : tensor<8x16x16xf32>
  %sf1 = linalg.fill ins(%zero : f32) outs(%se1 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s1 = linalg.batch_matmul ins(%qc1, %kc1 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%sf1 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s41 = tensor.expand_shape %s1 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %e41 = tensor.empty() : tensor<2x4x16x16xf32>
  %sc1 = linalg.generic {indexing_maps = [#id4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s41, %scale : tensor<2x4x16x16xf32>, tensor<f64>) outs(%e41 : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %c: f64, %o: f32):
    %ct = arith.truncf %c : f64 to f32
    %r = arith.divf %in, %ct : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %mask1 = tensor.extract_slice %buf[0, 0, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x32x32xi1> to tensor<1x1x16x16xi1>
  %mk1 = linalg.generic {indexing_maps = [#bcast11, #id4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask1, %sc1, %minval : tensor<1x1x16x16xi1>, tensor<2x4x16x16xf32>, tensor<f32>) outs(%e41 : tensor<2x4x16x16xf32>) {
  ^bb0(%m: i1, %in: f32, %f: f32, %o: f32):
    %r = arith.select %m, %in, %f : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %re1 = tensor.empty() : tensor<2x4x16xf32>
  %mf1 = linalg.fill ins(%ninf : f32) outs(%re1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %mx1 = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%mk1 : tensor<2x4x16x16xf32>) outs(%mf1 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  %ex1 = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mk1, %mx1 : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%e41 : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %lf1 = linalg.fill ins(%zero : f32) outs(%re1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %l1 = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex1 : tensor<2x4x16x16xf32>) outs(%lf1 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.addf %in, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  %pe41 = tensor.empty() : tensor<2x4x16x16xf32>
  %p1 = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex1, %l1 : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%pe41 : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %p31 = tensor.collapse_shape %p1 [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %oe1 = tensor.empty() : tensor<8x16x16xf32>
  %of1 = linalg.fill ins(%zero : f32) outs(%oe1 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bshd, 4 query heads / 4 kv heads, scale 2.500000e-01, causal)}}
  %o1 = linalg.batch_matmul ins(%p31, %vc1 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%of1 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %o41 = tensor.expand_shape %o1 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %ope1 = tensor.empty() : tensor<2x16x4x16xf32>
  %op1 = linalg.transpose ins(%o41 : tensor<2x4x16x16xf32>) outs(%ope1 : tensor<2x16x4x16xf32>) permutation = [0, 2, 1, 3]
  %om1 = tensor.collapse_shape %op1 [[0, 1], [2, 3]] : tensor<2x16x4x16xf32> into tensor<32x64xf32>
  %y1 = linalg.matmul ins(%om1, %wo1 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%pf1 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %y31 = tensor.expand_shape %y1 [[0, 1], [2]] output_shape [2, 16, 64] : tensor<32x64xf32> into tensor<2x16x64xf32>
  %he1 = tensor.empty() : tensor<2x16x64xf32>
  %h2 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h1, %y31 : tensor<2x16x64xf32>, tensor<2x16x64xf32>) outs(%he1 : tensor<2x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x16x64xf32>
  return %h2 : tensor<2x16x64xf32>
}

// -----

// TOSA: add-zero identities, K / V repeated to 4 query heads by an add of a
// larger zero tensor (GQA 4 / 2), the row max broadcast by a mul with ones,
// the causal mask from index constants, greater and an i1 -> i32 -> i8 -> i1
// cast chain.
// CHECK-LABEL: func.func @tosa_2_layers
// CHECK-COUNT-2: fa.attention {{.+}} : tensor<1x16x4x16xf32>, tensor<1x16x2x16xf32>, tensor<1x16x2x16xf32> {causal, layout = #fa<layout bshd>, scale = 2.500000e-01 : f32}
// CHECK-NOT: tosa.reduce_max
// CHECK-NOT: tosa.greater
// CHECK: return
func.func @tosa_2_layers(%h0: tensor<1x16x64xf32>, %wq0: tensor<1x64x64xf32>, %wk0: tensor<1x64x32xf32>, %wv0: tensor<1x64x32xf32>, %wo0: tensor<1x64x64xf32>, %wq1: tensor<1x64x64xf32>, %wk1: tensor<1x64x32xf32>, %wv1: tensor<1x64x32xf32>, %wo1: tensor<1x64x64xf32>) -> tensor<1x16x64xf32> {
  %s_q4 = tosa.const_shape {values = dense<[1, 16, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s_kv4 = tosa.const_shape {values = dense<[1, 16, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s_kv5 = tosa.const_shape {values = dense<[1, 2, 1, 16, 16]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %s_q3 = tosa.const_shape {values = dense<[4, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_o4 = tosa.const_shape {values = dense<[1, 4, 16, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s_e = tosa.const_shape {values = dense<[1, 16, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.25> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %zq = "tosa.const"() <{values = dense<0.0> : tensor<4x16x16xf32>}> : () -> tensor<4x16x16xf32>
  %zkv = "tosa.const"() <{values = dense<0.0> : tensor<1x2x2x16x16xf32>}> : () -> tensor<1x2x2x16x16xf32>
  %ones = "tosa.const"() <{values = dense<1.0> : tensor<4x16x16xf32>}> : () -> tensor<4x16x16xf32>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %qi = "tosa.const"() <{values = dense<[[[0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15]]]> : tensor<1x16x1xi32>}> : () -> tensor<1x16x1xi32>
  %kj = "tosa.const"() <{values = dense<[[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]]> : tensor<1x1x16xi32>}> : () -> tensor<1x1x16xi32>
  %gt = tosa.greater %kj, %qi : (tensor<1x1x16xi32>, tensor<1x16x1xi32>) -> tensor<1x16x16xi1>
  %g32 = tosa.cast %gt : (tensor<1x16x16xi1>) -> tensor<1x16x16xi32>
  %g8 = tosa.cast %g32 : (tensor<1x16x16xi32>) -> tensor<1x16x16xi8>
  %hide = tosa.cast %g8 : (tensor<1x16x16xi8>) -> tensor<1x16x16xi1>
  // layer 0
  %qm0 = tosa.matmul %h0, %wq0, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x64xf32>
  %q40 = tosa.reshape %qm0, %s_q4 : (tensor<1x16x64xf32>, !tosa.shape<4>) -> tensor<1x16x4x16xf32>
  %qt0 = tosa.transpose %q40 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x4x16xf32>) -> tensor<1x4x16x16xf32>
  %km0 = tosa.matmul %h0, %wk0, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x32xf32>
  %k40 = tosa.reshape %km0, %s_kv4 : (tensor<1x16x32xf32>, !tosa.shape<4>) -> tensor<1x16x2x16xf32>
  %kt0 = tosa.transpose %k40 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xf32>) -> tensor<1x2x16x16xf32>
  %vm0 = tosa.matmul %h0, %wv0, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x32xf32>
  %v40 = tosa.reshape %vm0, %s_kv4 : (tensor<1x16x32xf32>, !tosa.shape<4>) -> tensor<1x16x2x16xf32>
  %vt0 = tosa.transpose %v40 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xf32>) -> tensor<1x2x16x16xf32>
  %q30 = tosa.reshape %qt0, %s_q3 : (tensor<1x4x16x16xf32>, !tosa.shape<3>) -> tensor<4x16x16xf32>
  %qz0 = tosa.add %q30, %zq : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %k50 = tosa.reshape %kt0, %s_kv5 : (tensor<1x2x16x16xf32>, !tosa.shape<5>) -> tensor<1x2x1x16x16xf32>
  %kr0 = tosa.add %k50, %zkv : (tensor<1x2x1x16x16xf32>, tensor<1x2x2x16x16xf32>) -> tensor<1x2x2x16x16xf32>
  %k30 = tosa.reshape %kr0, %s_q3 : (tensor<1x2x2x16x16xf32>, !tosa.shape<3>) -> tensor<4x16x16xf32>
  %v50 = tosa.reshape %vt0, %s_kv5 : (tensor<1x2x16x16xf32>, !tosa.shape<5>) -> tensor<1x2x1x16x16xf32>
  %vr0 = tosa.add %v50, %zkv : (tensor<1x2x1x16x16xf32>, tensor<1x2x2x16x16xf32>) -> tensor<1x2x2x16x16xf32>
  %v30 = tosa.reshape %vr0, %s_q3 : (tensor<1x2x2x16x16xf32>, !tosa.shape<3>) -> tensor<4x16x16xf32>
  %kT0 = tosa.transpose %k30 {perms = array<i32: 0, 2, 1>} : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %s0 = tosa.matmul %qz0, %kT0, %zp, %zp : (tensor<4x16x16xf32>, tensor<4x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x16xf32>
  %ss0 = tosa.mul %s0, %scale, %shift : (tensor<4x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %sm0 = tosa.select %hide, %ninf, %ss0 : (tensor<1x16x16xi1>, tensor<1x1x1xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %mx0 = tosa.reduce_max %sm0 {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %mb0 = tosa.mul %mx0, %ones, %shift : (tensor<4x16x1xf32>, tensor<4x16x16xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %d0 = tosa.sub %sm0, %mb0 : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %e0 = tosa.exp %d0 : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %l0 = tosa.reduce_sum %e0 {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %rl0 = tosa.reciprocal %l0 : (tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %p0 = tosa.mul %e0, %rl0, %shift : (tensor<4x16x16xf32>, tensor<4x16x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bshd, 4 query heads / 2 kv heads, scale 2.500000e-01, causal)}}
  %o0 = tosa.matmul %p0, %v30, %zp, %zp : (tensor<4x16x16xf32>, tensor<4x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x16xf32>
  %o40 = tosa.reshape %o0, %s_o4 : (tensor<4x16x16xf32>, !tosa.shape<4>) -> tensor<1x4x16x16xf32>
  %ot0 = tosa.transpose %o40 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x4x16x16xf32>) -> tensor<1x16x4x16xf32>
  %om0 = tosa.reshape %ot0, %s_e : (tensor<1x16x4x16xf32>, !tosa.shape<3>) -> tensor<1x16x64xf32>
  %y0 = tosa.matmul %om0, %wo0, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x64xf32>
  %h1 = tosa.add %h0, %y0 : (tensor<1x16x64xf32>, tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  // layer 1
  %qm1 = tosa.matmul %h1, %wq1, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x64xf32>
  %q41 = tosa.reshape %qm1, %s_q4 : (tensor<1x16x64xf32>, !tosa.shape<4>) -> tensor<1x16x4x16xf32>
  %qt1 = tosa.transpose %q41 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x4x16xf32>) -> tensor<1x4x16x16xf32>
  %km1 = tosa.matmul %h1, %wk1, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x32xf32>
  %k41 = tosa.reshape %km1, %s_kv4 : (tensor<1x16x32xf32>, !tosa.shape<4>) -> tensor<1x16x2x16xf32>
  %kt1 = tosa.transpose %k41 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xf32>) -> tensor<1x2x16x16xf32>
  %vm1 = tosa.matmul %h1, %wv1, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x32xf32>
  %v41 = tosa.reshape %vm1, %s_kv4 : (tensor<1x16x32xf32>, !tosa.shape<4>) -> tensor<1x16x2x16xf32>
  %vt1 = tosa.transpose %v41 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xf32>) -> tensor<1x2x16x16xf32>
  %q31 = tosa.reshape %qt1, %s_q3 : (tensor<1x4x16x16xf32>, !tosa.shape<3>) -> tensor<4x16x16xf32>
  %qz1 = tosa.add %q31, %zq : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %k51 = tosa.reshape %kt1, %s_kv5 : (tensor<1x2x16x16xf32>, !tosa.shape<5>) -> tensor<1x2x1x16x16xf32>
  %kr1 = tosa.add %k51, %zkv : (tensor<1x2x1x16x16xf32>, tensor<1x2x2x16x16xf32>) -> tensor<1x2x2x16x16xf32>
  %k31 = tosa.reshape %kr1, %s_q3 : (tensor<1x2x2x16x16xf32>, !tosa.shape<3>) -> tensor<4x16x16xf32>
  %v51 = tosa.reshape %vt1, %s_kv5 : (tensor<1x2x16x16xf32>, !tosa.shape<5>) -> tensor<1x2x1x16x16xf32>
  %vr1 = tosa.add %v51, %zkv : (tensor<1x2x1x16x16xf32>, tensor<1x2x2x16x16xf32>) -> tensor<1x2x2x16x16xf32>
  %v31 = tosa.reshape %vr1, %s_q3 : (tensor<1x2x2x16x16xf32>, !tosa.shape<3>) -> tensor<4x16x16xf32>
  %kT1 = tosa.transpose %k31 {perms = array<i32: 0, 2, 1>} : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %s1 = tosa.matmul %qz1, %kT1, %zp, %zp : (tensor<4x16x16xf32>, tensor<4x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x16xf32>
  %ss1 = tosa.mul %s1, %scale, %shift : (tensor<4x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %sm1 = tosa.select %hide, %ninf, %ss1 : (tensor<1x16x16xi1>, tensor<1x1x1xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %mx1 = tosa.reduce_max %sm1 {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %mb1 = tosa.mul %mx1, %ones, %shift : (tensor<4x16x1xf32>, tensor<4x16x16xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %d1 = tosa.sub %sm1, %mb1 : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %e1 = tosa.exp %d1 : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %l1 = tosa.reduce_sum %e1 {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %rl1 = tosa.reciprocal %l1 : (tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %p1 = tosa.mul %e1, %rl1, %shift : (tensor<4x16x16xf32>, tensor<4x16x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bshd, 4 query heads / 2 kv heads, scale 2.500000e-01, causal)}}
  %o1 = tosa.matmul %p1, %v31, %zp, %zp : (tensor<4x16x16xf32>, tensor<4x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x16xf32>
  %o41 = tosa.reshape %o1, %s_o4 : (tensor<4x16x16xf32>, !tosa.shape<4>) -> tensor<1x4x16x16xf32>
  %ot1 = tosa.transpose %o41 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x4x16x16xf32>) -> tensor<1x16x4x16xf32>
  %om1 = tosa.reshape %ot1, %s_e : (tensor<1x16x4x16xf32>, !tosa.shape<3>) -> tensor<1x16x64xf32>
  %y1 = tosa.matmul %om1, %wo1, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x64xf32>
  %h2 = tosa.add %h1, %y1 : (tensor<1x16x64xf32>, tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  return %h2 : tensor<1x16x64xf32>
}

// -----

// bf16 as HF Llama rounds: f32-accumulating matmuls, the softmax in f32, P
// and the output truncated to bf16: bf16 ops (what the sm_90a back end
// compiles), no converts around them.
// CHECK-LABEL: func.func @torch_mlir_bf16_2_layers
// CHECK-COUNT-2: fa.attention {{.+}} : tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16> {causal, layout = #fa<layout bshd>, scale = 1.250000e-01 : f32} -> tensor<2x16x2x64xbf16>
// CHECK-NOT: linalg.batch_matmul
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#scalar4 = affine_map<(d0, d1, d2, d3) -> ()>
#bcast11 = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>
func.func @torch_mlir_bf16_2_layers(%h0: tensor<2x16x128xbf16>, %wq0: tensor<128x128xbf16>, %wk0: tensor<128x128xbf16>, %wv0: tensor<128x128xbf16>, %wo0: tensor<128x128xbf16>, %wq1: tensor<128x128xbf16>, %wk1: tensor<128x128xbf16>, %wv1: tensor<128x128xbf16>, %wo1: tensor<128x128xbf16>) -> tensor<2x16x128xbf16> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant dense<8.0> : tensor<f64>
  %minval = arith.constant dense<-3.40282347E+38> : tensor<f32>
  %buf = arith.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x32x32xi1>
  %shared_mask = tensor.extract_slice %buf[0, 0, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x32x32xi1> to tensor<1x1x16x16xi1>
  // layer 0
  %hc0 = tensor.collapse_shape %h0 [[0, 1], [2]] : tensor<2x16x128xbf16> into tensor<32x128xbf16>
  %pe0 = tensor.empty() : tensor<32x128xf32>
  %pf0 = linalg.fill ins(%zero : f32) outs(%pe0 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %qm0 = linalg.matmul ins(%hc0, %wq0 : tensor<32x128xbf16>, tensor<128x128xbf16>) outs(%pf0 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %qte0 = tensor.empty() : tensor<32x128xbf16>
  %qt0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%qm0 : tensor<32x128xf32>) outs(%qte0 : tensor<32x128xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x128xbf16>
  %qx0 = tensor.expand_shape %qt0 [[0, 1], [2, 3]] output_shape [2, 16, 2, 64] : tensor<32x128xbf16> into tensor<2x16x2x64xbf16>
  %qpe0 = tensor.empty() : tensor<2x2x16x64xbf16>
  %qp0 = linalg.transpose ins(%qx0 : tensor<2x16x2x64xbf16>) outs(%qpe0 : tensor<2x2x16x64xbf16>) permutation = [0, 2, 1, 3]
  %qc0 = tensor.collapse_shape %qp0 [[0, 1], [2], [3]] : tensor<2x2x16x64xbf16> into tensor<4x16x64xbf16>
  %km0 = linalg.matmul ins(%hc0, %wk0 : tensor<32x128xbf16>, tensor<128x128xbf16>) outs(%pf0 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %kte0 = tensor.empty() : tensor<32x128xbf16>
  %kt0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%km0 : tensor<32x128xf32>) outs(%kte0 : tensor<32x128xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x128xbf16>
  %kx0 = tensor.expand_shape %kt0 [[0, 1], [2, 3]] output_shape [2, 16, 2, 64] : tensor<32x128xbf16> into tensor<2x16x2x64xbf16>
  %kpe0 = tensor.empty() : tensor<2x2x64x16xbf16>
  %kp0 = linalg.transpose ins(%kx0 : tensor<2x16x2x64xbf16>) outs(%kpe0 : tensor<2x2x64x16xbf16>) permutation = [0, 2, 3, 1]
  %kc0 = tensor.collapse_shape %kp0 [[0, 1], [2], [3]] : tensor<2x2x64x16xbf16> into tensor<4x64x16xbf16>
  %vm0 = linalg.matmul ins(%hc0, %wv0 : tensor<32x128xbf16>, tensor<128x128xbf16>) outs(%pf0 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %vte0 = tensor.empty() : tensor<32x128xbf16>
  %vt0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vm0 : tensor<32x128xf32>) outs(%vte0 : tensor<32x128xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x128xbf16>
  %vx0 = tensor.expand_shape %vt0 [[0, 1], [2, 3]] output_shape [2, 16, 2, 64] : tensor<32x128xbf16> into tensor<2x16x2x64xbf16>
  %vpe0 = tensor.empty() : tensor<2x2x16x64xbf16>
  %vp0 = linalg.transpose ins(%vx0 : tensor<2x16x2x64xbf16>) outs(%vpe0 : tensor<2x2x16x64xbf16>) permutation = [0, 2, 1, 3]
  %vc0 = tensor.collapse_shape %vp0 [[0, 1], [2], [3]] : tensor<2x2x16x64xbf16> into tensor<4x16x64xbf16>
  %se0 = tensor.empty() : tensor<4x16x16xf32>
  %sf0 = linalg.fill ins(%zero : f32) outs(%se0 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %s0 = linalg.batch_matmul ins(%qc0, %kc0 : tensor<4x16x64xbf16>, tensor<4x64x16xbf16>) outs(%sf0 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %s40 = tensor.expand_shape %s0 [[0, 1], [2], [3]] output_shape [2, 2, 16, 16] : tensor<4x16x16xf32> into tensor<2x2x16x16xf32>
  %e40 = tensor.empty() : tensor<2x2x16x16xf32>
  %sc0 = linalg.generic {indexing_maps = [#id4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s40, %scale : tensor<2x2x16x16xf32>, tensor<f64>) outs(%e40 : tensor<2x2x16x16xf32>) {
  ^bb0(%in: f32, %c: f64, %o: f32):
    %ct = arith.truncf %c : f64 to f32
    %r = arith.divf %in, %ct : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %mask0 = tensor.extract_slice %buf[0, 0, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x32x32xi1> to tensor<1x1x16x16xi1>
  %mk0 = linalg.generic {indexing_maps = [#bcast11, #id4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask0, %sc0, %minval : tensor<1x1x16x16xi1>, tensor<2x2x16x16xf32>, tensor<f32>) outs(%e40 : tensor<2x2x16x16xf32>) {
  ^bb0(%m: i1, %in: f32, %f: f32, %o: f32):
    %r = arith.select %m, %in, %f : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %re0 = tensor.empty() : tensor<2x2x16xf32>
  %mf0 = linalg.fill ins(%ninf : f32) outs(%re0 : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %mx0 = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%mk0 : tensor<2x2x16x16xf32>) outs(%mf0 : tensor<2x2x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %ex0 = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mk0, %mx0 : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%e40 : tensor<2x2x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %lf0 = linalg.fill ins(%zero : f32) outs(%re0 : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %l0 = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex0 : tensor<2x2x16x16xf32>) outs(%lf0 : tensor<2x2x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.addf %in, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %pe40 = tensor.empty() : tensor<2x2x16x16xbf16>
  %p0 = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex0, %l0 : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%pe40 : tensor<2x2x16x16xbf16>) {
  ^bb0(%in: f32, %s: f32, %o: bf16):
    %r = arith.divf %in, %s : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x2x16x16xbf16>
  %p30 = tensor.collapse_shape %p0 [[0, 1], [2], [3]] : tensor<2x2x16x16xbf16> into tensor<4x16x16xbf16>
  %oe0 = tensor.empty() : tensor<4x16x64xf32>
  %of0 = linalg.fill ins(%zero : f32) outs(%oe0 : tensor<4x16x64xf32>) -> tensor<4x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bshd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal)}}
  %o0 = linalg.batch_matmul ins(%p30, %vc0 : tensor<4x16x16xbf16>, tensor<4x16x64xbf16>) outs(%of0 : tensor<4x16x64xf32>) -> tensor<4x16x64xf32>
  %ote0 = tensor.empty() : tensor<4x16x64xbf16>
  %ot0 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%o0 : tensor<4x16x64xf32>) outs(%ote0 : tensor<4x16x64xbf16>) {
  ^bb0(%in: f32, %x: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4x16x64xbf16>
  %o40 = tensor.expand_shape %ot0 [[0, 1], [2], [3]] output_shape [2, 2, 16, 64] : tensor<4x16x64xbf16> into tensor<2x2x16x64xbf16>
  %ope0 = tensor.empty() : tensor<2x16x2x64xbf16>
  %op0 = linalg.transpose ins(%o40 : tensor<2x2x16x64xbf16>) outs(%ope0 : tensor<2x16x2x64xbf16>) permutation = [0, 2, 1, 3]
  %om0 = tensor.collapse_shape %op0 [[0, 1], [2, 3]] : tensor<2x16x2x64xbf16> into tensor<32x128xbf16>
  %y0 = linalg.matmul ins(%om0, %wo0 : tensor<32x128xbf16>, tensor<128x128xbf16>) outs(%pf0 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %y30 = tensor.expand_shape %y0 [[0, 1], [2]] output_shape [2, 16, 128] : tensor<32x128xf32> into tensor<2x16x128xf32>
  %he0 = tensor.empty() : tensor<2x16x128xbf16>
  %h1 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h0, %y30 : tensor<2x16x128xbf16>, tensor<2x16x128xf32>) outs(%he0 : tensor<2x16x128xbf16>) {
  ^bb0(%a: bf16, %b: f32, %o: bf16):
    %ae = arith.extf %a : bf16 to f32
    %s = arith.addf %ae, %b : f32
    %r = arith.truncf %s : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x16x128xbf16>
  // layer 1
  %hc1 = tensor.collapse_shape %h1 [[0, 1], [2]] : tensor<2x16x128xbf16> into tensor<32x128xbf16>
  %pe1 = tensor.empty() : tensor<32x128xf32>
  %pf1 = linalg.fill ins(%zero : f32) outs(%pe1 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %qm1 = linalg.matmul ins(%hc1, %wq1 : tensor<32x128xbf16>, tensor<128x128xbf16>) outs(%pf1 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %qte1 = tensor.empty() : tensor<32x128xbf16>
  %qt1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%qm1 : tensor<32x128xf32>) outs(%qte1 : tensor<32x128xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x128xbf16>
  %qx1 = tensor.expand_shape %qt1 [[0, 1], [2, 3]] output_shape [2, 16, 2, 64] : tensor<32x128xbf16> into tensor<2x16x2x64xbf16>
  %qpe1 = tensor.empty() : tensor<2x2x16x64xbf16>
  %qp1 = linalg.transpose ins(%qx1 : tensor<2x16x2x64xbf16>) outs(%qpe1 : tensor<2x2x16x64xbf16>) permutation = [0, 2, 1, 3]
  %qc1 = tensor.collapse_shape %qp1 [[0, 1], [2], [3]] : tensor<2x2x16x64xbf16> into tensor<4x16x64xbf16>
  %km1 = linalg.matmul ins(%hc1, %wk1 : tensor<32x128xbf16>, tensor<128x128xbf16>) outs(%pf1 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %kte1 = tensor.empty() : tensor<32x128xbf16>
  %kt1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%km1 : tensor<32x128xf32>) outs(%kte1 : tensor<32x128xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x128xbf16>
  %kx1 = tensor.expand_shape %kt1 [[0, 1], [2, 3]] output_shape [2, 16, 2, 64] : tensor<32x128xbf16> into tensor<2x16x2x64xbf16>
  %kpe1 = tensor.empty() : tensor<2x2x64x16xbf16>
  %kp1 = linalg.transpose ins(%kx1 : tensor<2x16x2x64xbf16>) outs(%kpe1 : tensor<2x2x64x16xbf16>) permutation = [0, 2, 3, 1]
  %kc1 = tensor.collapse_shape %kp1 [[0, 1], [2], [3]] : tensor<2x2x64x16xbf16> into tensor<4x64x16xbf16>
  %vm1 = linalg.matmul ins(%hc1, %wv1 : tensor<32x128xbf16>, tensor<128x128xbf16>) outs(%pf1 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %vte1 = tensor.empty() : tensor<32x128xbf16>
  %vt1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%vm1 : tensor<32x128xf32>) outs(%vte1 : tensor<32x128xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x128xbf16>
  %vx1 = tensor.expand_shape %vt1 [[0, 1], [2, 3]] output_shape [2, 16, 2, 64] : tensor<32x128xbf16> into tensor<2x16x2x64xbf16>
  %vpe1 = tensor.empty() : tensor<2x2x16x64xbf16>
  %vp1 = linalg.transpose ins(%vx1 : tensor<2x16x2x64xbf16>) outs(%vpe1 : tensor<2x2x16x64xbf16>) permutation = [0, 2, 1, 3]
  %vc1 = tensor.collapse_shape %vp1 [[0, 1], [2], [3]] : tensor<2x2x16x64xbf16> into tensor<4x16x64xbf16>
  %se1 = tensor.empty() : tensor<4x16x16xf32>
  %sf1 = linalg.fill ins(%zero : f32) outs(%se1 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %s1 = linalg.batch_matmul ins(%qc1, %kc1 : tensor<4x16x64xbf16>, tensor<4x64x16xbf16>) outs(%sf1 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %s41 = tensor.expand_shape %s1 [[0, 1], [2], [3]] output_shape [2, 2, 16, 16] : tensor<4x16x16xf32> into tensor<2x2x16x16xf32>
  %e41 = tensor.empty() : tensor<2x2x16x16xf32>
  %sc1 = linalg.generic {indexing_maps = [#id4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s41, %scale : tensor<2x2x16x16xf32>, tensor<f64>) outs(%e41 : tensor<2x2x16x16xf32>) {
  ^bb0(%in: f32, %c: f64, %o: f32):
    %ct = arith.truncf %c : f64 to f32
    %r = arith.divf %in, %ct : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %mask1 = tensor.extract_slice %buf[0, 0, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x32x32xi1> to tensor<1x1x16x16xi1>
  %mk1 = linalg.generic {indexing_maps = [#bcast11, #id4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask1, %sc1, %minval : tensor<1x1x16x16xi1>, tensor<2x2x16x16xf32>, tensor<f32>) outs(%e41 : tensor<2x2x16x16xf32>) {
  ^bb0(%m: i1, %in: f32, %f: f32, %o: f32):
    %r = arith.select %m, %in, %f : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %re1 = tensor.empty() : tensor<2x2x16xf32>
  %mf1 = linalg.fill ins(%ninf : f32) outs(%re1 : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %mx1 = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%mk1 : tensor<2x2x16x16xf32>) outs(%mf1 : tensor<2x2x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %ex1 = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mk1, %mx1 : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%e41 : tensor<2x2x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %lf1 = linalg.fill ins(%zero : f32) outs(%re1 : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %l1 = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex1 : tensor<2x2x16x16xf32>) outs(%lf1 : tensor<2x2x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.addf %in, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %pe41 = tensor.empty() : tensor<2x2x16x16xbf16>
  %p1 = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex1, %l1 : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%pe41 : tensor<2x2x16x16xbf16>) {
  ^bb0(%in: f32, %s: f32, %o: bf16):
    %r = arith.divf %in, %s : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x2x16x16xbf16>
  %p31 = tensor.collapse_shape %p1 [[0, 1], [2], [3]] : tensor<2x2x16x16xbf16> into tensor<4x16x16xbf16>
  %oe1 = tensor.empty() : tensor<4x16x64xf32>
  %of1 = linalg.fill ins(%zero : f32) outs(%oe1 : tensor<4x16x64xf32>) -> tensor<4x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bshd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal)}}
  %o1 = linalg.batch_matmul ins(%p31, %vc1 : tensor<4x16x16xbf16>, tensor<4x16x64xbf16>) outs(%of1 : tensor<4x16x64xf32>) -> tensor<4x16x64xf32>
  %ote1 = tensor.empty() : tensor<4x16x64xbf16>
  %ot1 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%o1 : tensor<4x16x64xf32>) outs(%ote1 : tensor<4x16x64xbf16>) {
  ^bb0(%in: f32, %x: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4x16x64xbf16>
  %o41 = tensor.expand_shape %ot1 [[0, 1], [2], [3]] output_shape [2, 2, 16, 64] : tensor<4x16x64xbf16> into tensor<2x2x16x64xbf16>
  %ope1 = tensor.empty() : tensor<2x16x2x64xbf16>
  %op1 = linalg.transpose ins(%o41 : tensor<2x2x16x64xbf16>) outs(%ope1 : tensor<2x16x2x64xbf16>) permutation = [0, 2, 1, 3]
  %om1 = tensor.collapse_shape %op1 [[0, 1], [2, 3]] : tensor<2x16x2x64xbf16> into tensor<32x128xbf16>
  %y1 = linalg.matmul ins(%om1, %wo1 : tensor<32x128xbf16>, tensor<128x128xbf16>) outs(%pf1 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %y31 = tensor.expand_shape %y1 [[0, 1], [2]] output_shape [2, 16, 128] : tensor<32x128xf32> into tensor<2x16x128xf32>
  %he1 = tensor.empty() : tensor<2x16x128xbf16>
  %h2 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h1, %y31 : tensor<2x16x128xbf16>, tensor<2x16x128xf32>) outs(%he1 : tensor<2x16x128xbf16>) {
  ^bb0(%a: bf16, %b: f32, %o: bf16):
    %ae = arith.extf %a : bf16 to f32
    %s = arith.addf %ae, %b : f32
    %r = arith.truncf %s : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x16x128xbf16>
  return %h2 : tensor<2x16x128xbf16>
}
