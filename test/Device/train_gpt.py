"""A real training run through the sm_90a forward and backward: a small GPT
built from torch.nn (4 layers, d_model 256, 4 heads of 64, causal, bf16
autocast) trained for STEPS steps on a learnable synthetic language (a fixed
random sparse Markov chain over 128 tokens), once with
fa_mlir.torch.attention and once with SDPA, from the same initial weights
and the same batches. A second SDPA run with another batch order measures
the noise. Pass: both losses fall, and the final loss (mean of the last 50
steps) of ours differs from SDPA's (same batches) by at most twice the
noise, or 0.02 when the noise is smaller.

  FA_MLIR_BUNDLE_PATH=<AOT bundles> python3 test/Device/train_gpt.py [CSV]

The GPU machine has no compiler: the bundles come from
python/tests/gpu/configs.json (bf16, head dim 64, bhsd, causal; forward and
backward), built by scripts/device-round.sh prepare.
"""
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(here)), "python"))

STEPS = int(os.environ.get("STEPS", 300))
VOCAB, SEQ, BATCH, DMODEL, HEADS, LAYERS = 128, 256, 16, 256, 4, 4


class Block(nn.Module):
    def __init__(self, attend, dmodel=DMODEL, heads=HEADS):
        super().__init__()
        self.attend, self.dmodel, self.heads = attend, dmodel, heads
        self.ln1, self.ln2 = nn.LayerNorm(dmodel), nn.LayerNorm(dmodel)
        self.qkv, self.proj = nn.Linear(dmodel, 3 * dmodel), nn.Linear(dmodel, dmodel)
        self.mlp = nn.Sequential(nn.Linear(dmodel, 4 * dmodel), nn.GELU(), nn.Linear(4 * dmodel, dmodel))

    def forward(self, x):
        B, S, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, S, 3, self.heads, self.dmodel // self.heads).permute(2, 0, 3, 1, 4)
        y = self.attend(q.to(torch.bfloat16), k.to(torch.bfloat16), v.to(torch.bfloat16))
        x = x + self.proj(y.transpose(1, 2).reshape(B, S, self.dmodel).to(x.dtype))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    """A pre-LN decoder; `attend(q, k, v)` takes bf16 [B, H, S, D] (causal)."""

    def __init__(self, attend, dmodel=DMODEL, heads=HEADS, layers=LAYERS, seq=SEQ, vocab=VOCAB):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, dmodel), nn.Embedding(seq, dmodel)
        self.blocks = nn.ModuleList(Block(attend, dmodel, heads) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(dmodel), nn.Linear(dmodel, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def markov_chain(device):
    """Each token has 4 likely successors: a language with entropy ~2 nats."""
    g = torch.Generator().manual_seed(1234)
    logits = torch.full((VOCAB, VOCAB), -8.0)
    for t in range(VOCAB):
        logits[t, torch.randperm(VOCAB, generator=g)[:4]] = torch.randn(4, generator=g)
    return torch.softmax(logits, dim=-1).to(device)


def batches(chain, seed, device):
    g = torch.Generator(device=device).manual_seed(seed)
    while True:
        x = torch.empty(BATCH, SEQ + 1, dtype=torch.long, device=device)
        x[:, 0] = torch.randint(0, VOCAB, (BATCH,), generator=g, device=device)
        for i in range(1, SEQ + 1):
            x[:, i] = torch.multinomial(chain[x[:, i - 1]], 1, generator=g).squeeze(1)
        yield x[:, :-1], x[:, 1:]


def train(attend, data_seed, init):
    model = GPT(attend).cuda()
    model.load_state_dict(init)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    data = batches(markov_chain("cuda"), data_seed, "cuda")
    losses = []
    for _ in range(STEPS):
        x, y = next(data)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x).float().view(-1, VOCAB), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main():
    import fa_mlir.torch as fat

    def ours(q, k, v):
        return fat.attention(q, k, v, causal=True)

    def sdpa(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    torch.manual_seed(0)
    init = {k: v.clone() for k, v in GPT(sdpa).state_dict().items()}
    runs = {"ours": train(ours, 0, init), "sdpa": train(sdpa, 0, init), "sdpa_other_batches": train(sdpa, 1, init)}
    final = {n: sum(l[-50:]) / 50 for n, l in runs.items()}
    first = {n: sum(l[:10]) / 10 for n, l in runs.items()}
    noise = abs(final["sdpa"] - final["sdpa_other_batches"])
    gap = abs(final["ours"] - final["sdpa"])
    falls = all(final[n] < first[n] - 1.0 for n in runs)
    finite = all(math.isfinite(x) for l in runs.values() for x in l)
    ok = falls and finite and gap <= max(2 * noise, 0.02)
    for n in runs:
        print(f"{n}: first 10 steps {first[n]:.4f}, last 50 steps {final[n]:.4f}")
    print(f"train_gpt: {'PASS' if ok else 'FAIL'}: |ours - sdpa| = {gap:.4f}, noise (sdpa, other batches) "
          f"= {noise:.4f}, {STEPS} steps")
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write("step," + ",".join(runs) + "\n")
            for i in range(STEPS):
                f.write(f"{i}," + ",".join(f"{runs[n][i]:.5f}" for n in runs) + "\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
