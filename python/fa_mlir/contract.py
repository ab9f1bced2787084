"""The bundle contract: operand roles, shape symbols and ops, defined once.

They live in the bundle schema itself, under "x-fa-contract"
(schemas/kernel-bundle.schema.json; JSON Schema ignores "x-" keywords).
Python reads them here; the C++ runtime's tables are generated from the same
object at build time by running this file as a script (lib/Runtime's CMake
does), so adding a role or a symbol is one edit of the schema.

    python contract.py <output folder>   writes Symbols.inc, Operands.inc
                                         and Ops.inc there
Needs nothing but the standard library.
"""
import functools
import json
import os
import sys

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas",
                      "kernel-bundle.schema.json")
# How an operand's dims are ordered (the C++ enum OperandShape).
SHAPES = {"layout": "Layout", "fixed": "Fixed", "bias": "Bias",
          "descale": "Descale", "bounds": "Bounds"}
# Where an operand's dtype comes from (the C++ enum DTypeFrom).
DTYPE_SOURCES = {"dtype": "DType", "out_dtype": "OutDType",
                 "bias_dtype": "BiasDType", "f32": "F32", "i32": "I32"}


@functools.lru_cache(maxsize=None)
def contract(path=SCHEMA):
    """The "x-fa-contract" object of the bundle schema, checked."""
    with open(path) as f:
        c = json.load(f)["x-fa-contract"]
    _check(c)
    return c


def _check(c):
    """The references inside the contract resolve (a typo in the schema
    fails the build, not a launch)."""
    symbols = c["symbols"]
    for role, o in c["operands"].items():
        if o["shape"] not in SHAPES or o["dtype"] not in DTYPE_SOURCES:
            raise ValueError(f"x-fa-contract.operands.{role}: unknown shape "
                             f"{o['shape']!r} or dtype {o['dtype']!r}")
        for key in ("dims", "per_block", "combine"):
            for name, sym in o.get(key, []):
                if sym is not None and sym not in symbols:
                    raise ValueError(f"x-fa-contract.operands.{role}.{key}: "
                                     f"unknown symbol {sym!r}")
    for op, o in c["ops"].items():
        for key, roles in o.items():
            for role in roles:
                if role not in c["operands"]:
                    raise ValueError(f"x-fa-contract.ops.{op}.{key}: unknown "
                                     f"operand {role!r}")


def operands():
    """{role: {"shape", "dtype", "dims", ...}} in the contract's order."""
    return contract()["operands"]


def symbol_names():
    return tuple(contract()["symbols"])


def dim_symbols(role, layout="bhsd"):
    """The shape symbols of `role`'s dims (outermost first) in `layout`;
    None where a dim binds none."""
    o = operands()[role]
    syms = [sym for _, sym in o["dims"]]
    if o["shape"] == "layout" and layout == "bhsd":
        syms[1], syms[2] = syms[2], syms[1]
    return tuple(syms)


# -- C++ tables ---------------------------------------------------------------
def _cstr(s):
    return "nullptr" if s is None else json.dumps(s)


def _dims(dims):
    return "{" + ", ".join(f"{{{_cstr(n)}, {_cstr(s)}}}" for n, s in dims) + "}"


def _strings(names):
    return "{" + ", ".join(_cstr(n) for n in names) + "}"


def cpp_tables(c):
    """{file name: text} of the runtime's generated tables."""
    head = ("// Generated from x-fa-contract of "
            "python/fa_mlir/schemas/kernel-bundle.schema.json by\n"
            "// python/fa_mlir/contract.py. Do not edit.\n")
    symbols = "".join(f"FA_SYMBOL({cpp}, {_cstr(name)})\n"
                      for name, cpp in c["symbols"].items())
    rows = []
    for role, o in c["operands"].items():
        rows.append(f"{{{_cstr(role)}, OperandShape::{SHAPES[o['shape']]}, "
                    f"DTypeFrom::{DTYPE_SOURCES[o['dtype']]}, "
                    f"{_dims(o['dims'])}, {_dims(o.get('per_block', []))}, "
                    f"{_dims(o.get('combine', []))}}},\n")
    ops = []
    for name, o in c["ops"].items():
        ops.append(f"{{{_cstr(name)}, {_strings(o['operands'])}, "
                   f"{_strings(o.get('with_return_lse', []))}, "
                   f"{_strings(o.get('with_bias', []))}}},\n")
    return {"Symbols.inc": head + symbols, "Operands.inc": head + "".join(rows),
            "Ops.inc": head + "".join(ops)}


def write_cpp_tables(folder, path=SCHEMA):
    """Writes the tables into `folder`, leaving unchanged files untouched
    (so that a re-run does not rebuild the runtime)."""
    os.makedirs(folder, exist_ok=True)
    for name, text in cpp_tables(contract(path)).items():
        out = os.path.join(folder, name)
        if os.path.exists(out):
            with open(out) as f:
                if f.read() == text:
                    continue
        with open(out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: contract.py <output folder> [schema]")
    write_cpp_tables(*sys.argv[1:])
