"""The emitter of modifier regions: one make_fx graph of a score_mod or
mask_mod as the body of fa.attention's region (docs/Modifiers.md).

Values are scalars of the region (arith and math ops, each computed in the
dtype torch gives its result) or views of a captured tensor indexed in some
dims (tensor.extract once every dim has an index). modifiers.py traces the
functions and assembles the regions.
"""
import operator
import os
import re
import struct
from dataclasses import dataclass
from typing import Optional

import torch

from ..errors import ArgumentError

_INDEX_DTYPE = torch.int32  # FlexAttention's b, h, q_idx, kv_idx
SCORE_ARGS = ("score", "b", "h", "q_idx", "kv_idx")
MASK_ARGS = ("b", "h", "q_idx", "kv_idx")
# Element types a modifier computes in and a capture may have.
_MLIR = {torch.float32: "f32", torch.float64: "f64", torch.int32: "i32",
         torch.int64: "i64", torch.bool: "i1"}
CAPTURE_DTYPES = tuple(_MLIR)


def describe(fn):
    """`name (file:line)` of a function, for messages."""
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    code = getattr(fn, "__code__", None)
    if code is None:
        return repr(name)
    return (f"{name!r} ({os.path.basename(code.co_filename)}:"
            f"{code.co_firstlineno})")


class ModifierError(ArgumentError):
    """A score_mod/mask_mod that cannot become a region."""


class _Captures:
    """The tensors the functions read, each once (by identity), shared by
    both regions (a region's block has an argument for every capture)."""

    def __init__(self):
        self.tensors = []
        self.readers = []

    def index(self, tensor, reader):
        for i, t in enumerate(self.tensors):
            if t is tensor:
                if reader not in self.readers[i]:
                    self.readers[i] += f" and {reader}"
                return i
        self.tensors.append(tensor)
        self.readers.append(reader)
        return len(self.tensors) - 1

    def types(self):
        for t in self.tensors:
            yield capture_type(t)


def capture_type(t):
    """tensor<?x...xT>: every dim dynamic, so that one kernel serves every
    size of the capture (document ids [B, S] for every B and S)."""
    return "tensor<" + "?x" * t.dim() + _MLIR[t.dtype] + ">"


# -- values during emission -------------------------------------------------

@dataclass
class _Scalar:
    """An SSA value of the region: `name` of element type `dtype`.
    `wrapped`: a Python number (torch's type promotion ranks those below
    tensors). `nonneg`: known >= 0 (an index needs no wrap-around)."""
    name: str
    dtype: torch.dtype
    wrapped: bool = False
    nonneg: bool = False
    index: Optional[str] = None  # the same value as an `index`, if known


@dataclass
class _View:
    """Capture `capture` with some dims indexed: `indices[d]` is the index
    value of dim d or None. Extracted once every dim has one."""
    capture: int
    dtype: torch.dtype
    indices: list


def _is_number(x):
    return isinstance(x, (bool, int, float))


def _number_dtype(x):
    if isinstance(x, bool):
        return torch.bool
    return torch.int64 if isinstance(x, int) else torch.float32


def _promote(*values):
    """torch.result_type over values (0-d tensors and Python numbers)."""
    def example(v):
        if isinstance(v, _Scalar):
            if v.wrapped:
                return (False if v.dtype == torch.bool else
                        0.0 if v.dtype.is_floating_point else 0)
            return torch.empty((), dtype=v.dtype)
        return v
    out = example(values[0])
    for v in values[1:]:
        dtype = torch.result_type(out, example(v))
        out = torch.empty((), dtype=dtype)
    return out.dtype if isinstance(out, torch.Tensor) else _number_dtype(out)


def _float_literal(value, dtype):
    if dtype == torch.float64:
        (bits,) = struct.unpack("<Q", struct.pack("<d", value))
        return f"0x{bits:016X}"
    try:
        (bits,) = struct.unpack("<I", struct.pack("<f", value))
    except OverflowError:
        bits = 0x7F800000 if value > 0 else 0xFF800000
    return f"0x{bits:08X}"


_CMP = {"eq": ("oeq", "eq", "eq"), "ne": ("une", "ne", "ne"),
        "lt": ("olt", "slt", "ult"), "le": ("ole", "sle", "ule"),
        "gt": ("ogt", "sgt", "ugt"), "ge": ("oge", "sge", "uge")}
# (math.erf is left out: fa-cpu-pipeline does not lower it, see
# docs/Python.md.)
_MATH = {"exp": "math.exp", "exp2": "math.exp2", "log": "math.log",
         "log2": "math.log2", "log1p": "math.log1p", "expm1": "math.expm1",
         "sqrt": "math.sqrt", "rsqrt": "math.rsqrt", "tanh": "math.tanh",
         "sin": "math.sin", "cos": "math.cos", "tan": "math.tan",
         "atan": "math.atan", "floor": "math.floor",
         "ceil": "math.ceil", "round": "math.roundeven", "trunc": "math.trunc"}
_IDENTITY = ("lift_fresh_copy", "clone", "alias", "detach", "view",
             "reshape", "_unsafe_view")
_CASTS = ("_to_copy", "to", "_to_dtype", "convert_element_type", "type_as")
# Scalars made in the function: the position of the fill value among the
# op's arguments, or (value,).
_CONSTANTS = {"scalar_tensor": 0, "full": 1, "full_like": 1, "new_full": 2,
              "zeros_like": (0,), "ones_like": (1,), "new_zeros": (0,),
              "new_ones": (1,), "zeros": (0,), "ones": (1,)}
_IGNORED = ("_assert_scalar", "sym_constrain_range_for_size",
            "sym_constrain_range", "_assert_async")
_SYM_OPS = {operator.add: "add", operator.sub: "sub", operator.mul: "mul",
            operator.floordiv: "floor_divide", operator.mod: "remainder",
            operator.neg: "neg", operator.truediv: "div"}


def supported_ops():
    """The aten ops a modifier may use (for messages and docs)."""
    return sorted(set(_CMP) | set(_MATH) | set(_IDENTITY) | set(_CASTS) |
                  set(_CONSTANTS) | set(_Region.ELEMENTWISE) |
                  {"select", "index", "where", "clamp", "clamp_min",
                   "clamp_max", "_local_scalar_dense"})


class _Region:
    """Writes one function's aten graph as a region body."""

    ELEMENTWISE = ("add", "sub", "rsub", "mul", "div", "floor_divide",
                   "remainder", "fmod", "neg", "abs", "maximum", "minimum",
                   "pow", "reciprocal", "square", "relu", "sigmoid",
                   "logical_and", "logical_or", "logical_xor", "logical_not",
                   "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not")

    def __init__(self, where, role, fn, captures):
        self.where, self.role, self.fn = where, role, fn
        self.captures = captures
        self.lines = []
        self.count = 0
        self.consts = {}
        self.env = {}

    # -- output -------------------------------------------------------------
    def emit(self, graph):
        placeholders = SCORE_ARGS if self.role == "score_mod" else MASK_ARGS
        args = iter(placeholders)
        for node in graph.graph.nodes:
            if node.op == "placeholder":
                self.env[node] = self._argument(next(args))
            elif node.op == "get_attr":
                self.env[node] = self._constant_tensor(
                    getattr(graph, node.target))
            elif node.op == "call_function":
                self.env[node] = self._call(node)
            elif node.op == "output":
                self._yield(node.args[0])
        return _renumber(_drop_unused(self.lines))

    def _yield(self, result):
        value = self._value(result)
        if isinstance(value, (tuple, list)) or not (
                isinstance(value, _Scalar) or _is_number(value)):
            self.fail(f"returns {self._what(result)}, not a scalar (one "
                      "score or mask value per call)")
        dtype = value.dtype if isinstance(value, _Scalar) else \
            _number_dtype(value)
        if self.role == "mask_mod":
            if dtype != torch.bool:
                self.fail(f"must return a bool (True keeps the key), got "
                          f"{dtype}")
            out = self.cast(value, torch.bool)
            self.lines.append(f"  fa.yield {out.name} : i1\n")
        else:
            if dtype == torch.bool:
                self.fail("must return the score (a float), got a bool; a "
                          "mask is mask_mod's (or torch.where(cond, score, "
                          "-inf))")
            out = self.cast(value, torch.float32)
            self.lines.append(f"  fa.yield {out.name} : f32\n")

    def _what(self, node):
        """A graph value in words, for messages."""
        val = node.meta.get("val") if isinstance(node, torch.fx.Node) \
            else node
        if isinstance(val, torch.Tensor):
            return f"a tensor of shape {list(val.shape)}"
        return f"a {type(val).__name__}"

    def fail(self, message):
        raise ModifierError(f"{self.where}: {self.role} {describe(self.fn)}"
                            f": {message}")

    # -- SSA ----------------------------------------------------------------
    def op(self, text, dtype, **flags):
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"  {name} = {text}\n")
        return _Scalar(name, dtype, **flags)

    def constant(self, value, dtype):
        key = (repr(value), dtype)
        if key not in self.consts:
            if dtype == torch.bool:
                lit = "true" if value else "false"
                text = f"arith.constant {lit}"
            elif dtype.is_floating_point:
                text = (f"arith.constant {_float_literal(float(value), dtype)}"
                        f" : {_MLIR[dtype]}")
            else:
                info = torch.iinfo(dtype)
                if not info.min <= int(value) <= info.max:
                    self.fail(f"the constant {value} does not fit {dtype}")
                text = f"arith.constant {int(value)} : {_MLIR[dtype]}"
            self.consts[key] = self.op(
                text, dtype, nonneg=not dtype.is_floating_point and value >= 0)
        return self.consts[key]

    def index_constant(self, value):
        key = (value, "index")
        if key not in self.consts:
            self.consts[key] = self.op(f"arith.constant {value} : index",
                                       torch.int64, nonneg=value >= 0)
        return self.consts[key]

    def cast(self, value, dtype):
        """`value` (a _Scalar or a Python number) as `dtype`, with torch's
        conversions (float -> int truncates, x -> bool is x != 0)."""
        if _is_number(value):
            return self.constant(value, dtype)
        src = value.dtype
        if src == dtype:
            return value
        if dtype not in _MLIR:
            self.fail(f"computes in {dtype}; a modifier computes in "
                      f"{', '.join(map(str, _MLIR))}")
        a, b = _MLIR[src], _MLIR[dtype]
        x = value.name
        if dtype == torch.bool:
            zero = self.constant(0, src)
            if src.is_floating_point:
                return self.op(f"arith.cmpf une, {x}, {zero.name} : {a}", dtype)
            return self.op(f"arith.cmpi ne, {x}, {zero.name} : {a}", dtype)
        if src == torch.bool:
            conv = "uitofp" if dtype.is_floating_point else "extui"
        elif src.is_floating_point and dtype.is_floating_point:
            conv = "extf" if dtype.itemsize > src.itemsize else "truncf"
        elif src.is_floating_point:
            conv = "fptosi"
        elif dtype.is_floating_point:
            conv = "sitofp"
        else:
            conv = "extsi" if dtype.itemsize > src.itemsize else "trunci"
        return self.op(f"arith.{conv} {x} : {a} to {b}", dtype,
                       nonneg=value.nonneg and not dtype.is_floating_point)

    # -- nodes --------------------------------------------------------------
    def _argument(self, name):
        if name == "score":
            return _Scalar("%score", torch.float32)
        # The index arguments are `index`; FlexAttention's are int32 tensors.
        x = self.op(f"arith.index_cast %{name} : index to i32", _INDEX_DTYPE,
                    nonneg=True)
        x.index = f"%{name}"
        return x

    def _constant_tensor(self, tensor):
        if not isinstance(tensor, torch.Tensor):
            self.fail(f"reads a {type(tensor).__name__} constant")
        if tensor.dtype not in CAPTURE_DTYPES:
            self.fail(f"reads a tensor of dtype {tensor.dtype} (shape "
                      f"{list(tensor.shape)}); a captured tensor must be "
                      f"one of {', '.join(map(str, CAPTURE_DTYPES))}")
        if tensor.dim() == 0:
            # A scalar: a constant of the region (its value now).
            return self.constant(tensor.item(), tensor.dtype)
        return _View(self.captures.index(tensor, self.role), tensor.dtype,
                     [None] * tensor.dim())

    def _value(self, arg):
        if isinstance(arg, torch.fx.Node):
            return self.env[arg]
        if _is_number(arg) or arg is None:
            return arg
        if isinstance(arg, (list, tuple)):
            return type(arg)(self._value(a) for a in arg)
        if isinstance(arg, (torch.dtype, str, torch.device, torch.layout,
                            torch.memory_format)):
            return arg
        self.fail(f"uses a {type(arg).__name__} ({arg!r})")

    def _call(self, node):
        target = node.target
        if target in _SYM_OPS:
            return self._sym(node, _SYM_OPS[target])
        if not isinstance(target, torch._ops.OpOverload):
            self.fail(f"calls {getattr(target, '__name__', target)}, which a "
                      "modifier region cannot hold")
        name = target.overloadpacket.__name__
        if name.endswith("_") and not name.startswith("_"):
            name = name[:-1]  # in place: a new SSA value all the same
            if any(isinstance(self._value(a), _View) for a in node.args[:1]):
                self.fail(f"writes into a captured tensor (aten.{name}_)")
        if name in _IGNORED:
            return None
        args = [self._value(a) for a in node.args]
        kwargs = {k: self._value(v) for k, v in node.kwargs.items()}
        if name in ("select", "index"):
            return self._index(name, args)
        if name in ("slice", "narrow", "expand", "unsqueeze") and \
                isinstance(args[0], _View):
            self.fail(f"slices a captured tensor (aten.{name}); index every "
                      "dim with a scalar")
        views = [a for a in args if isinstance(a, _View)]
        if views:
            self.fail(f"applies aten.{name} to a whole captured tensor "
                      f"({self._what(node.args[0])}); index it down to one "
                      "element first (slopes[h] * 2, not (slopes * 2)[h]), or "
                      "compute the tensor before calling attention")
        return self._scalar_op(node, name, args, kwargs)

    def _out_dtype(self, node):
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor):
            if val.dim() != 0:
                self.fail(f"makes a tensor of shape {list(val.shape)}; a "
                          "modifier computes on scalars")
            return val.dtype
        self.fail(f"aten.{node.target} gives no tensor")

    def _scalar_op(self, node, name, args, kwargs):
        if name == "_local_scalar_dense":  # .item(), and tensor indices
            x = args[0]
            return _Scalar(x.name, x.dtype, True, x.nonneg, x.index) \
                if isinstance(x, _Scalar) else x
        dtype = self._out_dtype(node)
        if name in _IDENTITY:
            return self.cast(args[0], dtype)
        if name in _CASTS:
            return self.cast(args[0], dtype)
        if name in _CONSTANTS:
            value = _CONSTANTS[name]
            if isinstance(value, int) and not isinstance(value, bool):
                value = args[value]  # the fill value's position
            else:
                value = value[0]
            return self._from_number(value, dtype)
        if name in _CMP:
            return self._compare(name, args[0], args[1])
        if name in _MATH:
            return self._math(name, args[0], dtype)
        if name == "where":
            cond = self.cast(args[0], torch.bool)
            a, b = self.cast(args[1], dtype), self.cast(args[2], dtype)
            return self.op(f"arith.select {cond.name}, {a.name}, {b.name} : "
                           f"{_MLIR[dtype]}", dtype,
                           nonneg=a.nonneg and b.nonneg)
        if name in ("clamp", "clamp_min", "clamp_max"):
            return self._clamp(name, args, kwargs, dtype)
        if name in self.ELEMENTWISE:
            return self._elementwise(name, args, kwargs, dtype)
        self.fail(f"uses aten.{name}, which a modifier region cannot hold; "
                  f"supported: {', '.join(supported_ops())}")

    def _from_number(self, value, dtype):
        if isinstance(value, _Scalar):
            return self.cast(value, dtype)
        return self.constant(value, dtype)

    # -- indexing -------------------------------------------------------------
    def _index(self, name, args):
        view = args[0]
        if not isinstance(view, _View):
            self.fail(f"indexes a value that is not a captured tensor "
                      f"(aten.{name})")
        indices = list(view.indices)
        free = [d for d, i in enumerate(indices) if i is None]
        if name == "select":
            dim, idx = args[1], args[2]
            picks = [(free[dim], idx)]
        else:
            if any(i is None for i in args[1]):
                self.fail("slices a captured tensor (`:` or None in an "
                          "index); index every dim with a scalar")
            picks = list(zip(free, args[1]))
        for d, idx in picks:
            indices[d] = self._index_value(view.capture, d, idx)
        if any(i is None for i in indices):
            return _View(view.capture, view.dtype, indices)
        names = ", ".join(i for i in indices)
        ty = capture_type(self.captures.tensors[view.capture])
        return self.op(f"tensor.extract %cap{view.capture}[{names}] : {ty}",
                       view.dtype)

    def _index_value(self, capture, dim, idx):
        """`idx` as an `index`, a negative one counted from the end (as
        torch does)."""
        if _is_number(idx):
            if isinstance(idx, bool) or not isinstance(idx, int):
                self.fail(f"indexes a captured tensor with {idx!r}")
            if idx >= 0:
                return self.index_constant(idx).name
            pos = self.index_constant(idx)
            return self._plus_dim(capture, dim, pos).name
        if not isinstance(idx, _Scalar) or idx.dtype == torch.bool or \
                idx.dtype.is_floating_point:
            self.fail("indexes a captured tensor with a "
                      f"{getattr(idx, 'dtype', type(idx).__name__)} value; "
                      "indices are integers")
        if idx.index is not None:
            return idx.index
        x = self.op(f"arith.index_cast {idx.name} : {_MLIR[idx.dtype]} to "
                    "index", torch.int64, nonneg=idx.nonneg)
        if idx.nonneg:
            return x.name
        zero = self.index_constant(0)
        neg = self.op(f"arith.cmpi slt, {x.name}, {zero.name} : index",
                      torch.bool)
        wrapped = self._plus_dim(capture, dim, x)
        return self.op(f"arith.select {neg.name}, {wrapped.name}, {x.name} : "
                       "index", torch.int64).name

    def _plus_dim(self, capture, dim, x):
        ty = capture_type(self.captures.tensors[capture])
        size = self.op(f"tensor.dim %cap{capture}, "
                       f"{self.index_constant(dim).name} : {ty}", torch.int64)
        return self.op(f"arith.addi {x.name}, {size.name} : index",
                       torch.int64)

    # -- arithmetic -----------------------------------------------------------
    def _compare(self, name, a, b):
        dtype = _promote(a, b)
        x, y = self.cast(a, dtype), self.cast(b, dtype)
        fpred, spred, upred = _CMP[name]
        ty = _MLIR[dtype]
        if dtype.is_floating_point:
            return self.op(f"arith.cmpf {fpred}, {x.name}, {y.name} : {ty}",
                           torch.bool)
        pred = upred if dtype == torch.bool else spred
        return self.op(f"arith.cmpi {pred}, {x.name}, {y.name} : {ty}",
                       torch.bool)

    def _math(self, name, a, dtype):
        x = self.cast(a, dtype)
        if not dtype.is_floating_point:
            if name in ("floor", "ceil", "round", "trunc"):
                return x  # integers are whole already
            self.fail(f"aten.{name} on {dtype}")
        return self.op(f"{_MATH[name]} {x.name} : {_MLIR[dtype]}", dtype)

    def _clamp(self, name, args, kwargs, dtype):
        low = kwargs.get("min", args[1] if len(args) > 1 else None)
        high = kwargs.get("max", args[2] if len(args) > 2 else None)
        if name == "clamp_max":
            low, high = None, args[1]
        x = self.cast(args[0], dtype)
        if low is not None:
            x = self._binary("maximum", x, self.cast(low, dtype), dtype)
        if high is not None:
            x = self._binary("minimum", x, self.cast(high, dtype), dtype)
        return x

    def _binary(self, name, x, y, dtype):
        """x `name` y, both already of `dtype`."""
        ty = _MLIR[dtype]
        flt = dtype.is_floating_point
        both = x.nonneg and y.nonneg
        if dtype == torch.bool:
            ops = {"maximum": "ori", "minimum": "andi", "mul": "andi",
                   "bitwise_and": "andi", "bitwise_or": "ori",
                   "bitwise_xor": "xori"}
            if name not in ops:
                self.fail(f"aten.{name} on bool values")
            return self.op(f"arith.{ops[name]} {x.name}, {y.name} : i1", dtype)
        ops = {"add": ("addf", "addi", both), "sub": ("subf", "subi", False),
               "mul": ("mulf", "muli", both),
               "maximum": ("maximumf", "maxsi", x.nonneg or y.nonneg),
               "minimum": ("minimumf", "minsi", both),
               "fmod": ("remf", "remsi", both),
               "bitwise_and": (None, "andi", x.nonneg or y.nonneg),
               "bitwise_or": (None, "ori", both),
               "bitwise_xor": (None, "xori", both)}
        if name not in ops or (flt and ops[name][0] is None):
            self.fail(f"aten.{name} on {dtype}")
        fop, iop, nonneg = ops[name]
        return self.op(f"arith.{fop if flt else iop} {x.name}, {y.name} : "
                       f"{ty}", dtype, nonneg=nonneg and not flt)

    def _elementwise(self, name, args, kwargs, dtype):
        if name in ("neg", "abs", "reciprocal", "square", "relu", "sigmoid",
                    "logical_not", "bitwise_not"):
            return self._unary(name, args[0], dtype)
        if name.startswith("logical_"):
            x, y = (self.cast(a, torch.bool) for a in args[:2])
            op = {"logical_and": "bitwise_and", "logical_or": "bitwise_or",
                  "logical_xor": "bitwise_xor"}[name]
            return self._binary(op, x, y, torch.bool)
        if name == "rsub":  # other - self
            args = [args[1], args[0]] + list(args[2:])
            name = "sub"
        alpha = kwargs.get("alpha", args[2] if len(args) > 2 and name in (
            "add", "sub") else 1)
        mode = kwargs.get("rounding_mode")
        if name == "div" and mode is None and not dtype.is_floating_point:
            self.fail("true division into an integer")
        x, y = self.cast(args[0], dtype), self.cast(args[1], dtype)
        if alpha != 1:
            y = self._binary("mul", y, self.cast(alpha, dtype), dtype)
        if name == "div":
            return self._divide(x, y, dtype, mode)
        if name == "floor_divide":
            return self._divide(x, y, dtype, "floor")
        if name == "remainder":
            return self._remainder(x, y, dtype)
        if name == "pow":
            return self._pow(x, args[1], dtype)
        return self._binary(name, x, y, dtype)

    def _unary(self, name, a, dtype):
        ty = _MLIR[dtype]
        if name in ("logical_not", "bitwise_not"):
            if name == "logical_not" or dtype == torch.bool:
                x = self.cast(a, torch.bool)
                true = self.constant(True, torch.bool)
                return self.op(f"arith.xori {x.name}, {true.name} : i1",
                               torch.bool)
            x = self.cast(a, dtype)
            ones = self.constant(-1, dtype)
            return self.op(f"arith.xori {x.name}, {ones.name} : {ty}", dtype)
        x = self.cast(a, dtype)
        flt = dtype.is_floating_point
        if dtype == torch.bool:
            self.fail(f"aten.{name} on bool values")
        if name == "neg":
            if flt:
                return self.op(f"arith.negf {x.name} : {ty}", dtype)
            zero = self.constant(0, dtype)
            return self.op(f"arith.subi {zero.name}, {x.name} : {ty}", dtype)
        if name == "abs":
            if flt:
                return self.op(f"math.absf {x.name} : {ty}", dtype)
            # max(x, -x): fa-cpu-pipeline does not lower math.absi.
            neg = self._unary("neg", x, dtype)
            return self.op(f"arith.maxsi {x.name}, {neg.name} : {ty}", dtype,
                           nonneg=True)
        if name == "square":
            return self._binary("mul", x, x, dtype)
        if name == "relu":
            return self._binary("maximum", x, self.constant(0, dtype), dtype)
        if not flt:
            self.fail(f"aten.{name} on {dtype}")
        one = self.constant(1.0, dtype)
        if name == "reciprocal":
            return self.op(f"arith.divf {one.name}, {x.name} : {ty}", dtype)
        # sigmoid: 1 / (1 + exp(-x)), ops the backward can differentiate.
        neg = self.op(f"arith.negf {x.name} : {ty}", dtype)
        e = self.op(f"math.exp {neg.name} : {ty}", dtype)
        den = self.op(f"arith.addf {one.name}, {e.name} : {ty}", dtype)
        return self.op(f"arith.divf {one.name}, {den.name} : {ty}", dtype)

    def _divide(self, x, y, dtype, mode):
        ty = _MLIR[dtype]
        if dtype.is_floating_point:
            q = self.op(f"arith.divf {x.name}, {y.name} : {ty}", dtype)
            if mode is None:
                return q
            return self.op(f"math.{mode} {q.name} : {ty}", dtype)
        # Integer division by zero is undefined in the kernel.
        op = "floordivsi" if mode == "floor" else "divsi"
        return self.op(f"arith.{op} {x.name}, {y.name} : {ty}", dtype,
                       nonneg=x.nonneg and y.nonneg)

    def _remainder(self, x, y, dtype):
        """Python's (and torch's) remainder: the sign of the divisor."""
        ty = _MLIR[dtype]
        flt = dtype.is_floating_point
        r = self.op(f"arith.{'remf' if flt else 'remsi'} {x.name}, {y.name} "
                    f": {ty}", dtype)
        if x.nonneg and y.nonneg:
            r.nonneg = True
            return r
        zero = self.constant(0, dtype)
        cmp = "arith.cmpf une" if flt else "arith.cmpi ne"
        lt = "arith.cmpf olt" if flt else "arith.cmpi slt"
        nonzero = self.op(f"{cmp}, {r.name}, {zero.name} : {ty}", torch.bool)
        rneg = self.op(f"{lt}, {r.name}, {zero.name} : {ty}", torch.bool)
        yneg = self.op(f"{lt}, {y.name}, {zero.name} : {ty}", torch.bool)
        differ = self.op(f"arith.xori {rneg.name}, {yneg.name} : i1",
                         torch.bool)
        fix = self.op(f"arith.andi {nonzero.name}, {differ.name} : i1",
                      torch.bool)
        shifted = self._binary("add", r, y, dtype)
        return self.op(f"arith.select {fix.name}, {shifted.name}, {r.name} : "
                       f"{ty}", dtype)

    def _pow(self, x, exponent, dtype):
        ty = _MLIR[dtype]
        if isinstance(exponent, int) and not isinstance(exponent, bool) and \
                0 <= exponent <= 4:
            # Small integer powers as products (the backward differentiates
            # mulf; math.powf has no derivative rule).
            out = self.constant(1, dtype) if exponent == 0 else x
            for _ in range(exponent - 1):
                out = self._binary("mul", out, x, dtype)
            return out
        if not dtype.is_floating_point:
            self.fail("an integer power other than 0 to 4")
        e = self.cast(exponent, dtype)
        return self.op(f"math.powf {x.name}, {e.name} : {ty}", dtype)

    def _sym(self, node, name):
        """Arithmetic on Python integers (from .item()): int64 values that
        promote like Python numbers."""
        args = [self._value(a) for a in node.args]
        if any(isinstance(a, _View) for a in args):
            self.fail(f"{name} on a captured tensor")
        flt = any((isinstance(a, float)) or (isinstance(a, _Scalar) and
                                              a.dtype.is_floating_point)
                  for a in args) or name == "div"
        dtype = torch.float64 if flt else torch.int64
        if name == "neg":
            out = self._unary("neg", args[0], dtype)
        else:
            x, y = (self.cast(a, dtype) for a in args)
            if name == "div":
                out = self._divide(x, y, dtype, None)
            elif name == "floor_divide":
                out = self._divide(x, y, dtype, "floor")
            elif name == "remainder":
                out = self._remainder(x, y, dtype)
            else:
                out = self._binary(name, x, y, dtype)
        out.wrapped = True
        return out


def _drop_unused(lines):
    """The lines without definitions nothing reads (every op here is pure:
    the index casts of unused arguments, constants of folded paths)."""
    while True:
        text = "".join(lines)
        used = set(re.findall(r"%v\d+\b", text.replace(" = ", " := ")))
        defined = [re.match(r"\s*(%v\d+) = ", line) for line in lines]
        uses = {name: len(re.findall(re.escape(name) + r"\b", text))
                for name in used}
        keep = [line for line, d in zip(lines, defined)
                if d is None or uses.get(d.group(1), 0) > 1]
        if len(keep) == len(lines):
            return keep
        lines = keep


def _renumber(lines):
    """Values numbered in order, so that equal bodies have equal text."""
    text = "".join(lines)
    order = re.findall(r"^\s*(%v\d+) = ", text, flags=re.M)
    mapping = {old: f"%t{i}" for i, old in enumerate(order)}
    text = re.sub(r"%v\d+\b", lambda m: mapping[m.group(0)], text)
    return text.replace("%t", "%v")
