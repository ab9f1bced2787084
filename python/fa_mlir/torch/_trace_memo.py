"""A memo of traced modifiers, keyed by everything a trace can depend on.

Tracing a score_mod with make_fx takes tens of milliseconds, too much for
every call of an eager loop, and a function object is no key: a closure
over a Python number traces to another constant when the number changes.
The key here is the function's code and the values it can read by name —
closure cells, defaults, the globals its code names (and the same,
recursively, of the Python functions among them) — with tensors by
identity, dtype and shape (their contents are read at launch, except a 0-d
tensor's value, which becomes a constant and so is part of the key).
Anything whose attributes could change behind the key (an arbitrary object,
an nn.Module, a user module) makes the function unkeyable: it is traced on
every call, which is always right, only slower.
"""
import builtins
import functools
import types

import torch

# Modules whose attributes a function may read without being part of the
# key (library functions do not change between calls).
_STABLE_MODULES = ("torch", "math", "operator", "numpy", "functools",
                   "builtins", "cmath")
_LIMIT = 256


class _NoKey(Exception):
    """The function reads something that cannot be keyed."""


class _Ref:
    """Identity as a dict key (a tensor's == is elementwise); keeps the
    object alive, so that its id is not reused while the memo holds it."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __hash__(self):
        return id(self.obj)

    def __eq__(self, other):
        return isinstance(other, _Ref) and other.obj is self.obj


def _stable(obj):
    name = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
    return isinstance(name, str) and name.split(".")[0] in _STABLE_MODULES


def fingerprint(value, seen=None):
    """A hashable key of `value` as a traced function reads it; _NoKey when
    there is none."""
    seen = set() if seen is None else seen
    if value is None or isinstance(value, (bool, int, float, str, complex,
                                           bytes)):
        return (type(value), value)
    if isinstance(value, (torch.dtype, torch.device, torch.layout)):
        return value
    if isinstance(value, torch.Tensor):
        if value.dim() == 0:  # its value is a constant of the region
            if value.device.type != "cpu":
                raise _NoKey("a 0-d tensor off the CPU")  # no sync here
            return ("scalar", _Ref(value), value.dtype, value.item())
        return ("tensor", _Ref(value), value.dtype, tuple(value.shape),
                value.device, value.requires_grad)
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(fingerprint(v, seen) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((fingerprint(k, seen), fingerprint(v, seen))
                              for k, v in value.items()))
    if isinstance(value, types.ModuleType):
        if value.__name__.split(".")[0] not in _STABLE_MODULES:
            raise _NoKey(value.__name__)
        return ("module", _Ref(value))
    if isinstance(value, functools.partial):
        return ("partial", fingerprint(value.func, seen),
                fingerprint(value.args, seen),
                fingerprint(value.keywords, seen))
    if isinstance(value, types.FunctionType) and not _stable(value):
        return _function(value, seen)
    if callable(value) and _stable(value):
        return ("library", _Ref(value))  # torch.where, math.log, int, ...
    raise _NoKey(type(value).__name__)


def _names(code):
    """The global and attribute names `code` and its nested code read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _function(fn, seen):
    if fn in seen:
        return ("recursive", _Ref(fn))
    seen.add(fn)
    cells = []
    for cell in fn.__closure__ or ():
        try:
            cells.append(fingerprint(cell.cell_contents, seen))
        except ValueError:  # an empty cell
            cells.append(("empty",))
    names = []
    for name in sorted(_names(fn.__code__)):
        if name in fn.__globals__:
            names.append((name, fingerprint(fn.__globals__[name], seen)))
        elif not hasattr(builtins, name):
            names.append((name, "missing"))
    return ("function", fn.__code__, tuple(cells),
            fingerprint(fn.__defaults__, seen),
            fingerprint(fn.__kwdefaults__, seen), tuple(names))


def key(*functions):
    """The memo key of tracing `functions` (None allowed), or None when one
    cannot be keyed."""
    try:
        return (torch.get_default_dtype(),) + tuple(
            fingerprint(f) for f in functions)
    except _NoKey:
        return None
    except Exception:  # noqa: BLE001  (a value that breaks fingerprinting:
        return None    # no memo, the trace itself will say what is wrong)


class Memo:
    """key -> traced result, the oldest dropped beyond a limit."""

    def __init__(self, limit=_LIMIT):
        self.limit = limit
        self.entries = {}

    def get(self, k):
        return None if k is None else self.entries.get(k)

    def put(self, k, value):
        if k is None:
            return
        if len(self.entries) >= self.limit:
            self.entries.pop(next(iter(self.entries)))
        self.entries[k] = value
