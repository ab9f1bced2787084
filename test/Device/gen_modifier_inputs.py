"""The score_mod/mask_mod configurations of the device round (issue 35): each
an fa.attention whose regions state a FlexAttention modifier (and the
fa.attention_grad of the same op: the sm_90a backward), and the same
modifier in PyTorch (score(s, b, h, i, j, caps) / keep(b, h, i, j, caps) on
broadcast index tensors), which check_modifiers.py's float64 reference and
bench_modifiers.py's FlexAttention/FA4 peers use. Batch, heads and sequence
lengths are dynamic, head dims static; bhsd, with the LSE.

Captures (operands `capture<i>` of the bundle, in this order):
  slopes  [H]    f32  ALiBi slope of each query head
  docs    [B, S] i32  document id of each token (queries and keys: self-attention)
  prefix  [B]    i32  prefix length of each batch row (prefix-LM; valid_rows:
                      the number of real tokens)
  table   [H, 32] f32 T5's relative-position bias per query head and bucket

Usage:
  gen_modifier_inputs.py NAME           the forward of one configuration, on stdout
  gen_modifier_inputs.py backward NAME  its backward (fa.attention_grad)
  gen_modifier_inputs.py list           the configuration names
"""
import sys
from dataclasses import dataclass, field
from typing import Optional, Tuple

ALIBI = """    %m = tensor.extract %{slopes}[%h] : tensor<?xf32>
    %dist = arith.subi %j, %i : index
    %di = arith.index_cast %dist : index to i64
    %df = arith.sitofp %di : i64 to f32
    %bias = arith.mulf %m, %df : f32
    %r = arith.addf %s, %bias : f32
    fa.yield %r : f32"""

# A nonlinear score_mod: ALiBi through a tanh cap of its own and a max.
ALIBI_TANH = """    %m = tensor.extract %{slopes}[%h] : tensor<?xf32>
    %dist = arith.subi %j, %i : index
    %di = arith.index_cast %dist : index to i64
    %df = arith.sitofp %di : i64 to f32
    %bias = arith.mulf %m, %df : f32
    %c20 = arith.constant 20.0 : f32
    %x = arith.divf %s, %c20 : f32
    %t = math.tanh %x : f32
    %capped = arith.mulf %t, %c20 : f32
    %floor = arith.constant -30.0 : f32
    %b2 = arith.maximumf %bias, %floor : f32
    %r = arith.addf %capped, %b2 : f32
    fa.yield %r : f32"""

DOCUMENT = """    %di = tensor.extract %{docs}[%b, %i] : tensor<?x?xi32>
    %dj = tensor.extract %{docs}[%b, %j] : tensor<?x?xi32>
    %keep = arith.cmpi eq, %di, %dj : i32
    fa.yield %keep : i1"""

DOCUMENT_CAUSAL = """    %di = tensor.extract %{docs}[%b, %i] : tensor<?x?xi32>
    %dj = tensor.extract %{docs}[%b, %j] : tensor<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    %causal = arith.cmpi sge, %i, %j : index
    %keep = arith.andi %causal, %same : i1
    fa.yield %keep : i1"""

# A document mask whose padding tokens (id -1) see no key: rows without
# keys.
DOCUMENT_PADDED = """    %di = tensor.extract %{docs}[%b, %i] : tensor<?x?xi32>
    %dj = tensor.extract %{docs}[%b, %j] : tensor<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    %c0 = arith.constant 0 : i32
    %real = arith.cmpi sge, %di, %c0 : i32
    %keep = arith.andi %same, %real : i1
    fa.yield %keep : i1"""

# T5's bidirectional bucketed relative-position bias, 32 buckets (16 per
# direction, exact below 8, logarithmic up to 128): bucket = 16 (j > i) +
# (|j - i| < 8 ? |j - i| : min(8 + int(2 log2(|j - i| / 8)), 15)). In log2
# form: exact at the powers of two, so the kernel's lg2.approx and the
# reference agree on every bucket.
T5 = """    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %half = arith.constant 16 : index
    %exact = arith.constant 8 : index
    %last = arith.constant 15 : index
    %rel = arith.subi %j, %i : index
    %after = arith.cmpi sgt, %rel, %c0 : index
    %base = arith.select %after, %half, %c0 : index
    %neg = arith.subi %c0, %rel : index
    %dist = arith.maxsi %rel, %neg : index
    %d1 = arith.maxsi %dist, %c1 : index
    %di = arith.index_cast %d1 : index to i32
    %df = arith.sitofp %di : i32 to f32
    %c8 = arith.constant 8.0 : f32
    %ratio = arith.divf %df, %c8 : f32
    %lg = math.log2 %ratio : f32
    %c2 = arith.constant 2.0 : f32
    %lf = arith.mulf %lg, %c2 : f32
    %li = arith.fptosi %lf : f32 to i32
    %lx = arith.index_cast %li : i32 to index
    %large0 = arith.addi %exact, %lx : index
    %large = arith.minsi %large0, %last : index
    %small = arith.cmpi slt, %dist, %exact : index
    %off = arith.select %small, %dist, %large : index
    %bucket = arith.addi %base, %off : index
    %e = tensor.extract %{table}[%h, %bucket] : tensor<?x?xf32>
    %r = arith.addf %s, %e : f32
    fa.yield %r : f32"""

CAUSAL = """    %keep = arith.cmpi sle, %j, %i : index
    fa.yield %keep : i1"""

SLIDING = """    %c = arith.constant {window} : index
    %causal = arith.cmpi uge, %i, %j : index
    %d = arith.subi %i, %j : index
    %near = arith.cmpi sle, %d, %c : index
    %keep = arith.andi %causal, %near : i1
    fa.yield %keep : i1"""

PREFIX_LM = """    %p = tensor.extract %{prefix}[%b] : tensor<?xi32>
    %pi = arith.index_cast %p : i32 to index
    %causal = arith.cmpi sle, %j, %i : index
    %inPrefix = arith.cmpi slt, %j, %pi : index
    %keep = arith.ori %causal, %inPrefix : i1
    fa.yield %keep : i1"""

# Only the first prefix[b] tokens are real (queries and keys): the rows past
# them see no key (O = 0, LSE = -inf), whole query blocks included.
VALID_ROWS = """    %n = tensor.extract %{prefix}[%b] : tensor<?xi32>
    %ni = arith.index_cast %n : i32 to index
    %qi = arith.cmpi slt, %i, %ni : index
    %kj = arith.cmpi slt, %j, %ni : index
    %keep = arith.andi %qi, %kj : i1
    fa.yield %keep : i1"""

CAPTURE_TYPES = {"slopes": "tensor<?xf32>", "docs": "tensor<?x?xi32>",
                 "prefix": "tensor<?xi32>", "table": "tensor<?x?xf32>"}


# The same modifiers in PyTorch: s is the scaled score, b/h/i/j broadcast
# index tensors, caps {name: tensor}.
def torch_alibi(s, b, h, i, j, caps):
    return s + caps["slopes"][h].to(s.dtype) * (j - i).to(s.dtype)


def torch_alibi_tanh(s, b, h, i, j, caps):
    bias = caps["slopes"][h].to(s.dtype) * (j - i).to(s.dtype)
    import torch
    return 20.0 * torch.tanh(s / 20.0) + torch.clamp(bias, min=-30.0)


def torch_document(b, h, i, j, caps):
    return caps["docs"][b, i] == caps["docs"][b, j]


def torch_document_causal(b, h, i, j, caps):
    return (i >= j) & (caps["docs"][b, i] == caps["docs"][b, j])


def torch_document_padded(b, h, i, j, caps):
    return (caps["docs"][b, i] == caps["docs"][b, j]) & (caps["docs"][b, i] >= 0)


def torch_t5(s, b, h, i, j, caps):
    import torch
    rel = j - i
    dist = rel.abs()
    ratio = torch.clamp(dist, min=1).to(torch.float32) / 8.0
    large = torch.clamp(8 + (torch.log2(ratio) * 2.0).to(torch.int64), max=15)
    bucket = torch.where(rel > 0, 16, 0) + torch.where(dist < 8, dist, large)
    return s + caps["table"][h, bucket].to(s.dtype)


def torch_causal(b, h, i, j, caps):
    return j <= i


def torch_sliding(window):
    def keep(b, h, i, j, caps):
        return (i >= j) & (i - j <= window)
    return keep


def torch_prefix_lm(b, h, i, j, caps):
    return (j <= i) | (j < caps["prefix"][b])


def torch_valid_rows(b, h, i, j, caps):
    n = caps["prefix"][b]
    return (i < n) & (j < n)


def torch_causal_band(i, j):
    return j <= i


@dataclass(frozen=True)
class Config:
    name: str
    dtype: str = "bf16"
    head_dim: int = 128
    score_mod: Optional[str] = None   # the region's body (ALIBI, ...)
    mask_mod: Optional[str] = None
    captures: Tuple[str, ...] = ()
    causal: bool = False
    window: Optional[Tuple[int, int]] = None
    softcap: Optional[float] = None
    torch_score: Optional[object] = field(default=None, compare=False)
    torch_keep: Optional[object] = field(default=None, compare=False)
    # What the kernel must equal (a mask_mod that states a band): the
    # configuration with the attribute instead.
    same_kernel_as: Optional[str] = None
    # Padding tokens (document id -1) at the end of each row: rows without
    # keys.
    padded_docs: bool = False
    # A mask_mod the compiler cannot fold into the band entirely: the
    # kernel is block-sparse (a _block_map pre-kernel and the forward, one
    # sequence). `folded_band`: the band (i, j) -> bool the compiler folds
    # out of mask_mod (document_causal's causal), which check_modifiers.py
    # needs to tell the map's full tiles.
    block_sparse: bool = False
    folded_band: Optional[object] = field(default=None, compare=False)


CONFIGS = {c.name: c for c in [
    Config("alibi_bf16_d128", score_mod=ALIBI, captures=("slopes",), torch_score=torch_alibi),
    Config("alibi_causal_f16_d64", dtype="f16", head_dim=64, score_mod=ALIBI,
           captures=("slopes",), causal=True, torch_score=torch_alibi),
    Config("document_bf16_d128", mask_mod=DOCUMENT, captures=("docs",),
           torch_keep=torch_document, block_sparse=True),
    Config("document_causal_bf16_d64", head_dim=64, mask_mod=DOCUMENT_CAUSAL,
           captures=("docs",), torch_keep=torch_document_causal, block_sparse=True,
           folded_band=torch_causal_band),
    Config("document_causal_bf16_d128", mask_mod=DOCUMENT_CAUSAL, captures=("docs",),
           torch_keep=torch_document_causal, block_sparse=True,
           folded_band=torch_causal_band),
    Config("causal_mask_mod_bf16_d128", mask_mod=CAUSAL, torch_keep=torch_causal,
           same_kernel_as="causal_attr_bf16_d128"),
    Config("causal_attr_bf16_d128", causal=True),
    Config("causal_mask_mod_bf16_d64", head_dim=64, mask_mod=CAUSAL, torch_keep=torch_causal,
           same_kernel_as="causal_attr_bf16_d64"),
    Config("causal_attr_bf16_d64", head_dim=64, causal=True),
    Config("sliding_mask_mod_bf16_d128", mask_mod=SLIDING.replace("{window}", "255"),
           torch_keep=torch_sliding(255)),
    Config("prefix_lm_bf16_d128", mask_mod=PREFIX_LM, captures=("prefix",),
           torch_keep=torch_prefix_lm, block_sparse=True),
    Config("t5_bf16_d64", head_dim=64, score_mod=T5, captures=("table",),
           torch_score=torch_t5),
    Config("t5_bf16_d128", score_mod=T5, captures=("table",), torch_score=torch_t5),
    Config("t5_prefix_lm_f16_d128", dtype="f16", score_mod=T5, mask_mod=PREFIX_LM,
           captures=("table", "prefix"), torch_score=torch_t5, torch_keep=torch_prefix_lm,
           block_sparse=True),
    Config("document_padded_bf16_d64", head_dim=64, mask_mod=DOCUMENT_PADDED,
           captures=("docs",), torch_keep=torch_document_padded, padded_docs=True,
           block_sparse=True),
    # Rows (and whole query blocks) without any key; a map per batch row.
    Config("valid_rows_bf16_d128", mask_mod=VALID_ROWS, captures=("prefix",),
           torch_keep=torch_valid_rows, block_sparse=True),
    Config("alibi_document_bf16_d128", score_mod=ALIBI, mask_mod=DOCUMENT,
           captures=("slopes", "docs"), torch_score=torch_alibi, torch_keep=torch_document,
           block_sparse=True),
    # Several modifiers together: a nonlinear score_mod, the attribute
    # softcap after it, a document mask and a window.
    Config("combo_f16_d128", dtype="f16", score_mod=ALIBI_TANH, mask_mod=DOCUMENT,
           captures=("slopes", "docs"), window=(200, 0), softcap=30.0,
           torch_score=torch_alibi_tanh, torch_keep=torch_document, block_sparse=True),
]}


def _attrs(c):
    attrs = []
    if c.causal:
        attrs.append("causal")
    if c.window:
        attrs.append(f"window = array<i64: {c.window[0]}, {c.window[1]}>")
    if c.softcap:
        attrs.append(f"softcap = {c.softcap} : f32")
    return " {" + ", ".join(attrs) + "}" if attrs else ""


def _region(kind, body, c):
    lead = "%s: f32, " if kind == "score_mod" else ""
    caps = "".join(f", %{n}: {CAPTURE_TYPES[n]}" for n in c.captures)
    names = {n: n for n in CAPTURE_TYPES}
    return (f" {kind} {{\n  ^bb0({lead}%b: index, %h: index, %i: index, %j: index{caps}):\n"
            f"{body.format(**names)}\n  }}")


def _operands_and_regions(c):
    """The function's capture arguments, the op's captures clause and its
    regions."""
    cap_args = "".join(f", %{n}_in: {CAPTURE_TYPES[n]}" for n in c.captures)
    captures = ""
    if c.captures:
        captures = (" captures(" + ", ".join(f"%{n}_in" for n in c.captures) + " : " +
                    ", ".join(CAPTURE_TYPES[n] for n in c.captures) + ")")
    regions = ""
    if c.score_mod:
        regions += _region("score_mod", c.score_mod, c)
    if c.mask_mod:
        regions += _region("mask_mod", c.mask_mod, c)
    return cap_args, captures, regions


def function(c):
    qk = f"tensor<?x?x?x{c.head_dim}x{c.dtype}>"
    lse = "tensor<?x?x?xf32>"
    cap_args, captures, regions = _operands_and_regions(c)
    return (f"func.func @{c.name}(%q: {qk}, %k: {qk}, %v: {qk}{cap_args}) -> ({qk}, {lse}) {{\n"
            f"  %o, %lse = fa.attention %q, %k, %v : {qk}, {qk}, {qk}{captures}{_attrs(c)}"
            f" -> {qk}, {lse}{regions}\n"
            f"  return %o, %lse : {qk}, {lse}\n}}\n")


def backward_function(c):
    """The fa.attention_grad of configuration `c` (dQ, dK, dV)."""
    qk = f"tensor<?x?x?x{c.head_dim}x{c.dtype}>"
    lse = "tensor<?x?x?xf32>"
    cap_args, captures, regions = _operands_and_regions(c)
    operands = ", ".join([qk] * 5 + [lse])
    return (f"func.func @{c.name}_bwd(%do: {qk}, %q: {qk}, %k: {qk}, %v: {qk}, %o: {qk}, "
            f"%lse: {lse}{cap_args}) -> ({qk}, {qk}, {qk}) {{\n"
            f"  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %lse : {operands}"
            f"{captures}{_attrs(c)} -> {qk}, {qk}, {qk}{regions}\n"
            f"  return %dq, %dk, %dv : {qk}, {qk}, {qk}\n}}\n")


def main(argv):
    if len(argv) == 3 and argv[1] == "backward" and argv[2] in CONFIGS:
        print(backward_function(CONFIGS[argv[2]]))
        return 0
    if argv[1:] == ["list"]:
        print("\n".join(CONFIGS))
        return 0
    if len(argv) != 2 or argv[1] not in CONFIGS:
        print(__doc__, file=sys.stderr)
        return 2
    print(function(CONFIGS[argv[1]]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
