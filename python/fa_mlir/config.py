"""An attention problem and the MLIR function that computes it.

`AttentionConfig` describes one fa.attention / fa.attention_grad: sizes,
element type, layout and the score modifiers. `forward_mlir` and
`backward_mlir` write a function that takes memrefs (inputs, then outputs)
and computes the op on them, the form the CPU shared library exposes.
"""
from dataclasses import dataclass, field
import math
from typing import Optional, Tuple

from . import arguments, contract
from .arguments import mlir_f32
from .dtypes import STORAGE  # noqa: F401  (re-exported for callers)


@dataclass
class AttentionConfig:
    batch: int = 1
    heads_q: int = 1
    heads_kv: int = 1
    seq_q: int = 16
    seq_k: int = 16
    head_dim: int = 32
    head_dim_v: Optional[int] = None
    dtype: str = "f32"
    layout: str = "bhsd"
    causal: bool = False
    mask_alignment: Optional[str] = None  # "top_left" | "bottom_right"
    window: Optional[Tuple[int, int]] = None
    softcap: Optional[float] = None
    scale: Optional[float] = None
    # Bias shape [B|1, Hq|1, Sq, Sk] given as (per_batch, per_head); None: no bias.
    bias: Optional[Tuple[bool, bool]] = None
    bias_dtype: str = "f32"
    return_lse: bool = True
    # Split-KV hint for the tiled lowering (0: its heuristic); None: unsplit.
    num_splits: Optional[int] = None
    # fa.attention_kvcache: paged caches [num_pages, page_size, Hkv, D] with
    # a block table [batch, max_pages] (page_size None: contiguous caches
    # [batch, seq_k, Hkv, D]), and new tokens [batch, seq_new, Hkv, D]
    # appended into them (append).
    page_size: Optional[int] = None
    append: bool = False
    num_pages: int = 2
    max_pages: int = 2
    seq_new: int = 2
    # fa.attention_varlen: a ragged batch packed along the tokens. q is
    # [seq_q = total_q, Hq, D], k/v [seq_k = total_k, Hkv, D], the output
    # [total_q, Hq, Dv], the LSE [Hq, total_q], cu_seqlens_q/k [batch + 1].
    varlen: bool = False
    # Which of batch/heads/seq (and pages: num_pages, max_pages; new:
    # seq_new) are dynamic ('?') in the generated function.
    dynamic: Tuple[str, ...] = field(default_factory=tuple)
    # FlexAttention-style modifiers (docs/Modifiers.md): the text of the
    # score_mod / mask_mod region and the MLIR tensor types of the captures
    # they read, operands "capture0", "capture1", ... after the others.
    score_mod: Optional[str] = None
    mask_mod: Optional[str] = None
    captures: Tuple[str, ...] = ()
    # Attention sinks (gpt-oss, docs/Modifiers.md): operand "sinks" [Hq] f32
    # after the bias; the backward also returns their gradient "grad_sinks".
    sinks: bool = False

    def __post_init__(self):
        # The same checks as KernelConfig's (a size may be 0 here: empty
        # problems are valid IR), so that no value is coerced into MLIR.
        where = "AttentionConfig"
        for name in ("batch", "heads_q", "heads_kv", "seq_q", "seq_k",
                     "num_pages", "max_pages", "seq_new"):
            arguments.check_int(where, name, getattr(self, name), 0)
        arguments.check_int(where, "head_dim", self.head_dim, 1)
        if self.page_size is not None:
            arguments.check_int(where, "page_size", self.page_size, 1)
        if self.head_dim_v is not None:
            arguments.check_int(where, "head_dim_v", self.head_dim_v, 1)
        for name in ("causal", "return_lse", "append", "varlen", "sinks"):
            arguments.check_bool(where, name, getattr(self, name))
        if self.num_splits is not None:
            arguments.check_int(where, "num_splits", self.num_splits, 0)
        arguments.check_window(where, self.window)
        arguments.check_bias_flags(where, self.bias)
        arguments.check_score_floats(where, self.scale, self.softcap)

    @property
    def dv(self):
        return self.head_dim if self.head_dim_v is None else self.head_dim_v

    @property
    def effective_scale(self):
        return 1.0 / math.sqrt(self.head_dim) if self.scale is None else self.scale

    # -- shapes (logical bhsd, and as stored in the config's layout) --------
    def shape_bhsd(self, role):
        b, hq, hk = self.batch, self.heads_q, self.heads_kv
        return {
            "query": (b, hq, self.seq_q, self.head_dim),
            "key": (b, hk, self.seq_k, self.head_dim),
            "value": (b, hk, self.seq_k, self.dv),
            "output": (b, hq, self.seq_q, self.dv),
            "grad_output": (b, hq, self.seq_q, self.dv),
            "key_new": (b, hk, self.seq_new, self.head_dim),
            "value_new": (b, hk, self.seq_new, self.dv),
        }[role]

    def shape(self, role):
        if self.varlen:
            return self._varlen_shape(role)
        if role == "cache_seqlens":
            return (self.batch,)
        if role in ("key_cache", "value_cache"):
            return (self.num_pages, self.page_size, self.heads_kv,
                    self.head_dim if role == "key_cache" else self.dv)
        if role == "block_table":
            return (self.batch, self.max_pages)
        if role == "lse":
            return (self.batch, self.heads_q, self.seq_q)
        if role in ("sinks", "grad_sinks"):
            return (self.heads_q,)
        if role == "bias":
            per_batch, per_head = self.bias
            return (self.batch if per_batch else 1,
                    self.heads_q if per_head else 1, self.seq_q, self.seq_k)
        s = self.shape_bhsd(role)
        return s if self.layout == "bhsd" else (s[0], s[2], s[1], s[3])

    def _varlen_shape(self, role):
        """fa.attention_varlen's operand shapes (packed: no batch dim)."""
        if role in ("cu_seqlens_q", "cu_seqlens_k"):
            return (self.batch + 1,)
        if role == "lse":
            return (self.heads_q, self.seq_q)
        b, h, s, d = self.shape_bhsd(GRAD_OF.get(role, role))
        return (s, h, d)

    def _dim_names(self, role):
        """The size group of each dim of `role` (what `dynamic` names)."""
        if self.varlen:
            return {"lse": ("heads", "seq"), "cu_seqlens_q": ("batch",),
                    "cu_seqlens_k": ("batch",)}.get(role,
                                                   ("seq", "heads", "dim"))
        seq = "new" if role in ("key_new", "value_new") else "seq"
        names = {"bhsd": ("batch", "heads", seq, "dim"),
                 "bshd": ("batch", seq, "heads", "dim")}[self.layout]
        return {"lse": ("batch", "heads", "seq"), "cache_seqlens": ("batch",),
                "sinks": ("heads",), "grad_sinks": ("heads",),
                # page_size is static
                "key_cache": ("pages", "page", "heads", "dim"),
                "value_cache": ("pages", "page", "heads", "dim"),
                "block_table": ("batch", "pages"),
                "bias": ("batch", "heads", "seq", "seq")}.get(role, names)

    def _dim(self, role, i, size):
        if role == "bias" and size == 1 and i < 2:
            return "1"
        return "?" if self._dim_names(role)[i] in self.dynamic else str(size)

    def type_of(self, role, elem=None, kind="tensor"):
        if role in capture_roles(self):
            return kind + self.captures[capture_roles(self).index(role)][
                len("tensor"):]
        if elem is None:
            elem = self._dtype(role)
        dims = "x".join(self._dim(role, i, s)
                        for i, s in enumerate(self.shape(role)))
        return f"{kind}<{dims}x{elem}>"

    def _dtype(self, role):
        """`role`'s element type, as x-fa-contract.operands gives it (one
        dtype here: the output's is the inputs')."""
        return contract.operand_dtype(role, self.dtype, bias_dtype=self.bias_dtype)

    def attributes(self, kvcache=False):
        """The op's attribute dictionary; `kvcache`: fa.attention_kvcache's,
        which has no layout (always bshd) nor mask_alignment (always
        bottom-right). fa.attention_varlen has no layout (packed tokens)."""
        attrs = []
        if self.layout != "bhsd" and not (kvcache or self.varlen):
            attrs.append(f"layout = #fa<layout {self.layout}>")
        if self.scale is not None:
            attrs.append(f"scale = {mlir_f32(self.scale)}")
        if self.causal:
            attrs.append("causal")
        if self.mask_alignment is not None and not kvcache:
            attrs.append(f"mask_alignment = #fa<mask_alignment {self.mask_alignment}>")
        if self.window is not None:
            attrs.append(f"window = array<i64: {self.window[0]}, {self.window[1]}>")
        if self.softcap is not None:
            attrs.append(f"softcap = {mlir_f32(self.softcap)}")
        if self.num_splits is not None:
            attrs.append(f"num_splits = {self.num_splits} : i64")
        return "{" + ", ".join(attrs) + "}" if attrs else ""


def capture_roles(cfg):
    """The operand roles of the captures: capture0, capture1, ..."""
    return [f"capture{i}" for i in range(len(cfg.captures))]


def _captures_clause(cfg):
    """` captures(%capture0_t, ... : types)` of the op, or ""."""
    roles = capture_roles(cfg)
    if not roles:
        return ""
    return (f" captures({', '.join(f'%{r}_t' for r in roles)} : "
            f"{', '.join(cfg.type_of(r) for r in roles)})")


def op_regions(cfg):
    """The op's score_mod / mask_mod regions, after its result types."""
    return "".join(f" {name} {text}" for name, text in (
        ("score_mod", cfg.score_mod), ("mask_mod", cfg.mask_mod)) if text)


def _function(name, args, body):
    """A func.func over memrefs: wrap each in a tensor, run `body`, store."""
    params = ", ".join(f"%{n}: {t}" for n, t in args)
    return (f"func.func @{name}({params}) attributes {{llvm.emit_c_interface}} {{\n"
            f"{body}  return\n}}\n")


def _load(cfg, role, name=None):
    name = name or role
    return (f"  %{name}_t = bufferization.to_tensor %{name} restrict : "
            f"{cfg.type_of(role, kind='memref')} to {cfg.type_of(role)}\n")


def _store(cfg, role, value):
    return (f"  bufferization.materialize_in_destination {value} in restrict "
            f"writable %{role} : ({cfg.type_of(role)}, "
            f"{cfg.type_of(role, kind='memref')}) -> ()\n")


def _sinks_roles(cfg):
    return ["sinks"] if cfg.sinks else []


def _sinks_clause(cfg):
    """` sinks(%sinks_t : tensor<Hq x f32>)` of the op, or ""."""
    return f" sinks(%sinks_t : {cfg.type_of('sinks')})" if cfg.sinks else ""


def forward_inputs(cfg):
    roles = ["query", "key", "value"] + (["bias"] if cfg.bias else [])
    return roles + _sinks_roles(cfg) + capture_roles(cfg)


def forward_outputs(cfg):
    return ["output"] + (["lse"] if cfg.return_lse else [])


def kvcache_inputs(cfg):
    """fa.attention_kvcache's operands: key and value are the contiguous
    caches; paged ones are key_cache and value_cache, with the block table;
    an append adds the new tokens."""
    if cfg.page_size is None:
        ins = ["query", "key", "value", "cache_seqlens"]
    else:
        ins = ["query", "key_cache", "value_cache", "cache_seqlens",
               "block_table"]
    return ins + (["key_new", "value_new"] if cfg.append else [])


def kvcache_caches(cfg):
    """The cache roles of fa.attention_kvcache (what an append updates)."""
    return kvcache_inputs(cfg)[1:3]


VARLEN_INPUTS = ["query", "key", "value", "cu_seqlens_q", "cu_seqlens_k"]
# fa.attention_varlen_grad's operands and results.
VARLEN_BACKWARD_INPUTS = ["grad_output", "query", "key", "value", "output",
                          "lse", "cu_seqlens_q", "cu_seqlens_k"]
VARLEN_BACKWARD_OUTPUTS = ["grad_query", "grad_key", "grad_value"]


def op_roles(op, cfg):
    """(inputs, outputs) of a KernelConfig op's function, in argument
    order."""
    if op == "backward":
        return backward_inputs(cfg), backward_outputs(cfg)
    # The serving ops' captures follow their other operands.
    captures = capture_roles(cfg)
    if op == "kvcache":
        return kvcache_inputs(cfg) + captures, forward_outputs(cfg)
    if op == "varlen":  # fa.attention_varlen always returns the LSE
        return VARLEN_INPUTS + captures, ["output", "lse"]
    if op == "varlen_backward":
        return (VARLEN_BACKWARD_INPUTS + captures,
                list(VARLEN_BACKWARD_OUTPUTS))
    return forward_inputs(cfg), forward_outputs(cfg)


def forward_mlir(cfg, name="attention"):
    """func @name(inputs..., outputs...) computing fa.attention."""
    ins, outs = forward_inputs(cfg), forward_outputs(cfg)
    body = "".join(_load(cfg, r) for r in ins)
    bias = (f" bias(%bias_t : {cfg.type_of('bias')})" if cfg.bias else "")
    results = ", ".join(f"%{r}_r" for r in outs)
    result_types = ", ".join(cfg.type_of(r) for r in outs)
    body += (f"  {results} = fa.attention %query_t, %key_t, %value_t : "
             f"{cfg.type_of('query')}, {cfg.type_of('key')}, "
             f"{cfg.type_of('value')}{bias}{_sinks_clause(cfg)}"
             f"{_captures_clause(cfg)} "
             f"{cfg.attributes()} -> {result_types}{op_regions(cfg)}\n")
    body += "".join(_store(cfg, r, f"%{r}_r") for r in outs)
    args = [(r, cfg.type_of(r, kind="memref")) for r in ins + outs]
    return _function(name, args, body)


GRAD_OF = {"grad_query": "query", "grad_key": "key", "grad_value": "value",
           "grad_bias": "bias", "grad_sinks": "sinks"}


def backward_inputs(cfg):
    return (["grad_output", "query", "key", "value", "output", "lse"] +
            (["bias"] if cfg.bias else []) + _sinks_roles(cfg) +
            capture_roles(cfg))


def backward_outputs(cfg):
    return ["grad_query", "grad_key", "grad_value"] + (
        ["grad_bias"] if cfg.bias else []) + (
        ["grad_sinks"] if cfg.sinks else [])


def backward_mlir(cfg, name="attention_grad"):
    """func @name(inputs..., outputs...) computing fa.attention_grad."""
    ins, outs = backward_inputs(cfg), backward_outputs(cfg)

    def role_type(r, kind="tensor"):
        return cfg.type_of(GRAD_OF.get(r, r), kind=kind)

    body = "".join(
        f"  %{r}_t = bufferization.to_tensor %{r} restrict : "
        f"{role_type(r, 'memref')} to {role_type(r)}\n" for r in ins)
    bias = (f" bias(%bias_t : {cfg.type_of('bias')})" if cfg.bias else "")
    grouped = ["bias", "sinks"] + capture_roles(cfg)  # in the op's clauses
    operands = ", ".join(f"%{r}_t" for r in ins if r not in grouped)
    operand_types = ", ".join(role_type(r) for r in ins if r not in grouped)
    results = ", ".join(f"%{r}_r" for r in outs)
    result_types = ", ".join(role_type(r) for r in outs)
    body += (f"  {results} = fa.attention_grad {operands} : {operand_types}"
             f"{bias}{_sinks_clause(cfg)}{_captures_clause(cfg)} "
             f"{cfg.attributes()} -> "
             f"{result_types}{op_regions(cfg)}\n")
    body += "".join(
        f"  bufferization.materialize_in_destination %{r}_r in restrict "
        f"writable %{r} : ({role_type(r)}, {role_type(r, 'memref')}) -> ()\n"
        for r in outs)
    args = [(r, role_type(r, "memref")) for r in ins + outs]
    return _function(name, args, body)


DESCALES = ("query_descale", "key_descale", "value_descale")


def fp8_forward_mlir(cfg, descale_shapes, descale_block=None,
                     out_elem="bf16", name="attention"):
    """func @name(q, k, v, q/k/v descales, output[, lse]) computing an
    f8E4M3FN fa.attention: `cfg.dtype` is ignored for Q, K, V (f8E4M3FN) and
    the output has `out_elem`; the LSE is there when cfg.return_lse.
    `descale_shapes`: the three descales' shapes (() per tensor, (B, Hkv)
    per head, (B, H, blocks) per block, which needs `descale_block` =
    (block_q, block_k)); a dim may be "?" (dynamic)."""
    def ty(role, kind="tensor"):
        if role in DESCALES:
            dims = "".join(f"{s}x" for s in descale_shapes[DESCALES.index(role)])
            return f"{kind}<{dims}f32>"
        elem = {"output": out_elem, "lse": "f32"}.get(role, "f8E4M3FN")
        return cfg.type_of(role, elem, kind)

    ins = ["query", "key", "value", *DESCALES]
    outs = forward_outputs(cfg)
    body = "".join(f"  %{r}_t = bufferization.to_tensor %{r} restrict : "
                   f"{ty(r, 'memref')} to {ty(r)}\n" for r in ins)
    attrs = cfg.attributes()
    if descale_block:
        block = (f"descale_block = array<i64: {descale_block[0]}, "
                 f"{descale_block[1]}>")
        attrs = f"{attrs[:-1]}, {block}}}" if attrs else f"{{{block}}}"
    body += (f"  {', '.join(f'%{r}_r' for r in outs)} = fa.attention "
             f"%query_t, %key_t, %value_t"
             f" : {ty('query')}, {ty('key')}, {ty('value')} descale("
             f"{', '.join(f'%{r}_t' for r in DESCALES)} : "
             f"{', '.join(ty(r) for r in DESCALES)}) {attrs} -> "
             f"{', '.join(ty(r) for r in outs)}\n")
    body += "".join(
        f"  bufferization.materialize_in_destination %{r}_r in restrict "
        f"writable %{r} : ({ty(r)}, {ty(r, 'memref')}) -> ()\n" for r in outs)
    return _function(name, [(r, ty(r, "memref")) for r in ins + outs], body)
