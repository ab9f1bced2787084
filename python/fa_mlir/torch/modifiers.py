"""FlexAttention's score_mod and mask_mod, traced into fa.attention's regions.

`trace(where, score_mod, mask_mod)` calls each Python function once under
torch's make_fx with fake 0-d tensors standing for the score (float32) and
the batch, head, query and key indices (int32, as FlexAttention passes
them), and writes the aten graph it records as the body of the
`score_mod`/`mask_mod` region of fa.attention (docs/Modifiers.md): arith
and math ops on scalars, `tensor.extract` from the tensors the function
closes over, which become the op's `captures` (_region.py writes them).
Why make_fx and not torch.fx.symbolic_trace or proxy objects:
docs/Python.md, *Score and mask functions*.
"""
import inspect
import os
from dataclasses import dataclass
from typing import Optional, Tuple

import torch

from ..errors import ArgumentError, UnsupportedError
from . import _trace_memo
from ._region import (CAPTURE_DTYPES, MASK_ARGS, SCORE_ARGS,  # noqa: F401
                      _INDEX_DTYPE, ModifierError, _Captures, _Region,
                      capture_type, describe, supported_ops)


@dataclass(frozen=True)
class Modifiers:
    """The regions of one call: their MLIR text (None: no such region), the
    captures' MLIR types and the tensors themselves, in operand order, and
    which function(s) read each ("score_mod", "mask_mod" or both)."""
    score_mod: Optional[str]
    mask_mod: Optional[str]
    capture_types: Tuple[str, ...]
    captures: Tuple[torch.Tensor, ...]
    readers: Tuple[str, ...] = ()


_memo = _trace_memo.Memo()


def trace(where, score_mod, mask_mod, device=None):
    """Modifiers of a call, or None when both functions are None. Raises
    ModifierError (an ArgumentError) naming the argument, the function
    and what in it cannot be traced. Remembered by what the functions can
    read (_trace_memo), so that a loop does not trace on every call.
    `device`: the call's (q's); the functions are traced on scalars there,
    so that they may index the tensors they capture, which live there too
    (CPU scalars indexing a CUDA capture fail to trace)."""
    if score_mod is None and mask_mod is None:
        return None
    device = torch.device(device or "cpu")
    key = _trace_memo.key(score_mod, mask_mod)
    key = None if key is None else key + (device.type,)
    mods = _memo.get(key)
    if mods is None:
        mods = _trace(where, score_mod, mask_mod, device)
        _memo.put(key, mods)
    return mods


def _trace(where, score_mod, mask_mod, device):
    captures = _Captures()
    texts = {}
    originals = {}
    for role, fn, args in (("score_mod", score_mod, SCORE_ARGS),
                           ("mask_mod", mask_mod, MASK_ARGS)):
        if fn is None:
            continue
        _check_callable(where, role, fn, len(args))
        if device.type != "cpu":
            fn = _with_host_copies(fn, originals)
        texts[role] = _trace_one(where, role, fn, len(args), captures,
                                 torch.device("cpu"))
    types = tuple(captures.types())
    tensors = tuple(originals.get(id(t), t) for t in captures.tensors)
    return Modifiers(
        *(_with_header(texts.get(role), role, types)
          for role in ("score_mod", "mask_mod")), types,
        tensors, tuple(captures.readers))


class _TensorIndexing(torch.overrides.TorchFunctionMode):
    """`captured[i, j]` with traced 0-d integer indices as aten.index (a
    gather), not as item() and select: torch 2.11's make_fx guards select's
    bounds on the unbacked item() and fails (stage 5 on an H100,
    2026-12-06); 2.15 traces either. Other indexing is left as it is."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.__getitem__ and len(args) == 2:
            items = args[1] if isinstance(args[1], tuple) else (args[1],)
            if items and all(_traced_index(i) for i in items):
                return torch.ops.aten.index.Tensor(args[0], list(items))
        return func(*args, **(kwargs or {}))


def _traced_index(i):
    return (isinstance(i, torch.Tensor) and i.dim() == 0 and
            not i.is_floating_point() and i.dtype != torch.bool)


def _with_host_copies(fn, originals):
    """`fn` reading CPU copies of the device tensors its closure cells and
    global names hold: make_fx indexes a device tensor with its fake index
    through a data-dependent item() (stage 5 on an H100, 2026-12-06), a CPU
    one it traces. `originals` maps each copy (by id) back to its tensor,
    which the call passes as the capture. Tensors reached otherwise (an
    attribute, a list) stay as they are."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return fn

    def host(value):
        if isinstance(value, torch.Tensor) and value.device.type != "cpu":
            copy = value.detach().cpu()
            originals[id(copy)] = value
            return copy
        return value

    import types
    cells = tuple(types.CellType(host(c.cell_contents)) if _filled(c) else c
                  for c in (fn.__closure__ or ()))
    names = {n: host(fn.__globals__[n]) for n in code.co_names
             if n in fn.__globals__}
    changed = any(v is not fn.__globals__[n] for n, v in names.items())
    scope = {**fn.__globals__, **names} if changed else fn.__globals__
    copy = types.FunctionType(code, scope, fn.__name__, fn.__defaults__,
                              cells or None)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    return copy


def _filled(cell):
    try:
        cell.cell_contents
        return True
    except ValueError:  # an empty cell (a name not bound yet)
        return False


def _trace_one(where, role, fn, arity, captures, device):
    """The region body of one function."""
    graph = _make_graph(where, role, fn, arity, device)
    return _Region(where, role, fn, captures).emit(graph)


def check_captures(where, mods, q):
    """Captured tensors must be on q's device and not need a gradient (the
    backward computes none for them yet)."""
    for i, (t, reader) in enumerate(zip(mods.captures, mods.readers)):
        name = (f"{reader}'s captured tensor #{i} (shape {list(t.shape)}, "
                f"{t.dtype})")
        if t.device != q.device:
            raise ArgumentError(f"{where}: {name} is on {t.device}, expected "
                                f"{q.device} (the device of query)")
        if t.requires_grad and torch.is_grad_enabled():
            raise UnsupportedError(
                f"{where}: {name} requires grad; gradients of captured "
                "tensors are not computed yet (pass it detached, or call "
                "under torch.no_grad())")


def _check_callable(where, role, fn, arity):
    names = SCORE_ARGS if role == "score_mod" else MASK_ARGS
    wanted = f"{role}({', '.join(names)})"
    if not callable(fn):
        raise ModifierError(f"{where}: {role} must be a function "
                            f"{wanted} or None, got {type(fn).__name__}")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return  # a builtin without a signature: calling it will tell
    try:
        sig.bind(*range(arity))
    except TypeError as e:
        raise ModifierError(
            f"{where}: {role} {describe(fn)} must take {arity} positional "
            f"arguments, {wanted} (FlexAttention's signature); its "
            f"signature is {sig} ({e})") from None


def _example_args(arity, device):
    score = [torch.zeros((), dtype=torch.float32, device=device)] if arity == 5 else []
    return score + [torch.zeros((), dtype=_INDEX_DTYPE, device=device)
                    for _ in range(4)]


def _make_graph(where, role, fn, arity, device):
    """make_fx's aten graph of fn on fake scalars. Python control flow on a
    traced value (if, and/or, bool(), int(), float(), math.*) needs its
    value, which a fake tensor does not have: that, and any other failure,
    is reported naming the function and its line."""
    from torch.fx.experimental.proxy_tensor import make_fx
    try:
        with _TensorIndexing():
            return make_fx(fn, tracing_mode="fake", _allow_non_fake_inputs=True
                           )(*_example_args(arity, device))
    except Exception as e:  # noqa: BLE001  (reported with the function)
        raise ModifierError(
            f"{where}: {role} {describe(fn)} cannot be traced{_user_line(e)}: "
            f"{_explain(e)}") from e


def _explain(error):
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if "data-dependent" in str(error) or "DataDependent" in type(error).__name__:
        return ("it needs the value of a traced tensor in Python (an `if`, "
                "`and`/`or`, bool(), int(), float() or a math.* function of "
                "the score or an index); the function is traced once for all "
                "scores, so write such choices with torch.where and torch "
                "functions")
    return f"{type(error).__name__}: {text}"


def _user_line(error):
    """' at file:line' of the innermost frame outside torch, if any."""
    tb, where = error.__traceback__, ""
    torch_dir = os.path.dirname(torch.__file__)
    here = os.path.dirname(os.path.abspath(__file__))
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        if not path.startswith((torch_dir, here)) and "<frozen" not in path:
            where = f" at {os.path.basename(path)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def _with_header(body, role, capture_types):
    """The region text: its block's arguments (the FlexAttention arguments,
    then one per capture) and the body."""
    if body is None:
        return None
    args = ([("score", "f32")] if role == "score_mod" else []) + [
        (n, "index") for n in MASK_ARGS] + [
        (f"cap{i}", t) for i, t in enumerate(capture_types)]
    params = ", ".join(f"%{n}: {t}" for n, t in args)
    return "{\n^bb0(" + params + "):\n" + body + "}"
