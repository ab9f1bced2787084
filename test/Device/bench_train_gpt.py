"""Training throughput of a small GPT (issue 37's floor: our op's tokens/s >=
SDPA's): the pre-LN decoder of train_gpt.py at the issue's size (4 layers,
d_model 512, 8 heads of 64, 1024 tokens, causal, bf16 autocast, AdamW),
once with fa_mlir.torch.attention and once with SDPA (PyTorch's choice of
backend), from the same weights on the same random batches, in one process.

Before timing, one step of each must agree (loss within 1e-2). Then ROUNDS
alternating rounds of STEPS steps each (after WARMUP steps); per round the
GPU time of the steps (CUDA events around them) and the host time (Python's
wall clock from a step's start until its last call returns, before any
synchronisation: when it is close to the GPU time the run is host-bound).
HOST_SPLIT=1 (stage 6 sets it) adds a host-only measurement: with the
launch queue full the host waits for the GPU, so host_ms above equals the
GPU time whichever side is slower; here each of HOST_STEPS steps starts on
an idle GPU (after a synchronize) and its wall time until the last call
returns is the host's own cost (idle_host_ms), of which fa_host_ms is spent
inside fa_mlir's forward and backward calls (timed around
AttentionFunction.forward/backward, which autograd's device thread calls
for the backward). idle_host_ms above step_ms means host-bound.
Last, FA_PROFILE=1 prints torch.profiler's top host functions of our steps.

  FA_MLIR_BUNDLE_PATH=<AOT bundles> python3 test/Device/bench_train_gpt.py [CSV]
Env: BATCH (8), SEQ (1024), DMODEL (512), HEADS (8), LAYERS (4), VOCAB
(8192), STEPS (20), WARMUP (5), ROUNDS (3), HOST_SPLIT, HOST_STEPS (20),
FA_PROFILE.
"""
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(here)), "python"))
from bench_attention import environment  # noqa: E402
from train_gpt import GPT  # noqa: E402


def env_int(name, default):
    return int(os.environ.get(name, default))


BATCH, SEQ, DMODEL = env_int("BATCH", 8), env_int("SEQ", 1024), env_int("DMODEL", 512)
HEADS, LAYERS, VOCAB = env_int("HEADS", 8), env_int("LAYERS", 4), env_int("VOCAB", 8192)
STEPS, WARMUP, ROUNDS = env_int("STEPS", 20), env_int("WARMUP", 5), env_int("ROUNDS", 3)
HOST_STEPS = env_int("HOST_STEPS", 20)


def attends():
    import fa_mlir.torch as fat
    return {
        "ours": lambda q, k, v: fat.attention(q, k, v, causal=True),
        "sdpa": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    }


class Trainer:
    """One model and optimizer; step() runs forward, backward and AdamW."""

    def __init__(self, attend, init, batches):
        self.model = GPT(attend, DMODEL, HEADS, LAYERS, SEQ, VOCAB).cuda()
        self.model.load_state_dict(init)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.batches, self.i = batches, 0

    def step(self):
        x, y = self.batches[self.i % len(self.batches)]
        self.i += 1
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(self.model(x).float().view(-1, VOCAB), y.reshape(-1))
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        return loss

    def timed_round(self):
        """(GPU ms per step, host ms per step) over STEPS steps."""
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        t0 = time.perf_counter()
        for _ in range(STEPS):
            self.step()
        host = (time.perf_counter() - t0) * 1e3 / STEPS
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / STEPS, host

    def idle_host_ms(self, timer):
        """Median host ms of one step started on an idle GPU, and the
        median ms of it `timer` saw inside fa_mlir's calls."""
        steps, inside = [], []
        for _ in range(HOST_STEPS):
            torch.cuda.synchronize()
            timer.total = 0.0
            t0 = time.perf_counter()
            self.step()
            steps.append((time.perf_counter() - t0) * 1e3)
            torch.cuda.synchronize()  # the backward's thread is done too
            inside.append(timer.total * 1e3)
        return statistics.median(steps), statistics.median(inside)


class FaHostTimer:
    """Wall time spent inside AttentionFunction.forward/backward (our op's
    whole host path per call but the autograd plumbing around it)."""

    def __init__(self):
        from fa_mlir.torch.attention import AttentionFunction
        self.total = 0.0
        for name in ("forward", "backward"):
            setattr(AttentionFunction, name,
                    staticmethod(self.timed(getattr(AttentionFunction, name))))

    def timed(self, fn):
        def call(*args):
            t0 = time.perf_counter()
            try:
                return fn(*args)
            finally:
                self.total += time.perf_counter() - t0
        return call


def main():
    torch.manual_seed(0)
    init = {k: v.clone() for k, v in GPT(None, DMODEL, HEADS, LAYERS, SEQ, VOCAB).state_dict().items()}
    g = torch.Generator(device="cuda").manual_seed(1)
    batches = [(t[:, :-1], t[:, 1:]) for t in
               (torch.randint(0, VOCAB, (BATCH, SEQ + 1), device="cuda", generator=g) for _ in range(4))]
    trainers = {name: Trainer(f, init, batches) for name, f in attends().items()}

    losses = {name: t.step().item() for name, t in trainers.items()}
    if abs(losses["ours"] - losses["sdpa"]) > 1e-2:
        sys.exit(f"bench_train_gpt: first-step losses differ: {losses}")
    for t in trainers.values():
        for _ in range(WARMUP):
            t.step()

    runs = {name: [] for name in trainers}
    for _ in range(ROUNDS):
        for name, t in trainers.items():
            runs[name].append(t.timed_round())
    tokens = BATCH * SEQ
    rows = []
    sdpa_ms = statistics.median(ms for ms, _ in runs["sdpa"])
    for name, r in runs.items():
        ms = statistics.median(m for m, _ in r)
        host = statistics.median(h for _, h in r)
        rows.append((name, ms, host, tokens / ms * 1e3, sdpa_ms / ms))
    header = (f"# {environment()}; GPT {LAYERS} layers, d_model {DMODEL}, {HEADS} heads, seq {SEQ}, "
              f"batch {BATCH}, vocab {VOCAB}, bf16 autocast, AdamW; median of {ROUNDS} rounds of {STEPS} steps")
    lines = [header, "impl,step_ms,host_ms,tokens_per_s,ratio_to_sdpa"]
    lines += [f"{n},{ms:.3f},{h:.3f},{tps:.0f},{ratio:.3f}" for n, ms, h, tps, ratio in rows]
    print("\n".join(lines))
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write("\n".join(lines) + "\n")
    if os.environ.get("HOST_SPLIT"):
        host_split(trainers, lines, header)
    if os.environ.get("FA_PROFILE"):
        profile(trainers["ours"])


def host_split(trainers, lines, header):
    """Prints (and appends to CSV.host when a CSV is given) each impl's
    idle-GPU host ms per step and the part inside fa_mlir's calls."""
    timer = FaHostTimer()
    rows = ["impl,step_ms,idle_host_ms,fa_host_ms"]
    step_ms = {line.split(",")[0]: line.split(",")[1] for line in lines[2:]}
    for name, t in trainers.items():
        host, inside = t.idle_host_ms(timer)
        rows.append(f"{name},{step_ms[name]},{host:.3f},{inside:.3f}")
    print("\n".join(["# host per step on an idle GPU (HOST_SPLIT)"] + rows))
    if len(sys.argv) > 1:
        with open(sys.argv[1] + ".host", "w") as f:
            f.write("\n".join([header] + rows) + "\n")


def profile(trainer):
    from torch.profiler import ProfilerActivity, profile as torch_profile
    with torch_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            trainer.step()
        torch.cuda.synchronize()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25))


if __name__ == "__main__":
    main()
