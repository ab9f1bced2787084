// t5, sdpa kept whole, f32: t5.sdpa-whole.f32.linalg.mlir with IREE's
// iree_linalg_ext.attention (iree-opt 3.13.0 --torch-iree-tm-tensor-to-linalg-ext).
// Written by scripts/frontend-corpus/iree-variants.sh; do not edit.
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map6 = affine_map<(d0, d1, d2) -> (d2)>
#map7 = affine_map<(d0, d1) -> (0, d1)>
#map8 = affine_map<(d0, d1) -> (d0, 0)>
#map9 = affine_map<(d0, d1) -> (d0, d1)>
#map10 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map11 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#map12 = affine_map<(d0, d1, d2, d3) -> ()>
#map13 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>
#map14 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>
#map15 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>
#map16 = affine_map<(d0, d1, d2, d3, d4) -> ()>
#map17 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>
#map18 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
#map19 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#map20 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#map21 = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
module {
  func.func @t5(%arg0: tensor<3x10xi64>, %arg1: tensor<3x10xi64>, %arg2: tensor<64x32xf32>, %arg3: tensor<32x32xf32>, %arg4: tensor<32x32xf32>, %arg5: tensor<32x32xf32>, %arg6: tensor<32x32xf32>, %arg7: tensor<8x4xf32>, %arg8: tensor<32xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<32x64xf32>, %arg11: tensor<32xf32>, %arg12: tensor<32x32xf32>, %arg13: tensor<32x32xf32>, %arg14: tensor<32x32xf32>, %arg15: tensor<32x32xf32>, %arg16: tensor<32xf32>, %arg17: tensor<64x32xf32>, %arg18: tensor<32x64xf32>, %arg19: tensor<32xf32>, %arg20: tensor<32xf32>, %arg21: tensor<32x32xf32>, %arg22: tensor<32x32xf32>, %arg23: tensor<32x32xf32>, %arg24: tensor<32x32xf32>, %arg25: tensor<8x4xf32>, %arg26: tensor<32xf32>, %arg27: tensor<32x32xf32>, %arg28: tensor<32x32xf32>, %arg29: tensor<32x32xf32>, %arg30: tensor<32x32xf32>, %arg31: tensor<32xf32>, %arg32: tensor<64x32xf32>, %arg33: tensor<32x64xf32>, %arg34: tensor<32xf32>, %arg35: tensor<32x32xf32>, %arg36: tensor<32x32xf32>, %arg37: tensor<32x32xf32>, %arg38: tensor<32x32xf32>, %arg39: tensor<32xf32>, %arg40: tensor<32x32xf32>, %arg41: tensor<32x32xf32>, %arg42: tensor<32x32xf32>, %arg43: tensor<32x32xf32>, %arg44: tensor<32xf32>, %arg45: tensor<64x32xf32>, %arg46: tensor<32x64xf32>, %arg47: tensor<32xf32>, %arg48: tensor<32xf32>) -> tensor<3x10x32xf32> {
    %cst = arith.constant 1.000000e+00 : f32
    %c4_i64 = arith.constant 4 : i64
    %c2_i64 = arith.constant 2 : i64
    %c0_i64 = arith.constant 0 : i64
    %c64 = arith.constant 64 : index
    %c8 = arith.constant 8 : index
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<1x4x10x10xf32>
    %cst_1 = arith.constant dense<-3.40282347E+38> : tensor<f32>
    %cst_2 = arith.constant 1.3862943611198906 : f64
    %cst_3 = arith.constant 2.0794415416798357 : f64
    %cst_4 = arith.constant 9.9999999999999995E-7 : f64
    %cst_5 = arith.constant 3.200000e+01 : f32
    %cst_6 = arith.constant 2.000000e+00 : f32
    %cst_7 = arith.constant 4.000000e+00 : f32
    %cst_8 = arith.constant 0.000000e+00 : f32
    %cst_9 = arith.constant dense<7> : tensor<10x10xi64>
    %cst_10 = arith.constant dense<0> : tensor<10x10xi64>
    %cst_11 = arith.constant dense<3> : tensor<10x10xi64>
    %0 = tensor.empty() : tensor<3x10x32xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x10xi64>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: i64, %out: f32):
      %205 = arith.index_cast %in : i64 to index
      %206 = linalg.index 2 : index
      %207 = arith.cmpi slt, %205, %c64 : index
      cf.assert %207, "index must be smaller than dim size"
      %208 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %208, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg2[%205, %206] : tensor<64x32xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x10x32xf32>
    %2 = tensor.empty() : tensor<10xi64>
    %3 = linalg.generic {indexing_maps = [#map2], iterator_types = ["parallel"]} outs(%2 : tensor<10xi64>) {
    ^bb0(%out: i64):
      %205 = linalg.index 0 : index
      %206 = arith.index_cast %205 : index to i64
      linalg.yield %206 : i64
    } -> tensor<10xi64>
    %expanded = tensor.expand_shape %3 [[0, 1, 2, 3]] output_shape [1, 1, 10, 1] : tensor<10xi64> into tensor<1x1x10x1xi64>
    %4 = tensor.empty() : tensor<1x1x10x1xi1>
    %5 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<1x1x10x1xi64>) outs(%4 : tensor<1x1x10x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %205 = arith.cmpi sge, %in, %c0_i64 : i64
      linalg.yield %205 : i1
    } -> tensor<1x1x10x1xi1>
    %6 = tensor.empty() : tensor<3x1x10x10xi1>
    %collapsed = tensor.collapse_shape %5 [[0, 1], [2, 3]] : tensor<1x1x10x1xi1> into tensor<1x10xi1>
    %7 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<1x10xi1>) outs(%6 : tensor<3x1x10x10xi1>) {
    ^bb0(%in: i1, %out: i1):
      linalg.yield %in : i1
    } -> tensor<3x1x10x10xi1>
    %8 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %9 = tensor.empty() : tensor<3x10x1xf32>
    %10 = linalg.fill ins(%cst_8 : f32) outs(%9 : tensor<3x10x1xf32>) -> tensor<3x10x1xf32>
    %11 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%8 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %12 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %13 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%12 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %14 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %15 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %14 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %16 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg8, %15 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %17 = tensor.empty() : tensor<32x32xf32>
    %transposed = linalg.transpose ins(%arg3 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_12 = tensor.collapse_shape %16 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %18 = tensor.empty() : tensor<30x32xf32>
    %19 = linalg.fill ins(%cst_8 : f32) outs(%18 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %20 = linalg.matmul ins(%collapsed_12, %transposed : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_13 = tensor.expand_shape %20 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %21 = tensor.empty() : tensor<3x4x10x8xf32>
    %transposed_14 = linalg.transpose ins(%expanded_13 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_15 = linalg.transpose ins(%arg4 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %22 = linalg.matmul ins(%collapsed_12, %transposed_15 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_16 = tensor.expand_shape %22 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_17 = linalg.transpose ins(%expanded_16 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_18 = linalg.transpose ins(%arg5 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %23 = linalg.matmul ins(%collapsed_12, %transposed_18 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_19 = tensor.expand_shape %23 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_20 = linalg.transpose ins(%expanded_19 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %expanded_21 = tensor.expand_shape %3 [[0, 1]] output_shape [10, 1] : tensor<10xi64> into tensor<10x1xi64>
    %expanded_22 = tensor.expand_shape %3 [[0, 1]] output_shape [1, 10] : tensor<10xi64> into tensor<1x10xi64>
    %24 = tensor.empty() : tensor<10x10xi64>
    %25 = linalg.generic {indexing_maps = [#map7, #map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%expanded_22, %expanded_21 : tensor<1x10xi64>, tensor<10x1xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i64, %in_155: i64, %out: i64):
      %205 = arith.subi %in, %in_155 : i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %26 = tensor.empty() : tensor<10x10xi1>
    %27 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%25 : tensor<10x10xi64>) outs(%26 : tensor<10x10xi1>) {
    ^bb0(%in: i64, %out: i1):
      %205 = arith.cmpi sgt, %in, %c0_i64 : i64
      linalg.yield %205 : i1
    } -> tensor<10x10xi1>
    %28 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%27 : tensor<10x10xi1>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i1, %out: i64):
      %205 = arith.extui %in : i1 to i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %29 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%28 : tensor<10x10xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i64, %out: i64):
      %205 = arith.muli %in, %c4_i64 : i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %30 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%25 : tensor<10x10xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i64, %out: i64):
      %205 = math.absi %in : i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %31 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%30 : tensor<10x10xi64>) outs(%26 : tensor<10x10xi1>) {
    ^bb0(%in: i64, %out: i1):
      %205 = arith.cmpi slt, %in, %c2_i64 : i64
      linalg.yield %205 : i1
    } -> tensor<10x10xi1>
    %32 = tensor.empty() : tensor<10x10xf32>
    %33 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%30 : tensor<10x10xi64>) outs(%32 : tensor<10x10xf32>) {
    ^bb0(%in: i64, %out: f32):
      %205 = arith.sitofp %in : i64 to f32
      linalg.yield %205 : f32
    } -> tensor<10x10xf32>
    %34 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%33 : tensor<10x10xf32>) outs(%32 : tensor<10x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_6 : f32
      linalg.yield %205 : f32
    } -> tensor<10x10xf32>
    %35 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%34 : tensor<10x10xf32>) outs(%32 : tensor<10x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.log %in : f32
      linalg.yield %205 : f32
    } -> tensor<10x10xf32>
    %36 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%35 : tensor<10x10xf32>) outs(%32 : tensor<10x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_3 : f64 to f32
      %206 = arith.divf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<10x10xf32>
    %37 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%36 : tensor<10x10xf32>) outs(%32 : tensor<10x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.mulf %in, %cst_6 : f32
      linalg.yield %205 : f32
    } -> tensor<10x10xf32>
    %38 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%37 : tensor<10x10xf32>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: f32, %out: i64):
      %205 = arith.fptosi %in : f32 to i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %39 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%38 : tensor<10x10xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i64, %out: i64):
      %205 = arith.addi %in, %c2_i64 : i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %40 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%39, %cst_11 : tensor<10x10xi64>, tensor<10x10xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i64, %in_155: i64, %out: i64):
      %205 = arith.minsi %in, %in_155 : i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %41 = linalg.generic {indexing_maps = [#map9, #map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%31, %30, %40 : tensor<10x10xi1>, tensor<10x10xi64>, tensor<10x10xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i1, %in_155: i64, %in_156: i64, %out: i64):
      %205 = arith.select %in, %in_155, %in_156 : i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %42 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%29, %41 : tensor<10x10xi64>, tensor<10x10xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i64, %in_155: i64, %out: i64):
      %205 = arith.addi %in, %in_155 : i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %43 = tensor.empty() : tensor<10x10x4xf32>
    %44 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%42 : tensor<10x10xi64>) outs(%43 : tensor<10x10x4xf32>) {
    ^bb0(%in: i64, %out: f32):
      %205 = arith.index_cast %in : i64 to index
      %206 = linalg.index 2 : index
      %207 = arith.cmpi slt, %205, %c8 : index
      cf.assert %207, "index must be smaller than dim size"
      %208 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %208, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg7[%205, %206] : tensor<8x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<10x10x4xf32>
    %45 = tensor.empty() : tensor<4x10x10xf32>
    %transposed_23 = linalg.transpose ins(%44 : tensor<10x10x4xf32>) outs(%45 : tensor<4x10x10xf32>) permutation = [2, 0, 1] 
    %expanded_24 = tensor.expand_shape %transposed_23 [[0, 1], [2], [3]] output_shape [1, 4, 10, 10] : tensor<4x10x10xf32> into tensor<1x4x10x10xf32>
    %46 = tensor.empty() : tensor<3x4x10x10xf32>
    %47 = linalg.generic {indexing_maps = [#map10, #map11, #map12, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %expanded_24, %cst_1 : tensor<3x1x10x10xi1>, tensor<1x4x10x10xf32>, tensor<f32>) outs(%46 : tensor<3x4x10x10xf32>) {
    ^bb0(%in: i1, %in_155: f32, %in_156: f32, %out: f32):
      %205 = arith.select %in, %in_155, %in_156 : f32
      linalg.yield %205 : f32
    } -> tensor<3x4x10x10xf32>
    %collapsed_25 = tensor.collapse_shape %transposed_14 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_26 = tensor.collapse_shape %transposed_17 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_27 = tensor.collapse_shape %transposed_20 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_28 = tensor.collapse_shape %47 [[0, 1], [2], [3]] : tensor<3x4x10x10xf32> into tensor<12x10x10xf32>
    %48 = tensor.empty() : tensor<12x10x8xf32>
    %49 = iree_linalg_ext.attention <indexing_maps = [#map13, #map14, #map15, #map16, #map17, #map18]> ins(%collapsed_25, %collapsed_26, %collapsed_27, %cst, %collapsed_28 : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xf32>) outs(%48 : tensor<12x10x8xf32>) {
    ^bb0(%arg49: f32):
      iree_linalg_ext.yield %arg49 : f32
    } -> tensor<12x10x8xf32>
    %expanded_29 = tensor.expand_shape %49 [[0, 1], [2], [3]] output_shape [3, 4, 10, 8] : tensor<12x10x8xf32> into tensor<3x4x10x8xf32>
    %50 = tensor.empty() : tensor<3x10x4x8xf32>
    %transposed_30 = linalg.transpose ins(%expanded_29 : tensor<3x4x10x8xf32>) outs(%50 : tensor<3x10x4x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_31 = linalg.transpose ins(%arg6 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_32 = tensor.collapse_shape %transposed_30 [[0, 1], [2, 3]] : tensor<3x10x4x8xf32> into tensor<30x32xf32>
    %51 = linalg.matmul ins(%collapsed_32, %transposed_31 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_33 = tensor.expand_shape %51 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %52 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %expanded_33 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.addf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %53 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%52 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %54 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%53 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %55 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%54 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %56 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%55 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %57 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%56 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %58 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%52, %57 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %59 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg11, %58 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %60 = tensor.empty() : tensor<32x64xf32>
    %transposed_34 = linalg.transpose ins(%arg9 : tensor<64x32xf32>) outs(%60 : tensor<32x64xf32>) permutation = [1, 0] 
    %collapsed_35 = tensor.collapse_shape %59 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %61 = tensor.empty() : tensor<30x64xf32>
    %62 = linalg.fill ins(%cst_8 : f32) outs(%61 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %63 = linalg.matmul ins(%collapsed_35, %transposed_34 : tensor<30x32xf32>, tensor<32x64xf32>) outs(%62 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %expanded_36 = tensor.expand_shape %63 [[0, 1], [2]] output_shape [3, 10, 64] : tensor<30x64xf32> into tensor<3x10x64xf32>
    %64 = tensor.empty() : tensor<3x10x64xf32>
    %65 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_36 : tensor<3x10x64xf32>) outs(%64 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.cmpf ugt, %in, %cst_8 : f32
      %206 = arith.select %205, %in, %cst_8 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x64xf32>
    %66 = tensor.empty() : tensor<64x32xf32>
    %transposed_37 = linalg.transpose ins(%arg10 : tensor<32x64xf32>) outs(%66 : tensor<64x32xf32>) permutation = [1, 0] 
    %collapsed_38 = tensor.collapse_shape %65 [[0, 1], [2]] : tensor<3x10x64xf32> into tensor<30x64xf32>
    %67 = linalg.matmul ins(%collapsed_38, %transposed_37 : tensor<30x64xf32>, tensor<64x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_39 = tensor.expand_shape %67 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %68 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%52, %expanded_39 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.addf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %69 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%68 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %70 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%69 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %71 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%70 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %72 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%71 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %73 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%72 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %74 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%68, %73 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %75 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg16, %74 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %transposed_40 = linalg.transpose ins(%arg12 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_41 = tensor.collapse_shape %75 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %76 = linalg.matmul ins(%collapsed_41, %transposed_40 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_42 = tensor.expand_shape %76 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_43 = linalg.transpose ins(%expanded_42 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_44 = linalg.transpose ins(%arg13 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %77 = linalg.matmul ins(%collapsed_41, %transposed_44 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_45 = tensor.expand_shape %77 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_46 = linalg.transpose ins(%expanded_45 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_47 = linalg.transpose ins(%arg14 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %78 = linalg.matmul ins(%collapsed_41, %transposed_47 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_48 = tensor.expand_shape %78 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_49 = linalg.transpose ins(%expanded_48 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_50 = tensor.collapse_shape %transposed_43 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_51 = tensor.collapse_shape %transposed_46 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_52 = tensor.collapse_shape %transposed_49 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %79 = tensor.empty() : tensor<12x10x8xf32>
    %80 = iree_linalg_ext.attention <indexing_maps = [#map13, #map14, #map15, #map16, #map17, #map18]> ins(%collapsed_50, %collapsed_51, %collapsed_52, %cst, %collapsed_28 : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xf32>) outs(%79 : tensor<12x10x8xf32>) {
    ^bb0(%arg49: f32):
      iree_linalg_ext.yield %arg49 : f32
    } -> tensor<12x10x8xf32>
    %expanded_53 = tensor.expand_shape %80 [[0, 1], [2], [3]] output_shape [3, 4, 10, 8] : tensor<12x10x8xf32> into tensor<3x4x10x8xf32>
    %transposed_54 = linalg.transpose ins(%expanded_53 : tensor<3x4x10x8xf32>) outs(%50 : tensor<3x10x4x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_55 = linalg.transpose ins(%arg15 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_56 = tensor.collapse_shape %transposed_54 [[0, 1], [2, 3]] : tensor<3x10x4x8xf32> into tensor<30x32xf32>
    %81 = linalg.matmul ins(%collapsed_56, %transposed_55 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_57 = tensor.expand_shape %81 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %82 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%68, %expanded_57 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.addf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %83 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%82 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %84 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%83 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %85 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%84 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %86 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%85 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %87 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%86 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %88 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%82, %87 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %89 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg19, %88 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %transposed_58 = linalg.transpose ins(%arg17 : tensor<64x32xf32>) outs(%60 : tensor<32x64xf32>) permutation = [1, 0] 
    %collapsed_59 = tensor.collapse_shape %89 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %90 = linalg.matmul ins(%collapsed_59, %transposed_58 : tensor<30x32xf32>, tensor<32x64xf32>) outs(%62 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %expanded_60 = tensor.expand_shape %90 [[0, 1], [2]] output_shape [3, 10, 64] : tensor<30x64xf32> into tensor<3x10x64xf32>
    %91 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_60 : tensor<3x10x64xf32>) outs(%64 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.cmpf ugt, %in, %cst_8 : f32
      %206 = arith.select %205, %in, %cst_8 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x64xf32>
    %transposed_61 = linalg.transpose ins(%arg18 : tensor<32x64xf32>) outs(%66 : tensor<64x32xf32>) permutation = [1, 0] 
    %collapsed_62 = tensor.collapse_shape %91 [[0, 1], [2]] : tensor<3x10x64xf32> into tensor<30x64xf32>
    %92 = linalg.matmul ins(%collapsed_62, %transposed_61 : tensor<30x64xf32>, tensor<64x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_63 = tensor.expand_shape %92 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %93 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%82, %expanded_63 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.addf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %94 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%93 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %95 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%94 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %96 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%95 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %97 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%96 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %98 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%97 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %99 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%93, %98 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %100 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg20, %99 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %101 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<3x10xi64>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: i64, %out: f32):
      %205 = arith.index_cast %in : i64 to index
      %206 = linalg.index 2 : index
      %207 = arith.cmpi slt, %205, %c64 : index
      cf.assert %207, "index must be smaller than dim size"
      %208 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %208, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg2[%205, %206] : tensor<64x32xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x10x32xf32>
    %expanded_64 = tensor.expand_shape %3 [[0, 1, 2, 3]] output_shape [1, 1, 1, 10] : tensor<10xi64> into tensor<1x1x1x10xi64>
    %102 = tensor.empty() : tensor<1x1x10x10xi1>
    %103 = linalg.generic {indexing_maps = [#map19, #map20, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_64, %expanded : tensor<1x1x1x10xi64>, tensor<1x1x10x1xi64>) outs(%102 : tensor<1x1x10x10xi1>) {
    ^bb0(%in: i64, %in_155: i64, %out: i1):
      %205 = arith.cmpi sle, %in, %in_155 : i64
      linalg.yield %205 : i1
    } -> tensor<1x1x10x10xi1>
    %collapsed_65 = tensor.collapse_shape %103 [[0, 1], [2], [3]] : tensor<1x1x10x10xi1> into tensor<1x10x10xi1>
    %104 = linalg.generic {indexing_maps = [#map21, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_65 : tensor<1x10x10xi1>) outs(%6 : tensor<3x1x10x10xi1>) {
    ^bb0(%in: i1, %out: i1):
      linalg.yield %in : i1
    } -> tensor<3x1x10x10xi1>
    %105 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%101 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %106 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%105 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %107 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%106 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %108 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%107 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %109 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%108 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %110 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%101, %109 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %111 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg26, %110 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %transposed_66 = linalg.transpose ins(%arg21 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_67 = tensor.collapse_shape %111 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %112 = linalg.matmul ins(%collapsed_67, %transposed_66 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_68 = tensor.expand_shape %112 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_69 = linalg.transpose ins(%expanded_68 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_70 = linalg.transpose ins(%arg22 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %113 = linalg.matmul ins(%collapsed_67, %transposed_70 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_71 = tensor.expand_shape %113 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_72 = linalg.transpose ins(%expanded_71 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_73 = linalg.transpose ins(%arg23 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %114 = linalg.matmul ins(%collapsed_67, %transposed_73 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_74 = tensor.expand_shape %114 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_75 = linalg.transpose ins(%expanded_74 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %115 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%25, %cst_10 : tensor<10x10xi64>, tensor<10x10xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i64, %in_155: i64, %out: i64):
      %205 = arith.minsi %in, %in_155 : i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %116 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%115 : tensor<10x10xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i64, %out: i64):
      %205 = arith.sitofp %in : i64 to f32
      %206 = arith.negf %205 : f32
      %207 = arith.fptosi %206 : f32 to i64
      linalg.yield %207 : i64
    } -> tensor<10x10xi64>
    %117 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%116 : tensor<10x10xi64>) outs(%26 : tensor<10x10xi1>) {
    ^bb0(%in: i64, %out: i1):
      %205 = arith.cmpi slt, %in, %c4_i64 : i64
      linalg.yield %205 : i1
    } -> tensor<10x10xi1>
    %118 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%116 : tensor<10x10xi64>) outs(%32 : tensor<10x10xf32>) {
    ^bb0(%in: i64, %out: f32):
      %205 = arith.sitofp %in : i64 to f32
      linalg.yield %205 : f32
    } -> tensor<10x10xf32>
    %119 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%118 : tensor<10x10xf32>) outs(%32 : tensor<10x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_7 : f32
      linalg.yield %205 : f32
    } -> tensor<10x10xf32>
    %120 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%119 : tensor<10x10xf32>) outs(%32 : tensor<10x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.log %in : f32
      linalg.yield %205 : f32
    } -> tensor<10x10xf32>
    %121 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%120 : tensor<10x10xf32>) outs(%32 : tensor<10x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_2 : f64 to f32
      %206 = arith.divf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<10x10xf32>
    %122 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%121 : tensor<10x10xf32>) outs(%32 : tensor<10x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.mulf %in, %cst_7 : f32
      linalg.yield %205 : f32
    } -> tensor<10x10xf32>
    %123 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%122 : tensor<10x10xf32>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: f32, %out: i64):
      %205 = arith.fptosi %in : f32 to i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %124 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%123 : tensor<10x10xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i64, %out: i64):
      %205 = arith.addi %in, %c4_i64 : i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %125 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%124, %cst_9 : tensor<10x10xi64>, tensor<10x10xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i64, %in_155: i64, %out: i64):
      %205 = arith.minsi %in, %in_155 : i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %126 = linalg.generic {indexing_maps = [#map9, #map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%117, %116, %125 : tensor<10x10xi1>, tensor<10x10xi64>, tensor<10x10xi64>) outs(%24 : tensor<10x10xi64>) {
    ^bb0(%in: i1, %in_155: i64, %in_156: i64, %out: i64):
      %205 = arith.select %in, %in_155, %in_156 : i64
      linalg.yield %205 : i64
    } -> tensor<10x10xi64>
    %127 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%126 : tensor<10x10xi64>) outs(%43 : tensor<10x10x4xf32>) {
    ^bb0(%in: i64, %out: f32):
      %205 = arith.index_cast %in : i64 to index
      %206 = linalg.index 2 : index
      %207 = arith.cmpi slt, %205, %c8 : index
      cf.assert %207, "index must be smaller than dim size"
      %208 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %208, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg25[%205, %206] : tensor<8x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<10x10x4xf32>
    %transposed_76 = linalg.transpose ins(%127 : tensor<10x10x4xf32>) outs(%45 : tensor<4x10x10xf32>) permutation = [2, 0, 1] 
    %expanded_77 = tensor.expand_shape %transposed_76 [[0, 1], [2], [3]] output_shape [1, 4, 10, 10] : tensor<4x10x10xf32> into tensor<1x4x10x10xf32>
    %128 = linalg.generic {indexing_maps = [#map10, #map11, #map12, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%104, %expanded_77, %cst_1 : tensor<3x1x10x10xi1>, tensor<1x4x10x10xf32>, tensor<f32>) outs(%46 : tensor<3x4x10x10xf32>) {
    ^bb0(%in: i1, %in_155: f32, %in_156: f32, %out: f32):
      %205 = arith.select %in, %in_155, %in_156 : f32
      linalg.yield %205 : f32
    } -> tensor<3x4x10x10xf32>
    %collapsed_78 = tensor.collapse_shape %transposed_69 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_79 = tensor.collapse_shape %transposed_72 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_80 = tensor.collapse_shape %transposed_75 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_81 = tensor.collapse_shape %128 [[0, 1], [2], [3]] : tensor<3x4x10x10xf32> into tensor<12x10x10xf32>
    %129 = tensor.empty() : tensor<12x10x8xf32>
    %130 = iree_linalg_ext.attention <indexing_maps = [#map13, #map14, #map15, #map16, #map17, #map18]> ins(%collapsed_78, %collapsed_79, %collapsed_80, %cst, %collapsed_81 : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xf32>) outs(%129 : tensor<12x10x8xf32>) {
    ^bb0(%arg49: f32):
      iree_linalg_ext.yield %arg49 : f32
    } -> tensor<12x10x8xf32>
    %expanded_82 = tensor.expand_shape %130 [[0, 1], [2], [3]] output_shape [3, 4, 10, 8] : tensor<12x10x8xf32> into tensor<3x4x10x8xf32>
    %transposed_83 = linalg.transpose ins(%expanded_82 : tensor<3x4x10x8xf32>) outs(%50 : tensor<3x10x4x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_84 = linalg.transpose ins(%arg24 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_85 = tensor.collapse_shape %transposed_83 [[0, 1], [2, 3]] : tensor<3x10x4x8xf32> into tensor<30x32xf32>
    %131 = linalg.matmul ins(%collapsed_85, %transposed_84 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_86 = tensor.expand_shape %131 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %132 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%101, %expanded_86 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.addf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %133 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%132 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %134 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%133 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %135 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%134 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %136 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%135 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %137 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%136 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %138 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%132, %137 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %139 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg31, %138 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %transposed_87 = linalg.transpose ins(%arg27 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_88 = tensor.collapse_shape %139 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %140 = linalg.matmul ins(%collapsed_88, %transposed_87 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_89 = tensor.expand_shape %140 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_90 = linalg.transpose ins(%expanded_89 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_91 = linalg.transpose ins(%arg28 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_92 = tensor.collapse_shape %100 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %141 = linalg.matmul ins(%collapsed_92, %transposed_91 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_93 = tensor.expand_shape %141 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_94 = linalg.transpose ins(%expanded_93 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_95 = linalg.transpose ins(%arg29 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %142 = linalg.matmul ins(%collapsed_92, %transposed_95 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_96 = tensor.expand_shape %142 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_97 = linalg.transpose ins(%expanded_96 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %143 = linalg.generic {indexing_maps = [#map10, #map11, #map12, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %cst_0, %cst_1 : tensor<3x1x10x10xi1>, tensor<1x4x10x10xf32>, tensor<f32>) outs(%46 : tensor<3x4x10x10xf32>) {
    ^bb0(%in: i1, %in_155: f32, %in_156: f32, %out: f32):
      %205 = arith.select %in, %in_155, %in_156 : f32
      linalg.yield %205 : f32
    } -> tensor<3x4x10x10xf32>
    %collapsed_98 = tensor.collapse_shape %transposed_90 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_99 = tensor.collapse_shape %transposed_94 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_100 = tensor.collapse_shape %transposed_97 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_101 = tensor.collapse_shape %143 [[0, 1], [2], [3]] : tensor<3x4x10x10xf32> into tensor<12x10x10xf32>
    %144 = tensor.empty() : tensor<12x10x8xf32>
    %145 = iree_linalg_ext.attention <indexing_maps = [#map13, #map14, #map15, #map16, #map17, #map18]> ins(%collapsed_98, %collapsed_99, %collapsed_100, %cst, %collapsed_101 : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xf32>) outs(%144 : tensor<12x10x8xf32>) {
    ^bb0(%arg49: f32):
      iree_linalg_ext.yield %arg49 : f32
    } -> tensor<12x10x8xf32>
    %expanded_102 = tensor.expand_shape %145 [[0, 1], [2], [3]] output_shape [3, 4, 10, 8] : tensor<12x10x8xf32> into tensor<3x4x10x8xf32>
    %transposed_103 = linalg.transpose ins(%expanded_102 : tensor<3x4x10x8xf32>) outs(%50 : tensor<3x10x4x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_104 = linalg.transpose ins(%arg30 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_105 = tensor.collapse_shape %transposed_103 [[0, 1], [2, 3]] : tensor<3x10x4x8xf32> into tensor<30x32xf32>
    %146 = linalg.matmul ins(%collapsed_105, %transposed_104 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_106 = tensor.expand_shape %146 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %147 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%132, %expanded_106 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.addf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %148 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%147 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %149 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%148 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %150 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%149 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %151 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%150 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %152 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%151 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %153 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%147, %152 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %154 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg34, %153 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %transposed_107 = linalg.transpose ins(%arg32 : tensor<64x32xf32>) outs(%60 : tensor<32x64xf32>) permutation = [1, 0] 
    %collapsed_108 = tensor.collapse_shape %154 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %155 = linalg.matmul ins(%collapsed_108, %transposed_107 : tensor<30x32xf32>, tensor<32x64xf32>) outs(%62 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %expanded_109 = tensor.expand_shape %155 [[0, 1], [2]] output_shape [3, 10, 64] : tensor<30x64xf32> into tensor<3x10x64xf32>
    %156 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_109 : tensor<3x10x64xf32>) outs(%64 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.cmpf ugt, %in, %cst_8 : f32
      %206 = arith.select %205, %in, %cst_8 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x64xf32>
    %transposed_110 = linalg.transpose ins(%arg33 : tensor<32x64xf32>) outs(%66 : tensor<64x32xf32>) permutation = [1, 0] 
    %collapsed_111 = tensor.collapse_shape %156 [[0, 1], [2]] : tensor<3x10x64xf32> into tensor<30x64xf32>
    %157 = linalg.matmul ins(%collapsed_111, %transposed_110 : tensor<30x64xf32>, tensor<64x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_112 = tensor.expand_shape %157 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %158 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%147, %expanded_112 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.addf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %159 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%158 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %160 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%159 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %161 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%160 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %162 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%161 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %163 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%162 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %164 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%158, %163 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %165 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg39, %164 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %transposed_113 = linalg.transpose ins(%arg35 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_114 = tensor.collapse_shape %165 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %166 = linalg.matmul ins(%collapsed_114, %transposed_113 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_115 = tensor.expand_shape %166 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_116 = linalg.transpose ins(%expanded_115 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_117 = linalg.transpose ins(%arg36 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %167 = linalg.matmul ins(%collapsed_114, %transposed_117 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_118 = tensor.expand_shape %167 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_119 = linalg.transpose ins(%expanded_118 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_120 = linalg.transpose ins(%arg37 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %168 = linalg.matmul ins(%collapsed_114, %transposed_120 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_121 = tensor.expand_shape %168 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_122 = linalg.transpose ins(%expanded_121 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_123 = tensor.collapse_shape %transposed_116 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_124 = tensor.collapse_shape %transposed_119 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_125 = tensor.collapse_shape %transposed_122 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %169 = tensor.empty() : tensor<12x10x8xf32>
    %170 = iree_linalg_ext.attention <indexing_maps = [#map13, #map14, #map15, #map16, #map17, #map18]> ins(%collapsed_123, %collapsed_124, %collapsed_125, %cst, %collapsed_81 : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xf32>) outs(%169 : tensor<12x10x8xf32>) {
    ^bb0(%arg49: f32):
      iree_linalg_ext.yield %arg49 : f32
    } -> tensor<12x10x8xf32>
    %expanded_126 = tensor.expand_shape %170 [[0, 1], [2], [3]] output_shape [3, 4, 10, 8] : tensor<12x10x8xf32> into tensor<3x4x10x8xf32>
    %transposed_127 = linalg.transpose ins(%expanded_126 : tensor<3x4x10x8xf32>) outs(%50 : tensor<3x10x4x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_128 = linalg.transpose ins(%arg38 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_129 = tensor.collapse_shape %transposed_127 [[0, 1], [2, 3]] : tensor<3x10x4x8xf32> into tensor<30x32xf32>
    %171 = linalg.matmul ins(%collapsed_129, %transposed_128 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_130 = tensor.expand_shape %171 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %172 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%158, %expanded_130 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.addf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %173 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%172 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %174 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%173 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %175 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%174 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %176 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%175 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %177 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%176 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %178 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%172, %177 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %179 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg44, %178 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %transposed_131 = linalg.transpose ins(%arg40 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_132 = tensor.collapse_shape %179 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %180 = linalg.matmul ins(%collapsed_132, %transposed_131 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_133 = tensor.expand_shape %180 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_134 = linalg.transpose ins(%expanded_133 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_135 = linalg.transpose ins(%arg41 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %181 = linalg.matmul ins(%collapsed_92, %transposed_135 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_136 = tensor.expand_shape %181 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_137 = linalg.transpose ins(%expanded_136 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_138 = linalg.transpose ins(%arg42 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %182 = linalg.matmul ins(%collapsed_92, %transposed_138 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_139 = tensor.expand_shape %182 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_140 = linalg.transpose ins(%expanded_139 : tensor<3x10x4x8xf32>) outs(%21 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %collapsed_141 = tensor.collapse_shape %transposed_134 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_142 = tensor.collapse_shape %transposed_137 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_143 = tensor.collapse_shape %transposed_140 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %183 = tensor.empty() : tensor<12x10x8xf32>
    %184 = iree_linalg_ext.attention <indexing_maps = [#map13, #map14, #map15, #map16, #map17, #map18]> ins(%collapsed_141, %collapsed_142, %collapsed_143, %cst, %collapsed_101 : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xf32>) outs(%183 : tensor<12x10x8xf32>) {
    ^bb0(%arg49: f32):
      iree_linalg_ext.yield %arg49 : f32
    } -> tensor<12x10x8xf32>
    %expanded_144 = tensor.expand_shape %184 [[0, 1], [2], [3]] output_shape [3, 4, 10, 8] : tensor<12x10x8xf32> into tensor<3x4x10x8xf32>
    %transposed_145 = linalg.transpose ins(%expanded_144 : tensor<3x4x10x8xf32>) outs(%50 : tensor<3x10x4x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_146 = linalg.transpose ins(%arg43 : tensor<32x32xf32>) outs(%17 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_147 = tensor.collapse_shape %transposed_145 [[0, 1], [2, 3]] : tensor<3x10x4x8xf32> into tensor<30x32xf32>
    %185 = linalg.matmul ins(%collapsed_147, %transposed_146 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_148 = tensor.expand_shape %185 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %186 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%172, %expanded_148 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.addf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %187 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%186 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %188 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%187 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %189 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%188 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %190 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%189 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %191 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%190 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %192 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%186, %191 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %193 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg47, %192 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %transposed_149 = linalg.transpose ins(%arg45 : tensor<64x32xf32>) outs(%60 : tensor<32x64xf32>) permutation = [1, 0] 
    %collapsed_150 = tensor.collapse_shape %193 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %194 = linalg.matmul ins(%collapsed_150, %transposed_149 : tensor<30x32xf32>, tensor<32x64xf32>) outs(%62 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %expanded_151 = tensor.expand_shape %194 [[0, 1], [2]] output_shape [3, 10, 64] : tensor<30x64xf32> into tensor<3x10x64xf32>
    %195 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_151 : tensor<3x10x64xf32>) outs(%64 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.cmpf ugt, %in, %cst_8 : f32
      %206 = arith.select %205, %in, %cst_8 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x64xf32>
    %transposed_152 = linalg.transpose ins(%arg46 : tensor<32x64xf32>) outs(%66 : tensor<64x32xf32>) permutation = [1, 0] 
    %collapsed_153 = tensor.collapse_shape %195 [[0, 1], [2]] : tensor<3x10x64xf32> into tensor<30x64xf32>
    %196 = linalg.matmul ins(%collapsed_153, %transposed_152 : tensor<30x64xf32>, tensor<64x32xf32>) outs(%19 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_154 = tensor.expand_shape %196 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %197 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%186, %expanded_154 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.addf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %198 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%197 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %199 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%198 : tensor<3x10x32xf32>) outs(%10 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.addf %in, %out : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %200 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%199 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.divf %in, %cst_5 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %201 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%200 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = arith.truncf %cst_4 : f64 to f32
      %206 = arith.addf %in, %205 : f32
      linalg.yield %206 : f32
    } -> tensor<3x10x1xf32>
    %202 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%201 : tensor<3x10x1xf32>) outs(%9 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %205 = math.rsqrt %in : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x1xf32>
    %203 = linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%197, %202 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    %204 = linalg.generic {indexing_maps = [#map6, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg48, %203 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_155: f32, %out: f32):
      %205 = arith.mulf %in, %in_155 : f32
      linalg.yield %205 : f32
    } -> tensor<3x10x32xf32>
    return %204 : tensor<3x10x32xf32>
  }
}

