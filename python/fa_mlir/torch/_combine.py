"""fa_mlir.torch.combine: the dialect's fa.combine (merging partial attention
results by their log-sum-exp) on torch tensors.

Attention over keys split into chunks (split-KV, or context parallelism,
whose chunks live on other devices) gives per chunk c an output O_c
normalised over that chunk and its log-sum-exp L_c; the attention over all
keys is L = log sum_c exp(L_c), O = sum_c exp(L_c - L) O_c. Rows that no
chunk saw (every L_c = -inf) give O = 0 and L = -inf, never NaN.

On the CPU the merge is fa.combine compiled by fa-cpu-pipeline (one kernel
per output dtype: every size is dynamic, and the rows are flattened into
one dimension). On CUDA it is fa.combine's sm_90a kernel (_combine_cuda).
"""
import functools
import math

import torch

from ..cpu import compile_to_shared_library
from ..errors import ArgumentError
from ..memref import CompiledFunction
from . import _convert
from ._combine_cuda import combine_cuda
from ._forward_only import forward_only

WHERE = "fa_mlir.torch.combine"
PIPELINE = "fa-cpu-pipeline"


def combine(partial_output, partial_lse, *, out_dtype=torch.float32):
    """(output, lse) merged from `splits` partial results.

    partial_output: float32 [splits, rows..., D]; partial_lse: float32
    [splits, rows...] on the same device (any number of row dims, splits
    >= 1). Returns output [rows..., D] of out_dtype (float32, float16 or
    bfloat16; rounded once, after the merge) and the float32 lse
    [rows...]. A chunk whose LSE is -inf contributes nothing, whatever its
    partial output holds. Not differentiable: a backward through it raises
    UnsupportedError.
    """
    _check(partial_output, partial_lse, out_dtype)
    splits, dim = partial_output.shape[0], partial_output.shape[-1]
    rows = tuple(partial_lse.shape[1:])
    flat = math.prod(rows)  # the kernels take one row dim

    def compute():
        out, lse = _merge(
            partial_output.reshape(splits, flat, dim).contiguous(),
            partial_lse.reshape(splits, flat).contiguous(), out_dtype)
        return out.reshape(rows + (dim,)), lse.reshape(rows)
    return forward_only(
        compute, f"{WHERE} is not differentiable (ring attention's backward "
        "uses the merged LSE instead)", partial_output, partial_lse)


def _check(partial_output, partial_lse, out_dtype):
    for name, t in (("partial_output", partial_output),
                    ("partial_lse", partial_lse)):
        if not isinstance(t, torch.Tensor):
            raise ArgumentError(f"{WHERE}: {name} must be a torch.Tensor, got "
                                f"{type(t).__name__}")
        if t.dtype != torch.float32:
            raise ArgumentError(f"{WHERE}: {name} has dtype {t.dtype}, "
                                "expected torch.float32")
    if partial_output.dim() < 2:
        raise ArgumentError(
            f"{WHERE}: partial_output must have rank >= 2 [splits, rows..., "
            f"D], got shape {tuple(partial_output.shape)}")
    if tuple(partial_lse.shape) != tuple(partial_output.shape[:-1]):
        raise ArgumentError(
            f"{WHERE}: partial_lse has shape {tuple(partial_lse.shape)}, "
            f"expected {tuple(partial_output.shape[:-1])} (partial_output's "
            "shape without its last dim)")
    if partial_output.shape[0] == 0 or partial_output.shape[-1] == 0:
        raise ArgumentError(
            f"{WHERE}: partial_output has shape "
            f"{tuple(partial_output.shape)}; it needs at least one split "
            "(dim 0) and a last dim D >= 1")
    if partial_lse.device != partial_output.device:
        raise ArgumentError(f"{WHERE}: partial_lse is on {partial_lse.device}"
                            f", expected {partial_output.device} (the device "
                            "of partial_output)")
    if partial_output.device.type not in ("cpu", "cuda"):
        raise ArgumentError(f"{WHERE}: tensors on "
                            f"{partial_output.device.type} are not supported "
                            "(cpu or cuda)")
    if out_dtype not in _convert.FA_DTYPE:
        raise ArgumentError(f"{WHERE}: out_dtype must be torch.float32, "
                            f"torch.float16 or torch.bfloat16, got "
                            f"{out_dtype!r}")


def _merge(partial_output, partial_lse, out_dtype):
    """fa.combine over dense [splits, R, D] and [splits, R] float32."""
    rows, dim = partial_output.shape[1:]
    if partial_output.device.type == "cuda":
        return combine_cuda(partial_output, partial_lse, out_dtype)
    out = torch.empty((rows, dim), dtype=out_dtype)
    lse = torch.empty((rows,), dtype=torch.float32)
    if rows:
        _cpu_kernel(_convert.FA_DTYPE[out_dtype])(
            partial_output.numpy(), partial_lse.numpy(),
            _convert.numpy_view(out), lse.numpy())
    return out, lse


def combine_mlir(out_elem):
    """func @combine(partial_output [?, ?, ?] f32, partial_lse [?, ?] f32,
    output [?, ?] out_elem, lse [?] f32) computing fa.combine."""
    types = {"po": "?x?x?xf32", "pl": "?x?xf32", "o": f"?x?x{out_elem}",
             "l": "?xf32"}
    params = ", ".join(f"%{n}: memref<{t}>" for n, t in types.items())
    body = "".join(f"  %{n}_t = bufferization.to_tensor %{n} restrict : "
                   f"memref<{types[n]}> to tensor<{types[n]}>\n"
                   for n in ("po", "pl"))
    body += (f"  %o_r, %l_r = fa.combine %po_t, %pl_t : tensor<{types['po']}>"
             f", tensor<{types['pl']}> -> tensor<{types['o']}>, "
             f"tensor<{types['l']}>\n")
    body += "".join(f"  bufferization.materialize_in_destination %{n}_r in "
                    f"restrict writable %{n} : (tensor<{types[n]}>, "
                    f"memref<{types[n]}>) -> ()\n" for n in ("o", "l"))
    return (f"func.func @combine({params}) attributes "
            f"{{llvm.emit_c_interface}} {{\n{body}  return\n}}\n")


@functools.lru_cache(maxsize=None)
def _cpu_kernel(out_elem):
    return CompiledFunction(
        compile_to_shared_library(combine_mlir(out_elem), PIPELINE),
        "combine")
