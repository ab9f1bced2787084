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
import math
import os
import re
import sys

import torch

_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_root, "python"))
from fa_mlir import gpu_runtime  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
_NAMES = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32",
          torch.int32: "i32"}


def runtime_tensor(t):
    """(address, dtype name, sizes, strides) as fa_mlir.gpu_runtime takes it."""
    return (t.data_ptr(), _NAMES[t.dtype], tuple(t.shape), tuple(t.stride()))


class Kernel:
    """One fa-kernel-bundle, loaded and validated by libfa_runtime."""

    def __init__(self, json_path, build_options=None):
        self.rt = gpu_runtime.RuntimeBundle(json_path)
        with open(json_path) as f:
            self.meta = json.load(f)
        self.cfg = self.meta["config"]
        self.name = self.rt.kernel_name
        # The fa-compile options it was built with (build_kernels.sh's
        # index.tsv), None when unknown: the schedule is not in the JSON.
        self.build_options = build_options

    def operands(self, q, k, v, o, lse=None, bias=None):
        ops = {"query": q, "key": k, "value": v, "output": o}
        if self.cfg["return_lse"]:
            ops["lse"] = lse
        if self.cfg.get("bias"):
            if bias is None:
                raise ValueError(f"{self.name} takes a bias")
            ops["bias"] = bias
        elif bias is not None:
            raise ValueError(f"{self.name} takes no bias")
        return {r: runtime_tensor(t) for r, t in ops.items()}

    def __call__(self, q, k, v, o, lse=None, stream=None, bias=None):
        """fa_bundle_launch on the current torch stream (asynchronous)."""
        if stream is None:
            stream = torch.cuda.current_stream().cuda_stream
        self.rt.launch(self.operands(q, k, v, o, lse, bias), stream)

    def launcher(self, q, k, v, o, lse=None, bias=None):
        """A no-argument launch for timing: the fa_tensor array is built
        once; each call is one fa_bundle_launch (operand checks, tensor map
        encoding and cuLaunchKernelEx inside the runtime, as for any user)."""
        return launcher(self.rt, self.operands(q, k, v, o, lse, bias))


def launcher(rt, operands, keep=()):
    """A no-argument fa_bundle_launch of the loaded bundle or sequence `rt`
    on {role: runtime_tensor} `operands`, on the current stream; `keep`:
    objects (tensors) the launches need alive."""
    arr = gpu_runtime.tensor_array(operands)
    n = len(arr)  # the closure holds rt: its handle is freed with it
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    lib = rt.lib

    def launch():
        keep  # noqa: B018 (held by the closure)
        rc = lib.fa_bundle_launch(rt._handle, arr, n, stream)
        if rc:
            raise gpu_runtime.RuntimeLibraryError(
                lib.fa_status_name(rc).decode(), lib.fa_last_error().decode())
    return launch


def _build_index(directory):
    """bundle name -> fa-compile options, from build_kernels.sh's index.tsv."""
    index = {}
    path = os.path.join(directory, "index.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 2 and not line.startswith("#"):
                    index[parts[0]] = parts[1]
    return index


def load_all(directory):
    """Every bundle and sequence of `directory`, without the bundles that a
    sequence there launches (they need its workspace: a dynamic-scheduler
    kernel's tile counter, FP8's V^T)."""
    index = _build_index(directory)
    paths = sorted(glob.glob(os.path.join(directory, "*.json")))
    listed = set()
    for p in paths:
        with open(p) as f:
            meta = json.load(f)
        if meta.get("format") == "fa-kernel-sequence":
            listed.update(os.path.join(directory, k) for k in meta["kernels"])
    return [Kernel(p, index.get(os.path.splitext(os.path.basename(p))[0]))
            for p in paths if p not in listed]


UNBOUNDED = 1 << 30  # a window side this large (or null) hides nothing


def _window_key(window, causal):
    """A window as the keys it shows: (left, right) with None for a side
    without a bound; causal clips the right side to 0."""
    if window is None:
        left = right = None
    else:
        left, right = (None if x is None or x >= UNBOUNDED else int(x) for x in window)
    if causal:
        right = 0 if right is None else min(right, 0)
    return left, right


def _close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(float(a) - float(b)) <= 1e-6 * max(1.0, abs(float(b)))


_SCHEDULE = re.compile(r"(?:^|_)(m\d+n\d+s\d+o?p?)(?=_|$)")


def schedule_token(name):
    """The schedule part of a kernel name (m128n128s2o: block sizes, stages,
    o = intra-warpgroup overlap, p = ping-pong), or None."""
    m = _SCHEDULE.search(name)
    return m.group(1) if m else None


def _schedule_is(token, variant):
    """Whether a schedule token is `variant`: the whole token (m128n128s2o),
    or only its stages-and-options part (s2o) whatever tile the plan chose."""
    if token is None:
        return False
    return token == variant or (variant.startswith("s") and re.sub(r"^m\d+n\d+", "", token) == variant)


def matches(kern, dtype="bf16", head_dim=128, layout="bhsd", causal=False,
            mask_alignment="top_left", return_lse=True, head_dim_v=None,
            window=None, softcap=None, bias_dtype=None, scale=None):
    """Whether a bundle's JSON config is this configuration (the config
    fields of docs/BundleFormat.md; the kernel name plays no part)."""
    c = kern.cfg
    dv = head_dim if head_dim_v is None else head_dim_v
    if (c["dtype"] != dtype or c["head_dim"] != head_dim or c.get("head_dim_v", c["head_dim"]) != dv
            or c["layout"] != layout or bool(c.get("causal")) != causal
            or bool(c.get("return_lse")) != return_lse):
        return False
    if _window_key(c.get("window"), causal) != _window_key(window, causal):
        return False
    masked = causal or _window_key(window, causal) != (None, None)
    if masked and c.get("mask_alignment", "top_left") != (mask_alignment or "top_left"):
        return False
    if not _close(c.get("softcap"), softcap):
        return False
    has_bias = bool(c.get("bias", False))
    if has_bias != (bias_dtype is not None):
        return False
    if has_bias and c.get("bias_dtype", c.get("out_dtype", c["dtype"])) != bias_dtype:
        return False
    want_scale = 1.0 / math.sqrt(head_dim) if scale is None else scale
    if c.get("scale") is not None and abs(c["scale"] - want_scale) > 1e-6 * want_scale:
        return False
    return True


def find(kernels, dtype="bf16", head_dim=128, layout="bhsd", causal=False,
         mask_alignment="top_left", return_lse=True, variant=None, **extra):
    """The bundle of a configuration, chosen by its JSON config (`matches`;
    `extra`: head_dim_v, window, softcap, bias_dtype, scale).

    `variant` picks among bundles of the same configuration compiled with
    different schedule options (bench.mlir with --overlap=false): it is
    compared with the schedule token of the name (m128n128s2o, m128n128s2,
    or only its stages-and-options part: s2o, s2),
    the one thing the JSON does not describe. Without it, the bundle built
    with fa-compile's default options (index.tsv), else the one with the
    overlap ('o') schedule, else the only one."""
    cands = [k for k in kernels if matches(k, dtype, head_dim, layout, causal, mask_alignment,
                                           return_lse, **extra)]
    if variant is not None:
        cands = [k for k in cands if _schedule_is(schedule_token(k.name), variant)]
    elif len(cands) > 1:
        default = [k for k in cands if k.build_options == ""]
        if not default:
            default = [k for k in cands if (schedule_token(k.name) or "").endswith("o")]
        cands = default or cands
    if not cands:
        raise KeyError(f"no bundle for {dtype} d{head_dim} {layout} causal={causal} "
                       f"{mask_alignment} lse={return_lse} {extra or ''} {variant or ''}".rstrip())
    return cands[0]


def runtime_info():
    lib = gpu_runtime.library()
    return f"libfa_runtime ABI {lib.fa_runtime_abi_version()} ({os.environ.get('FA_RUNTIME_LIB', 'found by fa_mlir')})"
