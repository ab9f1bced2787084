"""Checks of the public functions' arguments, and how floats reach MLIR.

Every check raises ArgumentError naming the function and the argument, and
none converts: Python's bool("no") is True and int(1.7) is 1, so a value of
the wrong type is refused rather than coerced into a different kernel.
"""
import math
import numbers
import struct

from .errors import ArgumentError


def _fail(where, name, wanted, value):
    raise ArgumentError(f"{where}: {name} must be {wanted}, got {value!r} "
                        f"({type(value).__name__})")


def _is_bool(value):
    return isinstance(value, bool) or (
        type(value).__module__ == "numpy" and
        type(value).__name__ in ("bool", "bool_"))


def check_bool(where, name, value):
    """True or False (numpy's bool too), never a truthy string or number."""
    if _is_bool(value):
        return bool(value)
    _fail(where, name, "True or False", value)


def is_int(value):
    """An integer that is not a bool (True is an int to Python)."""
    return isinstance(value, numbers.Integral) and not _is_bool(value)


# Sizes reach MLIR as int64 shape dims and index arithmetic; offsets of a
# size times a head dim times the batch must stay below 2^63.
MAX_SIZE = (1 << 31) - 1


def check_int(where, name, value, minimum, maximum=MAX_SIZE):
    """An int (not a bool, not a float that happens to be whole) in range."""
    if not is_int(value) or not minimum <= value <= maximum:
        _fail(where, name, f"an int in [{minimum}, {maximum}]", value)
    return int(value)


def check_window(where, window):
    """None, or (left, right) of ints >= 0."""
    if window is None:
        return
    if not isinstance(window, (tuple, list)) or len(window) != 2:
        raise ArgumentError(f"{where}: window must be (left, right), got "
                            f"{window!r}")
    for side, w in zip(("left", "right"), window):
        check_int(where, f"window {side}", w, 0)


def check_bias_flags(where, bias):
    """None, or (per_batch, per_head) of bools."""
    if bias is None:
        return
    if not isinstance(bias, (tuple, list)) or len(bias) != 2:
        raise ArgumentError(f"{where}: bias must be (per_batch, per_head) or "
                            f"None, got {bias!r}")
    for part, b in zip(("per_batch", "per_head"), bias):
        check_bool(where, f"bias {part}", b)


def check_score_floats(where, scale, softcap):
    if scale is not None:
        check_f32(where, "scale", scale)
    if softcap is not None:
        check_f32(where, "softcap", softcap, positive=True)


def f32(value):
    """`value` rounded to the nearest float32, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def check_f32(where, name, value, positive=False):
    """A real number whose float32 rounding (what the kernel uses) is finite
    and non-zero, and > 0 where `positive`."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        _fail(where, name, "a real number", value)
    value = float(value)
    if not math.isfinite(value):
        _fail(where, name, "finite", value)
    if positive and not value > 0:
        _fail(where, name, "> 0", value)
    try:
        rounded = f32(value)
    except OverflowError:
        _fail(where, name, "within float32's range (|x| < 3.4028235e38)",
              value)
    if rounded == 0.0:
        _fail(where, name, "non-zero in float32 (|x| >= 1.4e-45)", value)
    return value


def mlir_f32(value):
    """An f32 attribute MLIR always parses: the float32 bit pattern in hex.

    MLIR's decimal float literal needs a '.', which repr() omits in
    exponent form (1e-05, 1e+30); the hex form is exact and has no such
    corner.
    """
    try:
        (bits,) = struct.unpack("<I", struct.pack("<f", value))
    except (OverflowError, struct.error):
        raise ArgumentError(f"{value!r} is not a float32") from None
    return f"0x{bits:08X} : f32"
