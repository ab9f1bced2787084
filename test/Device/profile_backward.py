"""Where our backward's time goes, kernel by kernel: one call of the kernel
sequence (workspace zeroing, pre, main, post) inside an NVTX range "measure",
for ncu to profile (the device round's stage 6 runs it under ncu and prints
each kernel's duration, HBM bytes and tensor-pipe activity).

Usage: python3 test/Device/profile_backward.py BUNDLES causal hdim seqlen [batch heads]
(default batch and heads: the benchmark's, 16k tokens and hidden 2048;
BIAS=1H, BH or 11: non-causal with bench_backward_bias.py's bias and
configuration, the dbias kernel included), under
  ncu --nvtx --nvtx-include measure/ --clock-control none --csv --metrics METRICS
(METRICS: `profile_backward.py metrics`, or `profile_backward.py metrics stalls` for the
issue-stall reasons, instructions and shared-memory conflicts), then
`profile_backward.py summary NCU_CSV`. PEER=fa4|cudnn profiles that peer's backward
at the same shape instead of ours (FA4 needs its wheels in the environment); autograd
runs a peer's backward on its own thread, outside the NVTX range, so select its kernels
by name instead: ncu --kernel-name 'regex:(?i)(bwd|backward)' --launch-count 8 (the
warm-up call's and the measured call's kernels).
"""
import csv
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import check_backward as cb  # noqa: E402
import peers  # noqa: E402
import bench_backward_bias  # noqa: E402
from bench_backward import ours_backward  # noqa: E402


METRICS = ("gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
           "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active")
STALLS = ("barrier", "long_scoreboard", "wait", "mio_throttle", "short_scoreboard",
          "math_pipe_throttle", "lg_throttle", "membar", "dispatch_stall", "no_instruction",
          "selected", "not_selected", "branch_resolving", "sleeping")
# The same four first, then why warps did not issue (percent of active warp cycles), the
# instructions issued and the shared-memory bank conflicts, to put two kernels side by side.
STALL_METRICS = METRICS + "," + ",".join(
    [f"smsp__warp_issue_stalled_{s}_per_warp_active.pct" for s in STALLS]
    + ["smsp__inst_executed.sum", "smsp__issue_active.avg.pct_of_peak_sustained_active",
       "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "launch__registers_per_thread"])
# To microseconds and GB; ncu versions spell units either way.
UNITS = {"nsecond": 1e-3, "usecond": 1, "msecond": 1e3, "ns": 1e-3, "us": 1, "ms": 1e3,
         "byte": 1e-9, "Kbyte": 1e-6, "Mbyte": 1e-3, "Gbyte": 1, "B": 1e-9, "KB": 1e-6,
         "MB": 1e-3, "GB": 1, "%": 1, "inst": 1, "": 1, "register/thread": 1}


def summary(path):
    """One line per profiled kernel: duration (us), HBM GB read/written, tensor pipe %."""
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    if not rows:
        print(f"profile: no ncu rows in {path}")
        return
    col = {n: rows[0].index(n) for n in ("ID", "Kernel Name", "Metric Name", "Metric Unit",
                                         "Metric Value")}
    kernels = {}
    for r in rows[1:]:
        ent = kernels.setdefault(int(r[col["ID"]]), {"name": r[col["Kernel Name"]]})
        value = float(r[col["Metric Value"]].replace(",", ""))
        unit = r[col["Metric Unit"]]
        if unit not in UNITS:
            print(f"profile: unit {unit!r} of {r[col['Metric Name']]} unknown")
        ent[r[col["Metric Name"]]] = value * UNITS.get(unit, float("nan"))
    total = sum(k.get("gpu__time_duration.sum", 0) for k in kernels.values())
    print("| kernel | us | share | HBM read GB | HBM write GB | tensor pipe % |")
    print("|---|---|---|---|---|---|")
    for kid in sorted(kernels):
        k = kernels[kid]
        us = k.get("gpu__time_duration.sum", float("nan"))
        print(f"| {k['name'][:48]} | {us:.1f} | {us / total:.2f} | "
              f"{k.get('dram__bytes_read.sum', float('nan')):.3f} | "
              f"{k.get('dram__bytes_write.sum', float('nan')):.3f} | "
              f"{k.get(METRICS.split(',')[-1], float('nan')):.0f} |")
    extra = [m for m in STALL_METRICS.split(",")[4:] if any(m in k for k in kernels.values())]
    if extra:
        short = [m.replace("smsp__warp_issue_stalled_", "").replace("_per_warp_active.pct", "")
                 for m in extra]
        print("\n| kernel | " + " | ".join(short) + " |")
        print("|---" * (len(extra) + 1) + "|")
        for kid in sorted(kernels):
            k = kernels[kid]
            print(f"| {k['name'][:48]} | " + " | ".join(
                f"{k.get(m, float('nan')):.4g}" for m in extra) + " |")


def main():
    if sys.argv[1] == "summary":
        return summary(sys.argv[2])
    if sys.argv[1] == "metrics":
        return print(STALL_METRICS if sys.argv[2:] == ["stalls"] else METRICS)
    folder, causal, D, N = sys.argv[1], bool(int(sys.argv[2])), int(sys.argv[3]), int(sys.argv[4])
    B, H = (int(sys.argv[5]), int(sys.argv[6])) if len(sys.argv) > 6 else peers.shape(N, D)
    q, k, v, do = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    bias = os.environ.get("BIAS")
    peer = os.environ.get("PEER")
    if peer:
        from bench_backward import peer_backward
        call = peer_backward(peer, q, k, v, do, causal)
        if call is None:
            sys.exit(f"profile: {peer} unavailable")
    elif bias:
        seq = cb.Sequence(os.path.join(folder, bench_backward_bias.FOLDERS[(D, bias)]))
        b = bench_backward_bias.bias_of_kind(bias, B, H, N)
        call = bench_backward_bias.ours_backward(seq, q, k, v, do, b)
    else:
        seq = cb.Sequence(os.path.join(folder, f"bf16_d{D}_bhsd" + ("_causal" if causal else "")))
        call = ours_backward(seq, q, k, v, do, causal)
    call()  # loads the modules, warms the allocator
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("measure")
    call()
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print(f"profiled: {peer or 'ours'} causal={int(causal)} d{D} N{N} B{B} H{H} "
          f"bias={bias or 'none'}")


if __name__ == "__main__":
    main()
