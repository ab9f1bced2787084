"""The ragged-batch backward (gen_varlen_backward_inputs.py; kernel
sequences of op attention_varlen_bwd) on the GPU, through libfa_runtime,
against float64 autograd per sequence with FlashAttention's criterion (each
of dQ, dK, dV within 2x a plain bf16/f16 implementation's error, plus
1e-5).

The gradients start as NaN: every token must be written, those of
sequences without keys (dQ), without queries (dK, dV) and past the last
sequence (trailing tokens) exactly 0, and rows that see no key get dQ = 0.
Cases: lengths on and off the 64-query and 128-key tiles, empty sequences
of both kinds, seq_q != seq_k (where the alignment matters), more than 32
sequences (several steps of the kernels' warp search), GQA 1 to 4, trailing
tokens; deterministic sequences run three times and must be bitwise equal.
CHECK_SMALL=1 (under memcheck) skips batches of more than 4096 query tokens.

Usage: python3 test/Device/check_varlen_backward.py BUNDLE_DIR [CSV_OUT]
"""
import csv
import json
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import check_backward as cb  # noqa: E402  (puts python/ and test/lib on the path)
import check_varlen as cv  # noqa: E402
import mask_cases  # noqa: E402
from fa_mlir import gpu_runtime  # noqa: E402

OP = "attention_varlen_bwd"


class VarlenSequence:
    """One compiled ragged-batch backward: its sequence JSON and workspace."""

    def __init__(self, path):
        with open(path) as f:
            self.meta = json.load(f)
        self.cfg = self.meta["config"]
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.runtime = gpu_runtime.RuntimeBundle(path)

    def operands(self, tensors, sym):
        """The launch's {role: runtime tensor}, with the workspace the
        sequence declares allocated by torch (as a user's call would)."""
        ops = dict(tensors)
        for w in self.meta["workspace"]:
            shape = [cb.evaluate(e, sym) for e in w["shape"]]
            make = torch.zeros if w["init"] == "zero" else torch.empty
            ops[w["name"]] = make(shape, dtype=cb.DTYPES[w["dtype"]], device="cuda")
        return ops

    def __call__(self, tensors, sym):
        ops = self.operands(tensors, sym)
        stream = torch.cuda.current_stream().cuda_stream
        self.runtime.launch({r: cb.rt(t) for r, t in ops.items()}, stream)


def load_sequences(folder):
    return [VarlenSequence(p) for p in cv.documents(folder, "fa-kernel-sequence", OP)]


def bounds(lens):
    return torch.tensor([0] + torch.tensor(lens, dtype=torch.int64).cumsum(0).tolist(),
                        dtype=torch.int32, device="cuda")


def keep_mask(cfg, sq, sk):
    window = tuple(cfg["window"]) if cfg.get("window") else None
    if not (cfg["causal"] or window):
        return None
    return mask_cases.visible(sq, sk, cfg["causal"], window, cfg["mask_alignment"],
                              xp=torch).to("cuda")


class Packed:
    """Random packed inputs of a case, the forward's O and LSE per sequence
    (float64, O rounded to the dtype), `tail` tokens past the last sequence."""

    def __init__(self, cfg, hq, hkv, lens_q, lens_k, tail, seed):
        self.dt = cb.DTYPES[cfg["dtype"]]
        d, dv = cfg["head_dim"], cfg["head_dim_v"]
        self.tq, self.tk = sum(lens_q) + tail[0], sum(lens_k) + tail[1]
        g = torch.Generator(device="cuda").manual_seed(seed)
        rnd = lambda *s: torch.randn(*s, device="cuda", generator=g).to(self.dt)  # noqa: E731
        self.q, self.k = rnd(self.tq, hq, d), rnd(self.tk, hkv, d)
        self.v, self.do = rnd(self.tk, hkv, dv), rnd(self.tq, hq, dv)
        self.o = torch.zeros(self.tq, hq, dv, device="cuda", dtype=self.dt)
        self.lse = torch.zeros(hq, self.tq, device="cuda")
        self.spans, q0, k0 = [], 0, 0
        for sq, sk in zip(lens_q, lens_k):
            self.spans.append((q0, q0 + sq, k0, k0 + sk))
            q0, k0 = q0 + sq, k0 + sk
        for q0, q1, k0, k1 in self.spans:
            if q1 == q0:
                continue
            if k1 == k0:
                self.lse[:, q0:q1] = float("-inf")
                continue
            qb, kb, vb = (self.bhsd(t, a, b) for t, a, b in
                          ((self.q, q0, q1), (self.k, k0, k1), (self.v, k0, k1)))
            o64, lse64 = cb.attention(qb.double(), kb.double(), vb.double(), cfg["scale"],
                                      keep_mask(cfg, q1 - q0, k1 - k0), cfg.get("softcap"))
            self.o[q0:q1] = o64[0].transpose(0, 1).to(self.dt)
            self.lse[:, q0:q1] = lse64[0].float()

    @staticmethod
    def bhsd(t, a, b):
        return t[a:b].transpose(0, 1).unsqueeze(0)


def run_case(seq, hq, hkv, lens_q, lens_k, tail=(0, 0), runs=1, seed=7):
    cfg = seq.cfg
    p = Packed(cfg, hq, hkv, lens_q, lens_k, tail, seed + sum(lens_q) + hq)
    sym = dict(batch=1, heads_q=hq, heads_kv=hkv, seq_q=p.tq, seq_k=p.tk,
               head_dim=cfg["head_dim"], head_dim_v=cfg["head_dim_v"], num_seqs=len(lens_q))
    outs = []
    for _ in range(runs):
        grads = [torch.full_like(t, float("nan")) for t in (p.q, p.k, p.v)]
        seq(dict(grad_output=p.do[None], query=p.q[None], key=p.k[None], value=p.v[None],
                 output=p.o[None], lse=p.lse[None], grad_query=grads[0][None],
                 grad_key=grads[1][None], grad_value=grads[2][None],
                 cu_seqlens_q=bounds(lens_q), cu_seqlens_k=bounds(lens_k)), sym)
        torch.cuda.synchronize()
        outs.append(grads)
    dq, dk, dv = outs[0]
    ok, worst, why = True, 0.0, []
    if not all(bool(torch.isfinite(t).all()) for t in (dq, dk, dv)):
        ok, why = False, why + ["a gradient not written (NaN) or not finite"]
    for q0, q1, k0, k1 in p.spans:
        if q1 == q0 or k1 == k0:
            if not (bool((dq[q0:q1] == 0).all()) and bool((dk[k0:k1] == 0).all())
                    and bool((dv[k0:k1] == 0).all())):
                ok, why = False, why + [f"sequence {q0}:{q1}/{k0}:{k1} without queries or "
                                        "keys has nonzero gradients"]
            continue
        args = [Packed.bhsd(t, a, b) for t, a, b in
                ((p.q, q0, q1), (p.k, k0, k1), (p.v, k0, k1), (p.do, q0, q1))]
        keep = keep_mask(cfg, q1 - q0, k1 - k0)
        ref = cb.grads(*args, cfg["scale"], keep, torch.float64, cfg.get("softcap"))
        plain = cb.grads(*args, cfg["scale"], keep, p.dt, cfg.get("softcap"))
        for name, ours, r, pl in zip(("dq", "dk", "dv"), (dq[q0:q1], dk[k0:k1], dv[k0:k1]),
                                     ref, plain):
            ours = ours.transpose(0, 1).unsqueeze(0).double()
            err = (ours - r).abs().max().item()
            base = (pl - r).abs().max().item()
            worst = max(worst, err)
            if not err <= 2 * base + 1e-5:
                ok, why = False, why + [f"{name} of {q0}:{q1} err {err:.3g} > 2 x {base:.3g}"]
        if keep is not None:
            dead = ~keep.any(dim=-1)
            if dead.any() and not bool((dq[q0:q1][dead] == 0).all()):
                ok, why = False, why + [f"dq of rows without keys in {q0}:{q1} not 0"]
    for name, t, start in (("dq", dq, p.tq - tail[0]), ("dk", dk, p.tk - tail[1]),
                           ("dv", dv, p.tk - tail[1])):
        if not bool((t[start:] == 0).all()):
            ok, why = False, why + [f"{name} of the trailing tokens not 0"]
    if runs > 1 and not all(all(torch.equal(a, b) for a, b in zip(outs[0], o))
                            for o in outs[1:]):
        ok, why = False, why + ["deterministic runs differ"]
    return ok, worst, "; ".join(why)


CASES = [  # heads_q, heads_kv, lengths of the queries, of the keys, trailing tokens
    (4, 4, [128, 256], [128, 256], (0, 0)),
    (8, 2, [1, 0, 300, 77, 129], [1, 50, 300, 0, 500], (0, 0)),
    (6, 3, [1000], [1000], (0, 0)),
    (4, 1, [5] * 40 + [700], [5] * 40 + [700], (0, 0)),
    (2, 2, [513, 64, 1], [100, 64, 700], (0, 0)),
    (8, 8, [192, 191, 193], [192, 191, 193], (3, 130)),
    (16, 4, [1000, 1500, 777, 2048], [1000, 1500, 777, 2048], (0, 0)),
    (4, 2, [2048] * 8, [2048] * 8, (0, 0)),
]


def main(argv):
    seqs = load_sequences(argv[1])
    rows, failed = [], 0
    for seq in seqs:
        runs = 3 if seq.cfg.get("deterministic") else 1
        for hq, hkv, lq, lk, tail in CASES:
            if os.environ.get("CHECK_SMALL") and sum(lq) > 4096:
                continue  # under memcheck
            try:
                ok, err, why = run_case(seq, hq, hkv, lq, lk, tail, runs)
            except Exception as ex:  # a launch error is a failed case
                ok, err, why = False, float("nan"), f"{type(ex).__name__}: {ex}"
            failed += not ok
            label = f"h{hq}/{hkv} n{len(lq)} tq{sum(lq)}+{tail[0]} tk{sum(lk)}+{tail[1]}"
            rows.append(dict(sequence=seq.name, case=label, ok=ok, err=f"{err:.3g}", why=why))
            print(f"{'PASS' if ok else 'FAIL'} {seq.name} {label} err {err:.3g} {why}",
                  flush=True)
    if len(argv) > 2:
        with open(argv[2], "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["sequence", "case", "ok", "err", "why"])
            w.writeheader()
            w.writerows(rows)
    print(f"varlen backward check: {len(rows) - failed}/{len(rows)} cases pass over "
          f"{len(seqs)} sequences")
    return 0 if seqs and not failed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
