"""The argument list of a compiled kernel and the checks a call runs on it.

A signature is a list of {"role", "dtype", "shape", "output"}; a shape entry
is an int (static) or a size symbol ("batch", "heads_q", "seq_k", ...). It is
written into every CPU bundle, so the runtime half needs no compiler to know
how to call the kernel. Needs nothing but the standard library.
"""
import dataclasses

from . import config as fa_config
from . import contract
from .errors import ArgumentError
from .spec import KernelConfig

_GRAD_OF = fa_config.GRAD_OF
# The roles' dims as shape symbols, from the bundle contract (the schema's
# x-fa-contract, which the runtime's tables are generated from): the roles
# whose dims follow the layout (bhsd order here; role_dims swaps for bshd),
# and those with one order (docs/BundleFormat.md, *Operands in detail*). A
# gradient reads its primal's entry (_GRAD_OF); bias is role_dims' own.
_OPERANDS = contract.operands()
_BHSD = {r: contract.dim_symbols(r, "bhsd") for r, o in _OPERANDS.items()
         if o["shape"] == "layout" and r not in _GRAD_OF}
# Ragged batches: num_seqs + 1 bounds (docs/BundleFormat.md, *Ragged
# batches (varlen)*); SEQ_BOUND stands for that size. FP8 descales: per
# (batch, kv head), a per-tensor one broadcast (stride 0).
SEQ_BOUND = "seq_bound"
_FIXED = {r: ((SEQ_BOUND,) if o["shape"] == "bounds" else
              contract.dim_symbols(r))
          for r, o in _OPERANDS.items()
          if o["shape"] in ("fixed", "descale", "bounds")}
# The standard roles (and the CPU backward's grad_bias) Python reads.
ROLES = tuple(_BHSD) + tuple(_FIXED) + ("bias",) + tuple(_GRAD_OF)
# Operands that are integers, not attention data (the kvcache kernel's
# per-sequence lengths and block table, a ragged batch's bounds).
INT32_ROLES = tuple(r for r, o in _OPERANDS.items() if o["dtype"] == "i32")
_CONFIG_FIELDS = frozenset(f.name for f in dataclasses.fields(KernelConfig))
# FP8 with descale_block (bq, bk): the descales' block counts,
# ceil(seq_q / bq) and ceil(seq_k / bk) (static when the sequences are).
DESCALE_BLOCKS = {"descale_blocks_q": ("seq_q", 0),
                  "descale_blocks_k": ("seq_k", 1)}


def capture_index(kcfg, role):
    """i of a capture role "capture<i>" of `kcfg`, else None."""
    if not role.startswith("capture") or not kcfg.captures:
        return None
    i = role[len("capture"):]
    return int(i) if i.isdigit() and int(i) < len(kcfg.captures) else None


def _capture_dims(kcfg, i):
    """A capture's dims are all dynamic, each its own symbol
    ("capture0_1": capture 0's dim 1): no other operand fixes them."""
    rank = kcfg.captures[i].count("?")
    return tuple(f"capture{i}_{d}" for d in range(rank))


def role_dims(kcfg, role):
    """Symbolic dims of `role` (outermost first) in the config's layout."""
    if capture_index(kcfg, role) is not None:
        return _capture_dims(kcfg, capture_index(kcfg, role))
    base = _GRAD_OF.get(role, role)
    if base == "bias":
        per_batch, per_head = kcfg.bias
        return (("batch" if per_batch else 1), ("heads_q" if per_head else 1),
                "seq_q", "seq_k")
    if base in fa_config.DESCALES and kcfg.descale_block is not None:
        # Per block, each query head has its own descales.
        if base == "query_descale":
            return ("batch", "heads_q", "descale_blocks_q")
        return ("batch", "heads_kv", "descale_blocks_k")
    if base in _FIXED:
        return _FIXED[base]
    dims = _BHSD[base]
    if kcfg.layout == "bshd":
        dims = (dims[0], dims[2], dims[1], dims[3])
    return dims


def role_dtype(kcfg, role):
    if capture_index(kcfg, role) is not None:
        return kcfg.captures[capture_index(kcfg, role)].split("x")[-1][:-1]
    return contract.operand_dtype(_GRAD_OF.get(role, role), kcfg.dtype, kcfg.out_dtype,
                                  kcfg.bias_dtype)


def _static(kcfg, sym):
    if isinstance(sym, int):
        return sym
    if sym == "head_dim":
        return kcfg.head_dim
    if sym == "head_dim_v":
        return kcfg.dv
    if sym in DESCALE_BLOCKS:
        seq, i = DESCALE_BLOCKS[sym]
        size = getattr(kcfg, seq)
        return None if size is None else -(-size // kcfg.descale_block[i])
    if sym not in _CONFIG_FIELDS:  # a size no KernelConfig field fixes
        return None  # (num_pages, seq_new, a capture's dims, ...): at launch
    if sym == "batch" and kcfg.op in ("varlen", "varlen_backward"):
        return 1  # the packed tokens are one batch row
    return getattr(kcfg, sym)  # None when dynamic (page_size: static)


def signature(kcfg):
    """[{"role", "dtype", "shape", "output"}] in the kernel's argument order."""
    ins, outs = fa_config.op_roles(kcfg.op, kcfg.attention_config())
    if kcfg.out_dtype is not None:  # FP8: the descales follow Q, K, V
        ins = ins + list(fa_config.DESCALES)
    sig = []
    for role in ins + outs:
        shape = [(_static(kcfg, d) if _static(kcfg, d) is not None else d)
                 for d in role_dims(kcfg, role)]
        sig.append({"role": role, "dtype": role_dtype(kcfg, role),
                    "shape": shape, "output": role in outs})
    return sig


def symbols_of(kcfg, shapes):
    """The size symbols the operands' shapes ({role: tuple}) define, read
    as the runtime reads them (the first role that has a symbol gives it;
    the runtime checks that the others agree), plus the head dims of the
    config. What workspace shapes are evaluated with (a paged launch has
    num_pages, page_size and max_pages, and no seq_k; a ragged batch has
    num_seqs, its bounds' size - 1)."""
    symbols = {"head_dim": kcfg.head_dim, "head_dim_v": kcfg.dv}
    for role, shape in shapes.items():
        if role not in ROLES:
            continue  # a workspace buffer
        for sym, size in zip(role_dims(kcfg, role), shape):
            if isinstance(sym, str):
                symbols.setdefault(sym, int(size))
    if SEQ_BOUND in symbols:
        symbols["num_seqs"] = symbols.pop(SEQ_BOUND) - 1
    return symbols


def bind(sig, shapes, where="kernel"):
    """Checks `shapes` ({role: tuple}) against `sig`; returns the symbols.

    Raises ArgumentError naming the role, the dimension and where the
    expected value came from.
    """
    symbols, origin = {}, {}
    for arg in sig:
        role = arg["role"]
        if role not in shapes:
            raise ArgumentError(f"{where}: missing operand '{role}'")
        shape = tuple(shapes[role])
        if len(shape) != len(arg["shape"]):
            raise ArgumentError(
                f"{where}: operand '{role}' has rank {len(shape)}, expected "
                f"{len(arg['shape'])} (shape {_fmt(arg['shape'])})")
        for i, (size, sym) in enumerate(zip(shape, arg["shape"])):
            if isinstance(sym, int):
                if size != sym:
                    raise ArgumentError(
                        f"{where}: operand '{role}' dimension {i} is {size}, "
                        f"expected {sym} (shape {_fmt(arg['shape'])})")
            elif sym == SEQ_BOUND:
                _bind_bounds(where, role, size, symbols, origin)
            elif sym in symbols:
                if size != symbols[sym]:
                    raise ArgumentError(
                        f"{where}: operand '{role}' dimension {i} ({sym}) is "
                        f"{size}, expected {symbols[sym]} ({sym}, from "
                        f"'{origin[sym]}')")
            else:
                symbols[sym], origin[sym] = size, role
    hq, hk = symbols.get("heads_q"), symbols.get("heads_kv")
    if hq is not None and hk is not None and (hk == 0 or hq % hk):
        raise ArgumentError(f"{where}: heads_q ({hq}) must be a multiple of "
                            f"heads_kv ({hk})")
    return symbols


def _bind_bounds(where, role, entries, symbols, origin):
    """cu_seqlens_q/k: num_seqs + 1 entries, the same for both (as the
    runtime's SymbolBinder::bindBounds)."""
    if entries == 0:
        raise ArgumentError(f"{where}: operand '{role}' needs at least one "
                            "entry (num_seqs + 1 sequence bounds), got 0")
    have = symbols.get("num_seqs")
    if have is None:
        symbols["num_seqs"], origin["num_seqs"] = entries - 1, role
    elif have != entries - 1:
        raise ArgumentError(
            f"{where}: operand '{role}' has {entries} entries, expected "
            f"{have + 1} (num_seqs + 1, num_seqs = {have} from "
            f"'{origin['num_seqs']}')")


def _fmt(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"

