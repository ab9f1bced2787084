"""Chunked prefill next to FA4 in one process (issue 14's benchmark): a
chunk of C new tokens per sequence attends causally (bottom-right) to the
cache plus itself, bf16, Hq 32 / Hkv 8, d128, B in {1, 4}, C in {512,
2048}, cached tokens 8k and 32k.

  ours  the kvcache append sequence (write_kv + partial + combine): the
        chunk's K/V are written into the caches at cache_seqlens, then
        attended; its split count is the bundle's heuristic
  fa4   flash-attn-4's flash_attn_func over caches that already hold the
        chunk (it appends nothing), causal (bottom-right when seq_q <
        seq_k, flash-attn's convention), num_splits=1

TFLOP/s count the visible pairs: C x cached + C (C + 1) / 2 per head and
sequence, 4 D FLOPs each. Our O is checked against FA4's before timing.

Usage: python3 test/Device/bench_chunked.py BUNDLE_DIR CSV_OUT
"""
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import bench_decode as bd  # noqa: E402
import check_decode as cd  # noqa: E402
import peers  # noqa: E402
from bench_attention import env_ints, environment  # noqa: E402

HQ, HKV, D = bd.HQ, bd.HKV, bd.D  # Llama-3 8B's attention, as decode


def append_sequence(seqs):
    for s in seqs:
        c = s.cfg
        if (s.op == "attention_kvcache_append" and c["dtype"] == "bf16" and c["head_dim"] == D
                and c.get("causal") and c.get("window") is None and not c.get("softcap")):
            return s
    raise SystemExit("bench_chunked: no bf16 d128 causal append sequence")


def main(argv):
    print("#", environment())
    seq = append_sequence(cd.load_sequences(argv[1]))
    fa4 = peers.fa4_func()
    bd.warm_up_clocks()
    rows = []
    for batch in env_ints("BATCHES", "1,4"):
        for chunk in env_ints("CHUNKS", "512,2048"):
            for cached in env_ints("CACHED", "8192,32768"):
                total = cached + chunk
                q = torch.randn(batch, chunk, HQ, D, device="cuda", dtype=torch.bfloat16)
                kc = torch.randn(batch, total, HKV, D, device="cuda", dtype=torch.bfloat16)
                vc = torch.randn_like(kc)
                knew, vnew = kc[:, cached:].clone(), vc[:, cached:].clone()
                lens = torch.full((batch,), cached, dtype=torch.int32, device="cuda")
                o = torch.empty_like(q)
                lse = torch.empty(batch, HQ, chunk, device="cuda")
                ours = bd.ours_launcher(seq, q, kc, vc, lens, o, lse, new=(knew, vnew))
                peer = lambda: fa4(q, kc, vc, causal=True, num_splits=1)  # noqa: E731
                ours()
                want = peer()
                want = want[0] if isinstance(want, tuple) else want
                err = (o.float() - want.float()).abs().max().item()
                if not err <= 2e-2:
                    raise SystemExit(f"bench_chunked: O differs from FA4's by {err:.3g}")
                times = bd.timed({"ours": ours, "fa4": peer})
                pairs = chunk * cached + chunk * (chunk + 1) // 2
                flops = 4 * D * HQ * batch * pairs
                row = {"batch": batch, "chunk": chunk, "cached": cached}
                for name, t in times.items():
                    row[f"{name}_ms"] = f"{t:.4f}"
                    row[f"{name}_tflops"] = f"{flops / (t * 1e-3) / 1e12:.1f}"
                row["ratio_to_fa4"] = f"{times['fa4'] / times['ours']:.3f}"
                rows.append(row)
                print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    keys = ["batch", "chunk", "cached", "ours_ms", "ours_tflops", "fa4_ms", "fa4_tflops",
            "ratio_to_fa4"]
    bd.write_csv(argv[2], keys, rows)


if __name__ == "__main__":
    main(sys.argv)
