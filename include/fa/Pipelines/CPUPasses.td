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
    more (`scf::tileUsingSCF`) into register blocks: `block-cols` (default
    32: two AVX-512 / four AVX2 registers of f32) along the innermost
    parallel dim, `block-rows` (default 8) along the others, and for a
    contraction (parallel, reduction, parallel) 1 along the reduction dim,
    interchanged innermost. A contraction's accumulator block stays in
    registers: 8 x 32 f32 fills AVX-512's 32 registers by half, AVX2's 16
    would spill it (fa_mlir builds AVX2 hosts' kernels with 8 x 16). Each block is marked
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
  let options = [
    Option<"blockRows", "block-rows", "int64_t", /*default=*/"8",
           "Block size along every parallel dim but the innermost">,
    Option<"blockCols", "block-cols", "int64_t", /*default=*/"32",
           "Block size along the innermost parallel dim (the vector lanes)">,
  ];
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
    the same rows and columns). A masked reduction over a longer dim (a row
    max or sum at a tile edge) becomes an unmasked one of
    `arith.select(mask, lanes, identity)`: the masked-off lanes contribute
    -inf to a max and 0 to a sum (upstream's LLVM lowering of a masked max
    pads with the smallest negative denormal, which is not neutral). Marked
    ops the vectorizer refuses stay linalg ops.

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

def FACPUPeelBlocks : Pass<"fa-cpu-peel-blocks", "::mlir::func::FuncOp"> {
  let summary = "Peel the block loops that size vector masks";
  let description = [{
    On a dynamic-sized tile every vectorized block is masked: masked loads
    and stores of vector lanes (`vmaskmov` on AVX2) are slow, and a row
    mask becomes a branch per row around the accumulator's loads and
    stores, which keeps a contraction's accumulator out of registers. This
    pass peels each `scf.for` whose induction variable sizes a dimension of
    a `vector.create_mask` through an `affine.min`
    (`scf::peelForLoopAndSimplifyBounds`): the loop then runs over full
    blocks, where the `affine.min` folds to the block size and the mask
    away, plus one partial iteration that keeps the mask. Peeling only the
    lane loops (a third less code) left the forward 2x slower at 2048
    tokens (docs/CPUBenchmark.md).

    Runs on buffers, after bufferization: peeled loops on tensors make
    one-shot-bufferize's and loop-invariant-subset-hoisting's slice
    analyses about 10x slower.

    Input: vector transfers on memrefs under block loops, masked by
    `vector.create_mask` of `affine.min(block, ub - iv)`. Output: the same
    loops over full blocks followed by a partial `scf.for`.

    Example:
    ```mlir
    scf.for %j = %c0 to %n step %c16 {
      %len = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 16)>(%j)[%n]
      %m = vector.create_mask %len : vector<16xi1>
      ...
    }
    // becomes scf.for %j = %c0 to %full step %c16 { (no mask) }
    // and scf.for %j = %full to %n step %c16 { %m (masked) }
    ```
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::scf::SCFDialect"];
}

def FACPUDynamicSchedule : Pass<"fa-cpu-dynamic-schedule"> {
  let summary = "Give the OpenMP worksharing loops a dynamic schedule";
  let description = [{
    `convert-scf-to-openmp` leaves `omp.wsloop` without a schedule, which
    libomp runs as `static`: each thread gets one contiguous range of the
    (batch, head, tile) iterations, and the call ends when the slowest
    thread does. On a machine whose cores other processes also use, one
    thread delayed by them delays the whole call (measured: a 2-thread
    forward at 2048 tokens took twice its 1-thread time while another
    process held one core). This pass sets `schedule(dynamic)` (chunk 1)
    on every `omp.wsloop` that has no schedule: a thread takes the next
    tile when it is done with one. A tile is 64 rows of attention (a
    millisecond or more); dispatching it costs about a microsecond.

    Input: `omp.wsloop` ops (any). Output: the same with
    `schedule(dynamic)` where they had no schedule.

    Example:
    ```mlir
    omp.wsloop { omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) { ... } }
    // becomes
    omp.wsloop schedule(dynamic) { omp.loop_nest ... }
    ```
  }];
  let dependentDialects = ["::mlir::omp::OpenMPDialect"];
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
