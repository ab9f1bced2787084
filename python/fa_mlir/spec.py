"""KernelConfig: what one compiled kernel is specialised on.

A kernel is specialised on everything but the sizes that are left dynamic
(None): batch, heads and sequence lengths. Head dims are always static. The
same object is the cache key, the AOT configuration entry and the `config`
recorded in a bundle, so it converts losslessly to and from JSON.
"""
from dataclasses import asdict, dataclass, fields, replace
import json
import math
import re
from typing import Optional, Tuple

from . import arguments
from .config import AttentionConfig
from .errors import ArgumentError, UnsupportedError

# "kvcache": fa.attention_kvcache over a contiguous or paged cache, with or
# without an in-place append (sm_90a only). "varlen": fa.attention_varlen,
# a ragged batch packed along the tokens (sm_90a only), "varlen_backward"
# its gradients (fa.attention_varlen_grad, sm_90a only). "combine":
# fa.combine's standalone merge of partial outputs [n, rows, head_dim] f32 by
# their LSEs (sm_90a only; dtype is the output's, docs/Inference.md).
OPS = ("forward", "backward", "kvcache", "varlen", "varlen_backward",
       "combine")
# The ops whose kernels consume an LSE and produce gradients.
BACKWARD_OPS = ("backward", "varlen_backward")
# The ops over a ragged batch packed along the tokens.
VARLEN_OPS = ("varlen", "varlen_backward")
# The ops that take score_mod/mask_mod regions and their captures.
MODIFIER_OPS = ("forward", "backward", "kvcache", "varlen", "varlen_backward")
TARGETS = ("cpu", "sm_90a")
DTYPES = ("f32", "f16", "bf16")
# FP8 (float8_e4m3fn) Q, K, V with their descales: the forward only, its
# output of out_dtype (docs/Python.md, *FP8*).
FP8 = "f8E4M3FN"
FP8_OUT_DTYPES = ("bf16", "f16", "f32")
LAYOUTS = ("bhsd", "bshd")
ALIGNMENTS = (None, "top_left", "bottom_right")
# Sizes that may be dynamic, grouped as the generated MLIR names them: a
# group is dynamic as soon as one of its sizes is None.
SIZE_GROUPS = {"batch": ("batch",), "heads": ("heads_q", "heads_kv"),
               "seq": ("seq_q", "seq_k")}
_SIZES = tuple(s for group in SIZE_GROUPS.values() for s in group)
# Fields added after the first bundles were cached, and their defaults:
# to_dict leaves them out at the default, so that every kernel that does not
# use them keeps its cache key and AOT index entry.
_ADDED_FIELDS = {"page_size": None, "append": False, "out_dtype": None,
                 "descale_block": None, "score_mod": None, "mask_mod": None,
                 "captures": None, "sinks": False}
# A capture's MLIR type (docs/Modifiers.md): a ranked tensor, every dim
# dynamic, of an element type Python passes (signature.CAPTURE_DTYPES).
_CAPTURE_TYPE = re.compile(r"tensor<(\?x)+(f32|f64|i1|i32|i64)>")
# The row lengths (head_dim) of the sm_90a combine kernel: a row is held in
# one warp's registers (convert-fa-to-nvvm's limit).
SM90A_COMBINE_HEAD_DIMS = range(1, 513)
# What the sm_90a FP8 forward kernel takes (the CPU path takes the rest).
SM90A_FP8_OUT_DTYPES = ("bf16", "f16")
SM90A_HEAD_DIMS = range(16, 257, 16)


def sm90a_key_blocks(head_dim):
    """The key tiles of the sm_90a FP8 kernel at `head_dim`: 128 keys,
    or 192 or 224 when 64 < head_dim <= 128."""
    return (128, 192, 224) if 64 < head_dim <= 128 else (128,)


def sm90a_descale_block_rule(descale_block, head_dim):
    """None when the sm_90a FP8 kernel takes per-block descales of
    `descale_block` (block_q, block_k), else what it needs: block_k a
    multiple of one of its key tiles, so that every tile of keys lies in
    one K/V descale block (block_q: any)."""
    tiles = sm90a_key_blocks(head_dim)
    if any(descale_block[1] % t == 0 for t in tiles):
        return None
    return (f"descale_block {tuple(descale_block)}: block_k must be a "
            f"multiple of {' or '.join(str(t) for t in tiles)} at head_dim "
            f"{head_dim} (a tile of keys lies in one K/V descale block)")


def _check_modifiers(where, score_mod, mask_mod, captures):
    for name, text in (("score_mod", score_mod), ("mask_mod", mask_mod)):
        if text is not None and (not isinstance(text, str) or
                                 not text.strip().startswith("{")):
            raise ArgumentError(f"{where}: {name} must be None or the text "
                                f"of a region ({{ ^bb0(...): ... }}), got "
                                f"{text!r}")
    if captures is None:
        return
    if not isinstance(captures, (tuple, list)) or not all(
            isinstance(c, str) and _CAPTURE_TYPE.fullmatch(c)
            for c in captures):
        raise ArgumentError(f"{where}: captures must be None or a list of "
                            "tensor types with dynamic dims of f32, f64, i1, "
                            f"i32 or i64 (\"tensor<?xf32>\"), got {captures!r}")


def _check_descale_block(where, block):
    if block is None:
        return
    if (not isinstance(block, (tuple, list)) or len(block) != 2 or
            not all(arguments.is_int(b) and not isinstance(b, bool) and b >= 1
                    for b in block)):
        raise ArgumentError(f"{where}: descale_block must be None or "
                            f"(block_q, block_k), both ints >= 1; got "
                            f"{block!r}")


@dataclass(frozen=True)
class KernelConfig:
    dtype: str = "f32"
    head_dim: int = 64
    head_dim_v: Optional[int] = None
    op: str = "forward"
    layout: str = "bhsd"
    causal: bool = False
    mask_alignment: Optional[str] = None
    window: Optional[Tuple[int, int]] = None
    softcap: Optional[float] = None
    scale: Optional[float] = None
    # (per_batch, per_head) of a [B|1, Hq|1, Sq, Sk] bias; None: no bias.
    bias: Optional[Tuple[bool, bool]] = None
    bias_dtype: Optional[str] = None  # None: f32
    return_lse: bool = True
    # Backward only: dQ accumulated in a fixed order, so repeated runs are
    # bitwise equal (sm_90a; the CPU backward always is). The forward
    # ignores it: it is canonicalized to False there.
    deterministic: bool = False
    # Forward and kvcache: split-KV chunks (0: the lowering's heuristic);
    # None: unsplit (kvcache: the heuristic too, canonicalized to 0). A
    # lowering hint (num_splits of fa.attention, fa.attention_kvcache).
    num_splits: Optional[int] = None
    # kvcache only: the caches are paged, [num_pages, page_size, Hkv, D]
    # with a block table (page_size static; None: contiguous caches), and
    # the new tokens key_new/value_new are appended into them in place
    # first (append). The page count, the pages per sequence and the
    # appended length are dynamic.
    page_size: Optional[int] = None
    append: bool = False
    # dtype f8E4M3FN only: the output's element type (None: bf16), and the
    # rows per descale block of Q and of K/V (None: the descales are per
    # tensor or per (batch, kv head), which the kernel reads alike as
    # [batch, heads_kv] f32 operands; with it all three are per block,
    # [batch, heads_q | heads_kv, ceil(seq / block)]).
    out_dtype: Optional[str] = None
    descale_block: Optional[Tuple[int, int]] = None
    # forward, backward, kvcache and varlen(_backward): FlexAttention-style
    # modifiers, the text of the op's score_mod / mask_mod region
    # (docs/Modifiers.md; the region's block arguments end with one per
    # capture), and the captures' MLIR types ("tensor<?xf32>"), operands
    # "capture0", ... of the kernel.
    # fa_mlir.torch traces them from Python functions (modifiers.py).
    score_mod: Optional[str] = None
    mask_mod: Optional[str] = None
    captures: Optional[Tuple[str, ...]] = None
    # forward and backward: attention sinks (gpt-oss), operand "sinks"
    # [heads_q] f32; the backward also writes "grad_sinks" [heads_q].
    sinks: bool = False
    batch: Optional[int] = None
    heads_q: Optional[int] = None
    heads_kv: Optional[int] = None
    seq_q: Optional[int] = None
    seq_k: Optional[int] = None

    def __post_init__(self):
        self._check_types()
        # Canonical form, so that equal kernels have equal keys.
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        if self.window is not None:
            set_("window", tuple(int(w) for w in self.window))
        if self.descale_block is not None:
            set_("descale_block", tuple(int(b) for b in self.descale_block))
        set_("captures", tuple(self.captures) if self.captures else None)
        if self.dtype == FP8 and self.out_dtype is None:
            set_("out_dtype", "bf16")
        if self.bias is not None:
            set_("bias", tuple(bool(b) for b in self.bias))
            set_("bias_dtype", self.bias_dtype or "f32")
        else:
            set_("bias_dtype", None)
        if self.head_dim_v == self.head_dim:
            set_("head_dim_v", None)
        for f in ("softcap", "scale"):
            if getattr(self, f) is not None:
                set_(f, float(getattr(self, f)))
        for f in ("causal", "return_lse", "deterministic", "append", "sinks"):
            set_(f, bool(getattr(self, f)))
        for name in ("head_dim", "head_dim_v", "page_size") + _SIZES:
            if getattr(self, name) is not None:
                set_(name, int(getattr(self, name)))
        for group in SIZE_GROUPS.values():
            if any(getattr(self, s) is None for s in group):
                for s in group:
                    set_(s, None)
        if self.op in BACKWARD_OPS:
            set_("return_lse", True)  # the backward always consumes LSE
            set_("num_splits", None)
        else:
            set_("deterministic", False)
        if self.op == "kvcache" and self.num_splits is None:
            set_("num_splits", 0)  # the op's default is the heuristic
        self.validate()

    def _check_types(self):
        """Types and ranges before canonicalizing: int(1.7) is 1 and
        bool("no") is True, so nothing is converted unchecked."""
        where = "KernelConfig"
        for name in ("causal", "return_lse", "deterministic", "append",
                     "sinks"):
            arguments.check_bool(where, name, getattr(self, name))
        if self.page_size is not None:
            arguments.check_int(where, "page_size", self.page_size, 1)
        arguments.check_int(where, "head_dim", self.head_dim, 1)
        if self.head_dim_v is not None:
            arguments.check_int(where, "head_dim_v", self.head_dim_v, 1)
        for name in _SIZES:
            if getattr(self, name) is not None:
                arguments.check_int(where, name, getattr(self, name), 1)
        if self.num_splits is not None:
            arguments.check_int(where, "num_splits", self.num_splits, 0)
        arguments.check_window(where, self.window)
        arguments.check_bias_flags(where, self.bias)
        arguments.check_score_floats(where, self.scale, self.softcap)
        _check_descale_block(where, self.descale_block)
        _check_modifiers(where, self.score_mod, self.mask_mod, self.captures)
        for name, known in (("op", OPS), ("dtype", DTYPES + (FP8,)),
                            ("out_dtype", (None,) + FP8_OUT_DTYPES),
                            ("layout", LAYOUTS),
                            ("mask_alignment", ALIGNMENTS),
                            ("bias_dtype", (None,) + DTYPES)):
            value = getattr(self, name)
            if not (value is None or isinstance(value, str)) or \
                    value not in known:
                raise ArgumentError(f"{where}: {name} must be one of "
                                    f"{known}, got {value!r}")

    # -- checks a caller can act on, before any tool runs -----------------
    def validate(self):
        """The checks between fields (_check_types did each field alone)."""
        def bad(msg):
            raise ArgumentError(f"KernelConfig: {msg}")
        if self.mask_alignment is not None and not (self.causal or self.window):
            bad("mask_alignment needs causal or window")
        if self.bias_dtype not in (None, "f32", self.dtype):
            bad(f"bias_dtype must be f32 or the dtype ({self.dtype}), "
                f"got {self.bias_dtype!r}")
        if self.heads_q and self.heads_kv and self.heads_q % self.heads_kv:
            bad(f"heads_q ({self.heads_q}) must be a multiple of heads_kv "
                f"({self.heads_kv})")
        if self.op == "kvcache":
            self._validate_kvcache(bad)
        elif self.page_size is not None or self.append:
            bad(f"page_size and append are op kvcache options (paged caches, "
                f"in-place appends), got op {self.op!r}")
        if self.op in VARLEN_OPS:
            self._validate_varlen(bad)
        if self.score_mod or self.mask_mod or self.captures:
            self._validate_modifiers(bad)
        if self.op == "combine":
            self._validate_combine(bad)
        if self.sinks and (self.op not in ("forward", "backward") or
                           self.dtype == FP8):
            bad(f"sinks are for op forward and backward with dtype f32, f16 "
                f"or bf16, got op {self.op!r} with dtype {self.dtype!r}")
        if self.dtype == FP8:
            self._validate_fp8(bad)
        elif self.out_dtype is not None or self.descale_block is not None:
            bad(f"out_dtype and descale_block are for dtype {FP8} (FP8 "
                f"inputs), got dtype {self.dtype!r}")

    def _validate_modifiers(self, bad):
        """score_mod/mask_mod regions are fa.attention's, fa.attention_grad's
        and the serving ops' (fa.attention_kvcache, fa.attention_varlen and
        its gradient: docs/Modifiers.md, *On the inference ops*), not
        FP8's nor fa.combine's; captures are what a region reads."""
        if self.op not in MODIFIER_OPS:
            bad(f"score_mod/mask_mod are for op {', '.join(MODIFIER_OPS)}, "
                f"got op {self.op!r}")
        if self.dtype == FP8:
            bad(f"score_mod/mask_mod are not supported with dtype {FP8}")
        if self.captures and not (self.score_mod or self.mask_mod):
            bad("captures need a score_mod or mask_mod region to read them")

    def _validate_fp8(self, bad):
        """What an FP8 forward is on every target: fa.attention over
        f8E4M3FN Q, K, V and their descales, with static heads (the
        descales' shapes have them) and no bias."""
        if self.op != "forward":
            bad(f"dtype {FP8} is forward only, got op {self.op!r}")
        if self.bias is not None:
            bad(f"bias: the dtype {FP8} forward takes no bias")
        if self.heads_q is None:
            bad(f"dtype {FP8} needs static heads_q and heads_kv (its "
                "descales are [batch, heads_kv] tensors)")

    def _validate_serving(self, bad):
        """What the serving ops (kvcache, varlen) share: bshd operands, no
        bias, an LSE always returned."""
        if self.layout != "bshd":
            bad(f"op {self.op} takes layout bshd, got {self.layout!r}")
        if self.bias is not None:
            bad(f"op {self.op} takes no bias")
        if not self.return_lse:
            bad(f"op {self.op} always returns the LSE (return_lse must be "
                "True)")

    def _validate_varlen(self, bad):
        """What fa.attention_varlen's sm_90a kernel is: one bundle over
        packed tokens (batch 1); the sequence count and the token totals are
        read at launch."""
        self._validate_serving(bad)
        if self.num_splits is not None:
            bad(f"op {self.op} takes no num_splits (its sm_90a kernels are "
                "unsplit)")
        if self.batch is not None or self.seq_q is not None:
            bad(f"op {self.op} takes no batch/seq_q/seq_k: the sequence count "
                "and the packed token totals are dynamic; leave them None")

    def _validate_combine(self, bad):
        """fa.combine's kernel is specialised on the row length (head_dim)
        and the output's dtype alone; the attention fields keep their
        defaults, so that equal kernels have equal keys."""
        default = KernelConfig()
        extra = sorted(f.name for f in fields(self)
                       if f.name not in ("op", "dtype", "head_dim") and
                       getattr(self, f.name) != getattr(default, f.name))
        if extra:
            bad(f"op combine takes only dtype (the output's) and head_dim "
                f"(the row length); got {', '.join(extra)}")

    def _validate_kvcache(self, bad):
        """What fa.attention_kvcache fixes: a bottom-right mask (implicit:
        the op has no mask_alignment)."""
        self._validate_serving(bad)
        if self.mask_alignment is not None:
            bad("op kvcache aligns its masks bottom-right implicitly; "
                "mask_alignment must be None")
        if self.page_size is not None and self.seq_k is not None:
            bad("op kvcache with page_size takes no seq_q/seq_k: paged caches "
                "have no capacity dim (a sequence's keys are max_pages * "
                "page_size); leave them None")

    def check_target(self, target):
        """UnsupportedError for a valid configuration that `target` has no
        kernel for, naming the field, before any tool runs. FP8 and the
        deterministic backward with a broadcast bias have such rules here;
        fa-compile's diagnostics say the rest."""
        where = f"KernelConfig for target {target}"
        if target == "sm_90a" and self.op == "backward":
            self._check_sm90a_backward(where)
        if target == "sm_90a" and self.op == "varlen_backward" and (
                self.score_mod or self.mask_mod):
            raise UnsupportedError(
                f"{where}: op varlen_backward with score_mod/mask_mod: the "
                "sm_90a fa.attention_varlen_grad takes no regions (its "
                "kernels see packed rows, not the sequences' positions)")
        if (target == "sm_90a" and self.op == "combine" and
                self.head_dim not in SM90A_COMBINE_HEAD_DIMS):
            raise UnsupportedError(
                f"{where}: the combine kernel takes head_dim (the row "
                f"length) up to {SM90A_COMBINE_HEAD_DIMS[-1]}, got "
                f"{self.head_dim} (a row is held in one warp's registers)")
        if self.dtype != FP8:
            return
        if target == "cpu":
            raise UnsupportedError(
                f"{where}: dtype {FP8} compiles for sm_90a only; on the CPU "
                "fa_mlir.torch.attention compiles the FP8 forward for each "
                "call's shapes itself")
        unsupported = []
        if self.descale_block is not None:
            rule = sm90a_descale_block_rule(self.descale_block,
                                            self.head_dim)
            if rule:
                unsupported.append(rule)
        if self.softcap is not None:
            unsupported.append("softcap")
        if self.out_dtype not in SM90A_FP8_OUT_DTYPES:
            unsupported.append(f"out_dtype {self.out_dtype} (the kernel "
                               "writes bf16 or f16)")
        if self.num_splits is not None:
            unsupported.append("num_splits (the FP8 forward is unsplit)")
        for name in ("head_dim", "head_dim_v"):
            size = self.head_dim if name == "head_dim" else self.dv
            if size not in SM90A_HEAD_DIMS:
                unsupported.append(f"{name} {size} (a multiple of 16 in "
                                   "[16, 256])")
        if unsupported:
            raise UnsupportedError(
                f"{where}: the {FP8} forward kernel does not take "
                f"{'; '.join(unsupported)} (on the CPU, "
                "fa_mlir.torch.attention takes any descale block, softcap, "
                "a float32 output and any head dim)")

    def _check_sm90a_backward(self, where):
        """The sm_90a backward sums dBias of a float32 bias over a broadcast
        batch or head dim with f32 atomics, whose order varies: not
        deterministic (a bias of the dtype is summed in a fixed order)."""
        broadcast = self.bias_broadcast_dims()
        if not self.deterministic or not broadcast or self.bias_dtype == self.dtype:
            return
        dims = " and ".join("heads" if d == "head" else d for d in broadcast)
        raise UnsupportedError(
            f"{where}: deterministic with a bias broadcast along {dims} "
            f"(bias={self.bias}, bias_dtype=float32): the sm_90a backward "
            "sums a float32 bias's dBias over the broadcast dims with float32 "
            "atomics, in no fixed order. Pass deterministic=False, a bias of "
            f"the dtype ({self.dtype}, summed in a fixed order), or a bias of "
            "[B, Hq, Sq, Sk] (bias.expand copies nothing; torch then sums its "
            "gradient)")

    # -- derived ------------------------------------------------------------
    def bias_broadcast_dims(self):
        """The bias dims the sm_90a backward sums over, as fa-compile decides
        them: a size-1 bias dim where the matching Q size is not a static 1
        (batch 1 or heads_q 1 leaves one writer per element). In
        docs/BundleFormat.md's order; [] without a bias."""
        if self.bias is None:
            return []
        sizes = (self.batch, self.heads_q)
        return [d for d, per, n in zip(("batch", "head"), self.bias, sizes)
                if not per and n != 1]

    @property
    def dv(self):
        return self.head_dim if self.head_dim_v is None else self.head_dim_v

    @property
    def dynamic(self):
        """The size groups left dynamic ('?' in the MLIR types); a paged
        kvcache adds "pages" (num_pages, max_pages), an append "new"
        (seq_new), which are always dynamic."""
        groups = tuple(g for g, sizes in SIZE_GROUPS.items()
                       if getattr(self, sizes[0]) is None)
        return (groups + (("pages",) if self.page_size is not None else ()) +
                (("new",) if self.append else ()))

    @property
    def effective_scale(self):
        return 1.0 / math.sqrt(self.head_dim) if self.scale is None else self.scale

    def attention_config(self):
        """The harness's AttentionConfig; dynamic sizes get placeholders.

        Placeholders are 2 (not 1) because a size-1 bias dim means broadcast.
        """
        sizes = {s: (2 if getattr(self, s) is None else getattr(self, s))
                 for group in SIZE_GROUPS.values() for s in group}
        return AttentionConfig(
            **sizes, head_dim=self.head_dim, head_dim_v=self.head_dim_v,
            dtype=self.dtype, layout=self.layout, causal=self.causal,
            mask_alignment=self.mask_alignment, window=self.window,
            softcap=self.softcap, scale=self.scale, bias=self.bias,
            bias_dtype=self.bias_dtype or "f32",
            return_lse=self.return_lse, num_splits=self.num_splits,
            page_size=self.page_size, append=self.append,
            varlen=self.op in VARLEN_OPS, dynamic=self.dynamic,
            score_mod=self.score_mod, mask_mod=self.mask_mod,
            captures=self.captures or (), sinks=self.sinks)

    def with_(self, **changes):
        return replace(self, **changes)

    # -- JSON ---------------------------------------------------------------
    def to_dict(self):
        d = asdict(self)
        for k in ("window", "bias", "descale_block", "captures"):
            if d[k] is not None:
                d[k] = list(d[k])
        for k, default in _ADDED_FIELDS.items():
            if d[k] == default:
                del d[k]
        return d

    @classmethod
    def from_dict(cls, d):
        if not isinstance(d, dict):
            raise ArgumentError(f"KernelConfig: a config must be a dict, got "
                                f"{type(d).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ArgumentError(f"KernelConfig: unknown field(s) {unknown}; "
                                f"known: {sorted(known)}")
        return cls(**d)

    def key(self):
        """Canonical JSON text: equal configurations, equal keys."""
        return json.dumps(self.to_dict(), sort_keys=True)
