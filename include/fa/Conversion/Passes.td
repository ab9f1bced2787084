//===- Passes.td - fa conversion passes --------------------*- tablegen -*-===//
#ifndef FA_CONVERSION_PASSES_TD
#define FA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// FAToNVVM
//===----------------------------------------------------------------------===//

def ConvertFAToNVVM : Pass<"convert-fa-to-nvvm", "ModuleOp"> {
  let summary = "Outline fa.attention into FlashAttention-3 style sm_90a kernels";
  let description = [{
    For every `fa.attention` in the module, builds (once per distinct
    configuration) a `gpu.module` holding one `llvm.func` kernel made of
    `llvm`, `nvvm`, `arith` and `scf` ops:

    * Q, K and V tiles reach shared memory by TMA
      (`nvvm.cp.async.bulk.tensor.shared.cluster.global`, 128B swizzle,
      tensor maps passed by value as `nvvm.grid_constant` parameters),
      completing on mbarriers, through a ring of K/V stages;
    * one producer warpgroup (`nvvm.setmaxregister decrease`) issues the
      copies; two consumer warpgroups (`nvvm.setmaxregister increase`) own 64
      query rows each;
    * S = Q Kᵀ by `nvvm.wgmma.mma_async` from shared memory (SS), the online
      softmax (exp2, running max and sum, rescale) on the accumulator
      fragments with quad shuffles, P converted to bf16/f16 in registers,
      and O += P V by wgmma with A from registers (the RS form, emitted as
      `llvm.inline_asm` because `nvvm.wgmma.mma_async` is SS only);
    * causal tiles beyond the diagonal are skipped by the loop bound; only
      diagonal and sequence-tail tiles are masked; GQA by TMA coordinates;
    * O is normalised and stored, and the log-sum-exp when the op returns it.

    Every `fa.attention_grad` becomes the three kernels of a backward
    (docs/HopperBackward.md) in one `gpu.module`: a pre-kernel (D =
    rowsum(dO ∘ O), LSE in the log2 domain), the main kernel (one CTA per
    128-key block: Sᵀ, dPᵀ, dV, dK and dQ partials by wgmma, dQ added into an
    f32 workspace) and a post-kernel (dQ in its element type), tied into one
    launch by an `fa-kernel-sequence` bundle.

    Every `fa.combine` whose partial output is `[splits, rows, dim]` f32
    (`dim` static, at most 512) becomes one kernel `fa_combine_d<dim>_<out>`
    (a warp per row, the split-KV sequences' merge; op `combine` in
    docs/BundleFormat.md); other ranks and row lengths are errors.

    Input invariant: bf16 or f16 Q/K/V, head dims multiples of 8 (the
    forward up to 256, the backward up to 128); the forward also takes
    f8E4M3FN Q/K/V with descales (head dims multiples of 16 up to 256; no
    bias, softcap or num_splits); a bias of f32, bf16 or f16 (the backward
    returns its gradient too, but with `deterministic` refuses a bias that
    broadcasts over batch or heads). Others are reported as errors.

    Output: the module gains one `gpu.module @<kernel>` per configuration,
    with an `#nvvm.target`; the kernel's launch contract (the JSON of
    docs/BundleFormat.md, without the cubin) is recorded in the module
    attribute `fa.kernel_bundles` (kernel name -> JSON string), and each
    `fa.attention` gets `fa.kernel = @<kernel>::@<kernel>`. Host code is left
    to the runtime, which launches bundles.

    Example:
    ```mlir
    %o = fa.attention %q, %k, %v : tensor<?x?x16x128xbf16>, ...
          {layout = #fa.layout<bshd>} -> tensor<?x?x16x128xbf16>
    // becomes, next to the unchanged function:
    gpu.module @fa_fwd_bf16_d128_bshd [#nvvm.target<chip = "sm_90a", ...>] {
      llvm.func @fa_fwd_bf16_d128_bshd(%tmq: !llvm.ptr {nvvm.grid_constant, ...}, ...)
          attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, ...}
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Target chip; only sm_90a is supported">,
    Option<"stages", "stages", "unsigned", /*default=*/"2",
           "K/V shared-memory ring depth (>= 2)">,
    Option<"overlap", "overlap", "bool", /*default=*/"true",
           "Issue the next Q Kᵀ before the current softmax (FA3 intra-warpgroup overlap)">,
    Option<"pingPong", "pingpong", "bool", /*default=*/"false",
           "With overlap: the consumer warpgroups take turns issuing the main "
           "loop's wgmma (FA3/FA4's scheduler barrier; the turns run on across "
           "a persistent CTA's tiles). Off until measured faster: "
           "docs/HopperKernel.md">,
    Option<"deterministic", "deterministic", "bool", /*default=*/"false",
           "fa.attention_grad: add dQ partials in key-block order (a semaphore "
           "per query tile), so that the backward is bitwise reproducible">,
    Option<"bwdQueryTile", "bwd-query-tile", "unsigned", /*default=*/"0",
           "fa.attention_grad: the main kernel's query rows per iteration, 64, "
           "80 (head dims 128 without mask, bias, softcap, regions, sinks or "
           "deterministic order) or 128 (head dims at most 64); where the "
           "configuration does not allow it, the choice; 0 chooses (128 where "
           "the head dims are at most 64 and there is no bias, softcap, "
           "score_mod or mask_mod). An A/B knob: docs/HopperBackward.md">,
    Option<"fwdKeyTile", "fwd-key-tile", "unsigned", /*default=*/"0",
           "16-bit forwards: key rows per K/V tile, a multiple of 16 up to "
           "256, where its slots fit shared memory (and nest with the pages); "
           "0 chooses (docs/HopperKernel.md, \"Tile plan\"). An A/B knob: "
           "its registers are not checked">,
    Option<"dynamicTiles", "dynamic-tiles", "bool", /*default=*/"false",
           "Persistent forwards take their tiles from an atomic counter (FA3's "
           "dynamic scheduler; a one-kernel sequence with a zeroed workspace) "
           "instead of the static snake order (a ragged batch under a mask "
           "takes it without the option)">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def FAWriteKernelBundles : Pass<"fa-write-kernel-bundles", "ModuleOp"> {
  let summary = "Write every compiled fa kernel as a bundle (cubin + JSON)";
  let description = [{
    Runs after `gpu-module-to-binary`. For each `gpu.binary` whose name is a
    key of the module attribute `fa.kernel_bundles`, writes
    `<dir>/<name>.cubin` (or `.ptx` for the `isa` format) and
    `<dir>/<name>.json` as docs/BundleFormat.md describes. A backward's
    entry is a dictionary (file name -> JSON) of its kernel sequence and its
    kernels' bundles, all naming the one cubin. The IR is not changed.
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"\".\"",
           "Directory the bundles are written to">,
  ];
}

def ConvertFAToRuntimeCalls : Pass<"convert-fa-to-runtime-calls", "ModuleOp"> {
  let summary = "Run compiled fa.attention ops through libfa_runtime from host "
                "code, their kernel bundles embedded";
  let description = [{
    Runs after `fa-nvvm-pipeline` (which gives each `fa.attention` an
    `fa.kernel` and leaves the bundle's JSON in `fa.kernel_bundles` and its
    image in a `gpu.binary`) and before the host program is lowered (e.g.
    `fa-cpu-pipeline`). Each compiled `fa.attention` becomes a call of
    libfa_runtime's `fa_launch_embedded_or_abort` on host buffers: the
    bundle's JSON and image become private constant `memref.global`s, the
    operands are described by their address, dtype, direction, sizes and
    strides, and the runtime allocates device buffers, copies the inputs in,
    launches, copies the output (and LSE) back and frees. The consumed
    `gpu.binary` ops and `fa.kernel_bundles` are removed: the executable
    needs libfa_runtime.so and a driver, no MLIR and no files.

    Input invariant: plain bundles with static shapes (kernel sequences: the
    backward, split-KV decode, varlen; FP8 descales; dynamic shapes are
    reported as errors).

    Example:
    ```mlir
    %o = fa.attention %q, %k, %v : ... {causal, fa.kernel = @k::@k} -> tensor<2x8x512x64xbf16>
    // becomes
    %qb = bufferization.to_buffer %q read_only : ...
    %ob = memref.alloc() : memref<2x8x512x64xbf16>
    func.call @fa_launch_embedded_or_abort(%json, %jsonLen, %image, %imageLen,
        %cache, %roles, %c4, %words) : (...) -> ()
    %o = bufferization.to_tensor %ob restrict writable : ...
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // FA_CONVERSION_PASSES_TD
