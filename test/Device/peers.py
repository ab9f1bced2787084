"""The peers our kernel is measured against, and the shared FLOP count.

The method of the team's peer study (../shared/peers/bench_peers.py and
README.md there), rewritten here so that it travels with the repository:
PyTorch SDPA's FlashAttention-2 backend and its cuDNN backend,
FlexAttention compiled to Triton, and "standard attention" (matmul,
softmax in float32, matmul, materialising S and P in HBM). Shapes: 16k
total tokens, hidden 2048 (heads = 2048 / head_dim), bf16, bhsd. FLOPs the
FlashAttention papers' way: forward 4 * B * H * N * N * D, halved for
causal; backward 2.5 x forward.
"""
import math

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

TOTAL_TOKENS = 16384
HIDDEN = 2048


def flops(B, H, N, D, causal, mode="fwd"):
    f = 4 * B * H * N * N * D
    if causal:
        f //= 2
    return f if mode == "fwd" else int(2.5 * f)


def shape(N, D, total_tokens=TOTAL_TOKENS):
    """(batch, heads) of the papers' setup for sequence length N."""
    return max(1, total_tokens // N), HIDDEN // D


def standard(q, k, v, causal):
    s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
    if causal:
        n = q.shape[-2]
        mask = torch.ones(n, n, device=q.device, dtype=torch.bool).triu(1)
        s = s.masked_fill(mask, float("-inf"))
    p = torch.softmax(s.float(), dim=-1).to(q.dtype)
    return torch.matmul(p, v)


def sdpa(backend):
    def f(q, k, v, causal):
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return f


def _flex():
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    import torch._dynamo
    torch._dynamo.config.recompile_limit = 1000
    torch._dynamo.config.accumulated_recompile_limit = 10000
    compiled = torch.compile(flex_attention, dynamic=False)
    masks = {}

    def f(q, k, v, causal):
        if causal:
            n = q.shape[-2]
            if n not in masks:
                masks[n] = create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, n, n,
                                             device=q.device)
            return compiled(q, k, v, block_mask=masks[n])
        return compiled(q, k, v)
    return f


def impls(flex=True):
    out = {"fa2": sdpa(SDPBackend.FLASH_ATTENTION), "cudnn": sdpa(SDPBackend.CUDNN_ATTENTION),
           "standard": standard}
    if flex:
        try:
            out["flex"] = _flex()
        except Exception as ex:  # noqa: BLE001 - reported, the round goes on
            print(f"# flex unavailable: {ex!r}")
    return out


# ---------------------------------------------------------------------------
# Variants: sliding window, softcap, additive bias, head dims up to 256, V head
# dim != QK head dim (test/Device/bench_variants.py). Each peer's `prepare`
# takes the variant and the bhsd inputs and returns (call, to_bhsd): call()
# runs the peer once and returns its output; to_bhsd(out) views it as
# [batch, heads, seq, head_dim_v]. A peer that cannot express the variant
# raises Unsupported; one whose package is missing raises Unavailable.
# Mask rule (fa.attention's, top-left, seq_q == seq_k): key j is visible from
# query i when j <= i (causal) and i - left <= j <= i + right (window).


class Unsupported(Exception):
    """The peer cannot compute this variant: recorded as such, not a failure."""


class Unavailable(Exception):
    """The peer's package is not importable on this machine."""


class Variant:
    def __init__(self, head_dim, head_dim_v, causal=False, window=None, softcap=None, bias=False):
        self.head_dim, self.head_dim_v, self.causal = head_dim, head_dim_v, causal
        self.window = tuple(window) if window is not None else None
        self.softcap, self.bias = softcap, bias
        self.scale = 1.0 / math.sqrt(head_dim)

    def visible(self, rows, n):
        """Boolean [len(rows), n]: which keys each query row sees."""
        i = rows.view(-1, 1)
        j = torch.arange(n, device=rows.device).view(1, -1)
        m = torch.ones(len(rows), n, dtype=torch.bool, device=rows.device)
        if self.causal:
            m &= j <= i
        if self.window is not None:
            m &= (j >= i - self.window[0]) & (j <= i + self.window[1])
        return m

    def pairs(self, n):
        """Visible (query, key) pairs of one (batch, head), counted exactly."""
        total = 0
        for i in range(n):
            lo, hi = 0, n - 1
            if self.causal:
                hi = min(hi, i)
            if self.window is not None:
                lo, hi = max(lo, i - self.window[0]), min(hi, i + self.window[1])
            total += max(0, hi - lo + 1)
        return total


def variant_flops(B, H, n, var):
    """2 * B * H * pairs * (D + Dv): Q K^T and P V over the visible pairs only."""
    return 2 * B * H * var.pairs(n) * (var.head_dim + var.head_dim_v)


def alibi_bias(H, n, dtype=torch.bfloat16, device="cuda"):
    """ALiBi as an additive bias [1, H, n, n]: -slope_h * |i - j|, slope_h = 2^(-8 (h+1) / H)
    (for the visible pairs of a causal row this is slope_h * -(i - j))."""
    slopes = torch.pow(2.0, -8.0 * torch.arange(1, H + 1, device=device, dtype=torch.float32) / H)
    idx = torch.arange(n, device=device, dtype=torch.float32)
    dist = (idx.view(-1, 1) - idx.view(1, -1)).abs()
    return (-slopes.view(1, H, 1, 1) * dist.view(1, 1, n, n)).to(dtype)


def reference_rows(q, k, v, bias, var, rows):
    """float32 attention of batch 0 at the given query rows: [H, len(rows), Dv]."""
    qs, ks, vs = q[0, :, rows].float(), k[0].float(), v[0].float()
    s = torch.matmul(qs, ks.transpose(-1, -2)) * var.scale
    if bias is not None:
        s = s + bias[0, :, rows].float()
    if var.softcap is not None:
        s = var.softcap * torch.tanh(s / var.softcap)
    s = s.masked_fill(~var.visible(rows, k.shape[2]), float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), vs)


_BHSD = (lambda o: o)  # noqa: E731


def _sdpa_call(backend, q, k, v, **kw):
    def call():
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, **kw)
    return call


def prepare_fa2(var, q, k, v, bias):
    """SDPA's FlashAttention-2 backend: causal or not, no mask of any other kind."""
    if var.window is not None or var.softcap is not None or bias is not None:
        raise Unsupported("SDPA flash backend takes no window, softcap or mask")
    return _sdpa_call(SDPBackend.FLASH_ATTENTION, q, k, v, is_causal=var.causal), _BHSD


def prepare_cudnn(var, q, k, v, bias):
    """SDPA's cuDNN backend. A bias goes in as attn_mask; SDPA takes no is_causal
    with a mask, so a causal bias row gets the causal mask folded into the bias
    (-inf above the diagonal: cuDNN then computes every pair)."""
    if var.window is not None or var.softcap is not None:
        raise Unsupported("SDPA has no window or softcap parameter")
    if bias is None:
        return _sdpa_call(SDPBackend.CUDNN_ATTENTION, q, k, v, is_causal=var.causal), _BHSD
    mask = bias
    if var.causal:
        n = q.shape[2]
        mask = bias.masked_fill(~torch.ones(n, n, dtype=torch.bool, device=q.device).tril(), float("-inf"))
    return _sdpa_call(SDPBackend.CUDNN_ATTENTION, q, k, v, attn_mask=mask), _BHSD


def prepare_cudnn_fe(var, q, k, v, bias):
    """cuDNN's SDPA through cudnn-frontend's graph API (nvidia-cudnn-frontend, which
    travels with the FA4 wheels): the native sliding window (diagonal band, left
    bound = keys strictly before i - bound are hidden, so bound = left + 1), bias,
    D != Dv. Writes the softmax stats (the LSE), as ours does."""
    try:
        import cudnn
    except Exception as ex:  # noqa: BLE001
        raise Unavailable(f"cudnn frontend: {type(ex).__name__}: {ex}") from None
    if var.softcap is not None:
        raise Unsupported("cudnn-frontend sdpa has no softcap attribute")
    if var.window is not None and (var.window[1] != 0 or not var.causal):
        raise Unsupported("cudnn-frontend sliding window only with causal, right = 0")
    B, H, n, _ = q.shape
    g = cudnn.pygraph(io_data_type=cudnn.data_type.BFLOAT16,
                      intermediate_data_type=cudnn.data_type.FLOAT,
                      compute_data_type=cudnn.data_type.FLOAT)
    tq, tk, tv = g.tensor_like(q), g.tensor_like(k), g.tensor_like(v)
    kw = dict(name="sdpa", q=tq, k=tk, v=tv, attn_scale=var.scale, use_causal_mask=var.causal)
    tb = None
    if bias is not None:
        tb = g.tensor_like(bias)
        kw["bias"] = tb
    if var.window is not None:
        kw["diagonal_band_left_bound"] = var.window[0] + 1
    try:
        to, ts = g.sdpa(generate_stats=True, **kw)
    except TypeError:  # an older frontend
        to, ts = g.sdpa(is_inference=False, **kw)
    o = torch.empty(B, H, n, var.head_dim_v, device=q.device, dtype=q.dtype)
    stats = torch.empty(B, H, n, 1, device=q.device, dtype=torch.float32)
    to.set_output(True).set_dim(list(o.shape)).set_stride(list(o.stride()))
    ts.set_output(True).set_dim(list(stats.shape)).set_stride(list(stats.stride())) \
      .set_data_type(cudnn.data_type.FLOAT)
    try:
        g.validate()
        g.build_operation_graph()
        g.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
        g.check_support()
        g.build_plans()
    except Exception as ex:  # noqa: BLE001 - the graph API's way of saying "not supported"
        raise Unsupported(f"cudnn-frontend: {type(ex).__name__}: {str(ex).splitlines()[0][:80]}") from None
    ws = torch.empty(max(1, g.get_workspace_size()), device=q.device, dtype=torch.uint8)
    pack = {tq: q, tk: k, tv: v, to: o, ts: stats}
    if tb is not None:
        pack[tb] = bias

    def call():
        g.execute(pack, ws)
        return o
    return call, _BHSD


_fa4 = {}


def _fa4_import(name):
    """flash_attn.cute.<name> (flash-attn-4, CuTe-DSL), or raises Unavailable."""
    if name not in _fa4:
        try:
            import flash_attn.cute as cute
            _fa4[name] = getattr(cute, name)
        except Exception as ex:  # noqa: BLE001
            _fa4[name] = Unavailable(f"flash_attn.cute.{name}: {type(ex).__name__}: "
                                     f"{str(ex)[:80]}")
    if isinstance(_fa4[name], Exception):
        raise _fa4[name]
    return _fa4[name]


def fa4_func():
    """FlashAttention-4's flash_attn_func, or Unavailable."""
    return _fa4_import("flash_attn_func")


def fa4_varlen_func():
    """FlashAttention-4's flash_attn_varlen_func (ragged and paged), or Unavailable."""
    return _fa4_import("flash_attn_varlen_func")


def _fa4_bias_score_mod():
    """A FA4 score_mod that adds aux_tensors[0][0, h, q, kv] (the bias, [1, H, Sq, Sk])
    to the scaled score: FA4 has no bias operand, this is how its users add one."""
    if "bias_mod" not in _fa4:
        import cutlass
        import cutlass.cute as cute

        @cute.jit
        def add_bias(score, b_idx, h_idx, q_idx, kv_idx, seqlen_info, aux_tensors):
            bias = aux_tensors[0]
            h, qi, ki = (cute.make_rmem_tensor(1, cutlass.Int32) for _ in range(3))
            h.store(h_idx)
            qi.store(q_idx)
            ki.store(kv_idx)
            val = cute.make_rmem_tensor(1, bias.element_type)
            val[0] = bias[0, h[0], qi[0], ki[0]]
            return score + val.load().to(cutlass.Float32)
        _fa4["bias_mod"] = add_bias
    return _fa4["bias_mod"]


def prepare_fa4(var, q, k, v, bias):
    """FlashAttention-4 on bshd copies of the inputs (its layout), made once."""
    f = fa4_func()
    qs, ks, vs = (t.transpose(1, 2).contiguous() for t in (q, k, v))
    kw = {"causal": var.causal}
    if var.window is not None:
        kw["window_size"] = var.window
    if var.softcap is not None:
        kw["softcap"] = var.softcap
    if bias is not None:
        kw["score_mod"] = _fa4_bias_score_mod()
        kw["aux_tensors"] = [bias]

    def call():
        out = f(qs, ks, vs, **kw)
        return out[0] if isinstance(out, tuple) else out
    return call, (lambda o: o.transpose(1, 2))


_flex_state = {}


def prepare_flex(var, q, k, v, bias):
    """FlexAttention (torch.compile'd): the mask as a block mask (causal, window),
    softcap and bias as a score_mod."""
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    if "compiled" not in _flex_state:
        from torch import _dynamo  # (not "import torch._dynamo": that would make torch local here)
        _dynamo.config.recompile_limit = 1000
        _dynamo.config.accumulated_recompile_limit = 10000
        _flex_state["compiled"] = torch.compile(flex_attention, dynamic=False)
    compiled = _flex_state["compiled"]
    n = q.shape[2]
    causal, window, cap = var.causal, var.window, var.softcap

    def mask_mod(b, h, qi, ki):
        m = qi >= 0
        if causal:
            m = m & (qi >= ki)
        if window is not None:
            m = m & (qi - ki <= window[0]) & (ki - qi <= window[1])
        return m
    block_mask = (create_block_mask(mask_mod, None, None, n, n, device=q.device)
                  if causal or window is not None else None)
    score_mod = None
    if bias is not None and cap is not None:
        def score_mod(s, b, h, qi, ki):
            s = s + bias[0, h, qi, ki]
            return cap * torch.tanh(s / cap)
    elif bias is not None:
        def score_mod(s, b, h, qi, ki):
            return s + bias[0, h, qi, ki]
    elif cap is not None:
        def score_mod(s, b, h, qi, ki):
            return cap * torch.tanh(s / cap)
    return (lambda: compiled(q, k, v, score_mod=score_mod, block_mask=block_mask)), _BHSD


VARIANT_PEERS = {"fa4": prepare_fa4, "cudnn": prepare_cudnn, "cudnn_fe": prepare_cudnn_fe,
                 "fa2": prepare_fa2, "flex": prepare_flex}
