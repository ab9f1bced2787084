"""Our kernel bundles launched on torch tensors through the project's runtime
(libfa_runtime.so, via the run half of python/fa_mlir: fa_mlir.gpu_runtime,
a ctypes binding of include/fa/Runtime/fa_runtime.h). This is the launch
path users get; the device round uses nothing else for our kernels.

The library is taken from $FA_RUNTIME_LIB (scripts/device-round.sh points it
at .devbuild/lib/libfa_runtime.so).
"""
import ctypes
import glob
import json
import os
import sys

import torch

_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_root, "python"))
from fa_mlir import gpu_runtime  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}
_NAMES = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32"}


def runtime_tensor(t):
    """(address, dtype name, sizes, strides) as fa_mlir.gpu_runtime takes it."""
    return (t.data_ptr(), _NAMES[t.dtype], tuple(t.shape), tuple(t.stride()))


class Kernel:
    """One fa-kernel-bundle, loaded and validated by libfa_runtime."""

    def __init__(self, json_path):
        self.rt = gpu_runtime.RuntimeBundle(json_path)
        with open(json_path) as f:
            self.meta = json.load(f)
        self.cfg = self.meta["config"]
        self.name = self.rt.kernel_name

    def operands(self, q, k, v, o, lse=None):
        ops = {"query": q, "key": k, "value": v, "output": o}
        if self.cfg["return_lse"]:
            ops["lse"] = lse
        return {r: runtime_tensor(t) for r, t in ops.items()}

    def __call__(self, q, k, v, o, lse=None, stream=None):
        """fa_bundle_launch on the current torch stream (asynchronous)."""
        if stream is None:
            stream = torch.cuda.current_stream().cuda_stream
        self.rt.launch(self.operands(q, k, v, o, lse), stream)

    def launcher(self, q, k, v, o, lse=None):
        """A no-argument launch for timing: the fa_tensor array is built
        once; each call is one fa_bundle_launch (operand checks, tensor map
        encoding and cuLaunchKernelEx inside the runtime, as for any user)."""
        arr = gpu_runtime.tensor_array(self.operands(q, k, v, o, lse))
        rt, n = self.rt, len(arr)  # the closure holds rt: its handle is freed with it
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        lib = rt.lib

        def launch():
            rc = lib.fa_bundle_launch(rt._handle, arr, n, stream)
            if rc:
                raise gpu_runtime.RuntimeLibraryError(
                    lib.fa_status_name(rc).decode(), lib.fa_last_error().decode())
        return launch


def load_all(directory):
    return [Kernel(p) for p in sorted(glob.glob(os.path.join(directory, "*.json")))]


def find(kernels, dtype="bf16", head_dim=128, layout="bhsd", causal=False,
         mask_alignment="top_left", return_lse=True, variant="m128n128s2o"):
    for kern in kernels:
        c = kern.cfg
        if (c["dtype"] == dtype and c["head_dim"] == head_dim and c["layout"] == layout
                and c["causal"] == causal and c["return_lse"] == return_lse
                and (not causal or c["mask_alignment"] == mask_alignment)
                and kern.name.endswith("_" + variant)):
            return kern
    raise KeyError(f"no bundle for {dtype} d{head_dim} {layout} causal={causal} "
                   f"{mask_alignment} lse={return_lse} {variant}")


def runtime_info():
    lib = gpu_runtime.library()
    return f"libfa_runtime ABI {lib.fa_runtime_abi_version()} ({os.environ.get('FA_RUNTIME_LIB', 'found by fa_mlir')})"
