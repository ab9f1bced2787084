"""Numerics of our sm_90a attention kernels over the supported matrix,
launched through libfa_runtime (test/Device/fa_rt.py).

FlashAttention's criterion (its tests' `attention_ref`): with `ref` a
higher-precision reference, max |ours - ref| <= 2 * max |base - ref| + 1e-5,
where `base` is computed in the input precision. Two baselines, both must
hold:
  plain  the straightforward computation in bf16/f16 (scores, softmax and
         P V each rounded, as attention_ref(upcast=False));
  sdpa   torch.nn.functional.scaled_dot_product_attention on the same
         inputs (is_causal for square top-left, else a boolean mask;
         enable_gqa for GQA/MQA).
ref is float64 on small shapes (<= 2^22 score elements) and float32 on
upcast inputs on the larger ones. Also: LSE within 1e-3 (relative to
1 + |lse|) of ref; every row < seq_q written (output poisoned with NaN);
rows with every key masked give O = 0 and LSE = -inf.

Usage: python3 test/Device/check_attention.py BUNDLE_DIR [CSV_OUT]
Env: FA_CHECK_QUICK=1 runs a few small cases (for compute-sanitizer).
"""
import csv
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fa_rt  # noqa: E402
import gen_attention_inputs  # noqa: E402

torch.manual_seed(0)
F64_LIMIT = 1 << 22  # B * Hq * Sq * Sk up to which the reference is float64


def to_bhsd(t, layout):
    return t if layout == "bhsd" else t.transpose(1, 2)


def keep_mask(sq, sk, causal, bottom_right, device):
    if not causal:
        return None
    off = sk - sq if bottom_right else 0
    i = torch.arange(sq, device=device).view(-1, 1)
    j = torch.arange(sk, device=device).view(1, -1)
    return j <= i + off


def reference(q, k, v, scale, keep, dtype):
    """q, k, v in bhsd; computed in `dtype` (float64/float32 = reference,
    bf16/f16 = plain). Returns O (fully masked rows 0) and LSE (float)."""
    hq, hk = q.shape[1], k.shape[1]
    if hq != hk:
        k = k.repeat_interleave(hq // hk, dim=1)
        v = v.repeat_interleave(hq // hk, dim=1)
    q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
    s = (q @ k.transpose(-1, -2)) * scale
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(s if dtype in (torch.float64, torch.float32) else s.float(), dim=-1)
    p = torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0)
    return p @ v, lse


def sdpa(qb, kb, vb, keep, square_top_left, scale):
    """SDPA on the bhsd views: is_causal for a square top-left mask (its
    FA2/cuDNN path), else the boolean mask (True keeps)."""
    gqa = qb.shape[1] != kb.shape[1]
    if square_top_left:
        return F.scaled_dot_product_attention(qb, kb, vb, is_causal=True, scale=scale, enable_gqa=gqa)
    return F.scaled_dot_product_attention(qb, kb, vb, attn_mask=keep, scale=scale, enable_gqa=gqa)


def run_case(kernels, dtype, d, layout, causal, align, lse_on, B, Hq, Hkv, Sq, Sk, strided=False):
    kern = fa_rt.find(kernels, dtype, d, layout, causal, align or "top_left", lse_on)
    dt = fa_rt.DTYPES[dtype]
    shape = (lambda s, h: (B, s, h, d)) if layout == "bshd" else (lambda s, h: (B, h, s, d))
    if strided:  # query as a view with padded rows (a non-dense innermost-unit layout)
        big = torch.randn(*shape(Sq, Hq)[:-1], 2 * d, device="cuda").to(dt)
        q = big[..., :d]
    else:
        q = torch.randn(shape(Sq, Hq), device="cuda").to(dt)
    k = torch.randn(shape(Sk, Hkv), device="cuda").to(dt)
    v = torch.randn(shape(Sk, Hkv), device="cuda").to(dt)
    o = torch.full(shape(Sq, Hq), float("nan"), device="cuda").to(dt)
    lse = torch.full((B, Hq, Sq), float("nan"), device="cuda") if lse_on else None
    kern(q, k, v, o, lse)
    torch.cuda.synchronize()
    scale = 1.0 / math.sqrt(d)
    br = align == "bottom_right"
    qb, kb, vb, ob = (to_bhsd(t, layout) for t in (q, k, v, o))
    keep = keep_mask(Sq, Sk, causal, br, q.device)
    small = B * Hq * Sq * Sk <= F64_LIMIT
    rdt = torch.float64 if small else torch.float32
    ref, ref_lse = reference(qb, kb, vb, scale, keep, rdt)
    plain, _ = reference(qb, kb, vb, scale, keep, dt)
    ref, ref_lse = ref.double(), ref_lse.double()
    live = torch.isfinite(ref_lse)  # rows with at least one key
    err = (ob.double() - ref).abs().max().item() if ob.numel() else 0.0
    err_plain = (plain.double() - ref).abs().max().item() if ob.numel() else 0.0
    written = not torch.isnan(ob).any().item()
    lse_ok, masked_ok = True, True
    if lse_on:
        lse_err = (lse.double() - ref_lse).abs() / (1 + ref_lse.abs())
        lse_ok = bool((lse_err[live] <= 1e-3).all().item()) if live.any() else True
    if (~live).any():
        dead = (~live).unsqueeze(-1).expand_as(ob)
        masked_ok = bool((ob.double()[dead] == 0).all().item())
        if lse_on:
            masked_ok = masked_ok and bool((lse[~live] == float("-inf")).all().item())
    # SDPA: its error against the same reference on rows with a key; and ours vs SDPA
    ts = sdpa(qb, kb, vb, keep, causal and not br and Sq == Sk, scale).double()
    rows = live.unsqueeze(-1).expand_as(ob)
    err_sdpa = (ts[rows] - ref[rows]).abs().max().item() if rows.any() else 0.0
    diff_sdpa = (ts[rows] - ob.double()[rows]).abs().max().item() if rows.any() else 0.0
    err_live = (ob.double()[rows] - ref[rows]).abs().max().item() if rows.any() else 0.0
    ok_plain = err <= 2 * err_plain + 1e-5
    ok_sdpa = err_live <= 2 * err_sdpa + 1e-5
    ok = written and ok_plain and ok_sdpa and lse_ok and masked_ok
    mask = ("causal" + ("_br" if br else "")) if causal else "full"
    name = (f"{dtype} d{d} {layout} {mask}{'' if lse_on else ' nolse'}{' strided-q' if strided else ''} "
            f"B{B} H{Hq}/{Hkv} {Sq}x{Sk}")
    return dict(case=name, ok=ok, ref="f64" if small else "f32", err=err, err_plain=err_plain,
                err_sdpa=err_sdpa, diff_sdpa=diff_sdpa, ok_plain=ok_plain, ok_sdpa=ok_sdpa,
                written=written, lse_ok=lse_ok, masked_ok=masked_ok, kernel=kern.name)


def cases():
    out = []
    for i, (dtype, d, layout, causal, align, lse) in enumerate(gen_attention_inputs.matrix()):
        g = 2 if i % 2 else 1  # GQA on every other configuration
        cfg = (dtype, d, layout, causal, align, lse)
        if align == "bottom_right":
            out.append(cfg + (1, 4, 4 // g, 300, 200))      # 100 fully masked rows
            out.append(cfg + (2, 8, 8 // g, 1500, 2048))
        else:
            out.append(cfg + (2, 4, 4 // g, 300 + 77 * (i % 3), 300 + 77 * (i % 3)))  # tails
            out.append(cfg + (2, 8, 8 // g, 2048, 2048))
    out += [
        ("bf16", 128, "bshd", False, None, True, 2, 2, 1, 1, 1),        # seqlen 1, MQA
        ("bf16", 128, "bshd", False, None, True, 1, 2, 2, 77, 300),     # seq_q != seq_k
        ("bf16", 128, "bshd", True, None, True, 1, 2, 2, 300, 200),     # top-left, seq_q > seq_k
        ("bf16", 128, "bshd", True, "bottom_right", True, 1, 4, 4, 200, 333),
        ("f16", 64, "bshd", False, None, True, 1, 4, 4, 129, 129),
        ("bf16", 128, "bshd", False, None, True, 1, 16, 16, 4096, 4096),
        ("bf16", 64, "bhsd", True, None, True, 4, 16, 16, 1024, 1024),  # GPT-2 medium's config
    ]
    return out


QUICK = [
    ("bf16", 128, "bshd", False, None, True, 1, 8, 2, 1000, 1000),     # GQA, tail
    ("bf16", 128, "bshd", False, None, True, 1, 2, 2, 77, 300),        # seq_q != seq_k
    ("bf16", 128, "bshd", True, "bottom_right", True, 1, 4, 4, 300, 200),
    ("f16", 64, "bhsd", True, None, False, 1, 4, 4, 129, 129),
]


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else ".devbuild/kernels"
    csv_out = sys.argv[2] if len(sys.argv) > 2 else None
    torch.zeros(1, device="cuda")
    kernels = fa_rt.load_all(directory)
    print(f"# {fa_rt.runtime_info()}; {len(kernels)} bundles", flush=True)
    todo = QUICK if os.environ.get("FA_CHECK_QUICK") else cases()
    todo = [c + (False,) for c in todo]
    if not os.environ.get("FA_CHECK_QUICK"):
        todo.append(("bf16", 128, "bshd", True, None, True, 2, 4, 2, 1000, 1000, True))
    rows = []
    for c in todo:
        try:
            r = run_case(kernels, *c)
        except Exception as ex:  # a launch error fails the case, a sticky CUDA error ends the run
            r = dict(case=str(c), ok=False, ref="", err=float("nan"), err_plain=float("nan"),
                     err_sdpa=float("nan"), diff_sdpa=float("nan"), ok_plain=False, ok_sdpa=False,
                     written=False, lse_ok=False, masked_ok=False, kernel=repr(ex)[:200])
            print(f"FAIL {c}: {ex!r}"[:300], flush=True)
            rows.append(r)
            if "illegal" in repr(ex).lower() or "CUDA error" in repr(ex):
                break
            continue
        rows.append(r)
        print(f"{'PASS' if r['ok'] else 'FAIL'} {r['case']:52s} ref={r['ref']} err={r['err']:.2e} "
              f"plain={r['err_plain']:.2e} sdpa={r['err_sdpa']:.2e} |ours-sdpa|={r['diff_sdpa']:.2e} "
              f"written={r['written']} lse={r['lse_ok']} masked={r['masked_ok']}", flush=True)
    if csv_out:
        with open(csv_out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    npass = sum(r["ok"] for r in rows)
    worst = max((r["err"] / (2 * r["err_plain"] + 1e-5) for r in rows if r["ok"]), default=float("nan"))
    print(f"check_attention: {npass}/{len(todo)} passed (launched through libfa_runtime; "
          f"worst err / (2 plain + 1e-5) = {worst:.2f})")
    sys.exit(0 if npass == len(todo) else 1)


if __name__ == "__main__":
    main()
