"""Numerics of our sm_90a attention kernels over the matrix of
gen_attention_inputs.py `all`, launched through libfa_runtime
(test/Device/fa_rt.py; kernels found by their JSON config).

FlashAttention's criterion (its tests' `attention_ref`): with `ref` a
higher-precision reference, max |ours - ref| <= 2 * max |base - ref| + 1e-5,
where `base` is computed in the input precision. Two baselines, both must
hold:
  plain  the straightforward computation in bf16/f16 (S = scale Q K^T
         rounded, + bias, softcap, mask, softmax and P V each rounded, as
         attention_ref(upcast=False));
  sdpa   torch.nn.functional.scaled_dot_product_attention on the same
         inputs (is_causal for square top-left causal, else attn_mask: the
         boolean visibility mask, or with a bias the float mask bias + -inf
         where hidden; enable_gqa for GQA/MQA). SDPA has no softcap: for
         softcap cases this baseline is skipped (recorded as such).
ref is float64 on small shapes (<= 2^22 score elements) and float32 on
upcast inputs on the larger ones. Also: LSE within 1e-3 (relative to
1 + |lse|) of ref; every row < seq_q written (output poisoned with NaN);
rows with every key hidden (by the mask or by -inf bias entries) give O = 0
and LSE = -inf.

The visibility rule is test/lib/mask_cases.py's (the table the CPU test
test/Execution/mask-cases.py checks too); its entries are the `mask` family.

Usage: python3 test/Device/check_attention.py BUNDLE_DIR [CSV_OUT]
Env: FA_CHECK_QUICK=1 a few small cases, one per part (for memcheck);
     FA_CHECK_QUICK=racecheck 3 tiny cases (for racecheck);
     FA_CHECK_BUDGET seconds after which no further case starts (default
     105; cases left are reported as not run, so a CSV and a summary always
     come out before the round's 120 s timeout);
     FA_CHECK_ONLY a substring: only cases whose name contains it;
     FA_CHECK_EMULATE=1 checks the checker without a GPU: on the CPU, each
     kernel replaced by a float32 computation of the op's definition
     (=bug-window: one that ignores the window's left side, which must
     fail); needs only torch. When BUNDLE_DIR exists, the real bundles are
     loaded (libfa_runtime needs no GPU for that), found by their config as
     in a real run, and every launch's operands go through the runtime's
     fa_bundle_check first.
"""
import csv
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _here)
sys.path.insert(0, os.path.join(os.path.dirname(_here), "lib"))
import fa_rt  # noqa: E402
import gen_attention_inputs as gen  # noqa: E402
import mask_cases  # noqa: E402

DEVICE = "cpu" if os.environ.get("FA_CHECK_EMULATE") else "cuda"
F64_LIMIT = 1 << 22  # B * Hq * Sq * Sk up to which the reference is float64
FIELDS = ["case", "family", "ok", "ref", "err", "err_plain", "err_sdpa", "diff_sdpa", "ok_plain",
          "ok_sdpa", "sdpa", "written", "lse_ok", "masked_ok", "dead_rows", "seconds", "kernel"]


def to_bhsd(t, layout):
    return t if layout == "bhsd" else t.transpose(1, 2)


def case(cfg, B, Hq, Hkv, Sq, Sk, **opts):
    """One check: a configuration (gen.Cfg or its 6-tuple), a shape, and
    options: strided (Q as a view with padded rows), scale_inputs (Q and K
    multiplied by it: large logits), bias_shape (BH, 1H, B1, 11, or
    expanded: [1,1,Sq,Sk] expanded to [B,H,Sq,Sk] with stride 0),
    bias_kind (randn, neginf: -inf entries and whole -inf rows, alibi),
    bias_dense (no padding of the bias rows even when Sk * size is not a
    multiple of 16 bytes)."""
    return dict(cfg=gen.as_cfg(cfg), B=B, Hq=Hq, Hkv=Hkv, Sq=Sq, Sk=Sk, **opts)


def reference(q, k, v, scale, keep, dtype, bias=None, softcap=None):
    """q, k, v in bhsd; computed in `dtype` (float64/float32 = reference,
    bf16/f16 = plain, every step rounded). Returns O (rows without keys 0)
    and LSE (float)."""
    hq, hk = q.shape[1], k.shape[1]
    if hq != hk:
        k = k.repeat_interleave(hq // hk, dim=1)
        v = v.repeat_interleave(hq // hk, dim=1)
    q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
    s = (q @ k.transpose(-1, -2)) * scale
    if bias is not None:  # the sum in the wider of the two types, rounded to dtype
        wide = torch.promote_types(dtype, bias.dtype)
        s = (s.to(wide) + bias.to(wide)).to(dtype)
    if softcap is not None:
        s = torch.tanh(s / softcap) * softcap
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(s if dtype in (torch.float64, torch.float32) else s.float(), dim=-1)
    p = torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0)
    return p @ v, lse


def sdpa(qb, kb, vb, keep, square_top_left, scale, bias=None):
    """SDPA on the bhsd views: is_causal for a square top-left causal mask
    (its FA2/cuDNN path), else attn_mask: boolean (True keeps) or, with a
    bias, float (bias, -inf where hidden, in the query's dtype)."""
    gqa = qb.shape[1] != kb.shape[1]
    if bias is None:
        if square_top_left:
            return F.scaled_dot_product_attention(qb, kb, vb, is_causal=True, scale=scale, enable_gqa=gqa)
        return F.scaled_dot_product_attention(qb, kb, vb, attn_mask=keep, scale=scale, enable_gqa=gqa)
    m = bias.float()
    if keep is not None:
        m = m.masked_fill(~keep, float("-inf"))
    # In the query's dtype: on the H200 (torch 2.11) a float32 mask with
    # bf16/f16 inputs gave NaN on every row at d128 (2026-12-01 round).
    return F.scaled_dot_product_attention(qb, kb, vb, attn_mask=m.to(qb.dtype), scale=scale,
                                          enable_gqa=gqa)


def make_bias(c, dtype, device):
    """(tensor for the kernel, its logical values as float64 [B|1,H|1,Sq,Sk])."""
    B, H, Sq, Sk = c["B"], c["Hq"], c["Sq"], c["Sk"]
    shape = c.get("bias_shape", "BH")
    dims = {"BH": (B, H), "1H": (1, H), "B1": (B, 1), "11": (1, 1), "expanded": (1, 1)}[shape]
    kind = c.get("bias_kind", "randn")
    if kind == "alibi":  # -m_h |i - j|, m_h = 2^(-8 (h + 1) / H)
        hh = torch.arange(dims[1], device=device, dtype=torch.float64).view(1, -1, 1, 1)
        slope = torch.pow(2.0, -8.0 * (hh + 1) / dims[1])
        i = torch.arange(Sq, device=device, dtype=torch.float64).view(1, 1, -1, 1)
        j = torch.arange(Sk, device=device, dtype=torch.float64).view(1, 1, 1, -1)
        vals = (-slope * (i - j).abs()).expand(dims[0], dims[1], Sq, Sk)
    else:
        vals = torch.randn(*dims, Sq, Sk, device=device, dtype=torch.float64)
        if kind == "neginf":  # scattered -inf, and whole rows of -inf in every (batch, head)
            vals = vals.masked_fill(torch.rand_like(vals) < 0.1, float("-inf"))
            for r in {min(3, Sq - 1), Sq // 2}:
                vals[:, :, r, :] = float("-inf")
    vals = vals.to(dtype)  # what the kernel gets, exactly
    esize = torch.finfo(dtype).bits // 8
    pad = not c.get("bias_dense") and (Sk * esize) % 16 != 0
    if pad:  # rows padded to a multiple of 16 bytes: a strided view
        width = -(-Sk * esize // 16) * 16 // esize
        store = torch.full((*dims, Sq, width), float("nan"), device=device, dtype=dtype)
        store[..., :Sk] = vals
        kernel_bias = store[..., :Sk]
    else:
        kernel_bias = vals.contiguous()
    if shape == "expanded":
        kernel_bias = kernel_bias.expand(B, H, Sq, Sk)
    return kernel_bias, vals.double()


def case_name(c):
    cfg = c["cfg"]
    name = f"{gen.describe(cfg)} B{c['B']} H{c['Hq']}/{c['Hkv']} {c['Sq']}x{c['Sk']}"
    if c.get("strided"):
        name += " strided-q"
    if c.get("scale_inputs"):
        name += f" qk*{c['scale_inputs']:g}"
    if cfg.bias is not None:
        name += f" bias[{c.get('bias_shape', 'BH')}]{c.get('bias_kind', 'randn')}"
        if c.get("bias_dense"):
            name += "-dense"
    return name


def run_case(kernels, c):
    cfg, B, Hq, Hkv, Sq, Sk = c["cfg"], c["B"], c["Hq"], c["Hkv"], c["Sq"], c["Sk"]
    d, dv, layout = cfg.d, gen.dv_of(cfg), cfg.layout
    kern = fa_rt.find(kernels, cfg.dtype, d, layout, cfg.causal, cfg.align or "top_left", cfg.lse,
                      head_dim_v=cfg.dv, window=cfg.window, softcap=cfg.softcap, bias_dtype=cfg.bias)
    dt = fa_rt.DTYPES[cfg.dtype]
    shape = (lambda s, h, e: (B, s, h, e)) if layout == "bshd" else (lambda s, h, e: (B, h, s, e))
    if c.get("strided"):  # query as a view with padded rows (a non-dense innermost-unit layout)
        big = torch.randn(*shape(Sq, Hq, 2 * d), device=DEVICE).to(dt)
        q = big[..., :d]
    else:
        q = torch.randn(shape(Sq, Hq, d), device=DEVICE).to(dt)
    k = torch.randn(shape(Sk, Hkv, d), device=DEVICE).to(dt)
    v = torch.randn(shape(Sk, Hkv, dv), device=DEVICE).to(dt)
    if c.get("scale_inputs"):  # a power of two: exact in bf16/f16
        q, k = q * c["scale_inputs"], k * c["scale_inputs"]
    bias, bias64 = (None, None)
    if cfg.bias is not None:
        bias, bias64 = make_bias(c, fa_rt.DTYPES[cfg.bias], q.device)
    o = torch.full(shape(Sq, Hq, dv), float("nan"), device=DEVICE).to(dt)
    lse = torch.full((B, Hq, Sq), float("nan"), device=DEVICE) if cfg.lse else None
    kern(q, k, v, o, lse, bias=bias)
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    scale = 1.0 / math.sqrt(d)
    qb, kb, vb, ob = (to_bhsd(t, layout) for t in (q, k, v, o))
    masked = cfg.causal or cfg.window is not None
    keep = (mask_cases.visible(Sq, Sk, cfg.causal, cfg.window, cfg.align or "top_left", xp=torch)
            .to(q.device) if masked else None)
    small = B * Hq * Sq * Sk <= F64_LIMIT
    rdt = torch.float64 if small else torch.float32
    ref, ref_lse = reference(qb, kb, vb, scale, keep, rdt, bias64, cfg.softcap)
    plain_bias = None if bias is None else bias64.to(fa_rt.DTYPES[cfg.bias])
    plain, _ = reference(qb, kb, vb, scale, keep, dt, plain_bias, cfg.softcap)
    ref, ref_lse = ref.double(), ref_lse.double()
    live = torch.isfinite(ref_lse)  # rows with at least one key
    err = (ob.double() - ref).abs().max().item() if ob.numel() else 0.0
    err_plain = (plain.double() - ref).abs().max().item() if ob.numel() else 0.0
    written = not torch.isnan(ob).any().item()
    lse_ok, masked_ok = True, True
    if cfg.lse:
        lse_err = (lse.double() - ref_lse).abs() / (1 + ref_lse.abs())
        lse_ok = bool((lse_err[live] <= 1e-3).all().item()) if live.any() else True
    if (~live).any():
        dead = (~live).unsqueeze(-1).expand_as(ob)
        masked_ok = bool((ob.double()[dead] == 0).all().item())
        if cfg.lse:
            masked_ok = masked_ok and bool((lse[~live] == float("-inf")).all().item())
    # SDPA: its error against the same reference on rows with a key; and ours vs SDPA
    rows = live.unsqueeze(-1).expand_as(ob)
    err_live = (ob.double()[rows] - ref[rows]).abs().max().item() if rows.any() else 0.0
    if cfg.softcap is not None:
        sdpa_note, err_sdpa, diff_sdpa, ok_sdpa = "skipped (softcap)", float("nan"), float("nan"), True
    else:
        square_tl = cfg.causal and cfg.window is None and cfg.align != "bottom_right" and Sq == Sk
        ts = sdpa(qb, kb, vb, keep, square_tl, scale,
                  None if bias is None else bias64.to(fa_rt.DTYPES[cfg.bias])).double()
        err_sdpa = (ts[rows] - ref[rows]).abs().max().item() if rows.any() else 0.0
        diff_sdpa = (ts[rows] - ob.double()[rows]).abs().max().item() if rows.any() else 0.0
        ok_sdpa = err_live <= 2 * err_sdpa + 1e-5
        sdpa_note = "is_causal" if square_tl and bias is None else (
            "bool mask" if bias is None and keep is not None else (
                "no mask" if bias is None else "float mask"))
    ok_plain = err <= 2 * err_plain + 1e-5
    ok = written and ok_plain and ok_sdpa and lse_ok and masked_ok
    return dict(ok=ok, ref="f64" if small else "f32", err=err, err_plain=err_plain,
                err_sdpa=err_sdpa, diff_sdpa=diff_sdpa, ok_plain=ok_plain, ok_sdpa=ok_sdpa,
                sdpa=sdpa_note, written=written, lse_ok=lse_ok, masked_ok=masked_ok,
                dead_rows=int((~live[0, 0]).sum().item()), kernel=kern.name)


# -- the matrix --------------------------------------------------------------

def base_cases():
    out = []
    for i, cfg in enumerate(gen.base()):
        g = 2 if i % 2 else 1  # GQA on every other configuration
        if cfg.align == "bottom_right":
            out.append(case(cfg, 1, 4, 4 // g, 300, 200))      # 100 fully masked rows
            out.append(case(cfg, 2, 8, 8 // g, 1500, 2048))
        else:
            out.append(case(cfg, 2, 4, 4 // g, 300 + 77 * (i % 3), 300 + 77 * (i % 3)))  # tails
            out.append(case(cfg, 2, 8, 8 // g, 2048, 2048))
    out += [
        case(("bf16", 128, "bshd", False, None, True), 2, 2, 1, 1, 1),        # seqlen 1, MQA
        case(("bf16", 128, "bshd", False, None, True), 1, 2, 2, 77, 300),     # seq_q != seq_k
        case(("bf16", 128, "bshd", True, "top_left", True), 1, 2, 2, 300, 200),  # top-left, seq_q > seq_k
        case(("bf16", 128, "bshd", True, "bottom_right", True), 1, 4, 4, 200, 333),
        case(("f16", 64, "bshd", False, None, True), 1, 4, 4, 129, 129),
        case(("bf16", 128, "bshd", False, None, True), 1, 16, 16, 4096, 4096),
        case(("bf16", 64, "bhsd", True, "top_left", True), 4, 16, 16, 1024, 1024),  # GPT-2 medium's config
        # causal from 4096 rows: a persistent kernel's one-tile-per-CTA path
        case(("bf16", 64, "bhsd", True, "top_left", True), 1, 4, 4, 4096, 4096),
        case(("bf16", 128, "bshd", True, "top_left", True), 1, 4, 2, 4133, 4133),
        case(("bf16", 128, "bshd", True, "top_left", True), 2, 4, 2, 1000, 1000, strided=True),
    ]
    return out


def hdim_cases():
    out = []
    for i, cfg in enumerate(gen.hdim()):
        g = 2 if i % 2 else 1
        if cfg.align == "bottom_right":
            out.append(case(cfg, 1, 4, 4 // g, 300, 200))
        else:
            out.append(case(cfg, 2, 4, 4 // g, 300 + 77 * (i % 3), 300 + 77 * (i % 3)))
        if cfg.d >= 192 or (cfg.d == 96 and not cfg.causal):
            out.append(case(cfg, 1, 8, 8 // g, 1500 if cfg.align == "bottom_right" else 2048, 2048))
    out.append(case(("bf16", 256, "bshd", False, None, True), 2, 2, 1, 1, 1))  # seqlen 1, MQA, d256
    return out


def dv_cases():
    out = []
    for i, cfg in enumerate(gen.dv()):
        g = 2 if i % 2 else 1
        if cfg.align == "bottom_right":
            out += [case(cfg, 1, 4, 4 // g, 300, 200), case(cfg, 1, 8, 8 // g, 1500, 2048)]
        else:
            out += [case(cfg, 2, 4, 4 // g, 257, 300 + 33 * i), case(cfg, 1, 8, 8 // g, 2048, 2048)]
    return out


def mask_family_cases():
    """Every entry of the mask table on every one of its (seq_q, seq_k)
    pairs, on the kernel gen.mask_cfg gives it."""
    out = []
    for n, m in enumerate(mask_cases.MASKS):
        cfg = gen.mask_cfg(m, n)
        hkv = 4 if n % 2 else 2  # GQA on every other mask
        for sq, sk in m.pairs:
            out.append(case(cfg, 1, 4, hkv, sq, sk, family="mask", mask=m.name))
    return out


def softcap_cases():
    sc = gen.softcap()
    return [
        case(sc[0], 2, 4, 2, 333, 333, scale_inputs=8),       # |scale q k| ~ 64 >> 50
        case(sc[0], 1, 8, 8, 2048, 2048, scale_inputs=8),
        case(sc[0], 1, 2, 2, 200, 200),                       # ordinary logits
        case(sc[1], 2, 4, 4, 300, 300, scale_inputs=8),
        case(sc[1], 1, 4, 1, 1, 300, scale_inputs=8),         # seq_q 1 (top-left causal: one key)
        case(sc[2], 1, 4, 2, 500, 700, scale_inputs=8),
        case(sc[2], 1, 4, 4, 600, 300, scale_inputs=8),       # rows without keys (bottom-right)
        case(sc[3], 2, 4, 2, 257, 300, scale_inputs=8, bias_shape="BH"),
        # -inf bias entries under softcap: softcap * tanh(-inf) = -softcap by the op's
        # definition (the bias is added before the cap), so no row loses its keys
        case(sc[3], 1, 2, 2, 200, 200, bias_shape="1H", bias_kind="neginf"),
    ]


def bias_cases():
    b = gen.bias()
    return [
        case(b[0], 2, 4, 4, 300, 300, bias_shape="BH"),
        case(b[0], 2, 4, 2, 256, 333, bias_shape="1H"),                      # padded rows (333 * 4 B)
        case(b[0], 2, 4, 4, 200, 200, bias_shape="B1", bias_kind="neginf"),   # whole rows hidden by -inf
        case(b[0], 2, 4, 4, 129, 129, bias_shape="11"),
        case(b[0], 2, 4, 4, 300, 300, bias_shape="expanded"),                # stride-0 batch and head
        case(b[0], 1, 8, 8, 2048, 2048, bias_shape="1H"),
        case(b[1], 2, 4, 2, 300, 300, bias_shape="BH", bias_kind="neginf"),
        case(b[1], 1, 2, 2, 300, 300, bias_shape="1H", bias_dense=True),     # dense, 600 B rows
        case(b[1], 2, 8, 8, 2048, 2048, bias_shape="11"),
        case(b[2], 2, 4, 4, 300, 200, bias_shape="B1", bias_kind="neginf"),   # mask and bias hide rows
        case(b[2], 1, 4, 4, 200, 333, bias_shape="11"),
        case(b[3], 2, 8, 2, 300, 300, bias_shape="1H", bias_kind="alibi"),
        case(b[3], 1, 8, 8, 1024, 1024, bias_shape="1H", bias_kind="alibi"),
        case(b[4], 1, 4, 2, 700, 700, bias_shape="1H"),
        case(b[4], 1, 2, 2, 300, 300, bias_shape="BH", bias_kind="neginf"),
        case(b[5], 2, 4, 4, 300, 300, bias_shape="11"),
        case(b[6], 1, 4, 4, 300, 300, bias_shape="BH", bias_kind="neginf"),
        case(b[6], 1, 4, 1, 1, 1, bias_shape="1H"),                          # seqlen 1, MQA
    ]


def combo_cases():
    cb = gen.combo()
    return [
        case(cb[0], 2, 4, 2, 300, 500, scale_inputs=4, bias_shape="1H"),
        case(cb[0], 1, 4, 4, 600, 300, scale_inputs=4, bias_shape="BH", bias_kind="neginf"),
        case(cb[1], 1, 4, 4, 257, 300, scale_inputs=4, bias_shape="BH"),
        case(cb[1], 2, 4, 2, 400, 200, bias_shape="B1"),                     # rows outside the window
    ]


FAMILY_CASES = [("base", base_cases), ("hdim", hdim_cases), ("dv", dv_cases),
                ("mask", mask_family_cases), ("softcap", softcap_cases), ("bias", bias_cases),
                ("combo", combo_cases)]


def cases():
    """Every case, small (float64 reference) ones first, so that a time
    budget cuts the large ones."""
    out = []
    for fam, fn in FAMILY_CASES:
        for c in fn():
            c.setdefault("family", fam)
            out.append(c)
    return sorted(out, key=lambda c: c["B"] * c["Hq"] * c["Sq"] * c["Sk"] > F64_LIMIT)


def _bf(d, layout, causal, align, lse=True, **kw):
    return gen.Cfg("bf16", d, layout, causal, align, lse, **kw)


QUICK = [  # memcheck: one or more small cases per part
    case(("bf16", 128, "bshd", False, None, True), 1, 8, 2, 1000, 1000, family="base"),     # GQA, tail
    case(("bf16", 128, "bshd", False, None, True), 1, 2, 2, 77, 300, family="base"),        # seq_q != seq_k
    case(("bf16", 128, "bshd", True, "bottom_right", True), 1, 4, 4, 300, 200, family="base"),
    case(("f16", 64, "bhsd", True, "top_left", False), 1, 4, 4, 129, 129, family="base"),
    case(gen.mask_cfg(mask_cases.BY_NAME["win_both_br"], mask_cases.MASKS.index(mask_cases.BY_NAME["win_both_br"])),
         1, 4, 4, 400, 200, family="mask"),
    case(gen.softcap()[0], 1, 2, 2, 300, 300, scale_inputs=8, family="softcap"),
    case(gen.bias()[0], 2, 4, 2, 200, 333, bias_shape="1H", bias_kind="neginf", family="bias"),
    case(_bf(256, "bhsd", True, "bottom_right"), 1, 2, 2, 300, 200, family="hdim"),
    case(_bf(192, "bshd", False, None, dv=128), 1, 4, 2, 257, 300, family="dv"),
]

RACE = [  # racecheck: tiny, a few CTAs each
    case(("bf16", 128, "bshd", True, "bottom_right", True), 1, 1, 1, 200, 130, family="base"),
    case(gen.bias()[4], 1, 1, 1, 150, 150, bias_shape="BH", family="bias"),
    case(gen.combo()[1], 1, 1, 1, 130, 130, bias_shape="BH", family="combo"),
]


def json_config(c):
    """The bundle `config` fields (docs/BundleFormat.md) of a gen.Cfg."""
    return dict(dtype=c.dtype, out_dtype=c.dtype, layout=c.layout, head_dim=c.d, head_dim_v=gen.dv_of(c),
                causal=c.causal, mask_alignment=c.align or "top_left",
                window=None if c.window is None else list(c.window), softcap=c.softcap,
                scale=1.0 / math.sqrt(c.d), return_lse=c.lse, bias=c.bias is not None, bias_dtype=c.bias)


class Emulated:
    """A stand-in for a bundle (FA_CHECK_EMULATE): computes, on the CPU in
    float32, what its JSON config says. With `bundle` (a real fa_rt.Kernel,
    loaded without a GPU), the runtime first checks the operands exactly as
    a launch would (fa_bundle_check: ranks, dtypes, sizes, strides,
    alignment, the bias's broadcast dims)."""

    def __init__(self, cfg, bug="", bundle=None):
        self.cfg, self.bug, self.bundle = cfg, bug, bundle
        self.build_options = bundle.build_options if bundle else ""
        self.name = bundle.name if bundle else "emulated"

    def __call__(self, q, k, v, o, lse=None, bias=None):
        c = self.cfg
        if self.bundle is not None:
            self.bundle.rt.check(self.bundle.operands(q, k, v, o, lse, bias))
        layout = c["layout"]
        qb, kb, vb, ob = (to_bhsd(t, layout) for t in (q, k, v, o))
        window = None if c.get("window") is None else tuple(
            mask_cases.UNBOUNDED if x is None else x for x in c["window"])
        if window is not None and self.bug == "bug-window":
            window = (mask_cases.UNBOUNDED, window[1])
        keep = None
        if c["causal"] or window is not None:
            keep = mask_cases.visible(qb.shape[2], kb.shape[2], c["causal"], window,
                                      c.get("mask_alignment", "top_left"), xp=torch)
        out, l = reference(qb, kb, vb, c["scale"], keep, torch.float32,
                           None if bias is None else bias.float(), c.get("softcap"))
        ob.copy_(out.to(ob.dtype))
        if lse is not None:
            lse.copy_(l)


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else ".devbuild/kernels"
    csv_out = sys.argv[2] if len(sys.argv) > 2 else None
    t0 = time.time()
    torch.manual_seed(0)
    emulate = os.environ.get("FA_CHECK_EMULATE")
    if emulate and os.path.isdir(directory):  # real bundles, loaded and checked without a GPU
        kernels = [Emulated(k.cfg, emulate, k) for k in fa_rt.load_all(directory)]
        print(f"# EMULATED on the CPU ({emulate}) behind {len(kernels)} real bundles of {directory} "
              f"(operands checked by {fa_rt.runtime_info()})", flush=True)
    elif emulate:
        kernels = [Emulated(json_config(c), emulate) for c in gen.matrix()]
        print(f"# EMULATED kernels on the CPU ({emulate}); {len(kernels)} configurations", flush=True)
    else:
        torch.zeros(1, device=DEVICE)
        kernels = fa_rt.load_all(directory)
        print(f"# {fa_rt.runtime_info()}; {len(kernels)} bundles", flush=True)
    quick = os.environ.get("FA_CHECK_QUICK", "")
    todo = RACE if quick == "racecheck" else (QUICK if quick else cases())
    only = os.environ.get("FA_CHECK_ONLY")
    if only:
        todo = [c for c in todo if only in case_name(c)]
    budget = float(os.environ.get("FA_CHECK_BUDGET", "105" if not quick else "1e9"))
    rejected = os.path.join(directory, "rejected.txt")
    if os.path.exists(rejected) and os.path.getsize(rejected):
        print(f"# configurations fa-compile rejected (their cases fail with 'no bundle'):\n"
              + "".join("#   " + line for line in open(rejected)), flush=True)
    fh = open(csv_out, "w", newline="") if csv_out else None
    w = csv.DictWriter(fh, fieldnames=FIELDS) if fh else None
    if w:
        w.writeheader()
    rows, not_run, sticky = [], 0, False
    for c in todo:
        name = case_name(c)
        if sticky or time.time() - t0 > budget:
            not_run += 1
            r = dict(case=name, family=c["family"], ok=False, kernel="not run (time budget)"
                     if not sticky else "not run (after a CUDA error)")
            rows.append(r)
            if w:
                w.writerow(r)
            continue
        t1 = time.time()
        try:
            r = run_case(kernels, c)
        except Exception as ex:  # a launch error fails the case, a sticky CUDA error ends the run
            r = dict(ok=False, ref="", written=False, lse_ok=False, masked_ok=False,
                     kernel=repr(ex)[:200])
            print(f"FAIL {name}: {ex!r}"[:300], flush=True)
            if "illegal" in repr(ex).lower() or "CUDA error" in repr(ex):
                sticky = True
        else:
            print(f"{'PASS' if r['ok'] else 'FAIL'} {name:64s} ref={r['ref']} err={r['err']:.2e} "
                  f"plain={r['err_plain']:.2e} sdpa={r['err_sdpa']:.2e} |ours-sdpa|={r['diff_sdpa']:.2e}"
                  f"{' (sdpa ' + r['sdpa'] + ')' if r['sdpa'].startswith('skipped') else ''} "
                  f"written={r['written']} lse={r['lse_ok']} masked={r['masked_ok']}"
                  f"{' dead=' + str(r['dead_rows']) if r['dead_rows'] else ''} {time.time() - t1:.2f}s",
                  flush=True)
        r.update(case=name, family=c["family"], seconds=round(time.time() - t1, 3))
        rows.append(r)
        if w:
            w.writerow(r)
            fh.flush()
    if fh:
        fh.close()
    npass = sum(bool(r["ok"]) for r in rows)
    worst = max((r["err"] / (2 * r["err_plain"] + 1e-5) for r in rows if r["ok"]), default=float("nan"))
    by_family = {}
    for r in rows:
        p, n = by_family.get(r["family"], (0, 0))
        by_family[r["family"]] = (p + bool(r["ok"]), n + 1)
    skipped = sum(str(r.get("sdpa", "")).startswith("skipped") for r in rows)
    print("check_attention by family: " + ", ".join(f"{f} {p}/{n}" for f, (p, n) in by_family.items())
          + f"; SDPA criterion skipped (softcap) in {skipped}"
          + (f"; {not_run} not run" if not_run else "") + f"; {time.time() - t0:.0f} s")
    how = "EMULATED on the CPU, no kernel ran" if emulate else "launched through libfa_runtime"
    print(f"check_attention: {npass}/{len(todo)} passed ({how}; "
          f"worst err / (2 plain + 1e-5) = {worst:.2f})")
    sys.exit(0 if npass == len(todo) else 1)


if __name__ == "__main__":
    main()
