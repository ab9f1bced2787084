"""score_mod/mask_mod on the ragged-batch and KV-cache forwards (issue 35,
the inference ops) on the GPU, through libfa_runtime, against float64 per
sequence with FlashAttention's criterion (check_decode.compare's: O error at
most 2x a plain attention's in the inputs' precision plus 1e-4, LSE within
1e-3, O = 0 and LSE = -inf exactly on rows without a visible key).

The positions the regions see (docs/Modifiers.md, "On the inference ops"):
fa.attention_varlen's b is the sequence and i, j count from 0 in it;
fa.attention_kvcache's b is the sequence, j the key's position in it and i
the query's, n - seq_q + i. The modifiers are stage 12's
(gen_modifier_inputs.py: region text and PyTorch definition): ALiBi (with
and without causal: a one-tile and a persistent kernel), a document mask
(ids [B, positions] per sequence), T5's bucketed bias with prefix-LM, a
document mask with causal; their captures are read
per sequence and position, so a wrong batch or position fails. The packed
O and LSE and the caches past each length start as NaN.

Usage:
  check_sequence_modifiers.py gen NAME   the function of one configuration
  check_sequence_modifiers.py list       the configuration names
  check_sequence_modifiers.py BUNDLE_DIR [CSV_OUT]
      BUNDLE_DIR/<name>/: fa-compile's output for configuration <name>
"""
import math
import os
import sys
from dataclasses import dataclass

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import gen_decode_inputs as gd  # noqa: E402
import gen_modifier_inputs as gm  # noqa: E402


@dataclass(frozen=True)
class Config:
    name: str
    op: str            # "varlen" or "kvcache"
    modifier: str      # a gen_modifier_inputs configuration: its regions and captures
    dtype: str = "bf16"
    head_dim: int = 128
    causal: bool = False
    page_size: int = 0  # kvcache: paged (0: contiguous)
    append: bool = False


CONFIGS = {c.name: c for c in [
    Config("vl_alibi_causal_bf16_d128", "varlen", "alibi_bf16_d128", causal=True),
    # Persistent (no band, no read per key): tiles walk the flat grid in rounds.
    Config("vl_alibi_bf16_d128", "varlen", "alibi_bf16_d128"),
    Config("vl_document_bf16_d64", "varlen", "document_bf16_d128", head_dim=64),
    Config("vl_t5_prefix_lm_f16_d128", "varlen", "t5_prefix_lm_f16_d128", dtype="f16"),
    Config("kv_alibi_causal_bf16_d128_page64", "kvcache", "alibi_bf16_d128", causal=True,
           page_size=64),
    Config("kv_document_causal_bf16_d128_append", "kvcache", "document_causal_bf16_d128",
           append=True),
    Config("kv_t5_bf16_d64_page32_append", "kvcache", "t5_bf16_d64", head_dim=64,
           causal=True, page_size=32, append=True),
]}


def function(c):
    """The configuration's op, its regions and captures stage 12's."""
    m = gm.CONFIGS[c.modifier]
    cap_args, captures, regions = gm._operands_and_regions(m)
    attrs = " {causal}" if c.causal else ""
    if c.op == "varlen":
        t, cu, lse = f"tensor<?x?x{c.head_dim}x{c.dtype}>", "tensor<?xi32>", "tensor<?x?xf32>"
        return (f"func.func @{c.name}(%q: {t}, %k: {t}, %v: {t}, %cq: {cu}, %ck: {cu}"
                f"{cap_args}) -> ({t}, {lse}) {{\n"
                f"  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : {t}, {t}, {t}, {cu},"
                f" {cu}{captures}{attrs} -> {t}, {lse}{regions}\n"
                f"  return %o, %lse : {t}, {lse}\n}}\n")
    kv = gd.Config(c.name, dtype=c.dtype, head_dim=c.head_dim, causal=c.causal,
                   page_size=c.page_size, append=c.append)
    return gd._kvcache_function(kv, f"tensor<?x?x?x{c.head_dim}x{c.dtype}>",
                                "tensor<?x?x?xf32>", (cap_args, captures, regions))


# --- the check (needs torch and a GPU) --------------------------------------

VARLEN_CASES = [  # heads_q, heads_kv, lengths of the queries, of the keys
    (4, 2, [1, 0, 300, 77, 129], [1, 50, 300, 0, 500]),
    (8, 8, [192, 191, 193], [192, 191, 193]),
    (6, 2, [5] * 40 + [700], [5] * 40 + [700]),
]
KV_CASES = [  # batch, seq_q, heads_q, heads_kv, capacity, lengths (after the append)
    (3, 1, 32, 8, 1000, [1000, 517, 3]),
    (2, 4, 8, 2, 700, [700, 129]),
    (4, 3, 12, 4, 333, [333, 3, 200, 64]),
]


def captures(m, batch, hq, positions, g, dev):
    """The configuration's captures: ALiBi slopes [hq], document ids
    [batch, positions] (runs of 1 .. 200 tokens), prefix lengths [batch], a
    T5 table [hq, 32]."""
    import torch
    caps = {"slopes": 2.0 ** (-8.0 * torch.arange(1, hq + 1, device=dev) / hq),
            "table": torch.randn(hq, 32, device=dev, generator=g),
            "prefix": torch.randint(0, positions + 1, (batch,), device=dev, generator=g,
                                    dtype=torch.int32)}
    runs = torch.randint(1, 200, (batch, positions), device=dev, generator=g)
    starts = (runs.cumsum(1) % 200 == 0) | (torch.rand(batch, positions, device=dev,
                                                        generator=g) < 1 / 80)
    caps["docs"] = starts.to(torch.int32).cumsum(1).to(torch.int32)
    return {n: caps[n].contiguous() for n in m.captures}


def reference(c, m, caps, b, q, k, v, ipos, dtype):
    """One sequence: q [sq, hq, d], k, v [sk, hkv, d], query i at position
    ipos[i]; O [sq, hq, d] in dtype, LSE [hq, sq] float64."""
    import torch
    hq, sk, hkv = q.shape[1], k.shape[0], k.shape[1]
    qh = q.transpose(0, 1).to(dtype)
    kh = k.transpose(0, 1).to(dtype).repeat_interleave(hq // hkv, 0)
    vh = v.transpose(0, 1).to(dtype).repeat_interleave(hq // hkv, 0)
    s = (qh @ kh.transpose(1, 2)) * (1.0 / math.sqrt(q.shape[2]))
    bi = torch.tensor(b, device=q.device)
    h = torch.arange(hq, device=q.device)[:, None, None]
    i = ipos[None, :, None]
    j = torch.arange(sk, device=q.device)[None, None, :]
    if m.torch_score:
        s = m.torch_score(s, bi, h, i, j, caps).to(dtype)
    keep = torch.ones(s.shape, dtype=torch.bool, device=q.device)
    if c.causal:
        keep &= j <= i
    if m.torch_keep:
        keep &= m.torch_keep(bi, h, i, j, caps)
    s = s.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(s.double(), dim=-1)
    p = torch.softmax(s.float() if dtype != torch.float64 else s, dim=-1).to(dtype)
    o = torch.nan_to_num(p, nan=0.0) @ vh
    return o.masked_fill(torch.isinf(lse)[..., None], 0).transpose(0, 1), lse


def compare(c, m, caps, seqs, outs, lses, dtype):
    """(ok, error, baseline error, what failed) over the sequences
    (b, q, k, v, query positions)."""
    import torch
    worst, base_worst, why = 0.0, 0.0, []
    for (b, q, k, v, ipos), o, lse in zip(seqs, outs, lses):
        if q.shape[0] == 0:
            continue
        ref, ref_lse = reference(c, m, caps, b, q, k, v, ipos, torch.float64)
        low, _ = reference(c, m, caps, b, q, k, v, ipos, dtype)
        err = (o.double() - ref).abs().max().item()
        base = (low.double() - ref).abs().max().item()
        worst, base_worst = max(worst, err), max(base_worst, base)
        if not math.isfinite(err) or err > 2 * base + 1e-4:
            why.append(f"seq {b}: O error {err:.3g} > 2 x {base:.3g}")
        empty = torch.isinf(ref_lse)
        ours = lse.double()
        if not torch.equal(torch.isneginf(ours), empty):
            why.append(f"seq {b}: LSE -inf on {int(torch.isneginf(ours).sum())} rows, "
                       f"expected {int(empty.sum())}")
        elif (~empty).any() and not (ours[~empty] - ref_lse[~empty]).abs().max() <= 1e-3:
            why.append(f"seq {b}: LSE error")
        if empty.any() and o.transpose(0, 1)[empty].abs().max().item() != 0:
            why.append(f"seq {b}: rows without a visible key are not 0")
    return not why, worst, base_worst, "; ".join(why)


def launch(path, tensors):
    import torch
    from fa_mlir import gpu_runtime
    from fa_rt import runtime_tensor as rt
    bundle = gpu_runtime.RuntimeBundle(path)
    bundle.launch({r: rt(t) for r, t in tensors.items()},
                  torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()


def with_captures(tensors, m, caps):
    tensors.update({f"capture{i}": caps[n] for i, n in enumerate(m.captures)})
    return tensors


def varlen_case(path, c, m, dtype, hq, hkv, lens_q, lens_k):
    import torch
    dev, d = "cuda", c.head_dim
    g = torch.Generator(device=dev).manual_seed(7 + sum(lens_q) + hq)
    tq, tk = sum(lens_q), sum(lens_k)
    q = torch.randn(1, tq, hq, d, device=dev, generator=g).to(dtype)
    k = torch.randn(1, tk, hkv, d, device=dev, generator=g).to(dtype)
    v = torch.randn(1, tk, hkv, d, device=dev, generator=g).to(dtype)
    caps = captures(m, len(lens_q), hq, max(lens_q + lens_k), g, dev)
    o = torch.full((1, tq, hq, d), float("nan"), device=dev, dtype=dtype)
    lse = torch.full((1, hq, tq), float("nan"), device=dev)

    def cu(lens):
        return torch.tensor([0] + torch.tensor(lens).cumsum(0).tolist(), dtype=torch.int32,
                            device=dev)
    launch(path, with_captures(dict(query=q, key=k, value=v, output=o, lse=lse,
                                    cu_seqlens_q=cu(lens_q), cu_seqlens_k=cu(lens_k)),
                               m, caps))
    seqs, outs, lses, q0, k0 = [], [], [], 0, 0
    for b, (sq, sk) in enumerate(zip(lens_q, lens_k)):
        seqs.append((b, q[0, q0:q0 + sq], k[0, k0:k0 + sk], v[0, k0:k0 + sk],
                     torch.arange(sq, device=dev)))
        outs.append(o[0, q0:q0 + sq])
        lses.append(lse[0, :, q0:q0 + sq])
        q0, k0 = q0 + sq, k0 + sk
    return compare(c, m, caps, seqs, outs, lses, dtype)


def kvcache_case(path, c, m, dtype, batch, sq, hq, hkv, cap, lens):
    import torch
    import check_decode as cd
    dev, d = "cuda", c.head_dim
    g = torch.Generator(device=dev).manual_seed(1234 + batch * 7 + sq)
    new = sq if c.append else 0
    cached = [n - new for n in lens]
    q = torch.randn(batch, sq, hq, d, device=dev, generator=g).to(dtype)
    keys = [torch.randn(n, hkv, d, device=dev, generator=g).to(dtype) for n in lens]
    values = [torch.randn(n, hkv, d, device=dev, generator=g).to(dtype) for n in lens]
    caps = captures(m, batch, hq, cap, g, dev)
    table = cd.page_table(batch, cap, c.page_size, lens, g, dev) if c.page_size else None
    kc, vc = (cd.Cache(x, cached, cap, c.page_size, table) for x in (keys, values))
    o = torch.full((batch, sq, hq, d), float("nan"), device=dev, dtype=dtype)
    lse = torch.full((batch, hq, sq), float("nan"), device=dev)
    tensors = dict(query=q, cache_seqlens=torch.tensor(cached, dtype=torch.int32, device=dev),
                   output=o, lse=lse)
    roles = ("key_cache", "value_cache") if c.page_size else ("key", "value")
    tensors.update({roles[0]: kc.data, roles[1]: vc.data})
    if c.page_size:
        tensors["block_table"] = table
    if c.append:
        tensors["key_new"] = torch.stack([x[-new:] for x in keys])
        tensors["value_new"] = torch.stack([x[-new:] for x in values])
    launch(path, with_captures(tensors, m, caps))
    seqs = [(b, q[b], keys[b], values[b], torch.arange(sq, device=dev) + lens[b] - sq)
            for b in range(batch)]
    return compare(c, m, caps, seqs, list(o), list(lse), dtype)


def entry_path(folder, c):
    """The configuration's launchable document: its sequence when fa-compile
    wrote one (the KV cache's split-KV pair; a ragged batch under a mask takes
    the dynamic scheduler, a one-kernel sequence whose tile counter the runtime
    allocates and zeroes), else the varlen kernel's bundle; never a bundle
    that a sequence launches, which alone lacks that workspace
    (check_modifiers.bundle_path, imported here: it needs torch)."""
    import check_modifiers
    return check_modifiers.bundle_path(folder, c.name)


def main(argv):
    if argv[1:] == ["list"]:
        print("\n".join(CONFIGS))
        return 0
    if len(argv) == 3 and argv[1] == "gen" and argv[2] in CONFIGS:
        print(function(CONFIGS[argv[2]]))
        return 0
    if len(argv) < 2 or argv[1] in ("gen", "list"):
        print(__doc__, file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(here)), "python"))
    import check_decode as cd
    rows, failed, count = [], 0, 0
    for c in CONFIGS.values():
        m = gm.CONFIGS[c.modifier]
        dtype = cd.DTYPES[c.dtype]
        path = entry_path(argv[1], c)
        if not path:
            failed += 1
            rows.append([c.name, "-", False, "nan", "nan", "no bundle"])
            print(f"FAIL {c.name}: no bundle in {argv[1]}/{c.name}")
            continue
        count += 1
        for case in VARLEN_CASES if c.op == "varlen" else KV_CASES:
            try:
                run = varlen_case if c.op == "varlen" else kvcache_case
                ok, err, base, why = run(path, c, m, dtype, *case)
            except Exception as ex:  # a launch error is a failed case
                ok, err, base, why = False, float("nan"), float("nan"), \
                    f"{type(ex).__name__}: {ex}"
            failed += not ok
            label = "x".join(str(x) if not isinstance(x, list) else f"n{len(x)}" for x in case)
            rows.append([c.name, label, ok, f"{err:.3g}", f"{base:.3g}", why])
            print(f"{'PASS' if ok else 'FAIL'} {c.name} {label} err {err:.3g} base {base:.3g} "
                  f"{why}", flush=True)
    return cd.report(argv, rows, failed, "sequence_modifiers check", count, "configurations")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
