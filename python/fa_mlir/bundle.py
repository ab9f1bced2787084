"""The runtime half: load kernel bundles and call them. Needs no compiler.

A bundle directory holds `manifest.json` (format "fa-mlir-bundle": target,
op, the KernelConfig, the compiler version) and the target's files:
- cpu: kernel.so and the argument list (roles, dtypes, symbolic shapes);
- sm_90a: an fa-kernel-bundle JSON + cubin (docs/BundleFormat.md), launched
  through libfa_runtime.
A bare fa-kernel-bundle JSON file loads too (as a GpuBundle without config).
"""
import ctypes
import json
import os

import numpy as np

from .errors import ArgumentError, BundleError
from .memref import memref_descriptor
from .signature import bind
from .spec import KernelConfig

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "fa-mlir-bundle"
MANIFEST_VERSION = 1

# numpy dtypes that may carry each element type's bits.
NUMPY_STORAGE = {"f32": (np.float32,), "f16": (np.float16,),
                 "bf16": (np.uint16, np.int16)}


def read_manifest(path):
    mpath = os.path.join(path, MANIFEST)
    try:
        with open(mpath) as f:
            manifest = json.load(f)
    except OSError as e:
        raise BundleError(f"cannot read bundle manifest {mpath}: {e}") from e
    except ValueError as e:
        raise BundleError(f"bundle manifest {mpath} is not JSON: {e}") from e
    if manifest.get("format") != MANIFEST_FORMAT:
        raise BundleError(f"{mpath}: format is {manifest.get('format')!r}, "
                          f"expected {MANIFEST_FORMAT!r}")
    if manifest.get("version") != MANIFEST_VERSION:
        raise BundleError(f"{mpath}: unsupported manifest version "
                          f"{manifest.get('version')!r} (this package reads "
                          f"{MANIFEST_VERSION})")
    return manifest


def load_bundle(path):
    """A CpuBundle or GpuBundle from a bundle directory (or GPU bundle JSON)."""
    path = os.fspath(path)
    if os.path.isfile(path) and path.endswith(".json"):
        return GpuBundle(path, None)
    if not os.path.isdir(path):
        raise BundleError(f"no kernel bundle at {path}")
    manifest = read_manifest(path)
    target = manifest.get("target")
    if target == "cpu":
        return CpuBundle(path, manifest)
    if target and target.startswith("sm_"):
        return GpuBundle(os.path.join(path, manifest["gpu"]["bundle"]),
                         manifest)
    raise BundleError(f"{path}: unknown target {target!r}")


class Bundle:
    def __init__(self, path, manifest):
        self.path = path
        self.manifest = manifest or {}
        self.target = self.manifest.get("target")
        self.op = self.manifest.get("op")
        cfg = self.manifest.get("config")
        self.config = KernelConfig.from_dict(cfg) if cfg else None

    def __repr__(self):
        return f"<{type(self).__name__} {self.target} {self.op} at {self.path}>"


class CpuBundle(Bundle):
    """A CPU kernel: a shared library called with numpy arrays by role."""

    def __init__(self, path, manifest):
        super().__init__(path, manifest)
        cpu = self.manifest["cpu"]
        self.arguments = cpu["arguments"]
        self.library_path = os.path.join(path, cpu["library"])
        self.symbol = cpu["symbol"]
        if not os.path.exists(self.library_path):
            raise BundleError(f"{path}: missing {cpu['library']}")
        self._function = None

    def _fn(self):
        if self._function is None:
            lib = ctypes.CDLL(self.library_path)
            fn = getattr(lib, self.symbol)
            fn.restype = None
            self._lib, self._function = lib, fn
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
        return bind(self.arguments, {r: a.shape for r, a in arrays.items()},
                    where)

    @property
    def roles(self):
        return [a["role"] for a in self.arguments]

    def launch(self, arrays):
        """Runs the kernel on {role: array}, outputs included (written)."""
        self.check(arrays)
        descs = [memref_descriptor(arrays[a["role"]]) for a in self.arguments]
        self._fn()(*[ctypes.byref(d) for d in descs])

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


class GpuBundle(Bundle):
    """An sm_90a kernel launched through libfa_runtime (ctypes)."""

    def __init__(self, json_path, manifest):
        super().__init__(os.path.dirname(json_path), manifest)
        self.json_path = json_path
        if not os.path.exists(json_path):
            raise BundleError(f"missing GPU kernel bundle {json_path}")
        self._runtime = None
        if not self.target:
            with open(json_path) as f:
                self.target = json.load(f).get("chip")

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
