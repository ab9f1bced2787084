"""The sm_90a backward on the GPU: dQ, dK, dV (and dBias) of our kernel
sequences (build_backward.sh) against float64 autograd, with
FlashAttention's criterion (our max error <= 2x a plain bf16/f16
implementation's, plus 1e-5), over tails, GQA, both layouts, causal in both
alignments, windows, biases (per batch and head or broadcast), fully masked
rows; deterministic kernels run three times and must be bitwise equal.

  check_backward.py BUNDLES [--csv OUT] [--quick]

BUNDLES holds one folder per configuration (cfg.json plus the fa-compile
output). A sequence is one fa_bundle_launch through libfa_runtime
(fa_mlir.gpu_runtime, $FA_RUNTIME_LIB), with the workspace allocated here
by torch, as the sequence's `workspace` declares it.
--quick: one small case per configuration (for compute-sanitizer).
"""
import argparse
import csv
import glob
import json
import math
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(here)), "python"))
sys.path.insert(0, os.path.join(os.path.dirname(here), "lib"))
from fa_mlir import gpu_runtime  # noqa: E402
import mask_cases  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32,
          "i32": torch.int32}
NAMES = {v: k for k, v in DTYPES.items()}


def rt(t):
    return (t.data_ptr(), NAMES[t.dtype], tuple(t.shape), tuple(t.stride()))


def evaluate(expr, sym):
    """A bundle shape expression (integers, symbols, + - * /, ceildiv)."""
    if isinstance(expr, int):
        return expr
    env = dict(sym, ceildiv=lambda a, b: -(-a // b))
    return int(eval(expr.replace("/", "//"), {"__builtins__": {}}, env))


class Sequence:
    """One compiled configuration: its kernels in order and the workspace."""

    def __init__(self, folder):
        self.folder = folder
        with open(os.path.join(folder, "cfg.json")) as f:
            self.cfg = json.load(f)
        seqs = [p for p in glob.glob(os.path.join(folder, "*.json"))
                if json.load(open(p)).get("format") == "fa-kernel-sequence"]
        assert len(seqs) == 1, f"{folder}: {len(seqs)} kernel sequences"
        with open(seqs[0]) as f:
            self.meta = json.load(f)
        self.runtime = gpu_runtime.RuntimeBundle(seqs[0])

    def workspace(self, sym, device, kept=False):
        """torch buffers of the workspace; `kept`: also those "written_by"
        a kernel (a block map), which passed to the sequence would mean
        their contents (the runtime would skip their kernel), so they are
        left to it unless the kernels run one by one."""
        out = {}
        for w in self.meta["workspace"]:
            if "written_by" in w and not kept:
                continue
            shape = [evaluate(e, sym) for e in w["shape"]]
            make = torch.zeros if w["init"] == "zero" else torch.empty
            out[w["name"]] = make(shape, dtype=DTYPES[w["dtype"]], device=device)
        return out

    def __call__(self, do, q, k, v, o, lse, dq, dk, dv, sym, bias=None, dbias=None,
                 extra=None):
        """One fa_bundle_launch of the sequence (the runtime zeroes the
        init:zero buffers and launches the three kernels in order), with the
        workspace from torch; FA_SYNC_EACH=1 launches the kernels one by
        one instead and synchronises after each, to tell which one faults.
        `extra`: more operands by role (score_mod/mask_mod captures)."""
        ops = dict(grad_output=do, query=q, key=k, value=v, output=o, lse=lse,
                   grad_query=dq, grad_key=dk, grad_value=dv)
        if bias is not None:
            ops.update(bias=bias, grad_bias=dbias)
        ops.update(extra or {})
        each = os.environ.get("FA_SYNC_EACH")
        ops.update(self.workspace(sym, q.device, kept=bool(each)))
        stream = torch.cuda.current_stream().cuda_stream
        if not each:
            self.runtime.launch({r: rt(t) for r, t in ops.items()}, stream)
            return
        for name in self.meta["kernels"]:
            kern = gpu_runtime.RuntimeBundle(os.path.join(self.folder, name))
            needed = set(kern.required)
            kern.launch({r: rt(t) for r, t in ops.items() if r in needed}, stream)
            try:
                torch.cuda.synchronize()
            except Exception as e:
                raise RuntimeError(f"{kern.kernel_name}: {e}") from None


def attention(q, k, v, scale, keep, softcap=None, bias=None):
    """Standard attention in q's dtype (bhsd), rows without keys 0."""
    hq, hk = q.shape[1], k.shape[1]
    k = k.repeat_interleave(hq // hk, dim=1)
    v = v.repeat_interleave(hq // hk, dim=1)
    s = (q @ k.transpose(-1, -2)) * scale
    if bias is not None:
        s = s + bias
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    if keep is None:
        return torch.softmax(s, dim=-1) @ v, torch.logsumexp(s.double(), dim=-1)
    live = keep.any(dim=-1)
    s = s.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(s.double(), dim=-1)
    s = torch.where(live[..., None], s, torch.zeros_like(s))  # finite on empty rows
    p = torch.softmax(s, dim=-1) * live[..., None].to(s.dtype)
    return p @ v, lse


def grads(q, k, v, do, scale, keep, dtype, softcap=None, bias=None):
    """(dq, dk, dv[, dbias]) of standard attention computed in `dtype`
    (bhsd)."""
    inputs = (q, k, v) if bias is None else (q, k, v, bias)
    leaves = [t.detach().to(dtype).requires_grad_() for t in inputs]
    o, _ = attention(*leaves[:3], scale, keep, softcap, *leaves[3:])
    o.backward(do.to(dtype))
    return [t.grad.double() for t in leaves]


def offset_copy(t):
    """t's values in a view 2 bytes into a fresh buffer: aligned to its
    element only, as a slice of a user's tensor can be (the row kernels' wide
    loads and stores must fall back to narrow ones)."""
    buf = torch.empty(t.numel() + 1, dtype=t.dtype, device=t.device)
    view = buf[1:].view(t.shape)
    view.copy_(t)
    return view


def rows_padded(t):
    """t's values in a view whose rows are padded to 8 elements: 16-byte
    aligned rows whose last 16-byte chunk is partly past seq_k (a 16-bit
    bias's cp.async copies zero-fill it, its dBias stores stop at seq_k)."""
    wide = torch.full((*t.shape[:-1], -(-t.shape[-1] // 8) * 8), float("nan"), dtype=t.dtype,
                      device=t.device)
    view = wide[..., :t.shape[-1]]
    view.copy_(t)
    return view


def run_case(seq, B, Hq, Hkv, Sq, Sk, runs=1, unaligned=False):
    c = seq.cfg
    dt, d, dv, bshd = DTYPES[c["dtype"]], c["d"], c["dv"], c["layout"] == "bshd"
    dev = "cuda"
    shape = (lambda s, h, e: (B, s, h, e)) if bshd else (lambda s, h, e: (B, h, s, e))
    to_bhsd = (lambda t: t.transpose(1, 2)) if bshd else (lambda t: t)
    q = torch.randn(shape(Sq, Hq, d), device=dev).to(dt)
    k = torch.randn(shape(Sk, Hkv, d), device=dev).to(dt)
    v = torch.randn(shape(Sk, Hkv, dv), device=dev).to(dt)
    do = torch.randn(shape(Sq, Hq, dv), device=dev).to(dt)
    scale = 1.0 / math.sqrt(d)
    masked = c["causal"] or c["window"] is not None
    keep = (mask_cases.visible(Sq, Sk, c["causal"], tuple(c["window"]) if c["window"] else None,
                               c["align"], xp=torch).to(dev) if masked else None)
    qb, kb, vb, dob = (to_bhsd(t) for t in (q, k, v, do))
    cap = c.get("softcap")
    bias = None
    if c.get("bias"):
        per_batch, per_head, bt = c["bias"]
        # Spread like a learned relative-position bias: a few units.
        bias = (2 * torch.randn(B if per_batch else 1, Hq if per_head else 1, Sq, Sk,
                                device=dev)).to(DTYPES[bt])
    o64, lse64 = attention(qb.double(), kb.double(), vb.double(), scale, keep, cap,
                           None if bias is None else bias.double())
    o = o64.to(dt)
    o = (o.transpose(1, 2) if bshd else o).contiguous()
    lse = lse64.float().contiguous()
    if unaligned:  # O (read by the pre kernel) and dQ (written by the post kernel)
        o = offset_copy(o)
    sym = dict(batch=B, heads_q=Hq, heads_kv=Hkv, seq_q=Sq, seq_k=Sk, head_dim=d,
               head_dim_v=dv)
    outs = []
    padding_kept = True  # dBias's row padding (rows_padded) still NaN
    for _ in range(runs):
        dq, dk, dvv = (torch.full_like(t, float("nan")) for t in (q, k, v))
        dbias = None if bias is None else torch.full_like(bias, float("nan"))
        bias_in = bias
        if bias is not None and Sk % 8 and not unaligned:
            bias_in, dbias = rows_padded(bias), rows_padded(dbias)
        if unaligned:
            dq = offset_copy(dq)
        seq(do, q, k, v, o, lse, dq, dk, dvv, sym, bias_in, dbias)
        torch.cuda.synchronize()
        if bias_in is not bias:
            padding_kept &= bool(torch.isnan(dbias._base[..., Sk:]).all().item())
        outs.append((dq, dk, dvv) if bias is None else (dq, dk, dvv, dbias))
    ref = grads(qb, kb, vb, dob, scale, keep, torch.float64, cap,
                None if bias is None else bias.double())
    plain = grads(qb, kb, vb, dob, scale, keep, dt, cap, bias)
    row = dict(config=os.path.basename(seq.folder), B=B, Hq=Hq, Hkv=Hkv, Sq=Sq, Sk=Sk,
               unaligned=unaligned)
    ok = True
    for name, ours, r, p in zip(("dq", "dk", "dv", "dbias"), outs[0], ref, plain):
        ours = (ours if name == "dbias" else to_bhsd(ours)).double()
        finite = bool(torch.isfinite(ours).all().item())
        err = (ours - r).abs().max().item() if ours.numel() else 0.0
        err_plain = (p - r).abs().max().item() if ours.numel() else 0.0
        good = finite and err <= 2 * err_plain + 1e-5
        row[f"err_{name}"], row[f"plain_{name}"] = err, err_plain
        ok = ok and good
    if keep is not None:  # rows that see no key: dQ exactly 0
        dead = ~keep.any(dim=-1)
        row["dead_rows"] = int(dead.sum().item())
        if dead.any():
            dq_b = to_bhsd(outs[0][0])
            ok = ok and bool((dq_b[dead.expand(B, Hq, Sq)] == 0).all().item())
    if not padding_kept:
        row["dbias_padding_written"] = True
        ok = False
    if runs > 1:
        same = all(all(torch.equal(a, b) for a, b in zip(outs[0], other)) for other in outs[1:])
        row["bitwise_equal_runs"] = same
        ok = ok and same
    row["ok"] = ok
    return row


def shapes(cfg, quick):
    """(B, Hq, Hkv, Sq, Sk, unaligned O and dQ) of the cases of one configuration."""
    if quick:
        return [(1, 2, 1, 130, 200, False), (1, 2, 1, 130, 200, True)]
    s = [(2, 4, 4, 256, 256, False), (1, 4, 2, 200, 333, False), (1, 2, 2, 1024, 1024, False),
         (2, 2, 1, 77, 513, False), (1, 4, 2, 200, 333, True)]
    if cfg["causal"] and cfg["align"] == "bottom_right" or cfg["window"]:
        s.append((1, 2, 2, 300, 100, False))  # rows without keys (bottom-right, Sq > Sk)
    bias = cfg.get("bias")
    if bias and not (bias[0] and bias[1]):
        # A broadcast bias summed in turn: three batches (and two kv heads)
        # give middle turns, not only a first and a last.
        s.append((3, 4, 2, 130, 200, False))
    if cfg["d"] == 128 and not cfg["causal"] and not cfg["window"]:
        # The 80-query tile (--bwd-query-tile=80): five whole tiles, so the
        # pre kernel's last 64-row CTA lies half past seq_pad (400).
        s.append((1, 2, 2, 400, 256, False))
    if cfg["d"] <= 64 and cfg["dv"] <= 64:
        # The 128-query tile: 192 rows are padded to 256, so the last tile's
        # second 64-row half holds no row (its dQ partial lands in padding).
        s.append((1, 4, 2, 192, 320, False))
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundles")
    ap.add_argument("--csv")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    torch.manual_seed(0)
    rows = []
    for folder in sorted(glob.glob(os.path.join(a.bundles, "*/"))):
        seq = Sequence(folder.rstrip("/"))
        for (B, Hq, Hkv, Sq, Sk, unaligned) in shapes(seq.cfg, a.quick):
            runs = 3 if seq.cfg["det"] and not a.quick else 1
            try:
                r = run_case(seq, B, Hq, Hkv, Sq, Sk, runs, unaligned)
            except Exception as e:  # a launch error is a failed case, with its message
                r = dict(config=os.path.basename(folder.rstrip("/")), B=B, Hq=Hq, Hkv=Hkv,
                         Sq=Sq, Sk=Sk, unaligned=unaligned, ok=False, error=str(e)[:300])
            rows.append(r)
            errs = " ".join(f"{n}={r.get('err_' + n, float('nan')):.2e}/{r.get('plain_' + n, float('nan')):.2e}"
                            for n in ("dq", "dk", "dv", "dbias") if "err_" + n in r)
            print(f"{'PASS' if r['ok'] else 'FAIL'} {r['config']} B{B} H{Hq}/{Hkv} {Sq}x{Sk}"
                  f"{' unaligned' if unaligned else ''} "
                  f"{errs} {r.get('error', '')}{' bitwise' if r.get('bitwise_equal_runs') else ''}",
                  flush=True)
    n_ok = sum(r["ok"] for r in rows)
    print(f"backward: {n_ok}/{len(rows)} cases pass")
    if a.csv:
        keys = sorted({k for r in rows for k in r})
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
    sys.exit(0 if n_ok == len(rows) else 1)


if __name__ == "__main__":
    main()
