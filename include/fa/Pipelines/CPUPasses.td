//===- CPUPasses.td - the passes fa-cpu-pipeline is made of -*- tablegen -*-===//
#ifndef FA_PIPELINES_CPUPASSES_TD
#define FA_PIPELINES_CPUPASSES_TD

include "mlir/Pass/PassBase.td"

def FACPUTileBlocks : Pass<"fa-cpu-tile-blocks", "::mlir::func::FuncOp"> {
  let summary = "Tile the tile-level linalg ops into register-sized blocks";
  let description = [{
    fa-tile-attention leaves linalg ops on (at most) 64-wide tiles; lowered
    as they are, they become scalar loops that reload and store the
    accumulator for every multiply-add. This pass tiles each such op once
    more (`scf::tileUsingSCF`) into register blocks: 32 along the innermost
    parallel dim (two AVX-512 / four AVX2 registers of f32), 8 along the
    others, and for a contraction (parallel, reduction, parallel) 1 along
    the reduction dim, interchanged innermost. Each block is marked
    `fa.cpu_block = array<i64: sizes>` for `fa-cpu-vectorize-blocks`.

    Only f32 ops of rank 1 to 3 with one init whose indexing maps are
    non-transposing projected permutations are blocked; the rest (16-bit
    and FP8 conversions, the Kᵀ copy) stay as they are and become scalar
    loops later.

    Input: linalg ops on tensors. Output: `scf.for` nests over
    `tensor.extract_slice` / `insert_slice` with marked linalg blocks.

    Example:
    ```mlir
    %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                       outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    // becomes scf.for %i (step 8) { scf.for %j (step 32) { scf.for %k
    // (step 1) { linalg.matmul {fa.cpu_block = array<i64: 8, 1, 32>}
    // ... tensor<8x1xf32>, tensor<1x32xf32> -> tensor<8x32xf32> } } }
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::ub::UBDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def FACPUVectorizeBlocks : Pass<"fa-cpu-vectorize-blocks",
                                "::mlir::func::FuncOp"> {
  let summary = "Vectorize the blocks fa-cpu-tile-blocks marked";
  let description = [{
    Vectorizes every linalg op marked `fa.cpu_block` at its block sizes
    (`linalg::vectorize`), with masks where the block's extent is dynamic
    (tile edges); a block whose extents became static and smaller (a whole
    small tile, after canonicalization) is vectorized at that size without
    masks. Removes the mark. A blocked contraction's reduction dim is 1, so
    the vectorizer's masked unit `vector.multi_reduction` is unmasked: its
    masked-off lanes are never stored (the accumulator write is masked with
    the same rows and columns). Marked ops the vectorizer refuses stay
    linalg ops.

    Input: the output of `fa-cpu-tile-blocks` (run canonicalize first, so
    that static block sizes fold). Output: `vector` ops (transfer reads and
    writes, possibly under `vector.mask`) in place of the blocks.

    Example:
    ```mlir
    %r = linalg.matmul {fa.cpu_block = array<i64: 8, 1, 32>}
        ins(%a, %b : tensor<8x1xf32>, tensor<1x32xf32>)
        outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
    // becomes vector.transfer_read ... arith.mulf ... vector.transfer_write
    // on vector<8x1x32xf32> / vector<8x32xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::ub::UBDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def FACPUVectorPeepholes : Pass<"fa-cpu-vector-peepholes",
                                "::mlir::func::FuncOp"> {
  let summary = "Vector multiply-adds to fma, row reductions, exp2 to a "
                "polynomial";
  let description = [{
    The rewrites that make the vectorized blocks fast on the CPU:
    `a * b + c` on vectors becomes `vector.fma` where the multiply carries
    the `contract` fast-math flag (the vectorizer marks a contraction's
    multiply so; LLVM does not fuse fmul + fadd on its own), also through
    the 8x1x32 -> 8x32 `vector.shape_cast` of a blocked contraction;
    `vector.multi_reduction` is lowered to one horizontal reduction per row
    (row max and row sum); `math.exp2` is expanded to `math.exp` and that to
    a polynomial, so that the softmax vectorizes without libm.

    Input: vector ops. Output: the same with `vector.fma`,
    `vector.reduction` and polynomial arithmetic in place of the above.

    Example:
    ```mlir
    %p = arith.mulf %a, %b fastmath<contract> : vector<8x32xf32>
    %s = arith.addf %p, %c : vector<8x32xf32>
    // becomes
    %s = vector.fma %a, %b, %c : vector<8x32xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def FACPULowerAggregates : Pass<"fa-cpu-lower-aggregates",
                                "::mlir::func::FuncOp"> {
  let summary = "Lower the aggregated linalg ops and tensor-level "
                "arith/math ops a raise left alone";
  let description = [{
    fa-cpu-pipeline's first step, so that it lowers every op it is given,
    raised or not: each op implementing `linalg::AggregatedOpInterface`
    (e.g. `linalg.softmax`) is decomposed as upstream defines it, and arith
    / math ops on whole tensors become `linalg.generic`
    (`populateElementwiseToLinalgConversionPatterns`). An aggregated op
    that cannot be decomposed is an error on that op.

    Example:
    ```mlir
    %s = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>)
                                     outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    // becomes linalg.generic max / sub+exp / sum / div on tensor<4x8xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

#endif // FA_PIPELINES_CPUPASSES_TD
