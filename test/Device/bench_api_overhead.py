"""What fa_mlir.torch's serving calls cost beyond their kernels (issue 37,
item 5: "the user path costs nothing"), on the GPU, in one process.

Cases (bf16 unless said):
  decode   attention_with_kvcache, paged (page 64), B16, GQA 32/8, D128,
           one query token, cache lengths 2k .. 8k (seeded), split-KV
           heuristic (num_splits 0), causal
  varlen   varlen_attention, 8 sequences of random lengths in 16k tokens,
           16 heads, D128, causal
  fp8      attention on float8_e4m3fn q, k, v (quantize_fp8, per-tensor
           descales), B4 x 4096, 16 heads, D128, bf16 out

Each case is timed four ways, with torch.cuda.Event over a loop of REPS
back-to-back calls (median of ROUNDS rounds, ms per call):
  api           the eager fa_mlir.torch call
  launch        the same kernel (sequence) launched alone: libfa_runtime's
                fa_bundle_launch on operands prepared once
                (GpuBundle.launch_packed), what the call would cost with
                no Python around it
  api_graph     the API call captured once in a CUDA graph, replayed
  launch_graph  the launch alone, captured and replayed
and the host time of one API call (perf_counter, no sync, while the GPU
queue has room). ratio = api / launch (the floor: <= 1.02).

Next to FlashAttention-4 (issue 37's serving floors), in the same process
on the same operands, when flash_attn.cute imports (the device round's
FA4 wheels, test/Device/peers.py; else these columns say "unavailable"):
  decode   FA4's paged decode: flash_attn_varlen_func on the same q, cache
           pages, block table and cache lengths (seqused_k), causal, GQA,
           its split heuristic (decode_peers.fa4_paged, as
           test/Device/bench_decode.py calls it)
  varlen   FA4's flash_attn_varlen_func on the same packed q, k, v and
           cu_seqlens, causal
FA4's output is first checked with the case's own criterion against
float64 (fa4_check) and compared with ours (fa4_max_diff, the largest
absolute difference); a FA4 output that fails is not timed.
  fa4_ms        FA4's call, eager, timed as api is
  fa4_over_api  fa4_ms / api_ms (the floor: >= 1.0, decode and varlen)
Decode's bandwidth floor:
  floor_ms        the bytes the call must move at least (the K and V rows of
                  each sequence's cache length, q and the output:
                  decode_peers.decode_bytes) over the card's HBM bandwidth,
                  measured in this process by a 2 GiB device-to-device copy
                  timed with torch.cuda.Event as above (2 x bytes / time;
                  copy_tb_s)
  api_over_floor  api_ms / floor_ms (the floor: <= 1.5)

Checks (before timing; a case that fails one is reported FAIL and not
timed): the API's output against float64 with FlashAttention's criterion
(decode and varlen: max error <= 2x that of a plain bf16 attention + 1e-4;
fp8: against fa_mlir.torch.reference_fp8_attention relative to
emulated_fp8_attention, as test/Device/bench_fp8.py does), the launch
alone giving the same bits, the call running under
torch.cuda.set_sync_debug_mode("error") (no device->host sync), and the
graph replay giving the eager call's bits.

Bundles come from FA_MLIR_BUNDLE_PATH (the device round: .devbuild/
gpu-tests for decode and varlen, .devbuild/fp8 for fp8); nothing compiles
here (FA_BUILD_DIR=/nonexistent).

Usage: python3 test/Device/bench_api_overhead.py CSV_OUT
Env: REPS (50), ROUNDS (5), CASES (decode,varlen,fp8), SMALL=1 (caches
256 .. 1024, 2k varlen tokens, fp8 B1 x 512: a quick pass).
"""
import collections
import csv
import math
import os
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                "python"))
sys.path.insert(0, HERE)
import decode_peers  # noqa: E402
import fa_mlir.torch as fat  # noqa: E402
from fa_mlir.gpu_runtime import pack  # noqa: E402
from fa_mlir.signature import symbols_of  # noqa: E402
from fa_mlir.torch import _convert, _ops, fp8  # noqa: E402
import peers  # noqa: E402

REPS = int(os.environ.get("REPS", 50))
ROUNDS = int(os.environ.get("ROUNDS", 5))
CASES = os.environ.get("CASES", "decode,varlen,fp8").split(",")
SMALL = bool(os.environ.get("SMALL"))
DEV = "cuda"


# -- timing ----------------------------------------------------------------

def ms_per_call(fn):
    """Median over ROUNDS of (event time of REPS calls) / REPS."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(ROUNDS):
        start, stop = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        start.record()
        for _ in range(REPS):
            fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop) / REPS)
    return statistics.median(times)


def host_us(fn):
    """Host time of one call (the launches are queued, not waited for)."""
    torch.cuda.synchronize()
    n = min(REPS, 20)
    t = time.perf_counter()
    for _ in range(n):
        fn()
    host = (time.perf_counter() - t) / n * 1e6
    torch.cuda.synchronize()
    return host


def graphed(fn):
    """(replay, the outputs captured): `fn` captured in a CUDA graph after
    warm-up calls on a side stream (torch's recipe)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn()
    return graph.replay, out


def no_sync(fn):
    """fn() with torch's sync debug mode raising on any device->host sync."""
    torch.cuda.set_sync_debug_mode("error")
    try:
        return fn()
    finally:
        torch.cuda.set_sync_debug_mode("default")


# -- references ------------------------------------------------------------

def attention64(q, k, v, causal_offset=None):
    """float64 and plain bf16 (scores and P rounded to bf16, softmax in
    float32) attention of [H, Sq, D] q and [H, Sk, D] k, v (GQA expanded by
    the caller); causal_offset: keys j <= i + offset visible."""
    def run(dtype, rnd):
        s = rnd(q.to(dtype) @ k.to(dtype).transpose(-1, -2)) * q.shape[-1] ** -0.5
        if causal_offset is not None:
            i = torch.arange(q.shape[1], device=q.device)[:, None]
            j = torch.arange(k.shape[1], device=q.device)[None, :]
            s = s.masked_fill(j > i + causal_offset, float("-inf"))
        p = rnd(torch.softmax(s.float() if dtype != torch.float64 else s, -1))
        return (p.to(dtype) @ v.to(dtype)).double()
    exact = run(torch.float64, lambda x: x)
    plain = run(torch.bfloat16, lambda x: x.to(torch.bfloat16))
    return exact, plain


def criterion(errors):
    """'PASS ...' when ours - ref <= 2 (plain - ref) + 1e-4 everywhere."""
    ours = max(e[0] for e in errors)
    plain = max(e[1] for e in errors)
    ok = all(o <= 2 * p + 1e-4 for o, p in errors)
    return f"{'PASS' if ok else 'FAIL'} err {ours:.2e} plain {plain:.2e}"


# -- cases -----------------------------------------------------------------

# api(), check(out) -> "PASS ..." or "FAIL ...", the bundle and operands of
# the launch alone; fa4() -> FA4's call on the same operands (raises
# peers.Unavailable without FA4); floor_bytes(out): the least the call moves.
Case = collections.namedtuple(
    "Case", "api check bundle tensors fa4 floor_bytes", defaults=(None, None))


def decode_case(g):
    b, hq, hkv, d, page = 16, 32, 8, 128, 64
    lens = torch.randint(256 if SMALL else 2048, 1025 if SMALL else 8193,
                         (b,), generator=g)
    pages = [-(-int(n) // page) for n in lens]
    max_pages, num_pages = max(pages), sum(pages) + 8
    perm = torch.randperm(num_pages, generator=g)
    table = torch.zeros(b, max_pages, dtype=torch.int32)
    used = 0
    for i, n in enumerate(pages):
        table[i, :n] = perm[used:used + n]
        used += n
    q = torch.randn(b, 1, hq, d, generator=g).to(DEV, torch.bfloat16)
    kc, vc = (torch.randn(num_pages, page, hkv, d, generator=g).to(
        DEV, torch.bfloat16) for _ in range(2))
    table, lens32 = table.to(DEV), lens.to(DEV, torch.int32)

    def api():
        return fat.attention_with_kvcache(q, kc, vc, cache_seqlens=lens32,
                                          block_table=table, causal=True)

    def check(out):
        errors = []
        for i in range(b):
            rows = table[i, :pages[i]].long()
            keys = [c[rows].flatten(0, 1)[:int(lens[i])].transpose(0, 1)
                    .repeat_interleave(hq // hkv, 0) for c in (kc, vc)]
            exact, plain = attention64(q[i].transpose(0, 1), *keys)
            ours = out[i].transpose(0, 1).double()
            errors.append(((ours - exact).abs().max().item(),
                           (plain - exact).abs().max().item()))
        return criterion(errors)

    kcfg = _ops.kvcache_config(q, kc, vc, page, False, True, None, -1, -1,
                               None, 0)
    bundle = _ops.get_bundle(kcfg, "sm_90a")
    tensors = _ops.kvcache_operands(q, kc, vc, lens32, table)
    symbols = symbols_of(kcfg, {r: t.shape for r, t in tensors.items()})
    tensors.update(_ops._workspace(bundle, symbols, q.device))
    return Case(api, check, bundle, tensors,
                fa4=lambda: decode_peers.fa4_paged(q, kc, vc, lens32, table,
                                                   causal=True),
                floor_bytes=lambda out: decode_peers.decode_bytes(
                    q, kc, vc, lens.tolist(), out))


def varlen_case(g):
    heads, d, total, n = 16, 128, 2048 if SMALL else 16384, 8
    cuts = sorted(torch.randperm(total - 1, generator=g)[:n - 1] + 1)
    cu = torch.tensor([0] + [int(c) for c in cuts] + [total],
                      dtype=torch.int32)
    lens = (cu[1:] - cu[:-1]).tolist()
    q, k, v = (torch.randn(total, heads, d, generator=g).to(DEV, torch.bfloat16)
               for _ in range(3))
    cu_dev, max_len = cu.to(DEV), max(lens)

    def api():
        return fat.varlen_attention(q, k, v, cu_dev, cu_dev, max_len, max_len,
                                    causal=True)

    def check(out):
        errors = []
        for i in range(n):
            rows = slice(int(cu[i]), int(cu[i + 1]))
            one = [t[rows].transpose(0, 1) for t in (q, k, v)]
            for lo in range(0, lens[i], 1024):  # a few row blocks each
                exact, plain = attention64(one[0][:, lo:lo + 256], *one[1:],
                                           causal_offset=lo)
                ours = out[rows].transpose(0, 1)[:, lo:lo + 256].double()
                errors.append(((ours - exact).abs().max().item(),
                               (plain - exact).abs().max().item()))
        return criterion(errors)

    kcfg = _ops.varlen_config(q, k, v, True, None, -1, -1, None, "")
    bundle = _ops.get_bundle(kcfg, "sm_90a")
    tensors = _ops.varlen_operands(q, k, v, cu_dev, cu_dev)

    def fa4():
        f = peers.fa4_varlen_func()
        return lambda: f(q, k, v, cu_seqlens_q=cu_dev, cu_seqlens_k=cu_dev,
                         max_seqlen_q=max_len, max_seqlen_k=max_len,
                         causal=True)
    return Case(api, check, bundle, tensors, fa4=fa4)


def fp8_case(g):
    b, s, h, d = (1, 512, 16, 128) if SMALL else (4, 4096, 16, 128)
    x = fat.quantize_fp8(*(torch.randn(b, h, s, d, generator=g).to(
        DEV, torch.bfloat16) for _ in range(3)))
    descales = (x.q_descale, x.k_descale, x.v_descale)

    def api():
        return fat.attention(x.q, x.k, x.v, q_descale=x.q_descale,
                             k_descale=x.k_descale, v_descale=x.v_descale)

    def check(out):
        rows = 256
        exact, _ = fat.reference_fp8_attention(x.q, x.k, x.v, descales,
                                               rows=rows)
        plain = fat.emulated_fp8_attention(x.q, x.k, x.v, descales)
        ours = out[:, :, :rows].double()
        return criterion([((ours - exact).abs().max().item(),
                           (plain[:, :, :rows].double() - exact).abs().max()
                           .item())])

    sizes = _convert.sizes_of(x.q, x.k, x.v, "bhsd")
    options = dict(layout="bhsd", causal=False, scale=None, window=None,
                   softcap=None, mask_alignment=None)
    bundle, tensors = fp8.cuda_operands(x.q, x.k, x.v, descales,
                                        torch.bfloat16, sizes, options)
    return Case(api, check, bundle, tensors)


# -- the run ---------------------------------------------------------------

def launcher(bundle, tensors):
    """The kernel alone on prepared operands, on the current stream (the
    capture stream inside a graph)."""
    arr = pack({r: _convert.runtime_tensor(t) for r, t in tensors.items()})

    def launch():
        bundle.launch_packed(arr, torch.cuda.current_stream().cuda_stream)
        return tensors["output"]
    return launch


def first(result):
    return result[0] if isinstance(result, tuple) else result


FA4_COLUMNS = ("fa4_check", "fa4_max_diff", "fa4_ms", "fa4_over_api")


def fa4_columns(case, out, api_ms, ms_of=ms_per_call):
    """FA4 on the case's operands: its output through the case's check and
    next to ours (`out`), then timed with ms_of, only if it passed (a ratio
    of different results means nothing). {} for a case without FA4."""
    if case.fa4 is None:
        return {}
    try:
        call = case.fa4()
        theirs = first(call()).reshape(out.shape)
    except peers.Unavailable as e:
        print(f"# fa4 unavailable: {e}")
        return dict.fromkeys(FA4_COLUMNS, "unavailable")
    except Exception as e:  # noqa: BLE001 - FA4 cannot run it: reported
        print(f"# fa4 failed: {type(e).__name__}: {e}")
        return dict.fromkeys(FA4_COLUMNS, f"error {type(e).__name__}: "
                             f"{str(e).splitlines()[0][:80] if str(e) else ''}")
    diff = (theirs.float() - out.float()).abs().max().item()
    row = {"fa4_check": case.check(theirs), "fa4_max_diff": f"{diff:.2e}"}
    if not row["fa4_check"].startswith("PASS"):
        row["fa4_ms"] = row["fa4_over_api"] = "not timed: FA4 fails the check"
        return row
    row["fa4_ms"] = ms_of(call)
    row["fa4_over_api"] = row["fa4_ms"] / api_ms
    return row


_bandwidth = {}


def hbm_bandwidth():
    """Bytes/s of a 2 GiB device-to-device copy, timed as the calls are;
    measured once per process."""
    if "copy" not in _bandwidth:
        _bandwidth["copy"] = decode_peers.copy_bandwidth(ms_per_call)
        print(f"# copy bandwidth {_bandwidth['copy'] / 1e12:.3f} TB/s")
    return _bandwidth["copy"]


def floor_columns(nbytes, bandwidth, api_ms):
    """The bandwidth floor of a call moving `nbytes` and ours over it."""
    floor_ms = nbytes / bandwidth * 1e3
    return {"floor_ms": floor_ms, "api_over_floor": api_ms / floor_ms,
            "copy_tb_s": bandwidth / 1e12}


def run_case(name, make):
    row = {"case": name}
    case = make(torch.Generator().manual_seed(0))
    api, check, tensors = case.api, case.check, case.tensors
    launch = launcher(case.bundle, tensors)
    out = first(api())
    torch.cuda.synchronize()
    row["check"] = check(out)
    launch()
    torch.cuda.synchronize()
    row["launch_same_bits"] = torch.equal(tensors["output"].reshape(
        out.shape), out)
    try:
        no_sync(api)
        row["syncs"] = "none"
    except RuntimeError as e:
        row["syncs"] = f"SYNC: {str(e).splitlines()[0][:80]}"
    if not row["check"].startswith("PASS"):
        return row
    row["api_ms"] = ms_per_call(api)
    row.update(fa4_columns(case, out, row["api_ms"]))
    if case.floor_bytes is not None:
        row.update(floor_columns(case.floor_bytes(out), hbm_bandwidth(),
                                 row["api_ms"]))
    row["launch_ms"] = ms_per_call(launch)
    row["host_us"] = host_us(api)
    for mode, fn in (("api_graph", api), ("launch_graph", launch)):
        try:
            replay, captured = graphed(fn)
            replay()
            torch.cuda.synchronize()
            row[f"{mode}_same_bits"] = torch.equal(first(captured).reshape(
                out.shape), out)
            row[f"{mode}_ms"] = ms_per_call(replay)
        except Exception as e:  # noqa: BLE001 - reported
            row[f"{mode}_ms"] = f"capture failed: {type(e).__name__}: " \
                f"{str(e).splitlines()[0][:80]}"
    row["ratio"] = row["api_ms"] / row["launch_ms"]
    return row


CASE_MAKERS = {"decode": decode_case, "varlen": varlen_case, "fp8": fp8_case}
COLUMNS = ["case", "check", "launch_same_bits", "syncs", "api_ms",
           "launch_ms", "ratio", "host_us", "api_graph_ms", "launch_graph_ms",
           "api_graph_same_bits", "launch_graph_same_bits", "fa4_check",
           "fa4_max_diff", "fa4_ms", "fa4_over_api", "floor_ms",
           "api_over_floor", "copy_tb_s"]


def show(value):
    return f"{value:.4f}" if isinstance(value, float) and not math.isnan(
        value) else str(value)


def main(argv):
    csv_out = argv[1]
    torch.zeros(1, device=DEV)
    print(f"# {torch.cuda.get_device_name()}; torch {torch.__version__}; "
          f"REPS {REPS} ROUNDS {ROUNDS}")
    rows = []
    for name in CASES:
        try:
            row = run_case(name, CASE_MAKERS[name])
        except Exception as e:  # noqa: BLE001 - a case that cannot run
            row = {"case": name, "check": f"ERROR {type(e).__name__}: "
                   f"{str(e).splitlines()[0][:120] if str(e) else ''}"}
        rows.append(row)
        print(" ".join(f"{c}={show(row[c])}" for c in COLUMNS if c in row),
              flush=True)
    with open(csv_out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({c: show(row.get(c, "")) for c in COLUMNS})
    failed = [r["case"] for r in rows if not r["check"].startswith("PASS")
              or r.get("syncs") != "none"]
    print("API overhead (ms per call): case api launch ratio api_graph "
          "launch_graph host_us fa4 fa4_over_api floor api_over_floor")
    for r in rows:
        print(" ".join(show(r.get(c, "-")) for c in (
            "case", "api_ms", "launch_ms", "ratio", "api_graph_ms",
            "launch_graph_ms", "host_us", "fa4_ms", "fa4_over_api",
            "floor_ms", "api_over_floor")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
