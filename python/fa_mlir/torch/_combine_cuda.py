"""fa.combine on CUDA: the standalone sm_90a merge kernel (fa-compile's
fa_combine_d<D>_<dtype>, docs/Inference.md "fa.combine"), compiled and cached
like every other bundle (KernelConfig op "combine": head_dim the row length,
dtype the output's) and launched through libfa_runtime on the current
stream. The kernel has not run on a GPU yet (python/tests/gpu/
test_gpu_combine.py is its check there).

combine.py validates the arguments; this only launches.
"""
import functools

import torch

from ..registry import get_bundle
from ..spec import KernelConfig
from . import _convert, _ops


@functools.lru_cache(maxsize=None)
def _config(head_dim, out_dtype):
    """The KernelConfig of a merge into `out_dtype` rows of `head_dim`
    (memoised: it is the per-call cost)."""
    return KernelConfig(op="combine", dtype=_convert.FA_DTYPE[out_dtype],
                        head_dim=head_dim)


def combine_operands(partial_output, partial_lse, out_dtype):
    """The kernel's operands by role (docs/BundleFormat.md, *Combine*): the
    partials as given and a fresh output [R, D] of out_dtype and f32 lse
    [R] on their device."""
    _, rows, dim = partial_output.shape
    device = partial_output.device
    return {"partial_output": partial_output, "partial_lse": partial_lse,
            "output": torch.empty((rows, dim), dtype=out_dtype,
                                  device=device),
            "lse": torch.empty((rows,), dtype=torch.float32, device=device)}


def combine_cuda(partial_output, partial_lse, out_dtype):
    """(output [R, D] of out_dtype, lse [R] float32) merged from
    partial_output [n, R, D] and partial_lse [n, R] (contiguous float32 CUDA
    tensors on one device, checked by the caller) by the sm_90a combine
    kernel on the current stream. Rows whose every partial LSE is -inf give
    output 0 and lse -inf."""
    kcfg = _config(partial_output.shape[2], out_dtype)
    bundle = get_bundle(kcfg, _ops._target(partial_output))
    tensors = combine_operands(partial_output, partial_lse, out_dtype)
    _ops._launch(bundle, tensors, partial_output.device)
    return tensors["output"], tensors["lse"]
