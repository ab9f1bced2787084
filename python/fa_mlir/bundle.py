"""The runtime half: load kernel bundles and call them. Needs no compiler.

A bundle directory holds `manifest.json` (format "fa-mlir-bundle": target,
op, the KernelConfig, the compiler version) and the target's files:
- cpu: kernel.so and the argument list (roles, dtypes, symbolic shapes);
- sm_90a: an fa-kernel-bundle JSON + cubin (the forward), or an
  fa-kernel-sequence JSON + its kernel bundles and cubin(s) (the backward,
  kvcache, a forward with num_splits)
  (docs/BundleFormat.md), launched through libfa_runtime.
A bare fa-kernel-bundle or fa-kernel-sequence JSON file loads too (as a
GpuBundle without config).
"""
import ctypes
import os
import struct

import numpy as np

from .arguments import check_int
from .errors import ArgumentError, BundleError, FaError
from .manifest import (MANIFEST, MANIFEST_FORMAT, MANIFEST_VERSION,  # noqa: F401
                       KERNEL_SEQUENCE, gpu_entry, read_gpu_json, read_json,
                       read_manifest, validate, write_manifest)
from .memref import memref_descriptor
from .signature import bind, signature
from .spec import KernelConfig

# numpy dtypes that may carry each element type's bits.
NUMPY_STORAGE = {"f32": (np.float32,), "f16": (np.float16,),
                 "bf16": (np.uint16, np.int16),
                 # The captures of score_mod/mask_mod regions.
                 "f64": (np.float64,), "i32": (np.int32,), "i64": (np.int64,),
                 "i1": (np.bool_,)}


def load_bundle(path):
    """A CpuBundle or GpuBundle from a bundle directory (or GPU bundle JSON).

    Every way a bundle can be broken (unreadable, not JSON, against the
    schema, edited, a file missing or replaced) raises BundleError.
    """
    path = os.fspath(path)
    if os.path.isfile(path) and path.endswith(".json"):
        return GpuBundle(path, None)
    if not os.path.isdir(path):
        raise BundleError(f"no kernel bundle at {path}")
    manifest = read_manifest(path)
    if manifest["target"] == "cpu":
        return CpuBundle(path, manifest)
    name, fmt = gpu_entry(manifest["gpu"])
    return GpuBundle(os.path.join(path, name), manifest, fmt)


def _config_of(manifest, where):
    try:
        return KernelConfig.from_dict(manifest["config"])
    except FaError as e:
        raise BundleError(f"{where}: bad \"config\": {e}") from None
    except (TypeError, ValueError) as e:
        raise BundleError(f"{where}: bad \"config\": {e}") from None


class Bundle:
    def __init__(self, path, manifest):
        self.path = path
        self.manifest = manifest or {}
        self.target = self.manifest.get("target")
        self.op = self.manifest.get("op")
        self.config = (_config_of(self.manifest, path) if manifest else None)
        if self.config is not None and self.config.op != self.op:
            raise BundleError(f"{path}: manifest op {self.op!r} does not match "
                              f"its config's op {self.config.op!r}")

    def __repr__(self):
        return f"<{type(self).__name__} {self.target} {self.op} at {self.path}>"


def _check_isa(path, required):
    """Refuses a kernel built for vector extensions this CPU lacks (it would
    die of SIGILL at the first call)."""
    if not required:
        return
    from .cpu import cpuinfo_flags, missing_isa
    flags = cpuinfo_flags()
    if flags is None:
        raise BundleError(f"{path}: the kernel needs {', '.join(required)}, and "
                          "/proc/cpuinfo cannot be read to check this CPU")
    missing = missing_isa(required, flags)
    if missing:
        raise BundleError(
            f"{path}: built for a CPU with {', '.join(missing)}, which this one "
            "lacks; rebuild it on this machine, or build portable bundles with "
            "FA_MLIR_CPU_FLAGS='-O2 -march=x86-64-v3' (or another level)")


def usable_cpus():
    """The CPUs this process may run on (its affinity mask)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def thread_count(where, threads):
    """An OpenMP thread count: an int >= 1, capped at the usable CPUs.
    More threads than CPUs would only oversubscribe them, and libomp aborts
    the whole process when it cannot create what it was asked for
    (omp_set_num_threads(10**6); torch.set_num_threads(100000) reached it
    through fa_mlir.torch)."""
    return min(check_int(where, "threads", threads, 1), usable_cpus())


class CpuBundle(Bundle):
    """A CPU kernel: a shared library called with numpy arrays by role."""

    def __init__(self, path, manifest):
        super().__init__(path, manifest)
        cpu = self.manifest["cpu"]
        self.arguments = cpu["arguments"]
        self.library_path = os.path.join(path, cpu["library"])
        self.symbol = cpu["symbol"]
        # The kernel's ABI follows from its config: an argument list that
        # does not (a role removed, a dtype or static size changed) would
        # pass the wrong descriptors to the library.
        expected = signature(self.config)
        if self.arguments != expected:
            raise BundleError(
                f"{path}: the manifest's argument list does not match its "
                f"config (expected {_describe(expected)}, manifest has "
                f"{_describe(self.arguments)})")
        _check_source(self, os.path.join(path, cpu["source"]))
        _check_isa(path, cpu.get("isa", []))
        self._function = self._set_threads = None

    def _fn(self):
        if self._function is None:
            try:
                # A kernel built with openmp=true links libomp, whose idle
                # threads would otherwise spin for 200 ms after each call,
                # taking the cores from whatever torch runs next.
                os.environ.setdefault("KMP_BLOCKTIME", "0")
                lib = ctypes.CDLL(self.library_path)
                fn = getattr(lib, self.symbol)
            except (OSError, AttributeError) as e:
                raise BundleError(f"{self.path}: cannot load the kernel "
                                  f"{self.symbol} from {self.library_path}: "
                                  f"{e}") from None
            fn.restype = None
            self._lib, self._function = lib, fn
            self._set_threads = getattr(lib, "omp_set_num_threads", None)
        return self._function

    def check(self, arrays):
        """Checks dtypes, contiguity and shapes; returns the size symbols."""
        where = f"{self.op} kernel ({self.path})"
        for arg in self.arguments:
            a = arrays.get(arg["role"])
            if a is None:
                raise ArgumentError(f"{where}: missing operand '{arg['role']}'")
            if not isinstance(a, np.ndarray):
                raise ArgumentError(f"{where}: operand '{arg['role']}' must be "
                                    f"a numpy array, got {type(a).__name__}")
            ok = NUMPY_STORAGE[arg["dtype"]]
            if a.dtype.type not in ok:
                raise ArgumentError(
                    f"{where}: operand '{arg['role']}' has numpy dtype "
                    f"{a.dtype}, expected {arg['dtype']} stored as "
                    f"{' or '.join(np.dtype(t).name for t in ok)}")
            if not a.flags["C_CONTIGUOUS"]:
                raise ArgumentError(
                    f"{where}: operand '{arg['role']}' must be C-contiguous "
                    f"(strides {a.strides} for shape {a.shape})")
            if arg["output"] and not a.flags["WRITEABLE"]:
                raise ArgumentError(f"{where}: output '{arg['role']}' is "
                                    "read-only")
        extra = sorted(set(arrays) - {a["role"] for a in self.arguments})
        if extra:
            raise ArgumentError(f"{where}: unknown operand(s) {extra}; the "
                                f"kernel takes {self.roles}")
        _check_outputs_alone(where, self.arguments, arrays)
        return bind(self.arguments, {r: a.shape for r, a in arrays.items()},
                    where)

    @property
    def roles(self):
        return [a["role"] for a in self.arguments]

    def launch(self, arrays, threads=None):
        """Runs the kernel on {role: array}, outputs included (written);
        on `threads` OpenMP threads when given and the kernel has them
        (at most this process's usable CPUs: thread_count)."""
        if threads is not None:
            threads = thread_count(f"{self.op} kernel launch", threads)
        self.check(arrays)
        descs = [memref_descriptor(arrays[a["role"]]) for a in self.arguments]
        fn = self._fn()
        if threads is not None and self._set_threads is not None:
            self._set_threads(threads)
        fn(*[ctypes.byref(d) for d in descs])

    def output_shapes(self, symbols):
        return {a["role"]: tuple(s if isinstance(s, int) else symbols[s]
                                 for s in a["shape"])
                for a in self.arguments if a["output"]}

    def __call__(self, **inputs):
        """Allocates the outputs, runs, returns them (in signature order)."""
        ins = {a["role"] for a in self.arguments if not a["output"]}
        symbols = bind([a for a in self.arguments if not a["output"]],
                       {r: np.shape(x) for r, x in inputs.items() if r in ins},
                       f"{self.op} kernel")
        outs = {}
        for a in self.arguments:
            if a["output"]:
                shape = self.output_shapes(symbols)[a["role"]]
                outs[a["role"]] = np.empty(shape, NUMPY_STORAGE[a["dtype"]][0])
        self.launch({**inputs, **outs})
        return tuple(outs.values())


def _check_outputs_alone(where, arguments, arrays):
    """No output shares memory with another operand: the kernel would read
    what it already overwrote (an output aliasing q), or two outputs would
    overwrite each other. C-contiguous arrays fill their bounds, so
    may_share_memory (a bounds test) is exact here."""
    for arg in arguments:
        if not arg["output"] or arrays[arg["role"]].size == 0:
            continue
        for other in arguments:
            a, b = arrays[arg["role"]], arrays[other["role"]]
            if other is not arg and b.size and np.may_share_memory(a, b):
                raise ArgumentError(
                    f"{where}: output '{arg['role']}' shares memory with "
                    f"'{other['role']}'; outputs need memory of their own")


# The function each op's kernel.mlir defines; its C interface is the symbol.
_FUNCTION = {"forward": "attention", "backward": "attention_grad"}


def _check_source(bundle, source_path):
    """kernel.mlir (whose hash the manifest holds) must be exactly what the
    manifest's config generates: then a config that lies about the kernel
    (causal, window, scale, ...) cannot pass, although the argument list
    does not show those fields."""
    from . import config as fa_config
    name = _FUNCTION[bundle.config.op]
    if bundle.symbol != f"_mlir_ciface_{name}":
        raise BundleError(f"{bundle.path}: symbol {bundle.symbol!r}, but a "
                          f"{bundle.config.op} kernel exports "
                          f"_mlir_ciface_{name}")
    acfg = bundle.config.attention_config()
    text = (fa_config.forward_mlir(acfg, name) if bundle.config.op ==
            "forward" else fa_config.backward_mlir(acfg, name))
    with open(source_path) as f:
        if f.read() != text:
            raise BundleError(f"{bundle.path}: kernel.mlir is not the "
                              "program the manifest's config describes; the "
                              "manifest does not belong to this kernel")


def _describe(arguments):
    return ", ".join(f"{a.get('role')}: {a.get('dtype')}{a.get('shape')}"
                     for a in arguments)


# What the manifest's KernelConfig says about fields the GPU bundle's config
# also records; the two must agree.
def _gpu_config_view(kcfg):
    if kcfg.op == "combine":  # f32 partials merged into kcfg.dtype rows
        return {"dtype": "f32", "out_dtype": kcfg.dtype,
                "head_dim": kcfg.head_dim, "return_lse": True}
    window = list(kcfg.window) if kcfg.window is not None else None
    view = {"dtype": kcfg.dtype, "layout": kcfg.layout,
            "head_dim": kcfg.head_dim, "head_dim_v": kcfg.dv,
            "causal": kcfg.causal, "return_lse": kcfg.return_lse,
            "window": window, "softcap": _f32(kcfg.softcap),
            "scale": _f32(kcfg.effective_scale), "bias": kcfg.bias is not None,
            "deterministic": kcfg.deterministic, "sinks": kcfg.sinks}
    if kcfg.op in ("backward", "varlen_backward"):
        del view["return_lse"]  # a forward notion; the backward reads LSE
    if kcfg.mask_mod is not None:
        # The compiler folds a band that mask_mod states into causal/window
        # (docs/Modifiers.md): the bundle's may say more than the config's.
        del view["causal"], view["window"]
    if kcfg.out_dtype is not None:  # FP8: the output has its own type
        view["out_dtype"] = kcfg.out_dtype
    if kcfg.descale_block is not None:  # FP8: the descales are per block
        view["descale_block"] = list(kcfg.descale_block)
    if kcfg.bias is not None:
        view["bias_dtype"] = kcfg.bias_dtype
        if kcfg.op == "backward":  # specialised on the broadcast dims
            view["bias_broadcast"] = kcfg.bias_broadcast_dims()
    return view


def _f32(x):
    """The kernel's float32 value of a number (the bundle records that)."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return x
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return x


class GpuBundle(Bundle):
    """An sm_90a kernel, or a sequence of them (backward, split-KV), launched
    through libfa_runtime (ctypes)."""

    def __init__(self, json_path, manifest, expected_format=None):
        super().__init__(os.path.dirname(json_path), manifest)
        self.json_path = json_path
        doc, _ = read_gpu_json(json_path)
        if expected_format and doc["format"] != expected_format:
            raise BundleError(f"{json_path}: is an {doc['format']}, but the "
                              f"manifest names an {expected_format}")
        self.is_sequence = doc["format"] == KERNEL_SEQUENCE
        # Workspace entries (docs/BundleFormat.md, Kernel sequences): what a
        # launch needs beyond the standard operands; [] for a plain bundle.
        self.workspace = doc.get("workspace", [])
        # {kernel index: [workspace names]} of the buffers a kernel computes
        # from the operands alone ("written_by": a block-sparse forward's
        # map); a launch that passes them all skips that kernel.
        self.written_by = {}
        for w in self.workspace:
            if "written_by" in w:
                self.written_by.setdefault(w["written_by"], []).append(w["name"])
        self._kernel_files = doc.get("kernels", [])
        self._kernels = {}
        self._workspace_memo = {}
        self._runtime = None
        if not self.target:
            self.target = doc["chip"]
        elif doc["chip"] != self.target:
            raise BundleError(f"{json_path}: chip {doc['chip']!r}, but the "
                              f"manifest's target is {self.target!r}")
        if self.config is not None:
            want = _gpu_config_view(self.config)
            got = {k: doc["config"].get(k, want[k]) for k in want}
            # Absent means no sinks (the compiler writes it only with them).
            if "sinks" in want:
                got["sinks"] = doc["config"].get("sinks", False)
            # Absent means per (batch, kv head): no default to fall back on.
            if "descale_block" in want or "descale_block" in doc["config"]:
                want.setdefault("descale_block", None)
                got["descale_block"] = doc["config"].get("descale_block")
            for k in ("scale", "softcap"):  # a combine has neither
                if k in got:
                    got[k] = _f32(got[k])
            # Dtype names match case-insensitively (the runtime's rule):
            # the compiler writes "f8e4m3fn" for KernelConfig's "f8E4M3FN".
            for k in ("dtype", "out_dtype", "bias_dtype"):
                if isinstance(got.get(k), str):
                    got[k], want[k] = got[k].lower(), want[k].lower()
            if got != want:
                raise BundleError(f"{json_path}: its config {got} does not "
                                  f"match the manifest's {want}")

    def workspace_shapes(self, symbols):
        """{name: (sizes, dtype)} of the workspace buffers for a launch with
        these size symbols (batch, heads_q, heads_kv, seq_q, seq_k,
        head_dim, head_dim_v; num_pages, page_size, max_pages, seq_new of
        paged caches and appends: signature.symbols_of), for callers that allocate them (fa_mlir.torch
        does, with torch's caching allocator). Entries Python cannot
        evaluate are left out: the runtime allocates those itself.
        Remembered per symbols (a serving loop repeats a few shapes)."""
        from .gpu_runtime import workspace_shapes
        key = tuple(sorted(symbols.items()))
        shapes = self._workspace_memo.get(key)
        if shapes is None:
            if len(self._workspace_memo) >= 1024:
                self._workspace_memo.clear()
            shapes = self._workspace_memo[key] = workspace_shapes(
                self.workspace, symbols)
        return shapes

    def kernel_bundle(self, index):
        """Kernel `index` of a sequence as a plain GpuBundle (loaded once):
        what computes its "written_by" buffers, launched alone."""
        bundle = self._kernels.get(index)
        if bundle is None:
            path = os.path.join(self.path, self._kernel_files[index])
            bundle = self._kernels[index] = GpuBundle(path, None)
        return bundle

    @property
    def runtime(self):
        """The libfa_runtime handle, loaded on first use (no GPU needed)."""
        if self._runtime is None:
            from .gpu_runtime import RuntimeBundle
            self._runtime = RuntimeBundle(self.json_path)
        return self._runtime

    def check(self, tensors, num_sms=132):
        return self.runtime.check(tensors, num_sms)

    def launch(self, tensors, stream=None):
        """{role: (address, dtype name, sizes, strides)} on a CUstream."""
        self.runtime.launch(tensors, stream)

    def launch_packed(self, arr, stream=None):
        """A launch of gpu_runtime.pack()'s array (RuntimeBundle's)."""
        self.runtime.launch_packed(arr, stream)
