"""Decode next to the peers in one process (issue 14's benchmark): one query
token per sequence over a full KV cache, bf16, Hq 32 / Hkv 8, d128 (Llama-3
8B's attention), B in {1, 8, 64} x cache 1k .. 128k tokens.

  ours      the split-KV kernel sequence of fa.attention_kvcache (partial +
            combine, through libfa_runtime)
  sdpa_fa2  torch SDPA, FLASH_ATTENTION backend, enable_gqa
  fa4       flash-attn-4 (flash_attn.cute) flash_attn_func with num_splits=0,
            its split heuristic (its default, 1, does not split), and its
            pack-GQA heuristic, when importable; where its sm_90 kernel
            refuses a split ("SplitKV not supported on SM 9.0", B1 and B8),
            num_splits=1
  ours_p16, ours_p128
            the same cache as paged caches of 16 and 128 rows (the
            contiguous cache's memory viewed as [B * cache / page, page, Hkv,
            D]), each sequence's pages in a random order through
            block_table; their O must equal the contiguous launch's
  fa4_p16, fa4_p128
            flash-attn-4's flash_attn_varlen_func over those pages
            (page_table, seqused_k, num_splits=0)
  floor     the bytes of K and V once, over the copy bandwidth measured here
            (a 2 GiB device-to-device copy: 2 x bytes / time; the copy and
            the FA4 calls live in decode_peers.py, which
            bench_api_overhead.py shares); a kernel that
            only reads streams faster than a copy, so large caches can go
            below 1.0x this floor

Time: median of triton.testing.do_bench (warmup 25 ms, rep 100 ms), the
best of three rounds that alternate the implementations, after two seconds
of GEMMs to bring the clocks up (the small shapes take 10-50 us and moved
3x between runs without both). Our workspace (the f32 partials) is
allocated once, outside the timed call, as a serving loop keeps it; the
peers allocate their outputs per call through torch's caching allocator.

Usage: python3 test/Device/bench_decode.py BUNDLE_DIR CSV_OUT
Env: BATCHES (1,8,64), CACHES (1024,4096,16384,65536,131072)
"""
import csv
import os
import sys

import torch
from triton.testing import do_bench

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import check_decode as cd  # noqa: E402
import decode_peers  # noqa: E402
import fa_rt  # noqa: E402
from fa_mlir import gpu_runtime  # noqa: E402 (on the path fa_rt puts it on)
import peers  # noqa: E402
from bench_attention import env_ints, environment  # noqa: E402

HQ, HKV, D = 32, 8, 128


def warm_up_clocks(seconds=2.0):
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    end = torch.cuda.Event(enable_timing=True)
    start = torch.cuda.Event(enable_timing=True)
    start.record()
    while True:
        for _ in range(10):
            a @ a
        end.record()
        end.synchronize()
        if start.elapsed_time(end) > seconds * 1e3:
            return


def ours_launcher(seq, q, kc, vc, lens, o, lse, table=None, new=None):
    """Our sequence over contiguous caches, or paged ones with `table`;
    `new`: the (key_new, value_new) an append sequence writes first."""
    ops = {"query": cd.rt(q), "cache_seqlens": cd.rt(lens), "output": cd.rt(o),
           "lse": cd.rt(lse)}
    symbols = {"batch": q.shape[0], "seq_q": q.shape[1], "heads_q": q.shape[2],
               "heads_kv": kc.shape[2], "head_dim": q.shape[3], "head_dim_v": vc.shape[3],
               "num_sms": torch.cuda.get_device_properties(0).multi_processor_count}
    if new is not None:
        ops.update(key_new=cd.rt(new[0]), value_new=cd.rt(new[1]))
        symbols["seq_new"] = new[0].shape[1]
    if table is None:
        ops.update(key=cd.rt(kc), value=cd.rt(vc))
        symbols["seq_k"] = kc.shape[1]
    else:
        ops.update(key_cache=cd.rt(kc), value_cache=cd.rt(vc), block_table=cd.rt(table))
        symbols.update(num_pages=kc.shape[0], page_size=kc.shape[1], max_pages=table.shape[1])
    workspace = {name: torch.empty(sizes, device="cuda", dtype=torch.float32)
                 for name, (sizes, _) in gpu_runtime.workspace_shapes(seq.runtime.workspace,
                                                                      symbols).items()}
    ops.update({name: cd.rt(t) for name, t in workspace.items()})
    return fa_rt.launcher(seq.runtime, ops, keep=workspace)


def peer_calls(q, kc, vc):
    calls = {}
    qh, kh, vh = (t.transpose(1, 2) for t in (q, kc, vc))  # bhsd views for SDPA
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F

    def sdpa():
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            return F.scaled_dot_product_attention(qh, kh, vh, enable_gqa=True)
    calls["sdpa_fa2"] = sdpa
    try:
        f = peers.fa4_func()
        calls["fa4"] = decode_peers.fa4_best(lambda splits: f(q, kc, vc, num_splits=splits))
    except peers.Unavailable as ex:
        print(f"# fa4 unavailable: {ex}")
    return calls


def paged_view(kc, vc, page, g):
    """The caches' memory as pages of `page` rows, and a block table that
    visits each sequence's pages in a random order (attention does not
    depend on the order of its keys, so O equals the contiguous cache's)."""
    batch, cache = kc.shape[:2]
    per = cache // page
    kp = kc.view(batch * per, page, *kc.shape[2:])
    vp = vc.view(batch * per, page, *vc.shape[2:])
    table = torch.stack([b * per + torch.randperm(per, device="cuda", generator=g)
                         for b in range(batch)]).to(torch.int32)
    return kp, vp, table


def paged_calls(paged_seqs, q, kc, vc, lens, o, lse):
    calls, g = {}, torch.Generator(device="cuda").manual_seed(5)
    try:
        peers.fa4_varlen_func()
        fa4 = True
    except peers.Unavailable as ex:
        fa4 = False
        print(f"# fa4 paged unavailable: {ex}")
    for page, seq in paged_seqs.items():
        kp, vp, table = paged_view(kc, vc, page, g)
        calls[f"ours_p{page}"] = ours_launcher(seq, q, kp, vp, lens, o, lse, table)
        if fa4:
            calls[f"fa4_p{page}"] = decode_peers.fa4_paged(q, kp, vp, lens, table)
    return calls


def same_outputs(calls, o):
    """Our paged launches must give the contiguous launch's O (the pages
    alias its cache): a kernel that skipped keys would time too well."""
    calls["ours"]()
    want = o.clone()
    for name in [n for n in calls if n.startswith("ours_p")]:
        o.fill_(float("nan"))
        calls[name]()
        if not torch.allclose(o.float(), want.float(), atol=2e-3, rtol=0):
            err = (o.float() - want.float()).abs().max().item()
            raise SystemExit(f"bench_decode: {name} differs from ours by {err:.3g}")


def plain_kvcache(s, page_size):
    cfg = s.cfg
    return (s.op == ("attention_kvcache_paged" if page_size else "attention_kvcache")
            and cfg["dtype"] == "bf16" and cfg["head_dim"] == D and not cfg.get("causal")
            and cfg.get("window") is None and not cfg.get("softcap")
            and cfg.get("num_splits", 0) == 0 and cfg.get("page_size", 0) == page_size)


def main(argv):
    environment()
    seqs = cd.load_sequences(argv[1])
    seq = next(s for s in seqs if plain_kvcache(s, 0))
    paged_seqs = {p: next(s for s in seqs if plain_kvcache(s, p)) for p in (16, 128)}
    warm_up_clocks()
    bandwidth = decode_peers.copy_bandwidth(lambda f: do_bench(f, warmup=25, rep=100))
    print(f"# copy bandwidth {bandwidth / 1e12:.2f} TB/s; ours = {seq.name}")
    rows = []
    for batch in env_ints("BATCHES", "1,8,64"):
        for cache in env_ints("CACHES", "1024,4096,16384,65536,131072"):
            if batch * cache * HKV * D * 2 * 2 > 40e9:
                continue
            q = torch.randn(batch, 1, HQ, D, device="cuda", dtype=torch.bfloat16)
            kc = torch.randn(batch, cache, HKV, D, device="cuda", dtype=torch.bfloat16)
            vc = torch.randn_like(kc)
            lens = torch.full((batch,), cache, dtype=torch.int32, device="cuda")
            o = torch.empty_like(q)
            lse = torch.empty(batch, HQ, 1, device="cuda")
            calls = {"ours": ours_launcher(seq, q, kc, vc, lens, o, lse)}
            calls.update(peer_calls(q, kc, vc))
            calls.update(paged_calls(paged_seqs, q, kc, vc, lens, o, lse))
            same_outputs(calls, o)
            times = timed(calls, f" B{batch} cache {cache}")
            floor = 2 * kc.numel() * 2 / bandwidth * 1e3
            contiguous = [v for k, v in times.items() if k in ("sdpa_fa2", "fa4")]
            best = min(contiguous) if contiguous else None
            row = {"batch": batch, "cache": cache, "floor_ms": f"{floor:.4f}",
                   "ours_over_floor": f"{times['ours'] / floor:.2f}",
                   "best_peer_over_ours": f"{best / times['ours']:.2f}" if best else ""}
            row.update({f"{k}_ms": f"{v:.4f}" for k, v in times.items()})
            for page in paged_seqs:
                ours_p, fa4_p = times.get(f"ours_p{page}"), times.get(f"fa4_p{page}")
                if ours_p and fa4_p:
                    row[f"fa4_p{page}_over_ours"] = f"{fa4_p / ours_p:.2f}"
            rows.append(row)
            print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
            del q, kc, vc
    keys = ["batch", "cache", "ours_ms", "sdpa_fa2_ms", "fa4_ms", "floor_ms", "ours_over_floor",
            "best_peer_over_ours", "ours_p16_ms", "fa4_p16_ms", "fa4_p16_over_ours", "ours_p128_ms",
            "fa4_p128_ms", "fa4_p128_over_ours"]
    write_csv(argv[2], keys, rows)


def timed(calls, where=""):
    """{name: ms}: the best of three rounds of do_bench medians, rounds
    alternating the calls; a call that raises (a peer that cannot run this
    shape) is reported and dropped."""
    times = {}
    for _ in range(3):
        for name, call in list(calls.items()):
            try:
                t = do_bench(call, warmup=25, rep=100)
                times[name] = min(times.get(name, t), t)
            except Exception as ex:  # a peer that cannot run this shape
                print(f"# {name}{where}: {type(ex).__name__}: {str(ex)[:120]}")
                del calls[name]
    return times


def write_csv(path, keys, rows):
    """The rows (dicts) under the header `keys`; fields a row lacks stay empty."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main(sys.argv)
