"""The attention variants of our sm_90a forward kernel next to the peers, in one
process on one GPU: sliding window (Mistral, 4096 keys), softcap 50 at head
dim 256 (Gemma-2), plain head dim 256, QK head dim 192 with V head dim 128
(DeepSeek MLA-like), an ALiBi additive bias [1, H, S, S] bf16, and the dense
rows they are measured against. bf16, bhsd, 16k total tokens, hidden 2048
(heads = 2048 / head_dim_v), forward, with LSE.

Peers (test/Device/peers.py, VARIANT_PEERS): FlashAttention-4 (flash-attn-4,
`flash_attn.cute.flash_attn_func`: window_size, softcap, D != Dv; a bias as a
score_mod reading the bias tensor), SDPA's cuDNN backend (bias as attn_mask),
cuDNN through cudnn-frontend's graph API (native sliding window and bias;
the package travels with FA4's), SDPA's FlashAttention-2 backend (causal or
not, nothing else), FlexAttention (block mask and score_mod; compiles for
seconds per row, so only on the rows in FLEX_ROWS). A peer that cannot express a
variant is recorded "unsupported", one whose package is missing "unavailable",
an exception "fail ..." — never a crash of the run.

FLOPs: 2 * B * H * pairs * (D + Dv) with the visible (query, key) pairs
counted exactly from the mask rule (so 4 * B * H * D * pairs for D = Dv; a
causal row has N (N + 1) / 2 pairs, not the papers' N^2 / 2: 1/N apart).
Time: median of triton.testing.do_bench(warmup=25, rep=100). Per row: the
ratio of each implementation to the best peer of that row, its max |diff|
against the best peer's output, its max |error| against a float32 reference
on 384 query rows of batch 0 (start, middle, end), and, for window, bias and
softcap rows, its rate relative to the same implementation's dense row of the
same shape (`ratio_to_dense`, "windowed TFLOP/s over visible pairs vs dense
causal").

Our kernels: bundles from gen_bench_inputs.py, one folder per configuration
(BUNDLE_DIR/<config>/*.json, as build_kernels.sh writes them), or any bundle
under BUNDLE_DIR whose config matches; launched through libfa_runtime
(test/Device/fa_rt.py). No bundle -> "unavailable".

Usage: python3 test/Device/bench_variants.py BUNDLE_DIR CSV_OUT
Env: VARIANTS (comma list of variant names, default all: dense_ref, swa, d256,
softcap, mla, alibi), VARIANTS_QUICK=1 (the largest shape of each row only,
no Flex), FLEX_ROWS (config@seqlen list, "none", or "all"), PEERS (comma list),
BENCH_BUDGET_S (default 135: rows not started by then are written "skipped"),
BENCH_COMMAND (for the CSV's comment line).
"""
import datetime
import glob
import inspect
import json
import os
import subprocess
import sys
import time
import warnings

import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_bench_inputs  # noqa: E402
import peers  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
T0 = time.time()

# (variant, configuration, sequence lengths), in the order they run: each dense
# reference before the rows that are compared with it, the most wanted first.
ROWS = [
    ("dense_ref", "dense_d128_causal", (8192, 16384)),
    ("swa", "swa4096_d128_causal", (8192, 16384)),
    ("d256", "dense_d256", (4096, 8192)),
    ("d256", "dense_d256_causal", (4096, 8192)),
    ("softcap", "softcap50_d256_causal", (4096, 8192)),
    ("mla", "mla_d192_v128", (4096, 16384)),
    ("mla", "mla_d192_v128_causal", (4096, 16384)),
    ("dense_ref", "dense_d128", (2048, 4096)),
    ("dense_ref", "dense_d128_causal", (2048, 4096)),
    ("alibi", "alibi_d128_bf16", (2048, 4096)),
    ("alibi", "alibi_d128_causal_bf16", (2048, 4096)),
]
FLEX_DEFAULT = "swa4096_d128_causal@16384,softcap50_d256_causal@8192,alibi_d128_causal_bf16@4096"
IMPLS = ["ours", "fa4", "cudnn", "cudnn_fe", "fa2", "flex"]
HEADER = ("variant,config,impl,dtype,causal,window,softcap,bias,hdim,hdim_v,seqlen,batch,heads,"
          "pairs,gflop,ms,tflops,best_peer,ratio_to_best_peer,maxdiff_vs_best_peer,err_vs_ref,"
          "dense_tflops,ratio_to_dense,first_call_s,status")


def environment():
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    return (f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; GPU {smi}; "
            f"torch {torch.__version__}; cuDNN {torch.backends.cudnn.version()}")


def clean(text, n=90):
    return " ".join(str(text).split())[:n].replace(",", ";")


# ---- our bundles ------------------------------------------------------------

def _config_matches(c, cfg):
    """Whether a bundle's `config` is the configuration `cfg` (gen_bench_inputs.Config)."""
    window = c.get("window")
    window = tuple(window) if window is not None else None
    softcap = c.get("softcap")
    bias = bool(c.get("bias", False))
    return (c.get("dtype") == cfg.dtype and c.get("layout") == cfg.layout
            and c.get("head_dim") == cfg.head_dim
            and c.get("head_dim_v", c.get("head_dim")) == cfg.head_dim_v
            and bool(c.get("causal")) == cfg.causal
            and (not cfg.causal or c.get("mask_alignment", "top_left") == "top_left")
            and bool(c.get("return_lse")) == cfg.return_lse
            and window == cfg.window
            and ((softcap is None) == (cfg.softcap is None))
            and (softcap is None or abs(softcap - cfg.softcap) <= 1e-6 * abs(cfg.softcap))
            and bias == cfg.bias
            and (not bias or c.get("bias_dtype", c.get("out_dtype", c.get("dtype"))) == cfg.bias_dtype))


class OurBundles:
    """Finds and loads (lazily) the bundle of each configuration."""

    def __init__(self, directory):
        self.directory, self.loaded, self.error = directory, {}, None
        try:
            import fa_rt
            self.fa_rt = fa_rt
        except Exception as ex:  # noqa: BLE001 - no runtime here: ours is unavailable, peers still run
            self.fa_rt, self.error = None, f"unavailable: fa_rt: {clean(ex, 70)}"
        if not os.path.isdir(directory):
            self.error = f"unavailable: no bundle folder {clean(directory, 60)}"

    def find(self, cfg):
        """(fa_rt.Kernel, None) or (None, status)."""
        if self.error:
            return None, self.error
        if cfg.name in self.loaded:
            return self.loaded[cfg.name]
        own = sorted(glob.glob(os.path.join(self.directory, cfg.name, "*.json")))
        others = sorted(glob.glob(os.path.join(self.directory, "*.json"))
                        + glob.glob(os.path.join(self.directory, "*", "*.json")))
        result = (None, "unavailable: no bundle (fa-compile rejected it or it was not built)")
        mismatch = None
        for path in own + [p for p in others if p not in own]:
            try:
                with open(path) as f:
                    c = json.load(f).get("config", {})
            except (OSError, ValueError):
                continue
            if _config_matches(c, cfg):
                try:
                    result = (self.fa_rt.Kernel(path), None)
                except Exception as ex:  # noqa: BLE001
                    result = (None, f"fail loading {os.path.basename(path)}: {clean(ex, 60)}")
                break
            if path in own and mismatch is None:
                mismatch = (f"fail: bundle config differs (window={c.get('window')} softcap="
                            f"{c.get('softcap')} bias={c.get('bias')} head_dim_v={c.get('head_dim_v')})")
        if result[0] is None and mismatch:
            result = (None, mismatch)
        self.loaded[cfg.name] = result
        return result


def our_launch(fa_rt, kern, q, k, v, o, lse, bias):
    """A no-argument launch of our bundle, passing the bias through whatever
    fa_rt exposes: launcher(..., bias=), else operands(..., bias=), else the
    runtime's role "bias" added to the operand dict here."""
    if bias is None:
        return kern.launcher(q, k, v, o, lse)
    if "bias" in inspect.signature(kern.launcher).parameters:
        return kern.launcher(q, k, v, o, lse, bias=bias)
    if "bias" in inspect.signature(kern.operands).parameters:
        ops = kern.operands(q, k, v, o, lse, bias=bias)
    else:
        ops = kern.operands(q, k, v, o, lse)
        ops["bias"] = fa_rt.runtime_tensor(bias)
    rt, stream = kern.rt, torch.cuda.current_stream().cuda_stream
    return lambda: rt.launch(ops, stream)


# ---- one row ----------------------------------------------------------------

def classify(ex, name):
    """Status for an exception raised while preparing, calling or timing `name`
    (for ours always a failure: a bundle that exists must run)."""
    msg = str(ex)
    if isinstance(ex, peers.Unsupported):
        return f"unsupported: {clean(msg)}"
    if isinstance(ex, peers.Unavailable):
        return f"unavailable: {clean(msg)}"
    if name != "ours" and (isinstance(ex, NotImplementedError) or "No available kernel" in msg
                           or "not supported" in msg.lower()):
        return f"unsupported: {clean(msg)}"
    return f"fail {type(ex).__name__}: {clean(msg.splitlines()[0] if msg else '', 80)}"


def fmt(x, spec):
    """'' for no value; a NaN (e.g. an output row left unwritten) stays visible as 'nan'."""
    return "" if x is None else format(x, spec)


def run_row(variant, cfg, N, bundles, peer_names, flex_rows, dense, fh):
    var = peers.Variant(cfg.head_dim, cfg.head_dim_v, cfg.causal, cfg.window, cfg.softcap, cfg.bias)
    B, H = max(1, peers.TOTAL_TOKENS // N), peers.HIDDEN // cfg.head_dim_v
    pairs = var.pairs(N)
    flop = 2 * B * H * pairs * (cfg.head_dim + cfg.head_dim_v)
    dev = "cuda"
    torch.manual_seed(0)
    q = torch.randn(B, H, N, cfg.head_dim, device=dev, dtype=torch.bfloat16)
    k = torch.randn(B, H, N, cfg.head_dim, device=dev, dtype=torch.bfloat16)
    v = torch.randn(B, H, N, cfg.head_dim_v, device=dev, dtype=torch.bfloat16)
    bias = peers.alibi_bias(H, N, torch.bfloat16, dev) if cfg.bias else None
    rows = torch.cat([torch.arange(0, 128), torch.arange(N // 2, N // 2 + 128),
                      torch.arange(N - 128, N)]).to(dev)
    with torch.no_grad():
        ref = peers.reference_rows(q, k, v, bias, var, rows)
    res = {}
    for name in ["ours"] + peer_names:
        status, ms, first, out = "ok", None, None, None
        t = time.time()  # first_call_s: preparing (FA4's JIT, cuDNN's plans) and the first call
        try:
            if name == "flex" and f"{cfg.name}@{N}" not in flex_rows and "all" not in flex_rows:
                raise _Skip("skipped (FLEX_ROWS)")
            if name == "ours":
                kern, why = bundles.find(cfg)
                if kern is None:
                    raise _Skip(why)
                o = torch.empty(B, H, N, cfg.head_dim_v, device=dev, dtype=torch.bfloat16)
                lse = torch.empty(B, H, N, device=dev, dtype=torch.float32)
                launch = our_launch(bundles.fa_rt, kern, q, k, v, o, lse, bias)
                o.fill_(float("nan"))
                call, timed, to_bhsd = (lambda: (launch(), o)[1]), launch, peers._BHSD
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    call, to_bhsd = peers.VARIANT_PEERS[name](var, q, k, v, bias)
                timed = call
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = call()
                torch.cuda.synchronize()
                first = time.time() - t
                out = to_bhsd(out)
                ms = do_bench(timed, warmup=25, rep=100, return_mode="median")
        except _Skip as ex:
            status = str(ex)
        except Exception as ex:  # noqa: BLE001 - one peer's trouble is a status, not the end of the run
            status = classify(ex, name)
            out, ms = None, None
        res[name] = dict(status=status, ms=ms, first=first, out=out)
    ok_peers = [n for n in peer_names if res[n]["ms"]]
    best = max(ok_peers, key=lambda n: flop / res[n]["ms"]) if ok_peers else None
    for r in res.values():
        r["tflops"] = flop / r["ms"] / 1e9 if r["ms"] else None
    for name, r in res.items():
        tf = r["tflops"]
        err = diff = None
        if r["out"] is not None:
            err = (r["out"][0, :, rows].float() - ref).abs().max().item()
            if best is not None:
                diff = (r["out"].float() - res[best]["out"].float()).abs().max().item()
        key = (name, cfg.head_dim, cfg.head_dim_v, cfg.causal, N)
        if not cfg.extras and tf:
            dense[key] = tf
        dref = dense.get(key) if cfg.extras else None
        btf = res[best]["tflops"] if best else None
        window = f"{cfg.window[0]}:{cfg.window[1]}" if cfg.window else ""
        line = (f"{variant},{cfg.name},{name},bf16,{int(cfg.causal)},{window},{fmt(cfg.softcap, 'g')},"
                f"{cfg.bias_dtype or ''},{cfg.head_dim},{cfg.head_dim_v},{N},{B},{H},{pairs},"
                f"{flop / 1e9:.1f},{fmt(r['ms'], '.4f')},{fmt(tf, '.1f')},{best or ''},"
                f"{fmt(tf / btf if tf and btf else None, '.3f')},{fmt(diff, '.3g')},{fmt(err, '.3g')},"
                f"{fmt(dref, '.1f')},{fmt(tf / dref if tf and dref else None, '.3f')},"
                f"{fmt(r['first'], '.2f')},{r['status']}")
        fh.write(line + "\n")
        fh.flush()
        print(line, flush=True)
    for r in res.values():
        r["out"] = None
    del q, k, v, bias, ref
    torch.cuda.empty_cache()
    return {n: (r["tflops"], r["status"]) for n, r in res.items()}, best


class _Skip(Exception):
    pass


def cell(tf, status):
    if tf:
        return f"{tf:.0f}"
    for word, short in (("unsupported", "uns"), ("unavailable", "n/a"), ("skipped", "-"), ("fail", "FAIL")):
        if status.startswith(word):
            return short
    return "?"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench_variants.py BUNDLE_DIR CSV_OUT")
    directory, csv_out = sys.argv[1], sys.argv[2]
    torch.zeros(1, device="cuda")
    quick = bool(os.environ.get("VARIANTS_QUICK"))
    wanted = set(filter(None, os.environ.get("VARIANTS", "").split(",")))
    peer_names = [p for p in os.environ.get("PEERS", "fa4,cudnn,cudnn_fe,fa2,flex").split(",")
                  if p in peers.VARIANT_PEERS]
    flex_rows = set(os.environ.get("FLEX_ROWS", "none" if quick else FLEX_DEFAULT).split(","))
    budget = float(os.environ.get("BENCH_BUDGET_S", "135"))
    bundles = OurBundles(directory)
    try:
        peers.fa4_func()
        fa4_state = "FA4 importable"
    except Exception as ex:  # noqa: BLE001
        fa4_state = f"FA4 {clean(ex, 100)}"
    print(f"# {environment()}; {fa4_state}; bundles {directory}"
          f"{' (' + bundles.error + ')' if bundles.error else ''}", flush=True)
    fh = open(csv_out, "w")  # written as it goes: a timeout keeps the rows so far
    fh.write(f"# {environment()}; {fa4_state}; forward, bf16, bhsd, 16k tokens, hidden 2048 "
             f"(heads 2048/Dv), FLOPs 2*B*H*visible_pairs*(D+Dv); median do_bench; ours through "
             f"libfa_runtime; command: {os.environ.get('BENCH_COMMAND', ' '.join(sys.argv))}\n{HEADER}\n")
    print(HEADER, flush=True)
    dense, table = {}, []
    for variant, name, seqlens in ROWS:
        if wanted and variant not in wanted and not (variant == "dense_ref" and wanted & {"swa", "alibi"}):
            continue
        cfg = gen_bench_inputs.CONFIGS[name]
        for N in (seqlens[-1:] if quick else seqlens):
            if time.time() - T0 > budget:
                line = f"{variant},{name},*,bf16,{int(cfg.causal)},,,,{cfg.head_dim},{cfg.head_dim_v},{N}" \
                       f",,,,,,,,,,,,,,skipped (time budget {budget:.0f} s)"
                fh.write(line + "\n")
                print(line, flush=True)
                continue
            got, best = run_row(variant, cfg, N, bundles, peer_names, flex_rows, dense, fh)
            table.append((variant, cfg, N, got, best,
                          {n: dense.get((n, cfg.head_dim, cfg.head_dim_v, cfg.causal, N)) for n in got}))
    fh.close()
    print(f"\nVariants, TFLOP/s over visible pairs, bf16 forward (16k tokens, hidden 2048); "
          f"{environment()}; {time.time() - T0:.0f} s")
    names = ["ours"] + peer_names
    print("| variant | config | N | " + " | ".join(names) + " | best peer | ours/best | ours/dense | best/dense |")
    print("|" + "---|" * (len(names) + 7))
    for variant, cfg, N, got, best, dref in table:
        cells = " | ".join(cell(*got[n]) for n in names)
        o = got["ours"][0]
        b = got[best][0] if best else None
        r = lambda a, c: f"{a / c:.2f}" if a and c else "-"  # noqa: E731
        print(f"| {variant} | {cfg.name} | {N} | {cells} | {best or '-'} | {r(o, b)} | "
              f"{r(o, dref.get('ours')) if cfg.extras else ''} | "
              f"{r(b, dref.get(best)) if cfg.extras and best else ''} |")
    print("(uns: the peer cannot express the variant; n/a: not available here; FAIL: see the CSV's "
          "status column; ours/dense: the variant's rate over its visible pairs divided by the dense "
          "row of the same shape and causality)")


if __name__ == "__main__":
    main()
