"""The ragged-batch kernels (gen_varlen_inputs.py, op attention_varlen) on
the GPU, through libfa_runtime, against float64 per sequence with
FlashAttention's criterion (check_decode.compare: O error at most 2x a plain
attention's in the inputs' precision, LSE within 1e-3, O = 0 and LSE = -inf
exactly on rows without keys).

The packed O and LSE start as NaN: every row of every sequence must be
written, rows of other sequences never. Cases: lengths that are and are not
multiples of the query and key tiles, sequences without queries or without
keys, seq_q != seq_k (where the alignment matters), one long sequence with
many short ones (more than 32 sequences: several steps of the warp scan),
GQA groups 1 to 4, and batches a persistent kernel takes in several rounds
or one tile per CTA. CHECK_SMALL=1 (under memcheck) skips batches of more
than 4096 query tokens.

Usage: python3 test/Device/check_varlen.py BUNDLE_DIR [CSV_OUT]
"""
import glob
import json
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import check_decode as cd  # noqa: E402  (puts python/ on the path)
from fa_mlir import gpu_runtime  # noqa: E402


class Bundle:
    def __init__(self, path):
        with open(path) as f:
            self.meta = json.load(f)
        self.cfg = self.meta["config"]
        self.op = self.meta["op"]
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.runtime = gpu_runtime.RuntimeBundle(path)

    def __call__(self, **tensors):
        stream = torch.cuda.current_stream().cuda_stream
        self.runtime.launch({r: cd.rt(t) for r, t in tensors.items()}, stream)


def documents(folder, fmt, op):
    """The paths of the `fmt` documents of op `op` in `folder`, sorted."""
    out = []
    for p in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(p) as f:
            meta = json.load(f)
        if meta.get("format") == fmt and meta.get("op") == op:
            out.append(p)
    return out


def load_bundles(folder, op):
    """What launches op `op` in `folder`: its bundles and its sequences (a
    dynamic-scheduler kernel is a one-kernel sequence: the runtime zeroes
    its tile counter), without the bundles a sequence launches."""
    listed = set()
    for p in documents(folder, "fa-kernel-sequence", op):
        with open(p) as f:
            listed.update(os.path.join(folder, k) for k in json.load(f)["kernels"])
    return [Bundle(p) for p in documents(folder, "fa-kernel-sequence", op)
            + documents(folder, "fa-kernel-bundle", op) if p not in listed]


def cu(lens):
    return torch.tensor([0] + torch.tensor(lens).cumsum(0).tolist(), dtype=torch.int32,
                        device="cuda")


def varlen_case(bundle, dtype, hq, hkv, lens_q, lens_k, seed=7):
    d, dv = bundle.cfg["head_dim"], bundle.cfg["head_dim_v"]
    g = torch.Generator(device="cuda").manual_seed(seed + sum(lens_q) + hq)
    tq, tk = sum(lens_q), sum(lens_k)
    q = torch.randn(1, tq, hq, d, device="cuda", generator=g).to(dtype)
    k = torch.randn(1, tk, hkv, d, device="cuda", generator=g).to(dtype)
    v = torch.randn(1, tk, hkv, dv, device="cuda", generator=g).to(dtype)
    o = torch.full((1, tq, hq, dv), float("nan"), device="cuda", dtype=dtype)
    lse = torch.full((1, hq, tq), float("nan"), device="cuda")
    bundle(query=q, key=k, value=v, output=o, lse=lse, cu_seqlens_q=cu(lens_q),
           cu_seqlens_k=cu(lens_k))
    torch.cuda.synchronize()
    seqs, outs, lses, q0, k0 = [], [], [], 0, 0
    for sq, sk in zip(lens_q, lens_k):
        seqs.append((q[:, q0:q0 + sq], k[:, k0:k0 + sk], v[:, k0:k0 + sk]))
        outs.append(o[0, q0:q0 + sq])
        lses.append(lse[0, :, q0:q0 + sq])
        q0, k0 = q0 + sq, k0 + sk
    return cd.compare(bundle.cfg, seqs, outs, lses, dtype)


CASES = [  # heads_q, heads_kv, lengths of the queries, of the keys
    (4, 4, [128, 256], [128, 256]),
    (8, 2, [1, 0, 300, 77, 129], [1, 50, 300, 0, 500]),
    (6, 3, [1000], [1000]),
    (4, 1, [5] * 40 + [700], [5] * 40 + [700]),
    (2, 2, [513, 64, 1], [100, 64, 700]),
    (8, 8, [192, 191, 193], [192, 191, 193]),
    # Persistent kernels: several rounds of tiles (688 at d128 over 132 CTAs,
    # in snake order), and a mean length >= 4096, where each CTA takes one
    # tile and the grid's bound leaves CTAs without one.
    (16, 4, [1000, 1500, 777, 2048], [1000, 1500, 777, 2048]),
    (4, 2, [4096, 5000], [4096, 5000]),
]


def main(argv):
    bundles = load_bundles(argv[1], "attention_varlen")
    rows, failed = [], 0
    for bundle in bundles:
        dtype = cd.DTYPES[bundle.cfg["dtype"]]
        for case in CASES:
            if os.environ.get("CHECK_SMALL") and sum(case[2]) > 4096:
                continue  # under memcheck
            try:
                ok, err, base, why = varlen_case(bundle, dtype, *case)
            except Exception as ex:  # a launch error is a failed case
                ok, err, base, why = False, float("nan"), float("nan"), \
                    f"{type(ex).__name__}: {ex}"
            failed += not ok
            label = f"h{case[0]}/{case[1]} n{len(case[2])} tq{sum(case[2])} tk{sum(case[3])}"
            rows.append([bundle.name, label, ok, f"{err:.3g}", f"{base:.3g}", why])
            print(f"{'PASS' if ok else 'FAIL'} {bundle.name} {label} err {err:.3g} "
                  f"base {base:.3g} {why}", flush=True)
    return cd.report(argv, rows, failed, "varlen check", len(bundles), "bundles")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
