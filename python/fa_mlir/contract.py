"""The bundle contract: operand roles, shape symbols and ops, defined once.

They live in the bundle schema itself, under "x-fa-contract"
(schemas/kernel-bundle.schema.json; JSON Schema ignores "x-" keywords).
Python reads them here; the C++ runtime's tables are generated from the same
object at build time by running this file as a script (lib/Runtime's CMake
does), so adding a role or a symbol is one edit of the schema.

    python contract.py <output folder>   writes Symbols.inc, Operands.inc,
                                         Ops.inc, ParamKinds.inc and
                                         SchemaValues.inc there
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
    """The "x-fa-contract" object of the bundle schema, checked, without
    its "description" entries (prose for people, not table rows)."""
    with open(path) as f:
        schema = json.load(f)
    c = _without_descriptions(schema["x-fa-contract"])
    _check(c, schema)
    return c


def _without_descriptions(node):
    if isinstance(node, dict):
        return {k: _without_descriptions(v) for k, v in node.items()
                if k != "description"}
    return node


def _check(c, schema):
    """The references inside the contract resolve (a typo in the schema
    fails the build, not a launch)."""
    symbols = c["symbols"]
    kinds = _at(schema, "/$defs/param/properties/kind/enum")
    if list(c["params"]) != kinds:
        raise ValueError(f"x-fa-contract.params: {list(c['params'])} are not "
                         f"the parameter kinds {kinds}, in their order")
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


def operand_dtype(role, dtype, out_dtype=None, bias_dtype=None):
    """`role`'s element type: x-fa-contract.operands[role].dtype names a
    fixed dtype ("f32", "i32") or the field it comes from (the attention's
    dtype, the output's, the bias's)."""
    source = operands()[role]["dtype"]
    fields = {"dtype": dtype, "out_dtype": out_dtype or dtype, "bias_dtype": bias_dtype}
    return fields[source] if source in fields else source


def symbol_names():
    return tuple(contract()["symbols"])


def param_kinds():
    """{kind: {"bytes", "align"}}: how each parameter kind is packed."""
    return contract()["params"]


def dim_symbols(role, layout="bhsd"):
    """The shape symbols of `role`'s dims (outermost first) in `layout`;
    None where a dim binds none."""
    o = operands()[role]
    syms = [sym for _, sym in o["dims"]]
    if o["shape"] == "layout" and layout == "bhsd":
        syms[1], syms[2] = syms[2], syms[1]
    return tuple(syms)


# -- The values of the schema the runtime's own checks use ---------------------
SEQUENCE_SCHEMA = os.path.join(os.path.dirname(SCHEMA),
                               "kernel-sequence.schema.json")
# C++ name -> (schema, JSON pointer, what to take): "value" the number there,
# "max" the largest entry of an array, "keys" an object's keys, "names" an
# array of strings. lib/Runtime/BundleSpec.cpp and Sequence.cpp check with
# these, so a range, an enum or the keys a parameter may have are written
# once, here in the schema (their messages stay the runtime's own).
SCHEMA_VALUES = {
    "kHeadDimMax": ("bundle", "/$defs/config/properties/head_dim/maximum", "value"),
    "kPageSizeMax": ("bundle", "/$defs/config/properties/page_size/maximum", "value"),
    "kDescaleBlockMax": ("bundle", "/$defs/config/properties/descale_block/items/maximum",
                         "value"),
    "kDim3ItemMax": ("bundle", "/$defs/dim3/items/maximum", "value"),
    "kSharedMemoryMax": ("bundle", "/properties/shared_memory_bytes/maximum", "value"),
    "kBoxMax": ("bundle", "/$defs/tensorMapParam/properties/box/items/maximum", "value"),
    "kTensorMapDimsMax": ("bundle", "/$defs/tensorMapParam/properties/dims/maxItems",
                          "value"),
    "kAlignMax": ("bundle", "/$defs/ptrParam/properties/align/enum", "max"),
    "kScratchDimsMax": ("bundle", "/$defs/scratch/properties/dims/maxItems", "value"),
    "kSequenceKernelsMax": ("sequence", "/properties/kernels/maxItems", "value"),
    "kExpressionLengthMax": ("bundle", "/$defs/expressionText/maxLength", "value"),
    "kParamKinds": ("bundle", "/$defs/param/properties/kind/enum", "names"),
    "kTensorMapParamKeys": ("bundle", "/$defs/tensorMapParam/properties", "keys"),
    "kPtrParamKeys": ("bundle", "/$defs/ptrParam/properties", "keys"),
    "kValueParamKeys": ("bundle", "/$defs/integerParam/properties", "keys"),
    "kSwizzles": ("bundle", "/$defs/tensorMapParam/properties/swizzle/enum", "names"),
    "kL2Promotions": ("bundle", "/$defs/tensorMapParam/properties/l2_promotion/enum",
                      "names"),
    "kLayouts": ("bundle", "/$defs/config/properties/layout/enum", "names"),
    "kMaskAlignments": ("bundle", "/$defs/config/properties/mask_alignment/enum", "names"),
    "kScratchKeys": ("bundle", "/$defs/scratch/properties", "keys"),
    "kWorkspaceKeys": ("sequence", "/$defs/workspace/properties", "keys"),
    "kWorkspaceInits": ("sequence", "/$defs/workspace/properties/init/enum", "names"),
}


def _at(doc, pointer):
    for key in pointer.strip("/").split("/"):
        doc = doc[key]
    return doc


def schema_values(path=SCHEMA, sequence_path=SEQUENCE_SCHEMA):
    """{C++ name: int or list of names} of SCHEMA_VALUES."""
    docs = {}
    for key, p in (("bundle", path), ("sequence", sequence_path)):
        with open(p) as f:
            docs[key] = json.load(f)
    out = {}
    for name, (doc, pointer, take) in SCHEMA_VALUES.items():
        v = _at(docs[doc], pointer)
        out[name] = (max(v) if take == "max" else list(v) if take == "keys"
                     else v)
    return out


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
                   f"{_strings(o.get('with_bias', []))}, "
                   f"{_strings(o.get('with_sinks', []))}}},\n")
    kinds = "".join(f"FA_PARAM_KIND({_cstr(kind)}, {k['bytes']}, {k['align']})\n"
                    for kind, k in c["params"].items())
    return {"Symbols.inc": head + symbols, "Operands.inc": head + "".join(rows),
            "Ops.inc": head + "".join(ops), "ParamKinds.inc": head + kinds}


def cpp_schema_values(values):
    """SchemaValues.inc: SCHEMA_VALUES as C++ constants."""
    lines = ["// Generated from python/fa_mlir/schemas/*.schema.json by "
             "python/fa_mlir/contract.py\n// (SCHEMA_VALUES). Do not edit.\n"]
    for name, v in values.items():
        if isinstance(v, list):
            lines.append(f"inline const std::vector<std::string> {name} = "
                         f"{_strings(v)};\n")
        else:
            lines.append(f"constexpr int64_t {name} = {int(v)};\n")
    return "".join(lines)


def write_cpp_tables(folder, path=SCHEMA):
    """Writes the tables into `folder`, leaving unchanged files untouched
    (so that a re-run does not rebuild the runtime)."""
    os.makedirs(folder, exist_ok=True)
    files = cpp_tables(contract(path))
    files["SchemaValues.inc"] = cpp_schema_values(schema_values(
        path, os.path.join(os.path.dirname(path),
                           os.path.basename(SEQUENCE_SCHEMA))))
    for name, text in files.items():
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
