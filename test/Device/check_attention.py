"""Numerics of our sm_90a attention kernels against float64, on the GPU.

FlashAttention's criterion: max |ours - ref64| <= 2 * max |plain - ref64| + 1e-5,
where `plain` is a straightforward implementation in the input precision
(scores, softmax and P V each rounded to bf16/f16, as FlashAttention's
attention_ref(upcast=False)). Also: LSE against float64 (|err| <= 1e-3 +
1e-3 |lse|), every row < seq_q written (output poisoned with NaN first),
fully masked rows give O = 0 and LSE = -inf, and torch SDPA's max difference.

Usage: python3 test/Device/check_attention.py [bundle_dir]
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cudrv  # noqa: E402
import fa_bundle  # noqa: E402

torch.manual_seed(0)


def to_bhsd(t, layout):
    return t if layout == "bhsd" else t.transpose(1, 2)


def reference(q, k, v, scale, causal, bottom_right, dtype=None):
    """q, k, v in bhsd. dtype None: float64 throughout; else rounded like plain torch."""
    hq, hk = q.shape[1], k.shape[1]
    if hq != hk:
        k = k.repeat_interleave(hq // hk, dim=1)
        v = v.repeat_interleave(hq // hk, dim=1)
    if dtype is None:
        q, k, v = q.double(), k.double(), v.double()
    s = (q @ k.transpose(-1, -2)) * scale
    sq, sk = q.shape[2], k.shape[2]
    mask = None
    if causal:
        off = sk - sq if bottom_right else 0
        i = torch.arange(sq, device=q.device).view(-1, 1)
        j = torch.arange(sk, device=q.device).view(1, -1)
        mask = j > i + off
        s = s.masked_fill(mask, float("-inf"))
    lse = torch.logsumexp(s.double() if dtype is None else s.float(), dim=-1)
    p = torch.softmax(s, dim=-1)
    p = torch.nan_to_num(p, nan=0.0)  # fully masked rows -> 0
    o = p.to(v.dtype) @ v
    return o, lse


def run_case(bundles, dtype, d, layout, causal, align, B, Hq, Hkv, Sq, Sk):
    bundle = fa_bundle.find(bundles, dtype, d, layout, causal, align or "top_left")
    dt = fa_bundle.DTYPES[dtype]
    shape = (lambda s, h: (B, s, h, d)) if layout == "bshd" else (lambda s, h: (B, h, s, d))
    q = torch.randn(shape(Sq, Hq), device="cuda").to(dt)
    k = torch.randn(shape(Sk, Hkv), device="cuda").to(dt)
    v = torch.randn(shape(Sk, Hkv), device="cuda").to(dt)
    o = torch.full(shape(Sq, Hq), float("nan"), device="cuda").to(dt)
    lse = torch.full((B, Hq, Sq), float("nan"), device="cuda")
    bundle(q, k, v, o, lse)
    torch.cuda.synchronize()
    scale = 1.0 / math.sqrt(d)
    br = align == "bottom_right"
    qb, kb, vb, ob = (to_bhsd(t, layout) for t in (q, k, v, o))
    ref, ref_lse = reference(qb, kb, vb, scale, causal, br)
    plain, _ = reference(qb, kb, vb, scale, causal, br, dtype=dt)
    err = (ob.double() - ref).abs().max().item()
    err_plain = (plain.double() - ref).abs().max().item()
    written = not torch.isnan(ob).any().item()
    lse_err = ((lse.double() - ref_lse).abs() / (1 + ref_lse.abs()))
    finite = torch.isfinite(ref_lse)
    lse_ok = bool((lse_err[finite] <= 1e-3).all().item()) if finite.any() else True
    masked_ok = True
    if (~finite).any():  # fully masked rows
        masked_ok = bool((lse[~finite] == float("-inf")).all().item()) and \
            bool((ob.double().masked_select((~finite).unsqueeze(-1)) == 0).all().item())
    # torch SDPA on the same inputs (its own tolerance, for information).
    sdpa_diff = float("nan")
    if Hq == Hkv and (not causal or Sq == Sk):
        try:
            ts = F.scaled_dot_product_attention(qb, kb, vb, is_causal=causal)
            sdpa_diff = (ts.double() - ob.double()).abs().max().item()
        except Exception:
            pass
    ok = written and err <= 2 * err_plain + 1e-5 and lse_ok and masked_ok
    name = f"{dtype} d{d} {layout} {'causal' + ('_br' if br else '') if causal else 'full'} B{B} H{Hq}/{Hkv} {Sq}x{Sk}"
    return dict(name=name, ok=ok, err=err, err_plain=err_plain, written=written, lse_ok=lse_ok,
                masked_ok=masked_ok, sdpa=sdpa_diff, kernel=bundle.name)


CASES = [
    # dtype, d, layout, causal, align, B, Hq, Hkv, Sq, Sk
    ("bf16", 128, "bshd", False, None, 2, 4, 4, 1024, 1024),
    ("bf16", 128, "bshd", False, None, 1, 8, 2, 1000, 1000),   # GQA 4:1, tail
    ("bf16", 128, "bshd", False, None, 2, 2, 1, 1, 1),          # seqlen 1, MQA
    ("bf16", 128, "bshd", False, None, 1, 2, 2, 77, 300),       # sq != sk
    ("bf16", 128, "bshd", False, None, 1, 3, 3, 4096, 4096),
    ("bf16", 128, "bshd", True, None, 2, 4, 4, 1024, 1024),
    ("bf16", 128, "bshd", True, None, 1, 8, 2, 1000, 1000),
    ("bf16", 128, "bshd", True, None, 1, 2, 2, 300, 200),       # top-left, sq > sk
    ("bf16", 128, "bshd", True, "bottom_right", 1, 4, 4, 300, 200),  # fully masked rows
    ("bf16", 128, "bshd", True, "bottom_right", 1, 4, 4, 200, 333),
    ("bf16", 64, "bshd", False, None, 2, 4, 4, 1000, 1000),
    ("bf16", 64, "bshd", True, None, 1, 8, 4, 513, 513),
    ("f16", 128, "bshd", False, None, 2, 4, 2, 700, 700),
    ("f16", 128, "bshd", True, None, 2, 4, 4, 1024, 1024),
    ("f16", 64, "bshd", False, None, 1, 4, 4, 129, 129),
    ("f16", 64, "bshd", True, None, 1, 4, 4, 2048, 2048),
    ("bf16", 128, "bhsd", False, None, 2, 4, 4, 1024, 1024),
    ("bf16", 128, "bhsd", True, None, 1, 4, 2, 555, 555),
    ("bf16", 64, "bhsd", False, None, 1, 4, 4, 256, 256),
    ("bf16", 64, "bhsd", True, None, 1, 4, 4, 1111, 1111),
]


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else ".devbuild/kernels"
    torch.zeros(1, device="cuda")
    cudrv.init()
    bundles = fa_bundle.load_all(directory)
    rows = []
    cases = CASES
    if os.environ.get("FA_CHECK_QUICK"):
        cases = [CASES[1], CASES[3], CASES[8], CASES[14]]
    for c in cases:
        try:
            r = run_case(bundles, *c)
        except Exception as ex:
            r = dict(name=str(c), ok=False, err=float("nan"), err_plain=float("nan"), written=False,
                     lse_ok=False, masked_ok=False, sdpa=float("nan"), kernel=repr(ex)[:80])
            if "cuLaunch" in repr(ex) or "700" in repr(ex):
                rows.append(r)
                print(r, flush=True)
                break
        rows.append(r)
        print(f"{'PASS' if r['ok'] else 'FAIL'} {r['name']:45s} err={r['err']:.3e} plain={r['err_plain']:.3e} "
              f"written={r['written']} lse={r['lse_ok']} masked={r['masked_ok']} sdpa_diff={r['sdpa']:.3e}", flush=True)
    npass = sum(r["ok"] for r in rows)
    print(f"\n| case | ok | err vs fp64 | plain err | sdpa diff |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['name']} | {'PASS' if r['ok'] else 'FAIL'} | {r['err']:.2e} | {r['err_plain']:.2e} | {r['sdpa']:.2e} |")
    print(f"check_attention: {npass}/{len(cases)} passed")
    sys.exit(0 if npass == len(cases) else 1)


if __name__ == "__main__":
    main()
