"""The split-KV decode sequences (gen_decode_inputs.py) on the GPU, through
libfa_runtime, against float64 with FlashAttention's criterion: our max
error over O at most 2x that of the same attention computed plainly in the
inputs' precision (plus 1e-4 of slack for rows where both are tiny), LSE
within 1e-3 of float64 where rows have keys, and O = 0, LSE = -inf exactly
where they have none.

The KV caches are filled with NaN past each sequence's length: a kernel that
reads a cached slot past cache_seqlens[b] into its result fails. Paged caches
hold the sequences in a random permutation of the pages, every unused page
NaN, and the block table's entries past a sequence's pages out of the cache
(-1 and num_pages + 7). With append, the last seq_new (= seq_q) keys of each
sequence come in key_new/value_new; the caches afterwards must equal the
expected ones bit for bit (NaN where nothing was written).

Cases: GQA groups 1, 3, 4, 8 (packed rows 1 .. 136, so one and several
query blocks), one to 17 query tokens, empty sequences, lengths of 1 and
below seq_q (bottom-right rows without keys), lengths that are not
multiples of the key tile, caches of 333 .. 4096 slots, fixed and
heuristic split counts. The dense split (fa.attention num_splits) runs on
equal lengths in bshd and bhsd.

Usage: python3 test/Device/check_decode.py BUNDLE_DIR [CSV_OUT]
"""
import csv
import glob
import json
import math
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(here)), "python"))
from fa_mlir import gpu_runtime  # noqa: E402
sys.path.insert(0, here)
from fa_rt import runtime_tensor as rt  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


class Sequence:
    def __init__(self, path):
        self.path = path
        with open(path) as f:
            self.meta = json.load(f)
        self.cfg = self.meta["config"]
        self.op = self.meta["op"]
        self.runtime = gpu_runtime.RuntimeBundle(path)
        self.name = os.path.splitext(os.path.basename(path))[0]

    def __call__(self, **tensors):
        stream = torch.cuda.current_stream().cuda_stream
        self.runtime.launch({r: rt(t) for r, t in tensors.items()}, stream)


def load_sequences(folder):
    out = []
    for p in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(p) as f:
            if json.load(f).get("format") == "fa-kernel-sequence":
                out.append(Sequence(p))
    return out


def visible(cfg, sq, sk, device):
    """[sq, sk] bool: key j visible to query i (the op's masks, aligned as
    the config says), or None without a mask."""
    causal, window = cfg.get("causal"), cfg.get("window")
    if not causal and window is None:
        return None
    off = sk - sq if cfg.get("mask_alignment") == "bottom_right" else 0
    i = torch.arange(sq, device=device)[:, None] + off
    j = torch.arange(sk, device=device)[None, :]
    ok = torch.ones(sq, sk, dtype=torch.bool, device=device)
    if causal:
        ok &= j <= i
    if window is not None:
        left, right = window
        if left is not None:
            ok &= j >= i - left
        if right is not None:
            ok &= j <= i + right
    return ok


def attention(cfg, q, k, v, dtype):
    """One sequence, bshd [1, sq, hq, d] / [1, sk, hkv, d], computed in
    `dtype` (float64: the reference); returns O [sq, hq, dv] in dtype and
    LSE [hq, sq] in float64 (-inf for rows without keys)."""
    sq, hq, sk, hkv = q.shape[1], q.shape[2], k.shape[1], k.shape[2]
    qh = q[0].transpose(0, 1).to(dtype)                        # [hq, sq, d]
    kh = k[0].transpose(0, 1).to(dtype).repeat_interleave(hq // hkv, 0)
    vh = v[0].transpose(0, 1).to(dtype).repeat_interleave(hq // hkv, 0)
    s = (qh @ kh.transpose(1, 2)) * cfg["scale"]
    if cfg.get("softcap"):
        s = cfg["softcap"] * torch.tanh(s / cfg["softcap"])
    ok = visible(cfg, sq, sk, q.device)
    if ok is not None:
        s = s.masked_fill(~ok, float("-inf"))
    lse = torch.logsumexp(s.double(), dim=-1)
    empty = torch.isinf(lse)
    p = torch.softmax(s.float() if dtype != torch.float64 else s, dim=-1).to(dtype)
    o = torch.nan_to_num(p, nan=0.0) @ vh
    o = o.masked_fill(empty[..., None], 0)
    return o.transpose(0, 1), lse


class Cache:
    """A K or V cache holding `keys` (one [n, hkv, d] tensor per sequence)
    in its first `cached[b]` slots, NaN elsewhere: contiguous [B, cap, hkv,
    d], or paged [num_pages, page_size, hkv, d] through `table`."""

    def __init__(self, keys, cached, cap, page_size, table):
        b, (hkv, d) = len(keys), keys[0].shape[1:]
        self.page_size, self.table = page_size, table
        if page_size:
            pages = table.shape[0] * table.shape[1] + 3  # a few never used
            self.data = torch.full((pages, page_size, hkv, d), float("nan"),
                                   device=keys[0].device, dtype=keys[0].dtype)
        else:
            self.data = torch.full((b, cap, hkv, d), float("nan"), device=keys[0].device,
                                   dtype=keys[0].dtype)
        for i, n in enumerate(cached):
            self.write(i, 0, keys[i][:n])

    def write(self, b, start, rows):
        slots = torch.arange(start, start + rows.shape[0], device=rows.device)
        if self.page_size:
            pages = self.table[b].long()[slots // self.page_size]
            self.data[pages, slots % self.page_size] = rows
        else:
            self.data[b, slots] = rows


def page_table(batch, cap, page_size, lens, g, dev):
    """[batch, ceil(cap / page_size)] i32: the pages of each sequence's keys
    from a random permutation; entries past them point outside the cache."""
    max_pages = -(-cap // page_size)
    perm = torch.randperm(batch * max_pages, generator=g, device=dev).to(torch.int32)
    table = perm.view(batch, max_pages).clone()
    for b, n in enumerate(lens):
        used = -(-n // page_size)
        table[b, used:] = torch.tensor([-1, batch * max_pages + 3 + 7], dtype=torch.int32,
                                       device=dev).repeat(max_pages)[: max_pages - used]
    return table


def kvcache_case(seq, dtype, d, batch, sq, hq, hkv, cap, lens):
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(1234 + batch * 7 + sq)
    appends = seq.op.endswith("_append")
    page_size = seq.cfg.get("page_size", 0)
    new = sq if appends else 0
    lens = [max(n, new) for n in lens]          # every sequence holds its new keys
    cached = [n - new for n in lens]
    q = torch.randn(batch, sq, hq, d, device=dev, generator=g).to(dtype)
    keys = [torch.randn(n, hkv, d, device=dev, generator=g).to(dtype) for n in lens]
    values = [torch.randn(n, hkv, d, device=dev, generator=g).to(dtype) for n in lens]
    table = page_table(batch, cap, page_size, lens, g, dev) if page_size else None
    kc, vc = (Cache(x, cached, cap, page_size, table) for x in (keys, values))
    o = torch.full((batch, sq, hq, d), float("nan"), device=dev, dtype=dtype)
    lse = torch.full((batch, hq, sq), float("nan"), device=dev)
    tensors = dict(query=q, cache_seqlens=torch.tensor(cached, dtype=torch.int32, device=dev),
                   output=o, lse=lse)
    roles = ("key_cache", "value_cache") if page_size else ("key", "value")
    tensors.update({roles[0]: kc.data, roles[1]: vc.data})
    if page_size:
        tensors["block_table"] = table
    if appends:
        tensors["key_new"] = torch.stack([k[-new:] for k in keys])
        tensors["value_new"] = torch.stack([v[-new:] for v in values])
        expected = [Cache(x, lens, cap, page_size, table).data for x in (keys, values)]
    seq(**tensors)
    torch.cuda.synchronize()
    sequences = [(q[b:b + 1], keys[b][None], values[b][None]) for b in range(batch)]
    ok, err, base, why = compare(seq.cfg, sequences, o, lse, dtype)
    if appends:
        for name, got, want in zip(roles, (kc.data, vc.data), expected):
            if not torch.equal(got.nan_to_num(nan=12345.0), want.nan_to_num(nan=12345.0)):
                ok, why = False, why + f"; {name} after append differs"
    return ok, err, base, why


def dense_case(seq, dtype, d, batch, sq, sk, hq, hkv):
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(99 + sq + sk)
    bhsd = seq.cfg["layout"] == "bhsd"
    q = torch.randn(batch, sq, hq, d, device=dev, generator=g).to(dtype)
    k = torch.randn(batch, sk, hkv, d, device=dev, generator=g).to(dtype)
    v = torch.randn(batch, sk, hkv, d, device=dev, generator=g).to(dtype)
    o = torch.full((batch, sq, hq, d), float("nan"), device=dev, dtype=dtype)
    lse = torch.full((batch, hq, sq), float("nan"), device=dev)
    lay = (lambda t: t.transpose(1, 2).contiguous()) if bhsd else (lambda t: t)
    o_l = lay(o)
    seq(query=lay(q), key=lay(k), value=lay(v), output=o_l, lse=lse)
    torch.cuda.synchronize()
    o = o_l.transpose(1, 2) if bhsd else o_l
    sequences = [(q[b:b + 1], k[b:b + 1], v[b:b + 1]) for b in range(batch)]
    return compare(seq.cfg, sequences, o, lse, dtype)


def compare(cfg, sequences, o, lse, dtype):
    """(ok, our error, baseline error, what failed)."""
    worst, base_worst, why = 0.0, 0.0, []
    for b, (qb, kb, vb) in enumerate(sequences):
        ref, ref_lse = attention(cfg, qb, kb, vb, torch.float64)
        low, _ = attention(cfg, qb, kb, vb, dtype)
        err = (o[b].double() - ref).abs().max().item() if ref.numel() else 0.0
        base = (low.double() - ref).abs().max().item() if ref.numel() else 0.0
        worst, base_worst = max(worst, err), max(base_worst, base)
        if not math.isfinite(err) or err > 2 * base + 1e-4:
            why.append(f"seq {b}: O error {err:.3g} > 2 x {base:.3g}")
        ours_lse = lse[b].double()
        empty = torch.isinf(ref_lse)
        if not torch.equal(torch.isneginf(ours_lse), empty):
            why.append(f"seq {b}: LSE -inf on {int(torch.isneginf(ours_lse).sum())} rows, "
                       f"expected {int(empty.sum())}")
        elif (~empty).any():
            d = (ours_lse[~empty] - ref_lse[~empty]).abs().max().item()
            if not d <= 1e-3:
                why.append(f"seq {b}: LSE error {d:.3g}")
        if empty.any() and o[b].transpose(0, 1)[empty].abs().max().item() != 0:
            why.append(f"seq {b}: rows without keys are not 0")
    return not why, worst, base_worst, "; ".join(why)


KV_CASES = [  # batch, seq_q, heads_q, heads_kv, capacity, lengths
    (3, 1, 32, 8, 1000, [1000, 517, 0]),
    (2, 4, 8, 2, 700, [700, 129]),
    (1, 1, 8, 8, 4096, [4096]),
    (4, 3, 12, 4, 333, [333, 1, 200, 64]),
    (2, 17, 32, 4, 300, [300, 100]),
    (8, 1, 32, 8, 2048, [2048, 1, 1500, 999, 128, 129, 2047, 700]),
]
# Long caches (more pages, more splits); not under compute-sanitizer
# (CHECK_SMALL=1), where they would take minutes.
if not os.environ.get("CHECK_SMALL"):
    KV_CASES.append((8, 1, 32, 8, 16384, [16384, 16000, 1, 8192, 16384, 300, 16383, 5000]))
DENSE_CASES = [  # batch, seq_q, seq_k, heads_q, heads_kv
    (2, 1, 1000, 32, 8),
    (1, 5, 333, 8, 2),
    (2, 300, 257, 6, 2),
]


def main(argv):
    seqs = load_sequences(argv[1])
    rows, failed = [], 0
    for seq in seqs:
        dtype = DTYPES[seq.cfg["dtype"]]
        d = seq.cfg["head_dim"]
        kv = seq.op.startswith("attention_kvcache")
        for case in KV_CASES if kv else DENSE_CASES:
            try:
                if kv:
                    ok, err, base, why = kvcache_case(seq, dtype, d, *case)
                else:
                    ok, err, base, why = dense_case(seq, dtype, d, *case)
            except Exception as ex:  # a launch error is a failed case
                ok, err, base, why = False, float("nan"), float("nan"), f"{type(ex).__name__}: {ex}"
            failed += not ok
            rows.append([seq.name, "x".join(map(str, case[:4])), ok, f"{err:.3g}", f"{base:.3g}", why])
            print(f"{'PASS' if ok else 'FAIL'} {seq.name} {case} err {err:.3g} base {base:.3g} {why}")
    return report(argv, rows, failed, "decode check", len(seqs), "sequences")


def report(argv, rows, failed, what, count, unit):
    """Writes the case rows to argv[2] when given and prints the tally; the
    exit status: 1 when a case failed or nothing was checked."""
    if len(argv) > 2:
        with open(argv[2], "w", newline="") as f:
            w = csv.writer(f)
            w.writerow([unit.rstrip("s"), "case", "ok", "max_err", "baseline_err", "failure"])
            w.writerows(rows)
    print(f"{what}: {len(rows) - failed}/{len(rows)} passed over {count} {unit}")
    return 1 if failed or not count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
