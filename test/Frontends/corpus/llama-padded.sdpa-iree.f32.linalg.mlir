// llama-padded, sdpa kept whole, f32: llama-padded.sdpa-whole.f32.linalg.mlir with IREE's
// iree_linalg_ext.attention (iree-opt 3.13.0 --torch-iree-tm-tensor-to-linalg-ext).
// Written by scripts/frontend-corpus/iree-variants.sh; do not edit.
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map7 = affine_map<(d0, d1, d2, d3) -> ()>
#map8 = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>
#map9 = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>
#map10 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#map11 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map12 = affine_map<(d0, d1, d2) -> (d2)>
#map13 = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>
#map14 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#map15 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map16 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map17 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>
#map18 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>
#map19 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>
#map20 = affine_map<(d0, d1, d2, d3, d4) -> ()>
#map21 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>
#map22 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
module {
  func.func @llama_padded(%arg0: tensor<3x10xi64>, %arg1: tensor<3x10xi64>, %arg2: tensor<64x32xf32>, %arg3: tensor<32x32xf32>, %arg4: tensor<16x32xf32>, %arg5: tensor<16x32xf32>, %arg6: tensor<32x32xf32>, %arg7: tensor<64x32xf32>, %arg8: tensor<64x32xf32>, %arg9: tensor<32x64xf32>, %arg10: tensor<32xf32>, %arg11: tensor<32xf32>, %arg12: tensor<32x32xf32>, %arg13: tensor<16x32xf32>, %arg14: tensor<16x32xf32>, %arg15: tensor<32x32xf32>, %arg16: tensor<64x32xf32>, %arg17: tensor<64x32xf32>, %arg18: tensor<32x64xf32>, %arg19: tensor<32xf32>, %arg20: tensor<32xf32>, %arg21: tensor<32xf32>) -> tensor<3x10x32xf32> {
    %cst = arith.constant 0.353553385 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c2_i64 = arith.constant 2 : i64
    %c3_i64 = arith.constant 3 : i64
    %c10_i64 = arith.constant 10 : i64
    %c0_i64 = arith.constant 0 : i64
    %c64 = arith.constant 64 : index
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant dense<true> : tensor<i1>
    %cst_3 = arith.constant 9.9999999999999995E-7 : f64
    %cst_4 = arith.constant dense_resource<torch_tensor_4_torch.float32> : tensor<4xf32>
    %cst_5 = arith.constant 3.200000e+01 : f32
    %0 = tensor.empty() : tensor<3x10x32xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x10xi64>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: i64, %out: f32):
      %126 = arith.index_cast %in : i64 to index
      %127 = linalg.index 2 : index
      %128 = arith.cmpi slt, %126, %c64 : index
      cf.assert %128, "index must be smaller than dim size"
      %129 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %129, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg2[%126, %127] : tensor<64x32xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x10x32xf32>
    %2 = tensor.empty() : tensor<10xi64>
    %3 = linalg.generic {indexing_maps = [#map2], iterator_types = ["parallel"]} outs(%2 : tensor<10xi64>) {
    ^bb0(%out: i64):
      %126 = linalg.index 0 : index
      %127 = arith.index_cast %126 : index to i64
      linalg.yield %127 : i64
    } -> tensor<10xi64>
    %4 = tensor.empty() : tensor<3x10xi1>
    %5 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3x10xi64>) outs(%4 : tensor<3x10xi1>) {
    ^bb0(%in: i64, %out: i1):
      %126 = arith.cmpi ne, %in, %c0_i64 : i64
      linalg.yield %126 : i1
    } -> tensor<3x10xi1>
    %6 = tensor.empty() : tensor<3xi64>
    %7 = linalg.generic {indexing_maps = [#map2], iterator_types = ["parallel"]} outs(%6 : tensor<3xi64>) {
    ^bb0(%out: i64):
      %126 = linalg.index 0 : index
      %127 = arith.index_cast %126 : index to i64
      linalg.yield %127 : i64
    } -> tensor<3xi64>
    %expanded = tensor.expand_shape %7 [[0, 1, 2, 3]] output_shape [3, 1, 1, 1] : tensor<3xi64> into tensor<3x1x1x1xi64>
    %expanded_6 = tensor.expand_shape %3 [[0, 1, 2, 3]] output_shape [1, 1, 10, 1] : tensor<10xi64> into tensor<1x1x10x1xi64>
    %expanded_7 = tensor.expand_shape %3 [[0, 1, 2, 3]] output_shape [1, 1, 1, 10] : tensor<10xi64> into tensor<1x1x1x10xi64>
    %8 = tensor.empty() : tensor<1x1x10x10xi1>
    %9 = linalg.generic {indexing_maps = [#map4, #map5, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_7, %expanded_6 : tensor<1x1x1x10xi64>, tensor<1x1x10x1xi64>) outs(%8 : tensor<1x1x10x10xi1>) {
    ^bb0(%in: i64, %in_77: i64, %out: i1):
      %126 = arith.cmpi sle, %in, %in_77 : i64
      linalg.yield %126 : i1
    } -> tensor<1x1x10x10xi1>
    %10 = linalg.generic {indexing_maps = [#map7, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_2, %9 : tensor<i1>, tensor<1x1x10x10xi1>) outs(%8 : tensor<1x1x10x10xi1>) {
    ^bb0(%in: i1, %in_77: i1, %out: i1):
      %126 = arith.andi %in, %in_77 : i1
      linalg.yield %126 : i1
    } -> tensor<1x1x10x10xi1>
    %11 = tensor.empty() : tensor<3x1x1x10xi1>
    %12 = linalg.generic {indexing_maps = [#map8, #map9, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %expanded_7 : tensor<3x1x1x1xi64>, tensor<1x1x1x10xi64>) outs(%11 : tensor<3x1x1x10xi1>) {
    ^bb0(%in: i64, %in_77: i64, %out: i1):
      %126 = arith.cmpi slt, %in, %c0_i64 : i64
      %127 = arith.addi %in, %c3_i64 : i64
      %128 = arith.select %126, %127, %in : i64
      %129 = arith.index_cast %128 : i64 to index
      %130 = arith.cmpi slt, %in_77, %c0_i64 : i64
      %131 = arith.addi %in_77, %c10_i64 : i64
      %132 = arith.select %130, %131, %in_77 : i64
      %133 = arith.index_cast %132 : i64 to index
      %extracted = tensor.extract %5[%129, %133] : tensor<3x10xi1>
      linalg.yield %extracted : i1
    } -> tensor<3x1x1x10xi1>
    %13 = tensor.empty() : tensor<3x1x10x10xi1>
    %14 = linalg.generic {indexing_maps = [#map10, #map4, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10, %12 : tensor<1x1x10x10xi1>, tensor<3x1x1x10xi1>) outs(%13 : tensor<3x1x10x10xi1>) {
    ^bb0(%in: i1, %in_77: i1, %out: i1):
      %126 = arith.andi %in, %in_77 : i1
      linalg.yield %126 : i1
    } -> tensor<3x1x10x10xi1>
    %expanded_8 = tensor.expand_shape %3 [[0, 1, 2]] output_shape [1, 10, 1] : tensor<10xi64> into tensor<1x10x1xi64>
    %15 = tensor.empty() : tensor<1x10x1xf32>
    %16 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_8 : tensor<1x10x1xi64>) outs(%15 : tensor<1x10x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %126 = arith.sitofp %in : i64 to f32
      linalg.yield %126 : f32
    } -> tensor<1x10x1xf32>
    %17 = tensor.empty() : tensor<1x10x4xf32>
    %18 = linalg.generic {indexing_maps = [#map11, #map12, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%16, %cst_4 : tensor<1x10x1xf32>, tensor<4xf32>) outs(%17 : tensor<1x10x4xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<1x10x4xf32>
    %concat = tensor.concat dim(2) %18, %18 : (tensor<1x10x4xf32>, tensor<1x10x4xf32>) -> tensor<1x10x8xf32>
    %19 = tensor.empty() : tensor<1x10x8xf32>
    %20 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat : tensor<1x10x8xf32>) outs(%19 : tensor<1x10x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.cos %in : f32
      linalg.yield %126 : f32
    } -> tensor<1x10x8xf32>
    %21 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat : tensor<1x10x8xf32>) outs(%19 : tensor<1x10x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.sin %in : f32
      linalg.yield %126 : f32
    } -> tensor<1x10x8xf32>
    %22 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %23 = tensor.empty() : tensor<3x10x1xf32>
    %24 = linalg.fill ins(%cst_0 : f32) outs(%23 : tensor<3x10x1xf32>) -> tensor<3x10x1xf32>
    %25 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["parallel", "parallel", "reduction"]} ins(%22 : tensor<3x10x32xf32>) outs(%24 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.addf %in, %out : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %26 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%25 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.divf %in, %cst_5 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %27 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%26 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.truncf %cst_3 : f64 to f32
      %127 = arith.addf %in, %126 : f32
      linalg.yield %127 : f32
    } -> tensor<3x10x1xf32>
    %28 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%27 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.rsqrt %in : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %29 = linalg.generic {indexing_maps = [#map1, #map11, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %28 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %30 = linalg.generic {indexing_maps = [#map12, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg10, %29 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %31 = tensor.empty() : tensor<32x32xf32>
    %transposed = linalg.transpose ins(%arg3 : tensor<32x32xf32>) outs(%31 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed = tensor.collapse_shape %30 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %32 = tensor.empty() : tensor<30x32xf32>
    %33 = linalg.fill ins(%cst_0 : f32) outs(%32 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %34 = linalg.matmul ins(%collapsed, %transposed : tensor<30x32xf32>, tensor<32x32xf32>) outs(%33 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_9 = tensor.expand_shape %34 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %35 = tensor.empty() : tensor<3x4x10x8xf32>
    %transposed_10 = linalg.transpose ins(%expanded_9 : tensor<3x10x4x8xf32>) outs(%35 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %36 = tensor.empty() : tensor<32x16xf32>
    %transposed_11 = linalg.transpose ins(%arg4 : tensor<16x32xf32>) outs(%36 : tensor<32x16xf32>) permutation = [1, 0] 
    %37 = tensor.empty() : tensor<30x16xf32>
    %38 = linalg.fill ins(%cst_0 : f32) outs(%37 : tensor<30x16xf32>) -> tensor<30x16xf32>
    %39 = linalg.matmul ins(%collapsed, %transposed_11 : tensor<30x32xf32>, tensor<32x16xf32>) outs(%38 : tensor<30x16xf32>) -> tensor<30x16xf32>
    %expanded_12 = tensor.expand_shape %39 [[0, 1], [2, 3]] output_shape [3, 10, 2, 8] : tensor<30x16xf32> into tensor<3x10x2x8xf32>
    %40 = tensor.empty() : tensor<3x2x10x8xf32>
    %transposed_13 = linalg.transpose ins(%expanded_12 : tensor<3x10x2x8xf32>) outs(%40 : tensor<3x2x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_14 = linalg.transpose ins(%arg5 : tensor<16x32xf32>) outs(%36 : tensor<32x16xf32>) permutation = [1, 0] 
    %41 = linalg.matmul ins(%collapsed, %transposed_14 : tensor<30x32xf32>, tensor<32x16xf32>) outs(%38 : tensor<30x16xf32>) -> tensor<30x16xf32>
    %expanded_15 = tensor.expand_shape %41 [[0, 1], [2, 3]] output_shape [3, 10, 2, 8] : tensor<30x16xf32> into tensor<3x10x2x8xf32>
    %transposed_16 = linalg.transpose ins(%expanded_15 : tensor<3x10x2x8xf32>) outs(%40 : tensor<3x2x10x8xf32>) permutation = [0, 2, 1, 3] 
    %expanded_17 = tensor.expand_shape %20 [[0], [1, 2], [3]] output_shape [1, 1, 10, 8] : tensor<1x10x8xf32> into tensor<1x1x10x8xf32>
    %expanded_18 = tensor.expand_shape %21 [[0], [1, 2], [3]] output_shape [1, 1, 10, 8] : tensor<1x10x8xf32> into tensor<1x1x10x8xf32>
    %42 = linalg.generic {indexing_maps = [#map6, #map13, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_10, %expanded_17 : tensor<3x4x10x8xf32>, tensor<1x1x10x8xf32>) outs(%35 : tensor<3x4x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x4x10x8xf32>
    %extracted_slice = tensor.extract_slice %transposed_10[0, 0, 0, 0] [3, 4, 10, 4] [1, 1, 1, 1] : tensor<3x4x10x8xf32> to tensor<3x4x10x4xf32>
    %extracted_slice_19 = tensor.extract_slice %transposed_10[0, 0, 0, 4] [3, 4, 10, 4] [1, 1, 1, 1] : tensor<3x4x10x8xf32> to tensor<3x4x10x4xf32>
    %43 = tensor.empty() : tensor<3x4x10x4xf32>
    %44 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%extracted_slice_19 : tensor<3x4x10x4xf32>) outs(%43 : tensor<3x4x10x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.negf %in : f32
      linalg.yield %126 : f32
    } -> tensor<3x4x10x4xf32>
    %concat_20 = tensor.concat dim(3) %44, %extracted_slice : (tensor<3x4x10x4xf32>, tensor<3x4x10x4xf32>) -> tensor<3x4x10x8xf32>
    %45 = linalg.generic {indexing_maps = [#map6, #map13, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%concat_20, %expanded_18 : tensor<3x4x10x8xf32>, tensor<1x1x10x8xf32>) outs(%35 : tensor<3x4x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x4x10x8xf32>
    %46 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%42, %45 : tensor<3x4x10x8xf32>, tensor<3x4x10x8xf32>) outs(%35 : tensor<3x4x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.addf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x4x10x8xf32>
    %47 = linalg.generic {indexing_maps = [#map6, #map13, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_13, %expanded_17 : tensor<3x2x10x8xf32>, tensor<1x1x10x8xf32>) outs(%40 : tensor<3x2x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x2x10x8xf32>
    %extracted_slice_21 = tensor.extract_slice %transposed_13[0, 0, 0, 0] [3, 2, 10, 4] [1, 1, 1, 1] : tensor<3x2x10x8xf32> to tensor<3x2x10x4xf32>
    %extracted_slice_22 = tensor.extract_slice %transposed_13[0, 0, 0, 4] [3, 2, 10, 4] [1, 1, 1, 1] : tensor<3x2x10x8xf32> to tensor<3x2x10x4xf32>
    %48 = tensor.empty() : tensor<3x2x10x4xf32>
    %49 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%extracted_slice_22 : tensor<3x2x10x4xf32>) outs(%48 : tensor<3x2x10x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.negf %in : f32
      linalg.yield %126 : f32
    } -> tensor<3x2x10x4xf32>
    %concat_23 = tensor.concat dim(3) %49, %extracted_slice_21 : (tensor<3x2x10x4xf32>, tensor<3x2x10x4xf32>) -> tensor<3x2x10x8xf32>
    %50 = linalg.generic {indexing_maps = [#map6, #map13, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%concat_23, %expanded_18 : tensor<3x2x10x8xf32>, tensor<1x1x10x8xf32>) outs(%40 : tensor<3x2x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x2x10x8xf32>
    %51 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%47, %50 : tensor<3x2x10x8xf32>, tensor<3x2x10x8xf32>) outs(%40 : tensor<3x2x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.addf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x2x10x8xf32>
    %52 = tensor.empty() : tensor<3x2x2x10x8xf32>
    %53 = linalg.generic {indexing_maps = [#map14, #map15], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%51 : tensor<3x2x10x8xf32>) outs(%52 : tensor<3x2x2x10x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<3x2x2x10x8xf32>
    %collapsed_24 = tensor.collapse_shape %53 [[0], [1, 2], [3], [4]] : tensor<3x2x2x10x8xf32> into tensor<3x4x10x8xf32>
    %54 = linalg.generic {indexing_maps = [#map14, #map15], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%transposed_16 : tensor<3x2x10x8xf32>) outs(%52 : tensor<3x2x2x10x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<3x2x2x10x8xf32>
    %collapsed_25 = tensor.collapse_shape %54 [[0], [1, 2], [3], [4]] : tensor<3x2x2x10x8xf32> into tensor<3x4x10x8xf32>
    %55 = tensor.empty() : tensor<3x4x10x10xi1>
    %56 = linalg.generic {indexing_maps = [#map16, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14 : tensor<3x1x10x10xi1>) outs(%55 : tensor<3x4x10x10xi1>) {
    ^bb0(%in: i1, %out: i1):
      linalg.yield %in : i1
    } -> tensor<3x4x10x10xi1>
    %collapsed_26 = tensor.collapse_shape %46 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_27 = tensor.collapse_shape %collapsed_24 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_28 = tensor.collapse_shape %collapsed_25 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_29 = tensor.collapse_shape %56 [[0, 1], [2], [3]] : tensor<3x4x10x10xi1> into tensor<12x10x10xi1>
    %57 = tensor.empty() : tensor<12x10x8xf32>
    %58 = iree_linalg_ext.attention <indexing_maps = [#map17, #map18, #map19, #map20, #map21, #map22]> ins(%collapsed_26, %collapsed_27, %collapsed_28, %cst, %collapsed_29 : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xi1>) outs(%57 : tensor<12x10x8xf32>) {
    ^bb0(%arg22: f32):
      iree_linalg_ext.yield %arg22 : f32
    } -> tensor<12x10x8xf32>
    %expanded_30 = tensor.expand_shape %58 [[0, 1], [2], [3]] output_shape [3, 4, 10, 8] : tensor<12x10x8xf32> into tensor<3x4x10x8xf32>
    %59 = tensor.empty() : tensor<3x10x4x8xf32>
    %transposed_31 = linalg.transpose ins(%expanded_30 : tensor<3x4x10x8xf32>) outs(%59 : tensor<3x10x4x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_32 = linalg.transpose ins(%arg6 : tensor<32x32xf32>) outs(%31 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_33 = tensor.collapse_shape %transposed_31 [[0, 1], [2, 3]] : tensor<3x10x4x8xf32> into tensor<30x32xf32>
    %60 = linalg.matmul ins(%collapsed_33, %transposed_32 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%33 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_34 = tensor.expand_shape %60 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %61 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %expanded_34 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.addf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %62 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%61 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %63 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["parallel", "parallel", "reduction"]} ins(%62 : tensor<3x10x32xf32>) outs(%24 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.addf %in, %out : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %64 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%63 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.divf %in, %cst_5 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %65 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%64 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.truncf %cst_3 : f64 to f32
      %127 = arith.addf %in, %126 : f32
      linalg.yield %127 : f32
    } -> tensor<3x10x1xf32>
    %66 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%65 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.rsqrt %in : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %67 = linalg.generic {indexing_maps = [#map1, #map11, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%61, %66 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %68 = linalg.generic {indexing_maps = [#map12, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg11, %67 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %69 = tensor.empty() : tensor<32x64xf32>
    %transposed_35 = linalg.transpose ins(%arg7 : tensor<64x32xf32>) outs(%69 : tensor<32x64xf32>) permutation = [1, 0] 
    %collapsed_36 = tensor.collapse_shape %68 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %70 = tensor.empty() : tensor<30x64xf32>
    %71 = linalg.fill ins(%cst_0 : f32) outs(%70 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %72 = linalg.matmul ins(%collapsed_36, %transposed_35 : tensor<30x32xf32>, tensor<32x64xf32>) outs(%71 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %expanded_37 = tensor.expand_shape %72 [[0, 1], [2]] output_shape [3, 10, 64] : tensor<30x64xf32> into tensor<3x10x64xf32>
    %73 = tensor.empty() : tensor<3x10x64xf32>
    %74 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_37 : tensor<3x10x64xf32>) outs(%73 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.negf %in : f32
      %127 = math.exp %126 : f32
      %128 = arith.addf %127, %cst_1 : f32
      %129 = arith.divf %cst_1, %128 : f32
      linalg.yield %129 : f32
    } -> tensor<3x10x64xf32>
    %75 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_37, %74 : tensor<3x10x64xf32>, tensor<3x10x64xf32>) outs(%73 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x64xf32>
    %transposed_38 = linalg.transpose ins(%arg8 : tensor<64x32xf32>) outs(%69 : tensor<32x64xf32>) permutation = [1, 0] 
    %76 = linalg.matmul ins(%collapsed_36, %transposed_38 : tensor<30x32xf32>, tensor<32x64xf32>) outs(%71 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %expanded_39 = tensor.expand_shape %76 [[0, 1], [2]] output_shape [3, 10, 64] : tensor<30x64xf32> into tensor<3x10x64xf32>
    %77 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%75, %expanded_39 : tensor<3x10x64xf32>, tensor<3x10x64xf32>) outs(%73 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x64xf32>
    %78 = tensor.empty() : tensor<64x32xf32>
    %transposed_40 = linalg.transpose ins(%arg9 : tensor<32x64xf32>) outs(%78 : tensor<64x32xf32>) permutation = [1, 0] 
    %collapsed_41 = tensor.collapse_shape %77 [[0, 1], [2]] : tensor<3x10x64xf32> into tensor<30x64xf32>
    %79 = linalg.matmul ins(%collapsed_41, %transposed_40 : tensor<30x64xf32>, tensor<64x32xf32>) outs(%33 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_42 = tensor.expand_shape %79 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %80 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%61, %expanded_42 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.addf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %81 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%80 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %82 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["parallel", "parallel", "reduction"]} ins(%81 : tensor<3x10x32xf32>) outs(%24 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.addf %in, %out : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %83 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%82 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.divf %in, %cst_5 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %84 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%83 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.truncf %cst_3 : f64 to f32
      %127 = arith.addf %in, %126 : f32
      linalg.yield %127 : f32
    } -> tensor<3x10x1xf32>
    %85 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%84 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.rsqrt %in : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %86 = linalg.generic {indexing_maps = [#map1, #map11, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%80, %85 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %87 = linalg.generic {indexing_maps = [#map12, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg19, %86 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %transposed_43 = linalg.transpose ins(%arg12 : tensor<32x32xf32>) outs(%31 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_44 = tensor.collapse_shape %87 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %88 = linalg.matmul ins(%collapsed_44, %transposed_43 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%33 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_45 = tensor.expand_shape %88 [[0, 1], [2, 3]] output_shape [3, 10, 4, 8] : tensor<30x32xf32> into tensor<3x10x4x8xf32>
    %transposed_46 = linalg.transpose ins(%expanded_45 : tensor<3x10x4x8xf32>) outs(%35 : tensor<3x4x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_47 = linalg.transpose ins(%arg13 : tensor<16x32xf32>) outs(%36 : tensor<32x16xf32>) permutation = [1, 0] 
    %89 = linalg.matmul ins(%collapsed_44, %transposed_47 : tensor<30x32xf32>, tensor<32x16xf32>) outs(%38 : tensor<30x16xf32>) -> tensor<30x16xf32>
    %expanded_48 = tensor.expand_shape %89 [[0, 1], [2, 3]] output_shape [3, 10, 2, 8] : tensor<30x16xf32> into tensor<3x10x2x8xf32>
    %transposed_49 = linalg.transpose ins(%expanded_48 : tensor<3x10x2x8xf32>) outs(%40 : tensor<3x2x10x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_50 = linalg.transpose ins(%arg14 : tensor<16x32xf32>) outs(%36 : tensor<32x16xf32>) permutation = [1, 0] 
    %90 = linalg.matmul ins(%collapsed_44, %transposed_50 : tensor<30x32xf32>, tensor<32x16xf32>) outs(%38 : tensor<30x16xf32>) -> tensor<30x16xf32>
    %expanded_51 = tensor.expand_shape %90 [[0, 1], [2, 3]] output_shape [3, 10, 2, 8] : tensor<30x16xf32> into tensor<3x10x2x8xf32>
    %transposed_52 = linalg.transpose ins(%expanded_51 : tensor<3x10x2x8xf32>) outs(%40 : tensor<3x2x10x8xf32>) permutation = [0, 2, 1, 3] 
    %91 = linalg.generic {indexing_maps = [#map6, #map13, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_46, %expanded_17 : tensor<3x4x10x8xf32>, tensor<1x1x10x8xf32>) outs(%35 : tensor<3x4x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x4x10x8xf32>
    %extracted_slice_53 = tensor.extract_slice %transposed_46[0, 0, 0, 0] [3, 4, 10, 4] [1, 1, 1, 1] : tensor<3x4x10x8xf32> to tensor<3x4x10x4xf32>
    %extracted_slice_54 = tensor.extract_slice %transposed_46[0, 0, 0, 4] [3, 4, 10, 4] [1, 1, 1, 1] : tensor<3x4x10x8xf32> to tensor<3x4x10x4xf32>
    %92 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%extracted_slice_54 : tensor<3x4x10x4xf32>) outs(%43 : tensor<3x4x10x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.negf %in : f32
      linalg.yield %126 : f32
    } -> tensor<3x4x10x4xf32>
    %concat_55 = tensor.concat dim(3) %92, %extracted_slice_53 : (tensor<3x4x10x4xf32>, tensor<3x4x10x4xf32>) -> tensor<3x4x10x8xf32>
    %93 = linalg.generic {indexing_maps = [#map6, #map13, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%concat_55, %expanded_18 : tensor<3x4x10x8xf32>, tensor<1x1x10x8xf32>) outs(%35 : tensor<3x4x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x4x10x8xf32>
    %94 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%91, %93 : tensor<3x4x10x8xf32>, tensor<3x4x10x8xf32>) outs(%35 : tensor<3x4x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.addf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x4x10x8xf32>
    %95 = linalg.generic {indexing_maps = [#map6, #map13, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_49, %expanded_17 : tensor<3x2x10x8xf32>, tensor<1x1x10x8xf32>) outs(%40 : tensor<3x2x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x2x10x8xf32>
    %extracted_slice_56 = tensor.extract_slice %transposed_49[0, 0, 0, 0] [3, 2, 10, 4] [1, 1, 1, 1] : tensor<3x2x10x8xf32> to tensor<3x2x10x4xf32>
    %extracted_slice_57 = tensor.extract_slice %transposed_49[0, 0, 0, 4] [3, 2, 10, 4] [1, 1, 1, 1] : tensor<3x2x10x8xf32> to tensor<3x2x10x4xf32>
    %96 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%extracted_slice_57 : tensor<3x2x10x4xf32>) outs(%48 : tensor<3x2x10x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.negf %in : f32
      linalg.yield %126 : f32
    } -> tensor<3x2x10x4xf32>
    %concat_58 = tensor.concat dim(3) %96, %extracted_slice_56 : (tensor<3x2x10x4xf32>, tensor<3x2x10x4xf32>) -> tensor<3x2x10x8xf32>
    %97 = linalg.generic {indexing_maps = [#map6, #map13, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%concat_58, %expanded_18 : tensor<3x2x10x8xf32>, tensor<1x1x10x8xf32>) outs(%40 : tensor<3x2x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x2x10x8xf32>
    %98 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%95, %97 : tensor<3x2x10x8xf32>, tensor<3x2x10x8xf32>) outs(%40 : tensor<3x2x10x8xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.addf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x2x10x8xf32>
    %99 = linalg.generic {indexing_maps = [#map14, #map15], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%98 : tensor<3x2x10x8xf32>) outs(%52 : tensor<3x2x2x10x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<3x2x2x10x8xf32>
    %collapsed_59 = tensor.collapse_shape %99 [[0], [1, 2], [3], [4]] : tensor<3x2x2x10x8xf32> into tensor<3x4x10x8xf32>
    %100 = linalg.generic {indexing_maps = [#map14, #map15], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%transposed_52 : tensor<3x2x10x8xf32>) outs(%52 : tensor<3x2x2x10x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<3x2x2x10x8xf32>
    %collapsed_60 = tensor.collapse_shape %100 [[0], [1, 2], [3], [4]] : tensor<3x2x2x10x8xf32> into tensor<3x4x10x8xf32>
    %collapsed_61 = tensor.collapse_shape %94 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_62 = tensor.collapse_shape %collapsed_59 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %collapsed_63 = tensor.collapse_shape %collapsed_60 [[0, 1], [2], [3]] : tensor<3x4x10x8xf32> into tensor<12x10x8xf32>
    %101 = tensor.empty() : tensor<12x10x8xf32>
    %102 = iree_linalg_ext.attention <indexing_maps = [#map17, #map18, #map19, #map20, #map21, #map22]> ins(%collapsed_61, %collapsed_62, %collapsed_63, %cst, %collapsed_29 : tensor<12x10x8xf32>, tensor<12x10x8xf32>, tensor<12x10x8xf32>, f32, tensor<12x10x10xi1>) outs(%101 : tensor<12x10x8xf32>) {
    ^bb0(%arg22: f32):
      iree_linalg_ext.yield %arg22 : f32
    } -> tensor<12x10x8xf32>
    %expanded_64 = tensor.expand_shape %102 [[0, 1], [2], [3]] output_shape [3, 4, 10, 8] : tensor<12x10x8xf32> into tensor<3x4x10x8xf32>
    %transposed_65 = linalg.transpose ins(%expanded_64 : tensor<3x4x10x8xf32>) outs(%59 : tensor<3x10x4x8xf32>) permutation = [0, 2, 1, 3] 
    %transposed_66 = linalg.transpose ins(%arg15 : tensor<32x32xf32>) outs(%31 : tensor<32x32xf32>) permutation = [1, 0] 
    %collapsed_67 = tensor.collapse_shape %transposed_65 [[0, 1], [2, 3]] : tensor<3x10x4x8xf32> into tensor<30x32xf32>
    %103 = linalg.matmul ins(%collapsed_67, %transposed_66 : tensor<30x32xf32>, tensor<32x32xf32>) outs(%33 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_68 = tensor.expand_shape %103 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %104 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%80, %expanded_68 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.addf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %105 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%104 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %106 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["parallel", "parallel", "reduction"]} ins(%105 : tensor<3x10x32xf32>) outs(%24 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.addf %in, %out : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %107 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%106 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.divf %in, %cst_5 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %108 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%107 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.truncf %cst_3 : f64 to f32
      %127 = arith.addf %in, %126 : f32
      linalg.yield %127 : f32
    } -> tensor<3x10x1xf32>
    %109 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%108 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.rsqrt %in : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %110 = linalg.generic {indexing_maps = [#map1, #map11, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%104, %109 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %111 = linalg.generic {indexing_maps = [#map12, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg20, %110 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %transposed_69 = linalg.transpose ins(%arg16 : tensor<64x32xf32>) outs(%69 : tensor<32x64xf32>) permutation = [1, 0] 
    %collapsed_70 = tensor.collapse_shape %111 [[0, 1], [2]] : tensor<3x10x32xf32> into tensor<30x32xf32>
    %112 = linalg.matmul ins(%collapsed_70, %transposed_69 : tensor<30x32xf32>, tensor<32x64xf32>) outs(%71 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %expanded_71 = tensor.expand_shape %112 [[0, 1], [2]] output_shape [3, 10, 64] : tensor<30x64xf32> into tensor<3x10x64xf32>
    %113 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_71 : tensor<3x10x64xf32>) outs(%73 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.negf %in : f32
      %127 = math.exp %126 : f32
      %128 = arith.addf %127, %cst_1 : f32
      %129 = arith.divf %cst_1, %128 : f32
      linalg.yield %129 : f32
    } -> tensor<3x10x64xf32>
    %114 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_71, %113 : tensor<3x10x64xf32>, tensor<3x10x64xf32>) outs(%73 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x64xf32>
    %transposed_72 = linalg.transpose ins(%arg17 : tensor<64x32xf32>) outs(%69 : tensor<32x64xf32>) permutation = [1, 0] 
    %115 = linalg.matmul ins(%collapsed_70, %transposed_72 : tensor<30x32xf32>, tensor<32x64xf32>) outs(%71 : tensor<30x64xf32>) -> tensor<30x64xf32>
    %expanded_73 = tensor.expand_shape %115 [[0, 1], [2]] output_shape [3, 10, 64] : tensor<30x64xf32> into tensor<3x10x64xf32>
    %116 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%114, %expanded_73 : tensor<3x10x64xf32>, tensor<3x10x64xf32>) outs(%73 : tensor<3x10x64xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x64xf32>
    %transposed_74 = linalg.transpose ins(%arg18 : tensor<32x64xf32>) outs(%78 : tensor<64x32xf32>) permutation = [1, 0] 
    %collapsed_75 = tensor.collapse_shape %116 [[0, 1], [2]] : tensor<3x10x64xf32> into tensor<30x64xf32>
    %117 = linalg.matmul ins(%collapsed_75, %transposed_74 : tensor<30x64xf32>, tensor<64x32xf32>) outs(%33 : tensor<30x32xf32>) -> tensor<30x32xf32>
    %expanded_76 = tensor.expand_shape %117 [[0, 1], [2]] output_shape [3, 10, 32] : tensor<30x32xf32> into tensor<3x10x32xf32>
    %118 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%104, %expanded_76 : tensor<3x10x32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.addf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %119 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%118 : tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %120 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["parallel", "parallel", "reduction"]} ins(%119 : tensor<3x10x32xf32>) outs(%24 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.addf %in, %out : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %121 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%120 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.divf %in, %cst_5 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %122 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%121 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = arith.truncf %cst_3 : f64 to f32
      %127 = arith.addf %in, %126 : f32
      linalg.yield %127 : f32
    } -> tensor<3x10x1xf32>
    %123 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%122 : tensor<3x10x1xf32>) outs(%23 : tensor<3x10x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %126 = math.rsqrt %in : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x1xf32>
    %124 = linalg.generic {indexing_maps = [#map1, #map11, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%118, %123 : tensor<3x10x32xf32>, tensor<3x10x1xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    %125 = linalg.generic {indexing_maps = [#map12, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg21, %124 : tensor<32xf32>, tensor<3x10x32xf32>) outs(%0 : tensor<3x10x32xf32>) {
    ^bb0(%in: f32, %in_77: f32, %out: f32):
      %126 = arith.mulf %in, %in_77 : f32
      linalg.yield %126 : f32
    } -> tensor<3x10x32xf32>
    return %125 : tensor<3x10x32xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_torch.float32: "0x040000000000803FCDCCCC3D0AD7233C6F12833A"
    }
  }
#-}

