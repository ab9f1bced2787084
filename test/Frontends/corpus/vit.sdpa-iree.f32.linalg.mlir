// vit, sdpa kept whole, f32: vit.sdpa-whole.f32.linalg.mlir with IREE's
// iree_linalg_ext.attention (iree-opt 3.13.0 --torch-iree-tm-tensor-to-linalg-ext).
// Written by scripts/frontend-corpus/iree-variants.sh; do not edit.
#map = affine_map<(d0, d1, d2) -> (d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
#map6 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map7 = affine_map<(d0, d1, d2) -> (d2)>
#map8 = affine_map<(d0, d1) -> (d1)>
#map9 = affine_map<(d0, d1) -> (d0, d1)>
#map10 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map11 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>
#map12 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>
#map13 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>
#map14 = affine_map<(d0, d1, d2, d3, d4) -> ()>
#map15 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>
#map16 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
module {
  func.func @vit(%arg0: tensor<3x3x16x16xf32>, %arg1: tensor<1x1x32xf32>, %arg2: tensor<1x5x32xf32>, %arg3: tensor<32x3x8x8xf32>, %arg4: tensor<32xf32>, %arg5: tensor<32x32xf32>, %arg6: tensor<32xf32>, %arg7: tensor<32x32xf32>, %arg8: tensor<32xf32>, %arg9: tensor<32x32xf32>, %arg10: tensor<32xf32>, %arg11: tensor<32x32xf32>, %arg12: tensor<32xf32>, %arg13: tensor<32xf32>, %arg14: tensor<32xf32>, %arg15: tensor<32xf32>, %arg16: tensor<32xf32>, %arg17: tensor<64x32xf32>, %arg18: tensor<64xf32>, %arg19: tensor<32x64xf32>, %arg20: tensor<32xf32>, %arg21: tensor<32x32xf32>, %arg22: tensor<32xf32>, %arg23: tensor<32x32xf32>, %arg24: tensor<32xf32>, %arg25: tensor<32x32xf32>, %arg26: tensor<32xf32>, %arg27: tensor<32x32xf32>, %arg28: tensor<32xf32>, %arg29: tensor<32xf32>, %arg30: tensor<32xf32>, %arg31: tensor<32xf32>, %arg32: tensor<32xf32>, %arg33: tensor<64x32xf32>, %arg34: tensor<64xf32>, %arg35: tensor<32x64xf32>, %arg36: tensor<32xf32>, %arg37: tensor<32xf32>, %arg38: tensor<32xf32>, %arg39: tensor<32x32xf32>, %arg40: tensor<32xf32>) -> tensor<3x5x32xf32> {
    %cst = arith.constant 0.353553385 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_1 = arith.constant 0.000000e+00 : f64
    %cst_2 = arith.constant 1.000000e+00 : f32
    %cst_3 = arith.constant 5.000000e-01 : f32
    %cst_4 = arith.constant 9.9999999999999998E-13 : f64
    %cst_5 = arith.constant 3.200000e+01 : f64
    %cst_6 = arith.constant 3.200000e+01 : f32
    %cst_7 = arith.constant 1.41421354 : f32
    %0 = tensor.empty() : tensor<3x32x2x2xf32>
    %broadcasted = linalg.broadcast ins(%arg4 : tensor<32xf32>) outs(%0 : tensor<3x32x2x2xf32>) dimensions = [0, 2, 3] 
    %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<8> : vector<2xi64>} ins(%arg0, %arg3 : tensor<3x3x16x16xf32>, tensor<32x3x8x8xf32>) outs(%broadcasted : tensor<3x32x2x2xf32>) -> tensor<3x32x2x2xf32>
    %collapsed = tensor.collapse_shape %1 [[0], [1], [2, 3]] : tensor<3x32x2x2xf32> into tensor<3x32x4xf32>
    %2 = tensor.empty() : tensor<3x4x32xf32>
    %transposed = linalg.transpose ins(%collapsed : tensor<3x32x4xf32>) outs(%2 : tensor<3x4x32xf32>) permutation = [0, 2, 1] 
    %3 = tensor.empty() : tensor<3x1x32xf32>
    %collapsed_8 = tensor.collapse_shape %arg1 [[0, 1], [2]] : tensor<1x1x32xf32> into tensor<1x32xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_8 : tensor<1x32xf32>) outs(%3 : tensor<3x1x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<3x1x32xf32>
    %concat = tensor.concat dim(1) %4, %transposed : (tensor<3x1x32xf32>, tensor<3x4x32xf32>) -> tensor<3x5x32xf32>
    %5 = tensor.empty() : tensor<3x5x32xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat, %arg2 : tensor<3x5x32xf32>, tensor<1x5x32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %7 = tensor.empty() : tensor<5xi64>
    %8 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel"]} outs(%7 : tensor<5xi64>) {
    ^bb0(%out: i64):
      %156 = linalg.index 0 : index
      %157 = arith.index_cast %156 : index to i64
      linalg.yield %157 : i64
    } -> tensor<5xi64>
    %expanded = tensor.expand_shape %8 [[0, 1, 2, 3]] output_shape [1, 1, 5, 1] : tensor<5xi64> into tensor<1x1x5x1xi64>
    %9 = tensor.empty() : tensor<1x1x5x1xi1>
    %10 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<1x1x5x1xi64>) outs(%9 : tensor<1x1x5x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %156 = arith.cmpi sge, %in, %c0_i64 : i64
      linalg.yield %156 : i1
    } -> tensor<1x1x5x1xi1>
    %11 = tensor.empty() : tensor<3x1x5x5xi1>
    %collapsed_9 = tensor.collapse_shape %10 [[0, 1], [2, 3]] : tensor<1x1x5x1xi1> into tensor<1x5xi1>
    %12 = linalg.generic {indexing_maps = [#map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_9 : tensor<1x5xi1>) outs(%11 : tensor<3x1x5x5xi1>) {
    ^bb0(%in: i1, %out: i1):
      linalg.yield %in : i1
    } -> tensor<3x1x5x5xi1>
    %13 = tensor.empty() : tensor<3x5x32xf64>
    %14 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6 : tensor<3x5x32xf32>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %156 = arith.extf %in : f32 to f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %15 = tensor.empty() : tensor<3x5x1xf64>
    %16 = linalg.fill ins(%cst_1 : f64) outs(%15 : tensor<3x5x1xf64>) -> tensor<3x5x1xf64>
    %17 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%14 : tensor<3x5x32xf64>) outs(%16 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.addf %in, %out : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %18 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%17 : tensor<3x5x1xf64>) outs(%15 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.divf %in, %cst_5 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %19 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%14, %18 : tensor<3x5x32xf64>, tensor<3x5x1xf64>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f64, %in_59: f64, %out: f64):
      %156 = arith.subf %in, %in_59 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %20 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19, %19 : tensor<3x5x32xf64>, tensor<3x5x32xf64>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f64, %in_59: f64, %out: f64):
      %156 = arith.mulf %in, %in_59 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %21 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%20 : tensor<3x5x32xf64>) outs(%16 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.addf %in, %out : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %22 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%21 : tensor<3x5x1xf64>) outs(%15 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.divf %in, %cst_5 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %23 = tensor.empty() : tensor<3x5x1xf32>
    %24 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%22 : tensor<3x5x1xf64>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %156 = arith.truncf %in : f64 to f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %25 = linalg.fill ins(%cst_0 : f32) outs(%23 : tensor<3x5x1xf32>) -> tensor<3x5x1xf32>
    %26 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%6 : tensor<3x5x32xf32>) outs(%25 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.addf %in, %out : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %27 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%26 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.divf %in, %cst_6 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %28 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%24 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.truncf %cst_4 : f64 to f32
      %157 = arith.addf %in, %156 : f32
      linalg.yield %157 : f32
    } -> tensor<3x5x1xf32>
    %29 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%28 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = math.rsqrt %in : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %30 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %27 : tensor<3x5x32xf32>, tensor<3x5x1xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.subf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %31 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%30, %29 : tensor<3x5x32xf32>, tensor<3x5x1xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.mulf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %32 = linalg.generic {indexing_maps = [#map1, #map7, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%31, %arg13 : tensor<3x5x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.mulf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %33 = linalg.generic {indexing_maps = [#map1, #map7, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%32, %arg14 : tensor<3x5x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %collapsed_10 = tensor.collapse_shape %33 [[0, 1], [2]] : tensor<3x5x32xf32> into tensor<15x32xf32>
    %34 = tensor.empty() : tensor<32x32xf32>
    %transposed_11 = linalg.transpose ins(%arg5 : tensor<32x32xf32>) outs(%34 : tensor<32x32xf32>) permutation = [1, 0] 
    %35 = tensor.empty() : tensor<15x32xf32>
    %36 = linalg.fill ins(%cst_0 : f32) outs(%35 : tensor<15x32xf32>) -> tensor<15x32xf32>
    %37 = linalg.matmul ins(%collapsed_10, %transposed_11 : tensor<15x32xf32>, tensor<32x32xf32>) outs(%36 : tensor<15x32xf32>) -> tensor<15x32xf32>
    %38 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg6 : tensor<32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x32xf32>
    %39 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%37, %38 : tensor<15x32xf32>, tensor<15x32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x32xf32>
    %expanded_12 = tensor.expand_shape %39 [[0, 1], [2, 3]] output_shape [3, 5, 4, 8] : tensor<15x32xf32> into tensor<3x5x4x8xf32>
    %40 = tensor.empty() : tensor<3x4x5x8xf32>
    %transposed_13 = linalg.transpose ins(%expanded_12 : tensor<3x5x4x8xf32>) outs(%40 : tensor<3x4x5x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_14 = linalg.transpose ins(%arg7 : tensor<32x32xf32>) outs(%34 : tensor<32x32xf32>) permutation = [1, 0] 
    %41 = linalg.matmul ins(%collapsed_10, %transposed_14 : tensor<15x32xf32>, tensor<32x32xf32>) outs(%36 : tensor<15x32xf32>) -> tensor<15x32xf32>
    %42 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg8 : tensor<32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x32xf32>
    %43 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%41, %42 : tensor<15x32xf32>, tensor<15x32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x32xf32>
    %expanded_15 = tensor.expand_shape %43 [[0, 1], [2, 3]] output_shape [3, 5, 4, 8] : tensor<15x32xf32> into tensor<3x5x4x8xf32>
    %transposed_16 = linalg.transpose ins(%expanded_15 : tensor<3x5x4x8xf32>) outs(%40 : tensor<3x4x5x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_17 = linalg.transpose ins(%arg9 : tensor<32x32xf32>) outs(%34 : tensor<32x32xf32>) permutation = [1, 0] 
    %44 = linalg.matmul ins(%collapsed_10, %transposed_17 : tensor<15x32xf32>, tensor<32x32xf32>) outs(%36 : tensor<15x32xf32>) -> tensor<15x32xf32>
    %45 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg10 : tensor<32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x32xf32>
    %46 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%44, %45 : tensor<15x32xf32>, tensor<15x32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x32xf32>
    %expanded_18 = tensor.expand_shape %46 [[0, 1], [2, 3]] output_shape [3, 5, 4, 8] : tensor<15x32xf32> into tensor<3x5x4x8xf32>
    %transposed_19 = linalg.transpose ins(%expanded_18 : tensor<3x5x4x8xf32>) outs(%40 : tensor<3x4x5x8xf32>) permutation = [0, 2, 1, 3] 
    %47 = tensor.empty() : tensor<3x4x5x5xi1>
    %48 = linalg.generic {indexing_maps = [#map10, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12 : tensor<3x1x5x5xi1>) outs(%47 : tensor<3x4x5x5xi1>) {
    ^bb0(%in: i1, %out: i1):
      linalg.yield %in : i1
    } -> tensor<3x4x5x5xi1>
    %collapsed_20 = tensor.collapse_shape %transposed_13 [[0, 1], [2], [3]] : tensor<3x4x5x8xf32> into tensor<12x5x8xf32>
    %collapsed_21 = tensor.collapse_shape %transposed_16 [[0, 1], [2], [3]] : tensor<3x4x5x8xf32> into tensor<12x5x8xf32>
    %collapsed_22 = tensor.collapse_shape %transposed_19 [[0, 1], [2], [3]] : tensor<3x4x5x8xf32> into tensor<12x5x8xf32>
    %collapsed_23 = tensor.collapse_shape %48 [[0, 1], [2], [3]] : tensor<3x4x5x5xi1> into tensor<12x5x5xi1>
    %49 = tensor.empty() : tensor<12x5x8xf32>
    %50 = iree_linalg_ext.attention <indexing_maps = [#map11, #map12, #map13, #map14, #map15, #map16]> ins(%collapsed_20, %collapsed_21, %collapsed_22, %cst, %collapsed_23 : tensor<12x5x8xf32>, tensor<12x5x8xf32>, tensor<12x5x8xf32>, f32, tensor<12x5x5xi1>) outs(%49 : tensor<12x5x8xf32>) {
    ^bb0(%arg41: f32):
      iree_linalg_ext.yield %arg41 : f32
    } -> tensor<12x5x8xf32>
    %expanded_24 = tensor.expand_shape %50 [[0, 1], [2], [3]] output_shape [3, 4, 5, 8] : tensor<12x5x8xf32> into tensor<3x4x5x8xf32>
    %51 = tensor.empty() : tensor<3x5x4x8xf32>
    %transposed_25 = linalg.transpose ins(%expanded_24 : tensor<3x4x5x8xf32>) outs(%51 : tensor<3x5x4x8xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_26 = tensor.collapse_shape %transposed_25 [[0, 1], [2, 3]] : tensor<3x5x4x8xf32> into tensor<15x32xf32>
    %transposed_27 = linalg.transpose ins(%arg11 : tensor<32x32xf32>) outs(%34 : tensor<32x32xf32>) permutation = [1, 0] 
    %52 = linalg.matmul ins(%collapsed_26, %transposed_27 : tensor<15x32xf32>, tensor<32x32xf32>) outs(%36 : tensor<15x32xf32>) -> tensor<15x32xf32>
    %53 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg12 : tensor<32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x32xf32>
    %54 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%52, %53 : tensor<15x32xf32>, tensor<15x32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x32xf32>
    %expanded_28 = tensor.expand_shape %54 [[0, 1], [2]] output_shape [3, 5, 32] : tensor<15x32xf32> into tensor<3x5x32xf32>
    %55 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_28, %6 : tensor<3x5x32xf32>, tensor<3x5x32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %56 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%55 : tensor<3x5x32xf32>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %156 = arith.extf %in : f32 to f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %57 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%56 : tensor<3x5x32xf64>) outs(%16 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.addf %in, %out : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %58 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%57 : tensor<3x5x1xf64>) outs(%15 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.divf %in, %cst_5 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %59 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%56, %58 : tensor<3x5x32xf64>, tensor<3x5x1xf64>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f64, %in_59: f64, %out: f64):
      %156 = arith.subf %in, %in_59 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %60 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%59, %59 : tensor<3x5x32xf64>, tensor<3x5x32xf64>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f64, %in_59: f64, %out: f64):
      %156 = arith.mulf %in, %in_59 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %61 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%60 : tensor<3x5x32xf64>) outs(%16 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.addf %in, %out : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %62 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%61 : tensor<3x5x1xf64>) outs(%15 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.divf %in, %cst_5 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %63 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%62 : tensor<3x5x1xf64>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %156 = arith.truncf %in : f64 to f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %64 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%55 : tensor<3x5x32xf32>) outs(%25 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.addf %in, %out : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %65 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%64 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.divf %in, %cst_6 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %66 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%63 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.truncf %cst_4 : f64 to f32
      %157 = arith.addf %in, %156 : f32
      linalg.yield %157 : f32
    } -> tensor<3x5x1xf32>
    %67 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%66 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = math.rsqrt %in : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %68 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%55, %65 : tensor<3x5x32xf32>, tensor<3x5x1xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.subf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %69 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%68, %67 : tensor<3x5x32xf32>, tensor<3x5x1xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.mulf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %70 = linalg.generic {indexing_maps = [#map1, #map7, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%69, %arg15 : tensor<3x5x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.mulf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %71 = linalg.generic {indexing_maps = [#map1, #map7, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%70, %arg16 : tensor<3x5x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %collapsed_29 = tensor.collapse_shape %71 [[0, 1], [2]] : tensor<3x5x32xf32> into tensor<15x32xf32>
    %72 = tensor.empty() : tensor<32x64xf32>
    %transposed_30 = linalg.transpose ins(%arg17 : tensor<64x32xf32>) outs(%72 : tensor<32x64xf32>) permutation = [1, 0] 
    %73 = tensor.empty() : tensor<15x64xf32>
    %74 = linalg.fill ins(%cst_0 : f32) outs(%73 : tensor<15x64xf32>) -> tensor<15x64xf32>
    %75 = linalg.matmul ins(%collapsed_29, %transposed_30 : tensor<15x32xf32>, tensor<32x64xf32>) outs(%74 : tensor<15x64xf32>) -> tensor<15x64xf32>
    %76 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg18 : tensor<64xf32>) outs(%73 : tensor<15x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x64xf32>
    %77 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%75, %76 : tensor<15x64xf32>, tensor<15x64xf32>) outs(%73 : tensor<15x64xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x64xf32>
    %expanded_31 = tensor.expand_shape %77 [[0, 1], [2]] output_shape [3, 5, 64] : tensor<15x64xf32> into tensor<3x5x64xf32>
    %78 = tensor.empty() : tensor<3x5x64xf32>
    %79 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_31 : tensor<3x5x64xf32>) outs(%78 : tensor<3x5x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.divf %in, %cst_7 : f32
      %157 = math.erf %156 : f32
      %158 = arith.addf %157, %cst_2 : f32
      %159 = arith.mulf %158, %cst_3 : f32
      %160 = arith.mulf %in, %159 : f32
      linalg.yield %160 : f32
    } -> tensor<3x5x64xf32>
    %collapsed_32 = tensor.collapse_shape %79 [[0, 1], [2]] : tensor<3x5x64xf32> into tensor<15x64xf32>
    %80 = tensor.empty() : tensor<64x32xf32>
    %transposed_33 = linalg.transpose ins(%arg19 : tensor<32x64xf32>) outs(%80 : tensor<64x32xf32>) permutation = [1, 0] 
    %81 = linalg.matmul ins(%collapsed_32, %transposed_33 : tensor<15x64xf32>, tensor<64x32xf32>) outs(%36 : tensor<15x32xf32>) -> tensor<15x32xf32>
    %82 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg20 : tensor<32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x32xf32>
    %83 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%81, %82 : tensor<15x32xf32>, tensor<15x32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x32xf32>
    %expanded_34 = tensor.expand_shape %83 [[0, 1], [2]] output_shape [3, 5, 32] : tensor<15x32xf32> into tensor<3x5x32xf32>
    %84 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_34, %55 : tensor<3x5x32xf32>, tensor<3x5x32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %85 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%84 : tensor<3x5x32xf32>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %156 = arith.extf %in : f32 to f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %86 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%85 : tensor<3x5x32xf64>) outs(%16 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.addf %in, %out : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %87 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%86 : tensor<3x5x1xf64>) outs(%15 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.divf %in, %cst_5 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %88 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%85, %87 : tensor<3x5x32xf64>, tensor<3x5x1xf64>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f64, %in_59: f64, %out: f64):
      %156 = arith.subf %in, %in_59 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %89 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%88, %88 : tensor<3x5x32xf64>, tensor<3x5x32xf64>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f64, %in_59: f64, %out: f64):
      %156 = arith.mulf %in, %in_59 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %90 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%89 : tensor<3x5x32xf64>) outs(%16 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.addf %in, %out : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %91 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%90 : tensor<3x5x1xf64>) outs(%15 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.divf %in, %cst_5 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %92 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%91 : tensor<3x5x1xf64>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %156 = arith.truncf %in : f64 to f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %93 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%84 : tensor<3x5x32xf32>) outs(%25 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.addf %in, %out : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %94 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%93 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.divf %in, %cst_6 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %95 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%92 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.truncf %cst_4 : f64 to f32
      %157 = arith.addf %in, %156 : f32
      linalg.yield %157 : f32
    } -> tensor<3x5x1xf32>
    %96 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%95 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = math.rsqrt %in : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %97 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%84, %94 : tensor<3x5x32xf32>, tensor<3x5x1xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.subf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %98 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%97, %96 : tensor<3x5x32xf32>, tensor<3x5x1xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.mulf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %99 = linalg.generic {indexing_maps = [#map1, #map7, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%98, %arg29 : tensor<3x5x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.mulf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %100 = linalg.generic {indexing_maps = [#map1, #map7, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%99, %arg30 : tensor<3x5x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %collapsed_35 = tensor.collapse_shape %100 [[0, 1], [2]] : tensor<3x5x32xf32> into tensor<15x32xf32>
    %transposed_36 = linalg.transpose ins(%arg21 : tensor<32x32xf32>) outs(%34 : tensor<32x32xf32>) permutation = [1, 0] 
    %101 = linalg.matmul ins(%collapsed_35, %transposed_36 : tensor<15x32xf32>, tensor<32x32xf32>) outs(%36 : tensor<15x32xf32>) -> tensor<15x32xf32>
    %102 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg22 : tensor<32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x32xf32>
    %103 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%101, %102 : tensor<15x32xf32>, tensor<15x32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x32xf32>
    %expanded_37 = tensor.expand_shape %103 [[0, 1], [2, 3]] output_shape [3, 5, 4, 8] : tensor<15x32xf32> into tensor<3x5x4x8xf32>
    %transposed_38 = linalg.transpose ins(%expanded_37 : tensor<3x5x4x8xf32>) outs(%40 : tensor<3x4x5x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_39 = linalg.transpose ins(%arg23 : tensor<32x32xf32>) outs(%34 : tensor<32x32xf32>) permutation = [1, 0] 
    %104 = linalg.matmul ins(%collapsed_35, %transposed_39 : tensor<15x32xf32>, tensor<32x32xf32>) outs(%36 : tensor<15x32xf32>) -> tensor<15x32xf32>
    %105 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg24 : tensor<32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x32xf32>
    %106 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%104, %105 : tensor<15x32xf32>, tensor<15x32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x32xf32>
    %expanded_40 = tensor.expand_shape %106 [[0, 1], [2, 3]] output_shape [3, 5, 4, 8] : tensor<15x32xf32> into tensor<3x5x4x8xf32>
    %transposed_41 = linalg.transpose ins(%expanded_40 : tensor<3x5x4x8xf32>) outs(%40 : tensor<3x4x5x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_42 = linalg.transpose ins(%arg25 : tensor<32x32xf32>) outs(%34 : tensor<32x32xf32>) permutation = [1, 0] 
    %107 = linalg.matmul ins(%collapsed_35, %transposed_42 : tensor<15x32xf32>, tensor<32x32xf32>) outs(%36 : tensor<15x32xf32>) -> tensor<15x32xf32>
    %108 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg26 : tensor<32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x32xf32>
    %109 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%107, %108 : tensor<15x32xf32>, tensor<15x32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x32xf32>
    %expanded_43 = tensor.expand_shape %109 [[0, 1], [2, 3]] output_shape [3, 5, 4, 8] : tensor<15x32xf32> into tensor<3x5x4x8xf32>
    %transposed_44 = linalg.transpose ins(%expanded_43 : tensor<3x5x4x8xf32>) outs(%40 : tensor<3x4x5x8xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_45 = tensor.collapse_shape %transposed_38 [[0, 1], [2], [3]] : tensor<3x4x5x8xf32> into tensor<12x5x8xf32>
    %collapsed_46 = tensor.collapse_shape %transposed_41 [[0, 1], [2], [3]] : tensor<3x4x5x8xf32> into tensor<12x5x8xf32>
    %collapsed_47 = tensor.collapse_shape %transposed_44 [[0, 1], [2], [3]] : tensor<3x4x5x8xf32> into tensor<12x5x8xf32>
    %110 = tensor.empty() : tensor<12x5x8xf32>
    %111 = iree_linalg_ext.attention <indexing_maps = [#map11, #map12, #map13, #map14, #map15, #map16]> ins(%collapsed_45, %collapsed_46, %collapsed_47, %cst, %collapsed_23 : tensor<12x5x8xf32>, tensor<12x5x8xf32>, tensor<12x5x8xf32>, f32, tensor<12x5x5xi1>) outs(%110 : tensor<12x5x8xf32>) {
    ^bb0(%arg41: f32):
      iree_linalg_ext.yield %arg41 : f32
    } -> tensor<12x5x8xf32>
    %expanded_48 = tensor.expand_shape %111 [[0, 1], [2], [3]] output_shape [3, 4, 5, 8] : tensor<12x5x8xf32> into tensor<3x4x5x8xf32>
    %transposed_49 = linalg.transpose ins(%expanded_48 : tensor<3x4x5x8xf32>) outs(%51 : tensor<3x5x4x8xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_50 = tensor.collapse_shape %transposed_49 [[0, 1], [2, 3]] : tensor<3x5x4x8xf32> into tensor<15x32xf32>
    %transposed_51 = linalg.transpose ins(%arg27 : tensor<32x32xf32>) outs(%34 : tensor<32x32xf32>) permutation = [1, 0] 
    %112 = linalg.matmul ins(%collapsed_50, %transposed_51 : tensor<15x32xf32>, tensor<32x32xf32>) outs(%36 : tensor<15x32xf32>) -> tensor<15x32xf32>
    %113 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg28 : tensor<32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x32xf32>
    %114 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%112, %113 : tensor<15x32xf32>, tensor<15x32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x32xf32>
    %expanded_52 = tensor.expand_shape %114 [[0, 1], [2]] output_shape [3, 5, 32] : tensor<15x32xf32> into tensor<3x5x32xf32>
    %115 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_52, %84 : tensor<3x5x32xf32>, tensor<3x5x32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %116 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%115 : tensor<3x5x32xf32>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %156 = arith.extf %in : f32 to f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %117 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%116 : tensor<3x5x32xf64>) outs(%16 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.addf %in, %out : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %118 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%117 : tensor<3x5x1xf64>) outs(%15 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.divf %in, %cst_5 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %119 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%116, %118 : tensor<3x5x32xf64>, tensor<3x5x1xf64>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f64, %in_59: f64, %out: f64):
      %156 = arith.subf %in, %in_59 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %120 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%119, %119 : tensor<3x5x32xf64>, tensor<3x5x32xf64>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f64, %in_59: f64, %out: f64):
      %156 = arith.mulf %in, %in_59 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %121 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%120 : tensor<3x5x32xf64>) outs(%16 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.addf %in, %out : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %122 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%121 : tensor<3x5x1xf64>) outs(%15 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.divf %in, %cst_5 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %123 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%122 : tensor<3x5x1xf64>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %156 = arith.truncf %in : f64 to f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %124 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%115 : tensor<3x5x32xf32>) outs(%25 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.addf %in, %out : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %125 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%124 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.divf %in, %cst_6 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %126 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%123 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.truncf %cst_4 : f64 to f32
      %157 = arith.addf %in, %156 : f32
      linalg.yield %157 : f32
    } -> tensor<3x5x1xf32>
    %127 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%126 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = math.rsqrt %in : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %128 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%115, %125 : tensor<3x5x32xf32>, tensor<3x5x1xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.subf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %129 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%128, %127 : tensor<3x5x32xf32>, tensor<3x5x1xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.mulf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %130 = linalg.generic {indexing_maps = [#map1, #map7, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%129, %arg31 : tensor<3x5x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.mulf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %131 = linalg.generic {indexing_maps = [#map1, #map7, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%130, %arg32 : tensor<3x5x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %collapsed_53 = tensor.collapse_shape %131 [[0, 1], [2]] : tensor<3x5x32xf32> into tensor<15x32xf32>
    %transposed_54 = linalg.transpose ins(%arg33 : tensor<64x32xf32>) outs(%72 : tensor<32x64xf32>) permutation = [1, 0] 
    %132 = linalg.matmul ins(%collapsed_53, %transposed_54 : tensor<15x32xf32>, tensor<32x64xf32>) outs(%74 : tensor<15x64xf32>) -> tensor<15x64xf32>
    %133 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg34 : tensor<64xf32>) outs(%73 : tensor<15x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x64xf32>
    %134 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%132, %133 : tensor<15x64xf32>, tensor<15x64xf32>) outs(%73 : tensor<15x64xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x64xf32>
    %expanded_55 = tensor.expand_shape %134 [[0, 1], [2]] output_shape [3, 5, 64] : tensor<15x64xf32> into tensor<3x5x64xf32>
    %135 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_55 : tensor<3x5x64xf32>) outs(%78 : tensor<3x5x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.divf %in, %cst_7 : f32
      %157 = math.erf %156 : f32
      %158 = arith.addf %157, %cst_2 : f32
      %159 = arith.mulf %158, %cst_3 : f32
      %160 = arith.mulf %in, %159 : f32
      linalg.yield %160 : f32
    } -> tensor<3x5x64xf32>
    %collapsed_56 = tensor.collapse_shape %135 [[0, 1], [2]] : tensor<3x5x64xf32> into tensor<15x64xf32>
    %transposed_57 = linalg.transpose ins(%arg35 : tensor<32x64xf32>) outs(%80 : tensor<64x32xf32>) permutation = [1, 0] 
    %136 = linalg.matmul ins(%collapsed_56, %transposed_57 : tensor<15x64xf32>, tensor<64x32xf32>) outs(%36 : tensor<15x32xf32>) -> tensor<15x32xf32>
    %137 = linalg.generic {indexing_maps = [#map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%arg36 : tensor<32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<15x32xf32>
    %138 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%136, %137 : tensor<15x32xf32>, tensor<15x32xf32>) outs(%35 : tensor<15x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<15x32xf32>
    %expanded_58 = tensor.expand_shape %138 [[0, 1], [2]] output_shape [3, 5, 32] : tensor<15x32xf32> into tensor<3x5x32xf32>
    %139 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_58, %115 : tensor<3x5x32xf32>, tensor<3x5x32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %140 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%139 : tensor<3x5x32xf32>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %156 = arith.extf %in : f32 to f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %141 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%140 : tensor<3x5x32xf64>) outs(%16 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.addf %in, %out : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %142 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%141 : tensor<3x5x1xf64>) outs(%15 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.divf %in, %cst_5 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %143 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%140, %142 : tensor<3x5x32xf64>, tensor<3x5x1xf64>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f64, %in_59: f64, %out: f64):
      %156 = arith.subf %in, %in_59 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %144 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%143, %143 : tensor<3x5x32xf64>, tensor<3x5x32xf64>) outs(%13 : tensor<3x5x32xf64>) {
    ^bb0(%in: f64, %in_59: f64, %out: f64):
      %156 = arith.mulf %in, %in_59 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x32xf64>
    %145 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%144 : tensor<3x5x32xf64>) outs(%16 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.addf %in, %out : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %146 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%145 : tensor<3x5x1xf64>) outs(%15 : tensor<3x5x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %156 = arith.divf %in, %cst_5 : f64
      linalg.yield %156 : f64
    } -> tensor<3x5x1xf64>
    %147 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%146 : tensor<3x5x1xf64>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %156 = arith.truncf %in : f64 to f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %148 = linalg.generic {indexing_maps = [#map1, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%139 : tensor<3x5x32xf32>) outs(%25 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.addf %in, %out : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %149 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%148 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.divf %in, %cst_6 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %150 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%147 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = arith.truncf %cst_4 : f64 to f32
      %157 = arith.addf %in, %156 : f32
      linalg.yield %157 : f32
    } -> tensor<3x5x1xf32>
    %151 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%150 : tensor<3x5x1xf32>) outs(%23 : tensor<3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %156 = math.rsqrt %in : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x1xf32>
    %152 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%139, %149 : tensor<3x5x32xf32>, tensor<3x5x1xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.subf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %153 = linalg.generic {indexing_maps = [#map1, #map6, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%152, %151 : tensor<3x5x32xf32>, tensor<3x5x1xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.mulf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %154 = linalg.generic {indexing_maps = [#map1, #map7, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%153, %arg37 : tensor<3x5x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.mulf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    %155 = linalg.generic {indexing_maps = [#map1, #map7, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%154, %arg38 : tensor<3x5x32xf32>, tensor<32xf32>) outs(%5 : tensor<3x5x32xf32>) {
    ^bb0(%in: f32, %in_59: f32, %out: f32):
      %156 = arith.addf %in, %in_59 : f32
      linalg.yield %156 : f32
    } -> tensor<3x5x32xf32>
    return %155 : tensor<3x5x32xf32>
  }
}

