"""Launch any loaded bundle on torch tensors, by role.

    bundle = fa_mlir.load_bundle(path)            # or fa_mlir.compile(...)
    fa_mlir.torch.launch(bundle, query=q, key=k, value=v, output=o, lse=lse)

Unlike fa_mlir.torch.attention, nothing is converted: the tensors must
already be on the bundle's device, of its dtypes and shapes, contiguous for
CPU kernels and with a unit innermost stride for GPU kernels; otherwise an
ArgumentError says which operand is wrong and how. Outputs are written in
place. GPU launches are asynchronous on `stream` (default: the current one).
"""
import torch

from ..bundle import Bundle, CpuBundle
from ..errors import ArgumentError
from ..signature import INT32_ROLES, bind, signature
from . import _convert


def launch(bundle, stream=None, **tensors):
    if not isinstance(bundle, Bundle):
        raise ArgumentError("fa_mlir.torch.launch: bundle must be a loaded "
                            "bundle (fa_mlir.load_bundle, fa_mlir.compile), "
                            f"got {type(bundle).__name__}")
    where = f"fa_mlir.torch.launch({bundle.op} {bundle.target} bundle)"
    gpu = not isinstance(bundle, CpuBundle)
    # A kernel sequence's workspace buffers (optional: the runtime allocates
    # those not passed) may be of other element types (i32 semaphores).
    workspace = {w["name"] for w in getattr(bundle, "workspace", [])}
    for role, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise ArgumentError(f"{where}: '{role}' must be a torch.Tensor, "
                                f"got {type(t).__name__}")
        if gpu and t.device.type != "cuda":
            raise ArgumentError(f"{where}: '{role}' is on {t.device}; this "
                                f"{bundle.target} kernel needs CUDA tensors")
        if not gpu and t.device.type != "cpu":
            raise ArgumentError(f"{where}: '{role}' is on {t.device}; this "
                                "CPU kernel needs CPU tensors")
        if role in workspace and t.dtype in _convert.RUNTIME_DTYPE:
            pass  # the runtime checks it against the workspace entry
        elif role in INT32_ROLES and t.dtype in _convert.RUNTIME_DTYPE:
            pass  # checked against the signature's dtype below
        elif t.dtype not in _convert.FA_DTYPE:
            raise ArgumentError(f"{where}: '{role}' has dtype {t.dtype}; "
                                "kernels take float32, float16 or bfloat16")
        if not gpu and not t.is_contiguous():
            raise ArgumentError(
                f"{where}: '{role}' must be contiguous for a CPU kernel "
                f"(shape {tuple(t.shape)}, strides {t.stride()}); call "
                ".contiguous()")
        if gpu and t.dim() and t.shape[-1] > 1 and t.stride(-1) != 1:
            raise ArgumentError(
                f"{where}: '{role}' has innermost stride {t.stride(-1)}; GPU "
                "kernels need stride 1 there (other strides may be anything "
                "TMA accepts)")
    sig = bundle.arguments if not gpu else (
        signature(bundle.config) if bundle.config else None)
    if sig is not None:
        for arg in sig:
            t = tensors.get(arg["role"])
            if t is not None and \
                    _convert.RUNTIME_DTYPE[t.dtype] != arg["dtype"]:
                raise ArgumentError(
                    f"{where}: '{arg['role']}' has dtype {t.dtype}, expected "
                    f"{_convert.TORCH_RUNTIME_DTYPE[arg['dtype']]}")
        bind(sig, {r: tuple(t.shape) for r, t in tensors.items()}, where)
    if gpu:
        if stream is None:
            device = next(iter(tensors.values())).device
            stream = torch.cuda.current_stream(device).cuda_stream
        bundle.launch({r: _convert.runtime_tensor(t) for r, t in
                       tensors.items()}, stream)
    else:
        bundle.launch({r: _convert.numpy_view(t) for r, t in tensors.items()},
                      threads=torch.get_num_threads())
