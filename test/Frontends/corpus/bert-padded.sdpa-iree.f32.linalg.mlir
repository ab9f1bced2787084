// bert-padded, sdpa kept whole, f32: bert-padded.sdpa-whole.f32.linalg.mlir with IREE's
// iree_linalg_ext.attention (iree-opt 3.13.0 --torch-iree-tm-tensor-to-linalg-ext).
// Written by scripts/frontend-corpus/iree-variants.sh; do not edit.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map6 = affine_map<(d0, d1, d2) -> (d2)>
#map7 = affine_map<(d0) -> (d0)>
#map8 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map9 = affine_map<(d0, d1, d2, d3) -> ()>
#map10 = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>
#map11 = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>
#map12 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, 0)>
#map13 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#map14 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map15 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>
#map16 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>
#map17 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>
#map18 = affine_map<(d0, d1, d2, d3, d4) -> ()>
#map19 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>
#map20 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
module {
  func.func @bert_padded(%arg0: tensor<3x10xi64>, %arg1: tensor<3x10xi64>, %arg2: tensor<64x32xf32>, %arg3: tensor<64x32xf32>, %arg4: tensor<2x32xf32>, %arg5: tensor<32xf32>, %arg6: tensor<32xf32>, %arg7: tensor<32x32xf32>, %arg8: tensor<32xf32>, %arg9: tensor<32x32xf32>, %arg10: tensor<32xf32>, %arg11: tensor<32x32xf32>, %arg12: tensor<32xf32>, %arg13: tensor<32x32xf32>, %arg14: tensor<32xf32>, %arg15: tensor<32xf32>, %arg16: tensor<32xf32>, %arg17: tensor<64x32xf32>, %arg18: tensor<64xf32>, %arg19: tensor<32x64xf32>, %arg20: tensor<32xf32>, %arg21: tensor<32xf32>, %arg22: tensor<32xf32>, %arg23: tensor<32x32xf32>, %arg24: tensor<32xf32>, %arg25: tensor<32x32xf32>, %arg26: tensor<32xf32>, %arg27: tensor<32x32xf32>, %arg28: tensor<32xf32>, %arg29: tensor<32x32xf32>, %arg30: tensor<32xf32>, %arg31: tensor<32xf32>, %arg32: tensor<32xf32>, %arg33: tensor<64x32xf32>, %arg34: tensor<64xf32>, %arg35: tensor<32x64xf32>, %arg36: tensor<32xf32>, %arg37: tensor<32xf32>, %arg38: tensor<32xf32>, %arg39: tensor<32x32xf32>, %arg40: tensor<32xf32>) -> tensor<3x10x32xf32> {
    %cst = arith.constant 0.353553385 : f32
    %c0_i64 = arith.constant 0 : i64
    %c10_i64 = arith.constant 10 : i64
    %c64 = arith.constant 64 : index
    %c2 = arith.constant 2 : index
    %cst_0 = arith.constant 0.000000e+00 : f64
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant 5.000000e-01 : f32
    %cst_3 = arith.constant dense<true> : tensor<i1>
    %cst_4 = arith.constant 9.9999999999999998E-13 : f64
    %c0 = arith.constant 0 : index
    %cst_5 = arith.constant 3.200000e+01 : f64
    %cst_6 = arith.constant 3.200000e+01 : f32
    %cst_7 = arith.constant 1.41421354 : f32
    %c3_i64 = arith.constant 3 : i64
    %cst_8 = arith.constant 0.000000e+00 : f32
    %cst_9 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_1> : tensor<1x64xi64>
    %cst_10 = arith.constant dense_resource<torch_tensor_1_64_torch.int64> : tensor<1x64xi64>
    %extracted_slice = tensor.extract_slice %cst_10[0, 0] [1, 10] [1, 1] : tensor<1x64xi64> to tensor<1x10xi64>
    %0 = tensor.empty() : tensor<1x10xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<1x10xi64>) -> tensor<1x10xi64>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<1x10xi64>) outs(%1 : tensor<1x10xi64>) {
    ^bb0(%in: i64, %out: i64):
      %168 = arith.index_cast %in : i64 to index
      %169 = arith.cmpi slt, %168, %c64 : index
      cf.assert %169, "index must be smaller than dim size"
      %170 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %170, "index must be larger or equal to 0"
      %extracted = tensor.extract %cst_9[%c0, %168] : tensor<1x64xi64>
      linalg.yield %extracted : i64
    } -> tensor<1x10xi64>
    %3 = tensor.empty() : tensor<3x10xi64>
    %collapsed = tensor.collapse_shape %2 [[0, 1]] : tensor<1x10xi64> into tensor<10xi64>
    %4 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<10xi64>) outs(%3 : tensor<3x10xi64>) {
    ^bb0(%in: i64, %out: i64):
      linalg.yield %in : i64
    } -> tensor<3x10xi64>
    %5 = tensor.empty() : tensor<3x10x32xf32>
    %6 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x10xi64>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: i64, %out: f32):
      %168 = arith.index_cast %in : i64 to index
      %169 = linalg.index 2 : index
      %170 = arith.cmpi slt, %168, %c64 : index
      cf.assert %170, "index must be smaller than dim size"
      %171 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %171, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg2[%168, %169] : tensor<64x32xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x10x32xf32>
    %7 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<3x10xi64>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: i64, %out: f32):
      %168 = arith.index_cast %in : i64 to index
      %169 = linalg.index 2 : index
      %170 = arith.cmpi slt, %168, %c2 : index
      cf.assert %170, "index must be smaller than dim size"
      %171 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %171, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg4[%168, %169] : tensor<2x32xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x10x32xf32>
    %8 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %7 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %9 = tensor.empty() : tensor<1x10x32xf32>
    %10 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice : tensor<1x10xi64>) outs(%9 : tensor<1x10x32xf32>) {
    ^bb0(%in: i64, %out: f32):
      %168 = arith.index_cast %in : i64 to index
      %169 = linalg.index 2 : index
      %170 = arith.cmpi slt, %168, %c64 : index
      cf.assert %170, "index must be smaller than dim size"
      %171 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %171, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg3[%168, %169] : tensor<64x32xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x10x32xf32>
    %11 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %10 : tensor<3x10x32xf32>, tensor<1x10x32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %12 = tensor.empty() : tensor<3x10x32xf64>
    %13 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11 : tensor<3x10x32xf32>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %168 = arith.extf %in : f32 to f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %14 = tensor.empty() : tensor<3x10x1xf64>
    %15 = linalg.fill ins(%cst_0 : f64) outs(%14 : tensor<3x10x1xf64>) -> tensor<3x10x1xf64>
    %16 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%13 : tensor<3x10x32xf64>) outs(%15 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.addf %in, %out : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %17 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%16 : tensor<3x10x1xf64>) outs(%14 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.divf %in, %cst_5 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %18 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %17 : tensor<3x10x32xf64>, tensor<3x10x1xf64>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f64, %in_61: f64, %out: f64):
      %168 = arith.subf %in, %in_61 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %19 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18, %18 : tensor<3x10x32xf64>, tensor<3x10x32xf64>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f64, %in_61: f64, %out: f64):
      %168 = arith.mulf %in, %in_61 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %20 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%19 : tensor<3x10x32xf64>) outs(%15 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.addf %in, %out : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %21 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20 : tensor<3x10x1xf64>) outs(%14 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.divf %in, %cst_5 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %22 = tensor.empty() : tensor<3x10x1xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%21 : tensor<3x10x1xf64>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %168 = arith.truncf %in : f64 to f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %24 = linalg.fill ins(%cst_8 : f32) outs(%22 : tensor<3x10x1xf32>) -> tensor<3x10x1xf32>
    %25 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%11 : tensor<3x10x32xf32>) outs(%24 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.addf %in, %out : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %26 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%25 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.divf %in, %cst_6 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %27 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%23 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.truncf %cst_4 : f64 to f32
      %169 = arith.addf %in, %168 : f32
      linalg.yield %169 : f32
    } -> tensor<3x10x1xf32>
    %28 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%27 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = math.rsqrt %in : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %29 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %26 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.subf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %30 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%29, %28 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.mulf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %31 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%30, %arg5 : tensor<3x10x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.mulf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %32 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%31, %arg6 : tensor<3x10x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %33 = tensor.empty() : tensor<3x10xi1>
    %34 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3x10xi64>) outs(%33 : tensor<3x10xi1>) {
    ^bb0(%in: i64, %out: i1):
      %168 = arith.cmpi ne, %in, %c0_i64 : i64
      linalg.yield %168 : i1
    } -> tensor<3x10xi1>
    %35 = tensor.empty() : tensor<3xi64>
    %36 = linalg.generic {indexing_maps = [#map7], iterator_types = ["parallel"]} outs(%35 : tensor<3xi64>) {
    ^bb0(%out: i64):
      %168 = linalg.index 0 : index
      %169 = arith.index_cast %168 : index to i64
      linalg.yield %169 : i64
    } -> tensor<3xi64>
    %37 = tensor.empty() : tensor<10xi64>
    %38 = linalg.generic {indexing_maps = [#map7], iterator_types = ["parallel"]} outs(%37 : tensor<10xi64>) {
    ^bb0(%out: i64):
      %168 = linalg.index 0 : index
      %169 = arith.index_cast %168 : index to i64
      linalg.yield %169 : i64
    } -> tensor<10xi64>
    %expanded = tensor.expand_shape %36 [[0, 1, 2, 3]] output_shape [3, 1, 1, 1] : tensor<3xi64> into tensor<3x1x1x1xi64>
    %expanded_11 = tensor.expand_shape %38 [[0, 1, 2, 3]] output_shape [1, 1, 10, 1] : tensor<10xi64> into tensor<1x1x10x1xi64>
    %expanded_12 = tensor.expand_shape %38 [[0, 1, 2, 3]] output_shape [1, 1, 1, 10] : tensor<10xi64> into tensor<1x1x1x10xi64>
    %39 = tensor.empty() : tensor<1x1x10x1xi1>
    %40 = linalg.generic {indexing_maps = [#map8, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_11 : tensor<1x1x10x1xi64>) outs(%39 : tensor<1x1x10x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %168 = arith.cmpi sge, %in, %c0_i64 : i64
      linalg.yield %168 : i1
    } -> tensor<1x1x10x1xi1>
    %41 = linalg.generic {indexing_maps = [#map9, #map8, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_3, %40 : tensor<i1>, tensor<1x1x10x1xi1>) outs(%39 : tensor<1x1x10x1xi1>) {
    ^bb0(%in: i1, %in_61: i1, %out: i1):
      %168 = arith.andi %in, %in_61 : i1
      linalg.yield %168 : i1
    } -> tensor<1x1x10x1xi1>
    %42 = tensor.empty() : tensor<3x1x1x10xi1>
    %43 = linalg.generic {indexing_maps = [#map10, #map11, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %expanded_12 : tensor<3x1x1x1xi64>, tensor<1x1x1x10xi64>) outs(%42 : tensor<3x1x1x10xi1>) {
    ^bb0(%in: i64, %in_61: i64, %out: i1):
      %168 = arith.cmpi slt, %in, %c0_i64 : i64
      %169 = arith.addi %in, %c3_i64 : i64
      %170 = arith.select %168, %169, %in : i64
      %171 = arith.index_cast %170 : i64 to index
      %172 = arith.cmpi slt, %in_61, %c0_i64 : i64
      %173 = arith.addi %in_61, %c10_i64 : i64
      %174 = arith.select %172, %173, %in_61 : i64
      %175 = arith.index_cast %174 : i64 to index
      %extracted = tensor.extract %34[%171, %175] : tensor<3x10xi1>
      linalg.yield %extracted : i1
    } -> tensor<3x1x1x10xi1>
    %44 = tensor.empty() : tensor<3x1x10x10xi1>
    %45 = linalg.generic {indexing_maps = [#map12, #map13, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41, %43 : tensor<1x1x10x1xi1>, tensor<3x1x1x10xi1>) outs(%44 : tensor<3x1x10x10xi1>) {
    ^bb0(%in: i1, %in_61: i1, %out: i1):
      %168 = arith.andi %in, %in_61 : i1
      linalg.yield %168 : i1
    } -> tensor<3x1x10x10xi1>
    %collapsed_13 = tensor.collapse_shape %32 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %46 = tensor.empty() : tensor<32x32xf32>
    %transposed = linalg.transpose ins(%arg7 : tensor<32x32xf32>) outs(%46 : tensor<32x32xf32>) permutation = [1, 0] 
    %47 = tensor.empty() : tensor<30x32xf32>
    %48 = linalg.fill ins(%cst_8 : f32) outs(%47 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %49 = linalg.matmul ins(%collapsed_13, %transposed : tensor<30x32xf32>, tensor<32x32xf32>) outs(%48 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %50 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg8 : tensor<32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x32xf32>
    %51 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%49, %50 : tensor<30x32xf32>, tensor<30x32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x32xf32>
    %expanded_14 = tensor.expand_shape %51 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %52 = tensor.empty() : tensor<3x4x10x8xf32>
    %transposed_15 = linalg.transpose ins(%expanded_14 : tensor<3x10x4x8xf32>) outs(%52 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_16 = linalg.transpose ins(%arg9 : tensor<32x32xf32>) outs(%46 : tensor<32x32xf32>) permutation = [1, 0] 
    %53 = linalg.matmul ins(%collapsed_13, %transposed_16 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%48 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %54 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg10 : tensor<32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x32xf32>
    %55 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%53, %54 : tensor<30x32xf32>, tensor<30x32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x32xf32>
    %expanded_17 = tensor.expand_shape %55 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_18 = linalg.transpose ins(%expanded_17 : tensor<3x10x4x8xf32>) outs(%52 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_19 = linalg.transpose ins(%arg11 : tensor<32x32xf32>) outs(%46 : tensor<32x32xf32>) permutation = [1, 0] 
    %56 = linalg.matmul ins(%collapsed_13, %transposed_19 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%48 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %57 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg12 : tensor<32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x32xf32>
    %58 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%56, %57 : tensor<30x32xf32>, tensor<30x32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x32xf32>
    %expanded_20 = tensor.expand_shape %58 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_21 = linalg.transpose ins(%expanded_20 : tensor<3x10x4x8xf32>) outs(%52 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %59 = tensor.empty() : tensor<3x4x10x10xi1>
    %60 = linalg.generic {indexing_maps = [#map14, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%45 : tensor<3x1x10x10xi1>) outs(%59 : tensor<3x4x10x10xi1>) {
    ^bb0(%in: i1, %out: i1):
      linalg.yield %in : i1
    } -> tensor<3x4x10x10xi1>
    %collapsed_22 = tensor.collapse_shape %transposed_15 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_23 = tensor.collapse_shape %transposed_18 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_24 = tensor.collapse_shape %transposed_21 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_25 = tensor.collapse_shape %60 [[0, 1], [2], [3]] : tensor<3x4x10x10xi1> into tensor<12x10x10xi1>
    %61 = tensor.empty() : tensor<12x10x8xf32>
    %62 = iree_linalg_ext.attention <indexing_maps = [#map15, #map16, #map17, #map18, #map19, #map20]> ins(%collapsed_22, %collapsed_23, %collapsed_24, %cst, %collapsed_25 : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xi1>) outs(%61 : tensor<12x10x8xf32>) {
    ^bb0(%arg41: f32):
      iree_linalg_ext.yield %arg41 : f32
    } -> tensor<12x10x8xf32>
    %expanded_26 = tensor.expand_shape %62 [[0, 1], [2], [3]] output_shape [3, 4, 10, 8] : tensor<12x10x8xf32> into tensor<3x4x10x8xf32>
    %63 = tensor.empty() : tensor<3x10x4x8xf32>
    %transposed_27 = linalg.transpose ins(%expanded_26 : tensor<3x4x10x8xf32>) outs(%63 : tensor<3x10x4x8xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_28 = tensor.collapse_shape %transposed_27 [[0, 1], [2, 3]] : tensor<3x10x4x8xf32> into tensor<30x32xf32>
    %transposed_29 = linalg.transpose ins(%arg13 : tensor<32x32xf32>) outs(%46 : tensor<32x32xf32>) permutation = [1, 0] 
    %64 = linalg.matmul ins(%collapsed_28, %transposed_29 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%48 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %65 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg14 : tensor<32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x32xf32>
    %66 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%64, %65 : tensor<30x32xf32>, tensor<30x32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x32xf32>
    %expanded_30 = tensor.expand_shape %66 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %67 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_30, %32 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %68 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%67 : tensor<3x10x32xf32>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %168 = arith.extf %in : f32 to f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %69 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%68 : tensor<3x10x32xf64>) outs(%15 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.addf %in, %out : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %70 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%69 : tensor<3x10x1xf64>) outs(%14 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.divf %in, %cst_5 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %71 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%68, %70 : tensor<3x10x32xf64>, tensor<3x10x1xf64>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f64, %in_61: f64, %out: f64):
      %168 = arith.subf %in, %in_61 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %72 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%71, %71 : tensor<3x10x32xf64>, tensor<3x10x32xf64>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f64, %in_61: f64, %out: f64):
      %168 = arith.mulf %in, %in_61 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %73 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%72 : tensor<3x10x32xf64>) outs(%15 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.addf %in, %out : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %74 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%73 : tensor<3x10x1xf64>) outs(%14 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.divf %in, %cst_5 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %75 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%74 : tensor<3x10x1xf64>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %168 = arith.truncf %in : f64 to f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %76 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%67 : tensor<3x10x32xf32>) outs(%24 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.addf %in, %out : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %77 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%76 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.divf %in, %cst_6 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %78 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%75 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.truncf %cst_4 : f64 to f32
      %169 = arith.addf %in, %168 : f32
      linalg.yield %169 : f32
    } -> tensor<3x10x1xf32>
    %79 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%78 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = math.rsqrt %in : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %80 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%67, %77 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.subf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %81 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%80, %79 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.mulf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %82 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%81, %arg15 : tensor<3x10x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.mulf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %83 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%82, %arg16 : tensor<3x10x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %collapsed_31 = tensor.collapse_shape %83 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %84 = tensor.empty() : tensor<32x64xf32>
    %transposed_32 = linalg.transpose ins(%arg17 : tensor<64x32xf32>) outs(%84 : tensor<32x64xf32>) permutation = [1, 0] 
    %85 = tensor.empty() : tensor<30x64xf32>
    %86 = linalg.fill ins(%cst_8 : f32) outs(%85 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %87 = linalg.matmul ins(%collapsed_31, %transposed_32 : tensor<30x32xf32>, tensor<32x64xf32>) outs(%86 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %88 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg18 : tensor<64xf32>) outs(%85 : tensor<30x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x64xf32>
    %89 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%87, %88 : tensor<30x64xf32>, tensor<30x64xf32>) outs(%85 : tensor<30x64xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x64xf32>
    %expanded_33 = tensor.expand_shape %89 [[0, 1], [2]] output_shape [3, 10, 64] : tensor<30x64xf32> into tensor<3x10x64xf32>
    %90 = tensor.empty() : tensor<3x10x64xf32>
    %91 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_33 : tensor<3x10x64xf32>) outs(%90 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.divf %in, %cst_7 : f32
      %169 = math.erf %168 : f32
      %170 = arith.addf %169, %cst_1 : f32
      %171 = arith.mulf %170, %cst_2 : f32
      %172 = arith.mulf %in, %171 : f32
      linalg.yield %172 : f32
    } -> tensor<3x10x64xf32>
    %collapsed_34 = tensor.collapse_shape %91 [[0, 1], [2]] : tensor<3x10x64xf32> into tensor<30x64xf32>
    %92 = tensor.empty() : tensor<64x32xf32>
    %transposed_35 = linalg.transpose ins(%arg19 : tensor<32x64xf32>) outs(%92 : tensor<64x32xf32>) permutation = [1, 0] 
    %93 = linalg.matmul ins(%collapsed_34, %transposed_35 : tensor<30x64xf32>, tensor<64x32xf32>) outs(%48 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %94 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg20 : tensor<32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x32xf32>
    %95 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%93, %94 : tensor<30x32xf32>, tensor<30x32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x32xf32>
    %expanded_36 = tensor.expand_shape %95 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %96 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_36, %83 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %97 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%96 : tensor<3x10x32xf32>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %168 = arith.extf %in : f32 to f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %98 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%97 : tensor<3x10x32xf64>) outs(%15 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.addf %in, %out : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %99 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%98 : tensor<3x10x1xf64>) outs(%14 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.divf %in, %cst_5 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %100 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%97, %99 : tensor<3x10x32xf64>, tensor<3x10x1xf64>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f64, %in_61: f64, %out: f64):
      %168 = arith.subf %in, %in_61 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %101 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%100, %100 : tensor<3x10x32xf64>, tensor<3x10x32xf64>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f64, %in_61: f64, %out: f64):
      %168 = arith.mulf %in, %in_61 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %102 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%101 : tensor<3x10x32xf64>) outs(%15 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.addf %in, %out : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %103 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%102 : tensor<3x10x1xf64>) outs(%14 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.divf %in, %cst_5 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %104 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%103 : tensor<3x10x1xf64>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %168 = arith.truncf %in : f64 to f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %105 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%96 : tensor<3x10x32xf32>) outs(%24 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.addf %in, %out : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %106 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%105 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.divf %in, %cst_6 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %107 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%104 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.truncf %cst_4 : f64 to f32
      %169 = arith.addf %in, %168 : f32
      linalg.yield %169 : f32
    } -> tensor<3x10x1xf32>
    %108 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%107 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = math.rsqrt %in : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %109 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%96, %106 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.subf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %110 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%109, %108 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.mulf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %111 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%110, %arg21 : tensor<3x10x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.mulf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %112 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%111, %arg22 : tensor<3x10x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %collapsed_37 = tensor.collapse_shape %112 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %transposed_38 = linalg.transpose ins(%arg23 : tensor<32x32xf32>) outs(%46 : tensor<32x32xf32>) permutation = [1, 0] 
    %113 = linalg.matmul ins(%collapsed_37, %transposed_38 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%48 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %114 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg24 : tensor<32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x32xf32>
    %115 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%113, %114 : tensor<30x32xf32>, tensor<30x32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x32xf32>
    %expanded_39 = tensor.expand_shape %115 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_40 = linalg.transpose ins(%expanded_39 : tensor<3x10x4x8xf32>) outs(%52 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_41 = linalg.transpose ins(%arg25 : tensor<32x32xf32>) outs(%46 : tensor<32x32xf32>) permutation = [1, 0] 
    %116 = linalg.matmul ins(%collapsed_37, %transposed_41 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%48 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %117 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg26 : tensor<32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x32xf32>
    %118 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%116, %117 : tensor<30x32xf32>, tensor<30x32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x32xf32>
    %expanded_42 = tensor.expand_shape %118 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_43 = linalg.transpose ins(%expanded_42 : tensor<3x10x4x8xf32>) outs(%52 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_44 = linalg.transpose ins(%arg27 : tensor<32x32xf32>) outs(%46 : tensor<32x32xf32>) permutation = [1, 0] 
    %119 = linalg.matmul ins(%collapsed_37, %transposed_44 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%48 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %120 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg28 : tensor<32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x32xf32>
    %121 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%119, %120 : tensor<30x32xf32>, tensor<30x32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x32xf32>
    %expanded_45 = tensor.expand_shape %121 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_46 = linalg.transpose ins(%expanded_45 : tensor<3x10x4x8xf32>) outs(%52 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_47 = tensor.collapse_shape %transposed_40 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_48 = tensor.collapse_shape %transposed_43 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_49 = tensor.collapse_shape %transposed_46 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %122 = tensor.empty() : tensor<12x10x8xf32>
    %123 = iree_linalg_ext.attention <indexing_maps = [#map15, #map16, #map17, #map18, #map19, #map20]> ins(%collapsed_47, %collapsed_48, %collapsed_49, %cst, %collapsed_25 : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xi1>) outs(%122 : tensor<12x10x8xf32>) {
    ^bb0(%arg41: f32):
      iree_linalg_ext.yield %arg41 : f32
    } -> tensor<12x10x8xf32>
    %expanded_50 = tensor.expand_shape %123 [[0, 1], [2], [3]] output_shape [3, 4, 10, 8] : tensor<12x10x8xf32> into tensor<3x4x10x8xf32>
    %transposed_51 = linalg.transpose ins(%expanded_50 : tensor<3x4x10x8xf32>) outs(%63 : tensor<3x10x4x8xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_52 = tensor.collapse_shape %transposed_51 [[0, 1], [2, 3]] : tensor<3x10x4x8xf32> into tensor<30x32xf32>
    %transposed_53 = linalg.transpose ins(%arg29 : tensor<32x32xf32>) outs(%46 : tensor<32x32xf32>) permutation = [1, 0] 
    %124 = linalg.matmul ins(%collapsed_52, %transposed_53 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%48 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %125 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg30 : tensor<32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x32xf32>
    %126 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%124, %125 : tensor<30x32xf32>, tensor<30x32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x32xf32>
    %expanded_54 = tensor.expand_shape %126 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %127 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_54, %112 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %128 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%127 : tensor<3x10x32xf32>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %168 = arith.extf %in : f32 to f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %129 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%128 : tensor<3x10x32xf64>) outs(%15 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.addf %in, %out : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %130 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%129 : tensor<3x10x1xf64>) outs(%14 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.divf %in, %cst_5 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %131 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%128, %130 : tensor<3x10x32xf64>, tensor<3x10x1xf64>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f64, %in_61: f64, %out: f64):
      %168 = arith.subf %in, %in_61 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %132 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%131, %131 : tensor<3x10x32xf64>, tensor<3x10x32xf64>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f64, %in_61: f64, %out: f64):
      %168 = arith.mulf %in, %in_61 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %133 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%132 : tensor<3x10x32xf64>) outs(%15 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.addf %in, %out : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %134 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%133 : tensor<3x10x1xf64>) outs(%14 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.divf %in, %cst_5 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %135 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%134 : tensor<3x10x1xf64>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %168 = arith.truncf %in : f64 to f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %136 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%127 : tensor<3x10x32xf32>) outs(%24 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.addf %in, %out : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %137 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%136 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.divf %in, %cst_6 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %138 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%135 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.truncf %cst_4 : f64 to f32
      %169 = arith.addf %in, %168 : f32
      linalg.yield %169 : f32
    } -> tensor<3x10x1xf32>
    %139 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%138 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = math.rsqrt %in : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %140 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%127, %137 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.subf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %141 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%140, %139 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.mulf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %142 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%141, %arg31 : tensor<3x10x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.mulf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %143 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%142, %arg32 : tensor<3x10x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %collapsed_55 = tensor.collapse_shape %143 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %transposed_56 = linalg.transpose ins(%arg33 : tensor<64x32xf32>) outs(%84 : tensor<32x64xf32>) permutation = [1, 0] 
    %144 = linalg.matmul ins(%collapsed_55, %transposed_56 : tensor<30x32xf32>, tensor<32x64xf32>) outs(%86 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %145 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg34 : tensor<64xf32>) outs(%85 : tensor<30x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x64xf32>
    %146 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%144, %145 : tensor<30x64xf32>, tensor<30x64xf32>) outs(%85 : tensor<30x64xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x64xf32>
    %expanded_57 = tensor.expand_shape %146 [[0, 1], [2]] output_shape [3, 10, 64] : tensor<30x64xf32> into tensor<3x10x64xf32>
    %147 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_57 : tensor<3x10x64xf32>) outs(%90 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.divf %in, %cst_7 : f32
      %169 = math.erf %168 : f32
      %170 = arith.addf %169, %cst_1 : f32
      %171 = arith.mulf %170, %cst_2 : f32
      %172 = arith.mulf %in, %171 : f32
      linalg.yield %172 : f32
    } -> tensor<3x10x64xf32>
    %collapsed_58 = tensor.collapse_shape %147 [[0, 1], [2]] : tensor<3x10x64xf32> into tensor<30x64xf32>
    %transposed_59 = linalg.transpose ins(%arg35 : tensor<32x64xf32>) outs(%92 : tensor<64x32xf32>) permutation = [1, 0] 
    %148 = linalg.matmul ins(%collapsed_58, %transposed_59 : tensor<30x64xf32>, tensor<64x32xf32>) outs(%48 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %149 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg36 : tensor<32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<30x32xf32>
    %150 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%148, %149 : tensor<30x32xf32>, tensor<30x32xf32>) outs(%47 : tensor<30x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<30x32xf32>
    %expanded_60 = tensor.expand_shape %150 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %151 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_60, %143 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %152 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%151 : tensor<3x10x32xf32>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %168 = arith.extf %in : f32 to f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %153 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%152 : tensor<3x10x32xf64>) outs(%15 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.addf %in, %out : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %154 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%153 : tensor<3x10x1xf64>) outs(%14 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.divf %in, %cst_5 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %155 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%152, %154 : tensor<3x10x32xf64>, tensor<3x10x1xf64>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f64, %in_61: f64, %out: f64):
      %168 = arith.subf %in, %in_61 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %156 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%155, %155 : tensor<3x10x32xf64>, tensor<3x10x32xf64>) outs(%12 : tensor<3x10x32xf64>) {
    ^bb0(%in: f64, %in_61: f64, %out: f64):
      %168 = arith.mulf %in, %in_61 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x32xf64>
    %157 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%156 : tensor<3x10x32xf64>) outs(%15 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.addf %in, %out : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %158 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%157 : tensor<3x10x1xf64>) outs(%14 : tensor<3x10x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %168 = arith.divf %in, %cst_5 : f64
      linalg.yield %168 : f64
    } -> tensor<3x10x1xf64>
    %159 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%158 : tensor<3x10x1xf64>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %168 = arith.truncf %in : f64 to f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %160 = linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%151 : tensor<3x10x32xf32>) outs(%24 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.addf %in, %out : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %161 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%160 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.divf %in, %cst_6 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %162 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%159 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = arith.truncf %cst_4 : f64 to f32
      %169 = arith.addf %in, %168 : f32
      linalg.yield %169 : f32
    } -> tensor<3x10x1xf32>
    %163 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%162 : tensor<3x10x1xf32>) outs(%22 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %168 = math.rsqrt %in : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x1xf32>
    %164 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%151, %161 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.subf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %165 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%164, %163 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.mulf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %166 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%165, %arg37 : tensor<3x10x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.mulf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    %167 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%166, %arg38 : tensor<3x10x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_61: f32, %out: f32):
      %168 = arith.addf %in, %in_61 : f32
      linalg.yield %168 : f32
    } -> tensor<3x10x32xf32>
    return %167 : tensor<3x10x32xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_1_64_torch.int64_1: "0x080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_1_64_torch.int64: "0x0800000000000000000000000100000000000000020000000000000003000000000000000400000000000000050000000000000006000000000000000700000000000000080000000000000009000000000000000A000000000000000B000000000000000C000000000000000D000000000000000E000000000000000F0000000000000010000000000000001100000000000000120000000000000013000000000000001400000000000000150000000000000016000000000000001700000000000000180000000000000019000000000000001A000000000000001B000000000000001C000000000000001D000000000000001E000000000000001F0000000000000020000000000000002100000000000000220000000000000023000000000000002400000000000000250000000000000026000000000000002700000000000000280000000000000029000000000000002A000000000000002B000000000000002C000000000000002D000000000000002E000000000000002F0000000000000030000000000000003100000000000000320000000000000033000000000000003400000000000000350000000000000036000000000000003700000000000000380000000000000039000000000000003A000000000000003B000000000000003C000000000000003D000000000000003E000000000000003F00000000000000"
    }
  }
#-}

