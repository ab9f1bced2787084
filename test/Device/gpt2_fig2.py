"""The FlashAttention paper's central table (Fig. 2 left) on this GPU:
GPT-2 medium's attention, batch 64, 16 heads, seq 1024, head dim 64,
causal, bf16, forward and forward + backward (the paper's measurement) for
every implementation; ours is the forward bundle plus the backward kernel
sequence (BWD_BUNDLES, default BUNDLE_DIR/../backward, the folder
build_backward.sh fills), both through libfa_runtime.

  python3 test/Device/gpt2_fig2.py time BUNDLE_DIR    runtime per impl and pass
  python3 test/Device/gpt2_fig2.py once BUNDLE_DIR    one pass of each impl, for
      ncu --profile-from-start off; a marker kernel (torch.cuda._sleep, a
      'spin_kernel') precedes each (impl, pass) so that `bytes` can split
      ncu's per-kernel rows
  python3 test/Device/gpt2_fig2.py bytes NCU_CSV      HBM GB read/written per
      (impl, pass) from ncu's dram__bytes_read.sum / dram__bytes_write.sum

Method of ../shared/peers/gpt2_fig2.py and run_fig2.sh (standard = matmul,
softmax in float32, matmul with the causal mask materialised).
"""
import csv
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

B, H, N, D = 64, 16, 1024, 64
PEERS = ("standard", "fa2", "cudnn")
# (impl, pass) in the order `once` runs them and `bytes` reports them
SEGMENTS = [(i, "fwd") for i in PEERS + ("ours",)] + [(i, "fwd+bwd") for i in PEERS + ("ours",)]


def setup(directory):
    import fa_rt
    import peers
    peer = peers.impls(flex=False)
    impls = {n: (lambda fn: (lambda q, k, v: fn(q, k, v, True)))(peer[n]) for n in PEERS}
    kern = fa_rt.find(fa_rt.load_all(directory), "bf16", D, "bhsd", True)
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    do = torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16)
    o = torch.empty(B, H, N, D, device="cuda", dtype=torch.bfloat16)
    lse = torch.empty(B, H, N, device="cuda")
    ours = kern.launcher(q.detach(), k.detach(), v.detach(), o, lse)
    import check_backward
    bwd_dir = os.environ.get("BWD_BUNDLES", os.path.join(os.path.dirname(os.path.abspath(directory)),
                                                         "backward"))
    seq = check_backward.Sequence(os.path.join(bwd_dir, "bf16_d64_bhsd_causal"))
    dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
    sym = dict(batch=B, heads_q=H, heads_kv=H, seq_q=N, seq_k=N, head_dim=D, head_dim_v=D)

    def run(impl, mode):
        if impl == "ours":
            ours()
            if mode == "fwd+bwd":
                seq(do, q.detach(), k.detach(), v.detach(), o, lse, dq, dk, dv, sym)
        elif mode == "fwd":
            with torch.no_grad():
                impls[impl](q, k, v)
        else:
            impls[impl](q, k, v).backward(do)
    ours()
    with torch.no_grad():  # our output against FA2's on these inputs
        diff = (impls["fa2"](q, k, v).float() - o.float()).abs().max().item()
    return run, diff, (q, k, v)


def main():
    what = sys.argv[1]
    if what == "bytes":
        return report_bytes(sys.argv[2])
    run, diff, grads = setup(sys.argv[2])
    print(f"fig2: max |ours - fa2| = {diff:.3g}", flush=True)
    if what == "time":
        from triton.testing import do_bench
        for impl, mode in SEGMENTS:
            ms = do_bench(lambda: run(impl, mode), warmup=10, rep=50, grad_to_none=list(grads),
                          return_mode="median")
            print(f"fig2,{impl},{mode},ms,{ms:.3f}", flush=True)
    else:
        for impl, mode in SEGMENTS:  # warm-up: plans, module loads, allocator
            run(impl, mode)
        for t in grads:
            t.grad = None
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        for impl, mode in SEGMENTS:
            torch.cuda._sleep(1000)
            run(impl, mode)
            torch.cuda.synchronize()
            for t in grads:
                t.grad = None
        torch.cuda.profiler.stop()


def report_bytes(path):
    scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9,
             "B": 1, "KiB": 1024, "MiB": 2**20, "GiB": 2**30}
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    if not rows:
        print(f"fig2 bytes: no ncu rows in {path}")
        return
    hdr = rows[0]
    col = {n: hdr.index(n) for n in ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")}
    kernels = {}  # ID -> [name, read, write], in launch order
    for r in rows[1:]:
        kid = int(r[col["ID"]])
        ent = kernels.setdefault(kid, [r[col["Kernel Name"]], 0.0, 0.0])
        val = float(r[col["Metric Value"]].replace(",", "")) * scale.get(r[col["Metric Unit"]], float("nan"))
        if r[col["Metric Name"]] == "dram__bytes_read.sum":
            ent[1] += val
        elif r[col["Metric Name"]] == "dram__bytes_write.sum":
            ent[2] += val
    segs, cur = [], None
    for kid in sorted(kernels):
        name, rd, wr = kernels[kid]
        if "spin_kernel" in name:
            cur = [0.0, 0.0, 0]
            segs.append(cur)
        elif cur is not None:
            cur[0] += rd
            cur[1] += wr
            cur[2] += 1
    if len(segs) != len(SEGMENTS):
        print(f"fig2 bytes: {len(segs)} marked segments, expected {len(SEGMENTS)}")
    for (impl, mode), (rd, wr, n) in zip(SEGMENTS, segs):
        print(f"fig2,{impl},{mode},hbm_read_GB,{rd / 1e9:.3f},hbm_write_GB,{wr / 1e9:.3f},kernels,{n}")


if __name__ == "__main__":
    main()
