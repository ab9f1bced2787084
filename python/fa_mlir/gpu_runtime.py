"""ctypes binding of libfa_runtime (include/fa/Runtime/fa_runtime.h).

The runtime half for GPUs: it needs neither MLIR nor torch nor a CUDA
toolkit, only libfa_runtime.so (which itself dlopens libcuda.so.1 at the
first launch). The library is found, in order, at $FA_RUNTIME_LIB, next to
this package (fa_mlir/lib/, for shipped wheels), in $FA_BUILD_DIR/lib or the
repository's build/lib, then by the dynamic loader's search.
"""
import array
import ast
import ctypes
import ctypes.util
import functools
import json
import operator
import os
import struct

from .errors import ArgumentError, BundleError, RuntimeLibraryError

MAX_RANK = 8
ABI_VERSION = 1


class FaTensor(ctypes.Structure):
    _fields_ = [("role", ctypes.c_char_p), ("data", ctypes.c_void_p),
                ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * MAX_RANK),
                ("strides", ctypes.c_int64 * MAX_RANK)]


def _candidates():
    env = os.environ.get("FA_RUNTIME_LIB")
    if env:
        return [env]  # an explicit choice is never second-guessed
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    build = os.environ.get("FA_BUILD_DIR", os.path.join(repo, "build"))
    # AOT directories may carry the library (python -m fa_mlir.aot --runtime).
    aot = [os.path.join(d, "lib", "libfa_runtime.so") for d in
           os.environ.get("FA_MLIR_BUNDLE_PATH", "").split(os.pathsep) if d]
    paths = aot + [os.path.join(here, "lib", "libfa_runtime.so"),
                   os.path.join(build, "lib", "libfa_runtime.so")]
    found = ctypes.util.find_library("fa_runtime")
    return paths + ([found] if found else [])


@functools.lru_cache(maxsize=None)
def library():
    """The loaded libfa_runtime, with argument types declared."""
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(f"{path} (missing)")
            continue
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            tried.append(f"{path} ({e})")
    else:
        raise BundleError(
            "cannot find libfa_runtime.so; tried " + "; ".join(tried) +
            ". Build it (ninja fa_runtime) and set FA_BUILD_DIR, or point "
            "FA_RUNTIME_LIB at the library")
    _declare(lib)
    abi = lib.fa_runtime_abi_version()
    if abi != ABI_VERSION:
        raise BundleError(f"libfa_runtime at {path} has ABI version {abi}, "
                          f"this package speaks {ABI_VERSION}")
    return lib


def _declare(lib):
    c = ctypes
    sigs = {
        "fa_last_error": (c.c_char_p, []),
        "fa_status_name": (c.c_char_p, [c.c_int]),
        "fa_runtime_abi_version": (c.c_int, []),
        "fa_bundle_format_version": (c.c_int, []),
        "fa_dtype_from_name": (c.c_int, [c.c_char_p, c.POINTER(c.c_int32)]),
        "fa_bundle_load": (c.c_int, [c.c_char_p, c.POINTER(c.c_void_p)]),
        "fa_bundle_free": (None, [c.c_void_p]),
        "fa_bundle_kernel_name": (c.c_char_p, [c.c_void_p]),
        "fa_bundle_op": (c.c_char_p, [c.c_void_p]),
        "fa_bundle_chip": (c.c_char_p, [c.c_void_p]),
        "fa_bundle_config_json": (c.c_char_p, [c.c_void_p]),
        "fa_bundle_required_operands": (c.c_char_p, [c.c_void_p]),
        "fa_bundle_check": (c.c_int, [c.c_void_p, c.POINTER(FaTensor), c.c_int,
                                      c.c_int, c.POINTER(c.c_uint32)]),
        "fa_bundle_launch": (c.c_int, [c.c_void_p, c.POINTER(FaTensor),
                                       c.c_int, c.c_void_p]),
        "fa_driver_check": (c.c_int, [c.POINTER(c.c_int)]),
        # Kernel sequences (added within ABI version 1).
        "fa_bundle_num_kernels": (c.c_int, [c.c_void_p]),
        "fa_bundle_workspace": (c.c_char_p, [c.c_void_p]),
        "fa_bundle_workspace_bytes": (c.c_int, [
            c.c_void_p, c.POINTER(FaTensor), c.c_int, c.POINTER(c.c_int64)]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name, None)
        if fn is None and name in _SEQUENCE_FUNCTIONS:
            continue  # an older library: plain bundles only
        fn.restype, fn.argtypes = res, args


_SEQUENCE_FUNCTIONS = ("fa_bundle_num_kernels", "fa_bundle_workspace",
                       "fa_bundle_workspace_bytes")


def _check(lib, rc):
    if rc != 0:
        raise RuntimeLibraryError(lib.fa_status_name(rc).decode(),
                                  lib.fa_last_error().decode())


@functools.lru_cache(maxsize=None)
def dtype_code(name):
    lib = library()
    out = ctypes.c_int32()
    _check(lib, lib.fa_dtype_from_name(name.encode(), ctypes.byref(out)))
    return out.value


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _int64_list(role, what, values):
    """`values` as a list of Python ints in int64 (ctypes would wrap)."""
    try:
        out = [operator.index(v) for v in values]
    except TypeError:
        raise ArgumentError(f"operand '{role}': {what} must be integers, got "
                            f"{values!r}") from None
    for v in out:
        if not _INT64[0] <= v <= _INT64[1]:
            raise ArgumentError(f"operand '{role}': {what} entry {v} does not "
                                "fit in int64")
    return out


def _operand(role, value):
    """(address, dtype, sizes, strides), checked: every mistake is an
    ArgumentError naming the operand, never a wrapped or dropped value."""
    if not isinstance(role, str) or "\0" in role:
        raise ArgumentError(f"operand roles must be strings without NUL, got "
                            f"{role!r}")
    try:
        addr, dtype, sizes, strides = value
    except (TypeError, ValueError):
        raise ArgumentError(f"operand '{role}' must be (address, dtype name, "
                            f"sizes, strides), got {value!r}") from None
    (addr,) = _int64_list(role, "the address", [addr])
    if addr < 0:
        raise ArgumentError(f"operand '{role}': negative address {addr}")
    if not isinstance(dtype, str) or "\0" in dtype:
        raise ArgumentError(f"operand '{role}': dtype must be a name, got "
                            f"{dtype!r}")
    sizes = _int64_list(role, "sizes", sizes)
    strides = _int64_list(role, "strides", strides)
    if len(sizes) != len(strides):
        raise ArgumentError(f"operand '{role}': {len(sizes)} sizes but "
                            f"{len(strides)} strides")
    if len(sizes) > MAX_RANK:
        raise RuntimeLibraryError("FA_ERROR_INVALID_ARGUMENT",
                                  f"operand '{role}' has rank > {MAX_RANK}")
    return addr, dtype, sizes, strides


# Operands a launch writes (beside the workspace buffers): two of their
# elements at one address, or memory shared with another operand, would
# make the result depend on the order of the kernel's stores.
WRITTEN_ROLES = frozenset({"output", "lse", "grad_query", "grad_key",
                           "grad_value", "grad_bias"})
ELEMENT_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "f8e4m3fn": 1, "f8e5m2": 1,
                 "f64": 8, "i32": 4, "i64": 8, "i8": 1, "u8": 1}


def _span(addr, dtype, sizes, strides):
    """[first, last) bytes of an operand's elements; None when empty."""
    if 0 in sizes:
        return None
    size = ELEMENT_BYTES.get(dtype.lower(), 1)
    low = sum((n - 1) * s for n, s in zip(sizes, strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(sizes, strides) if s > 0)
    return addr + low * size, addr + (high + 1) * size


def self_overlap(sizes, strides):
    """Whether strides may put two elements at one address: ordered by
    stride, each dim's step must clear the span of the dims inside it (the
    test torch uses; an exotic interleaving it cannot prove disjoint is
    refused too, which no dense or padded layout is)."""
    if 0 in sizes:
        return False
    span = 0
    for n, s in sorted(((n, abs(s)) for n, s in zip(sizes, strides)
                        if n > 1), key=lambda d: d[1]):
        if s <= span:
            return True
        span += (n - 1) * s
    return False


def check_written(operands, written):
    """ArgumentError when an operand of `written` (roles) overlaps itself
    or another operand. `operands`: {role: (address, dtype, sizes,
    strides)}, checked by _operand."""
    spans = {r: _span(*v) for r, v in operands.items()}
    for role in operands:  # in the caller's order: a stable message
        if role not in written:
            continue
        _, _, sizes, strides = operands[role]
        if self_overlap(sizes, strides):
            raise ArgumentError(
                f"operand '{role}' is written, but its strides {strides} "
                f"(sizes {sizes}) may place two elements at one address; "
                "outputs need non-overlapping strides")
        mine = spans[role]
        for other, theirs in spans.items():
            if other != role and mine and theirs and \
                    mine[0] < theirs[1] and theirs[0] < mine[1]:
                raise ArgumentError(
                    f"operand '{role}' is written, but its memory "
                    f"[{mine[0]:#x}, {mine[1]:#x}) overlaps that of "
                    f"'{other}' [{theirs[0]:#x}, {theirs[1]:#x}); outputs "
                    "need memory of their own")


def checked_operands(tensors):
    """{role: (address, dtype, sizes, strides)} with every entry checked
    (_operand)."""
    if not isinstance(tensors, dict):
        raise ArgumentError("tensors must be a dict {role: (address, dtype, "
                            f"sizes, strides)}}, got {type(tensors).__name__}")
    return {role: _operand(role, value) for role, value in tensors.items()}


def operand_array(operands):
    """FaTensor[] of checked operands."""
    arr = (FaTensor * len(operands))()
    for t, (role, (addr, dtype, sizes, strides)) in zip(arr,
                                                         operands.items()):
        t.role, t.data = role.encode(), addr
        t.dtype, t.rank = dtype_code(dtype), len(sizes)
        for i, (s, st) in enumerate(zip(sizes, strides)):
            t.sizes[i], t.strides[i] = s, st
    return arr


def tensor_array(tensors):
    """FaTensor[] from {role: (address, dtype name, sizes, strides)}."""
    return operand_array(checked_operands(tensors))


# One FaTensor as bytes: role and data pointers, dtype, rank, sizes,
# strides (the C struct has no padding: checked against ctypes' layout).
_RECORD = struct.Struct(f"=QQii{MAX_RANK}q{MAX_RANK}q")
assert _RECORD.size == ctypes.sizeof(FaTensor) and \
    FaTensor.sizes.offset == 24 and FaTensor.strides.offset == 24 + 8 * MAX_RANK


@functools.lru_cache(maxsize=None)
def _role_address(role):
    """The address of `role` as a C string, kept alive by this cache."""
    text = ctypes.create_string_buffer(role.encode())
    return text, ctypes.addressof(text)


def pack(operands):
    """FaTensor[] of {role: (address, dtype name, sizes, strides)} from a
    packer that guarantees their form (fa_mlir.torch: addresses, sizes and
    strides are torch's own ints, at most MAX_RANK of them, the dtypes its
    names): each record written in one struct.pack_into instead of
    _operand's checks and a field-by-field fill. libfa_runtime still
    checks every operand."""
    arr = (FaTensor * len(operands))()
    for i, (role, (addr, dtype, sizes, strides)) in enumerate(
            operands.items()):
        pad = (0,) * (MAX_RANK - len(sizes))
        _RECORD.pack_into(arr, i * _RECORD.size, _role_address(role)[1], addr,
                          dtype_code(dtype), len(sizes), *sizes, *pad,
                          *strides, *pad)
    return arr


_RECORD_WORDS = _RECORD.size // 8
_DATA_WORD = FaTensor.data.offset // 8


def repack(template, addresses):
    """FaTensor[] of pack()'s bytes `template` with record i's data pointer
    set to addresses[i]: a repeat launch whose operands differ from the
    template's only in their addresses (fa_mlir.torch remembers one per
    signature) writes nothing else."""
    arr = (FaTensor * len(addresses)).from_buffer_copy(template)
    words = memoryview(arr).cast("B").cast("Q")
    words[_DATA_WORD::_RECORD_WORDS] = array.array("Q", addresses)
    return arr


class _Unsupported(Exception):
    """An expression Python does not evaluate (the runtime still does)."""


def _truncdiv(a, b):
    if b == 0:
        raise _Unsupported("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub,
           ast.Mult: operator.mul, ast.Div: _truncdiv}
# ceildiv rounds toward +infinity: -floor(-a / b), exact with Python's //.
_CALLS = {"ceildiv": lambda a, b: -((-a) // b), "min": min, "max": max}


@functools.lru_cache(maxsize=256)
def _parse_expr(text):
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        raise _Unsupported(text) from None


def _eval(node, symbols):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in symbols:
            raise _Unsupported(node.id)
        return symbols[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, symbols),
                                      _eval(node.right, symbols))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub,
                                                              ast.UAdd)):
        v = _eval(node.operand, symbols)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in _CALLS and len(node.args) == 2 and \
            not node.keywords:
        a, b = (_eval(x, symbols) for x in node.args)
        if node.func.id == "ceildiv" and b == 0:
            raise _Unsupported("division by zero")
        return _CALLS[node.func.id](a, b)
    raise _Unsupported(ast.dump(node))


def eval_int_expr(expr, symbols):
    """The value of an integer shape expression (docs/BundleFormat.md,
    *Expressions*: C semantics, `/` truncates) with `symbols` bound, or None
    when it uses what Python does not evaluate here (stride(), num_sms, a
    float): the runtime evaluates every expression anyway."""
    if type(expr) is int:
        return expr
    try:
        return _eval(_parse_expr(expr), symbols)
    except (_Unsupported, RecursionError, TypeError):
        return None


def workspace_shapes(workspace, symbols):
    """{name: (sizes, dtype name)} of the workspace entries whose shapes
    evaluate with `symbols` (batch, heads_q, ...); the others are left to
    the runtime, which allocates what it is not given."""
    out = {}
    for w in workspace:
        sizes = [eval_int_expr(e, symbols) for e in w["shape"]]
        if all(isinstance(n, int) and n >= 0 for n in sizes):
            out[w["name"]] = (tuple(sizes), w["dtype"])
    return out


class RuntimeBundle:
    """A loaded fa-kernel-bundle or fa-kernel-sequence (JSON + cubins).
    Loading needs no GPU; both launch the same way."""

    def __init__(self, json_path):
        self.lib = library()
        handle = ctypes.c_void_p()
        _check(self.lib, self.lib.fa_bundle_load(json_path.encode(),
                                                 ctypes.byref(handle)))
        self._handle = handle
        self.json_path = json_path
        self.kernel_name = self.lib.fa_bundle_kernel_name(handle).decode()
        self.op = self.lib.fa_bundle_op(handle).decode()
        self.chip = self.lib.fa_bundle_chip(handle).decode()
        self.config_json = self.lib.fa_bundle_config_json(handle).decode()
        self.required = self.lib.fa_bundle_required_operands(
            handle).decode().split(",")
        if hasattr(self.lib, "fa_bundle_num_kernels"):
            self.num_kernels = self.lib.fa_bundle_num_kernels(handle)
            self.workspace = json.loads(
                self.lib.fa_bundle_workspace(handle).decode())
        else:
            self.num_kernels, self.workspace = 1, []

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            try:
                self.lib.fa_bundle_free(handle)
            except Exception:  # interpreter shutdown: ctypes may be gone
                pass

    def _checked_array(self, tensors):
        """FaTensor[] of `tensors`, whose written operands (outputs and
        workspace buffers) must have memory of their own."""
        operands = checked_operands(tensors)
        check_written(operands, WRITTEN_ROLES | {w["name"] for w in
                                                  self.workspace})
        return operand_array(operands)

    def check(self, tensors, num_sms=132):
        """Everything a launch checks, without a GPU; returns the grid."""
        arr = self._checked_array(tensors)
        (num_sms,) = _int64_list("num_sms", "the value", [num_sms])
        if not 0 < num_sms < (1 << 31):
            raise ArgumentError(f"num_sms must be in [1, 2^31), got {num_sms}")
        grid = (ctypes.c_uint32 * 3)()
        _check(self.lib, self.lib.fa_bundle_check(self._handle, arr, len(arr),
                                                  num_sms, grid))
        return tuple(grid)

    def workspace_bytes(self, tensors):
        """Bytes the runtime allocates for the workspace when `tensors`
        (by role, as for launch) pass none of it; 0 for a plain bundle."""
        if not self.workspace:
            return 0
        arr = tensor_array(tensors)
        out = ctypes.c_int64()
        _check(self.lib, self.lib.fa_bundle_workspace_bytes(
            self._handle, arr, len(arr), ctypes.byref(out)))
        return out.value

    def launch(self, tensors, stream=None):
        """Queues the kernel(s) on `stream` (a CUstream handle as int, or
        None). Workspace buffers not in `tensors` are allocated (and freed)
        by the runtime, stream-ordered."""
        arr = self._checked_array(tensors)
        if stream is not None:
            (stream,) = _int64_list("stream", "the handle", [stream])
        self.launch_packed(arr, stream)

    def launch_packed(self, arr, stream=None):
        """launch() of an array pack() made (fresh outputs that overlap
        nothing: the caller's guarantee); `stream` an int or None."""
        _check(self.lib, self.lib.fa_bundle_launch(
            self._handle, arr, len(arr), ctypes.c_void_p(stream or 0)))


def driver_check():
    """Number of usable GPUs; raises RuntimeLibraryError when there is none."""
    lib = library()
    n = ctypes.c_int()
    _check(lib, lib.fa_driver_check(ctypes.byref(n)))
    return n.value
