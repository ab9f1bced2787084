"""The score_mod/mask_mod forward kernels (gen_modifier_inputs.py, issue 35) on
the GPU, through libfa_runtime, against float64 with FlashAttention's
criterion: our max error over O at most 2x that of the same attention
computed plainly in the inputs' precision (+1e-5), LSE within 1e-3
(relative to 1 + |lse|), O and LSE NaN-initialised and every row written,
rows the masks leave without keys exactly O = 0 and LSE = -inf.

The modifiers: ALiBi (with and without causal), a document mask over packed
documents (with and without causal: the causal band recognized in the
region and its key tiles skipped), causal and a sliding window written as a
mask_mod (compiled to the attribute's kernel: checked to be the same kernel
as the attribute's), prefix-LM, T5's bucketed relative bias (alone and with
prefix-LM), a document mask whose padding tokens see no key (rows without
keys), ALiBi with a document mask, and a combination (a nonlinear
score_mod, softcap, a window, the document mask). Shapes: tails (77, 300,
1000 tokens), 2048, seq_q != seq_k, GQA, and documents of one or two
tokens. valid_rows (only the first n[b] tokens are real) leaves rows and
whole query blocks without keys; the rule is checked wherever the reference
has such rows. Each configuration's bundle (or sequence) is in
BUNDLE_DIR/<name>/.

Block-sparse configurations (a mask_mod that is not only a band: document,
prefix-LM, valid_rows, ...) compile to a sequence, a _block_map pre-kernel
and the forward walking its lists (docs/Modifiers.md, "Block sparsity on
sm_90a"): their map is also run alone and compared exactly with the one the
PyTorch mask gives (which key tiles each query block lists, in order, and
which are full), and a configuration that should be block-sparse and is
not (or the reverse) fails. Each forward case of theirs also runs the
sequence given a kept map (the pre-kernel launched alone first, its buffers
passed: the runtime skips the sequence's own pre-kernel, as
fa_mlir.torch.create_block_mask does) and requires O and LSE bitwise equal
to the sequence's own.

The backward: each configuration's fa.attention_grad sequence
(BUNDLE_DIR/<name>_bwd/, one fa_bundle_launch with the captures) over the
same cases, from float64 O and LSE: dQ, dK, dV against float64 autograd of
the reference with FlashAttention's criterion (2x a plain implementation
in the inputs' precision + 1e-5), every element finite, and dQ exactly 0
on rows without keys. A block-sparse configuration's backward starts with
its own map kernel (query tiles per 128-key block, the group's query heads
sharing a list): that map is run alone and compared exactly with the one
the PyTorch mask gives, and each case runs again with a kept map (the map
kernel skipped): dK and dV bitwise equal, dQ within the criterion.

CHECK_SMALL=1 (under memcheck) skips the 2048-token cases and checks two
cases of each backward.

Usage: python3 test/Device/check_modifiers.py BUNDLE_DIR [CSV_OUT]
"""
import glob
import json
import math
import os
import re
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import check_backward as cb  # noqa: E402
import check_decode as cd  # noqa: E402  (puts python/ on the path)
import gen_modifier_inputs as gm  # noqa: E402
from fa_mlir import gpu_runtime  # noqa: E402

_RT_NAMES = {torch.int32: "i32", torch.float32: "f32", torch.bfloat16: "bf16",
             torch.float16: "f16"}


def rt(t):
    return (t.data_ptr(), _RT_NAMES[t.dtype], tuple(t.shape), tuple(t.stride()))


def bundle_path(folder, name):
    """What launches configuration `name`: its fa-kernel-sequence JSON (a
    block-sparse forward: the block map pre-kernel and the forward), else
    its fa-kernel-bundle JSON; None when there is neither."""
    found = {}
    for p in sorted(glob.glob(os.path.join(folder, name, "*.json"))):
        with open(p) as f:
            found.setdefault(json.load(f).get("format"), p)
    return found.get("fa-kernel-sequence") or found.get("fa-kernel-bundle")


def block_map_parts(path):
    """(the _block_map bundle's path, block_m, block_n) of a block-sparse
    sequence, or None when `path` is not one."""
    meta = json.load(open(path))
    if meta.get("format") != "fa-kernel-sequence":
        return None
    names = meta["kernels"]
    pre = [n for n in names if n.endswith("_block_map.json")]
    main = [n for n in names if not n.endswith("_block_map.json")]
    if len(pre) != 1 or len(main) != 1:
        return None
    m = re.search(r"_m(\d+)n(\d+)s\d", main[0])
    return os.path.join(os.path.dirname(path), pre[0]), int(m.group(1)), int(m.group(2))


def slopes(h, device):
    """ALiBi slopes 2^(-8 (h+1) / H), scaled down so that 2k-token rows keep
    more than one key in their softmax."""
    return torch.tensor([2.0 ** (-8.0 * (i + 1) / h) / 16 for i in range(h)],
                        dtype=torch.float32, device=device)


def documents(b, s, g, device, single=False):
    """[b, s] i32 ids of up to 8 packed documents per row (random cuts);
    `single`: every other token a document of its own."""
    rows = []
    for _ in range(b):
        if single:
            rows.append(torch.arange(s, device=device) // 2 * 2 +
                        (torch.arange(s, device=device) % 2))
            continue
        cuts = torch.randint(1, max(2, s), (7,), generator=g, device=device).sort().values
        ids = torch.zeros(s, dtype=torch.int64, device=device)
        for c in cuts:
            ids[c:] += 1
        rows.append(ids)
    return torch.stack(rows).to(torch.int32)


def captures_for(cfg, b, hq, sk, g, device, single_docs=False):
    caps = {}
    if "slopes" in cfg.captures:
        caps["slopes"] = slopes(hq, device)
    if "docs" in cfg.captures:
        caps["docs"] = documents(b, sk, g, device, single_docs)
    if "prefix" in cfg.captures:
        caps["prefix"] = torch.randint(0, sk + 1, (b,), generator=g, device=device,
                                       dtype=torch.int32)
    if "table" in cfg.captures:
        caps["table"] = torch.randn(hq, 32, generator=g, device=device)
    if cfg.padded_docs:  # the last eighth of each row is padding
        caps["docs"][:, sk - sk // 8:] = -1
    return caps


def attention(cfg, q, k, v, caps, dtype, scale):
    """bhsd O [b, hq, sq, dv] in `dtype` (float64: the reference) and LSE
    [b, hq, sq] in float64 (-inf on rows without keys), with the modifiers
    in the op's order: scale, score_mod, softcap, masks. Differentiable in
    q, k, v (rows without keys give O = 0 and no gradient)."""
    b, hq, sq, _ = q.shape
    hkv, sk = k.shape[1], k.shape[2]
    group = hq // hkv
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    low = dtype != torch.float64
    qc, kc, vc = (t.to(torch.float32 if low else torch.float64) for t in (q, k, v))
    s = scale * torch.matmul(qc, kc.transpose(-1, -2))
    dev = q.device
    bi = torch.arange(b, device=dev).view(b, 1, 1, 1)
    hi = torch.arange(hq, device=dev).view(1, hq, 1, 1)
    ii = torch.arange(sq, device=dev).view(1, 1, sq, 1)
    ji = torch.arange(sk, device=dev).view(1, 1, 1, sk)
    if cfg.torch_score:
        s = cfg.torch_score(s, bi, hi, ii, ji, caps)
    if cfg.softcap:
        s = cfg.softcap * torch.tanh(s / cfg.softcap)
    if low:
        s = s.to(dtype).to(torch.float32)  # the plain implementation rounds S
    keep = torch.ones(b, hq, sq, sk, dtype=torch.bool, device=dev)
    if cfg.causal:
        keep &= ji <= ii
    if cfg.window:
        keep &= (ji >= ii - cfg.window[0]) & (ji <= ii + cfg.window[1])
    if cfg.torch_keep:
        keep &= cfg.torch_keep(bi, hi, ii, ji, caps).expand(b, hq, sq, sk)
    s = s.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(s.double(), dim=-1)
    live = keep.any(dim=-1, keepdim=True)
    # Finite on rows without keys, so that autograd gives them no NaN.
    s = torch.where(live, s, torch.zeros_like(s))
    p = torch.softmax(s, dim=-1) * live.to(s.dtype)
    if low:
        p = p.to(dtype).to(torch.float32)
    o = torch.matmul(p, vc)
    return o.to(dtype) if low else o, lse


def case_inputs(cfg, b, hq, hkv, sq, sk, single_docs, seed, grad_output=False):
    """A case's Q, K, V ([B, H, S, D] in the config's dtype), dO when asked,
    and captures, drawn in that order from one generator seeded by the case."""
    dtype = cd.DTYPES[cfg.dtype]
    d = cfg.head_dim
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(seed + sq * 3 + sk + hq)
    shapes = [(b, hq, sq, d), (b, hkv, sk, d), (b, hkv, sk, d)]
    if grad_output:
        shapes.append((b, hq, sq, d))
    drawn = [torch.randn(*s, device=dev, generator=g).to(dtype) for s in shapes]
    return (*drawn, captures_for(cfg, b, hq, max(sq, sk), g, dev, single_docs))


def run_case(path, cfg, b, hq, hkv, sq, sk, single_docs=False, seed=5):
    bundle = gpu_runtime.RuntimeBundle(path)
    meta = json.load(open(path))
    dtype = cd.DTYPES[cfg.dtype]
    d = cfg.head_dim
    dev = "cuda"
    q, k, v, caps = case_inputs(cfg, b, hq, hkv, sq, sk, single_docs, seed)
    o = torch.full((b, hq, sq, d), float("nan"), device=dev, dtype=dtype)
    lse = torch.full((b, hq, sq), float("nan"), device=dev)
    ops = {"query": q, "key": k, "value": v, "output": o, "lse": lse}
    for i, name in enumerate(cfg.captures):
        ops[f"capture{i}"] = caps[name]
    bundle.launch({r: rt(t) for r, t in ops.items()}, torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    kept = kept_map_differs(path, bundle, ops, b, hq, sq, sk)
    scale = meta["config"].get("scale") or 1.0 / math.sqrt(d)
    ref, ref_lse = attention(cfg, q, k, v, caps, torch.float64, scale)
    plain, _ = attention(cfg, q, k, v, caps, dtype, scale)
    why = []
    err = (o.double() - ref).abs().max().item()
    base = (plain.double() - ref).abs().max().item()
    if not math.isfinite(err) or err > 2 * base + 1e-5:
        why.append(f"O error {err:.3g} > 2 x {base:.3g} + 1e-5")
    empty = torch.isneginf(ref_lse)
    if not torch.equal(torch.isneginf(lse), empty):
        why.append(f"LSE -inf on {int(torch.isneginf(lse).sum())} rows, expected "
                   f"{int(empty.sum())}")
    elif (~empty).any():
        rel = ((lse.double() - ref_lse).abs() / (1 + ref_lse.abs()))[~empty].max().item()
        if not rel <= 1e-3:
            why.append(f"LSE error {rel:.3g}")
    if empty.any() and o[empty].abs().max().item() != 0:
        why.append("rows without keys are not 0")
    if kept:
        why.append(kept)
    return not why, err, base, "; ".join(why), int(empty.sum())


def kept_map_differs(path, bundle, ops, b, hq, sq, sk):
    """A block-sparse sequence given a kept map: the pre-kernel run alone
    into buffers, then the sequence with them (their "written_by" makes
    the runtime skip its own pre-kernel, as for
    fa_mlir.torch.create_block_mask) must give the O and LSE the sequence
    gave computing the map itself, bit for bit. '' when it does (or the
    sequence is not block-sparse), else what differs."""
    found = block_map_buffers(path, b, hq, sq, sk)
    if not found:
        return ""
    bufs, pre_path = found[0], found[1]
    stream = torch.cuda.current_stream().cuda_stream
    pre_ops = {r: ops[r] for r in ops if r in ("query", "key", "value") or
               r.startswith("capture")}
    gpu_runtime.RuntimeBundle(pre_path).launch(
        {r: rt(t) for r, t in {**pre_ops, **bufs}.items()}, stream)
    again = dict(ops, output=torch.full_like(ops["output"], float("nan")),
                 lse=torch.full_like(ops["lse"], float("nan")), **bufs)
    bundle.launch({r: rt(t) for r, t in again.items()}, stream)
    torch.cuda.synchronize()
    for name in ("output", "lse"):
        if not torch.equal(again[name], ops[name]):
            return f"{name} with a kept map (pre-kernel skipped) differs from the sequence's"
    return ""


def backward_grads(cfg, q, k, v, do, caps, dtype, scale):
    """(dq, dk, dv) in float64 of attention(cfg) computed in `dtype`."""
    leaves = [t.detach().to(dtype if dtype == torch.float64 else t.dtype).requires_grad_()
              for t in (q, k, v)]
    o, _ = attention(cfg, *leaves, caps, dtype, scale)
    o.backward(do.to(o.dtype))
    return [t.grad.double() for t in leaves]


def run_backward_case(folder, cfg, b, hq, hkv, sq, sk, single_docs=False, seed=7):
    """The backward sequence of `cfg` on one case: (ok, worst error,
    baseline, why, rows without keys)."""
    seq = cb.Sequence(folder)
    dtype = cd.DTYPES[cfg.dtype]
    d = cfg.head_dim
    q, k, v, do, caps = case_inputs(cfg, b, hq, hkv, sq, sk, single_docs, seed,
                                    grad_output=True)
    scale = seq.meta["config"].get("scale") or 1.0 / math.sqrt(d)
    o64, lse64 = attention(cfg, q, k, v, caps, torch.float64, scale)
    o, lse = o64.to(dtype).contiguous(), lse64.float().contiguous()
    dq, dk, dv = (torch.full_like(t, float("nan")) for t in (q, k, v))
    sym = dict(batch=b, heads_q=hq, heads_kv=hkv, seq_q=sq, seq_k=sk, head_dim=d,
               head_dim_v=d)
    extra = {f"capture{i}": caps[name] for i, name in enumerate(cfg.captures)}
    seq(do, q, k, v, o, lse, dq, dk, dv, sym, extra=extra)
    torch.cuda.synchronize()
    ref = backward_grads(cfg, q, k, v, do, caps, torch.float64, scale)
    plain = backward_grads(cfg, q, k, v, do, caps, dtype, scale)
    why, worst, worst_base = [], 0.0, 0.0
    for name, ours, r, p in zip(("dQ", "dK", "dV"), (dq, dk, dv), ref, plain):
        ours = ours.double()
        if not torch.isfinite(ours).all():
            why.append(f"{name} not finite")
            continue
        err, base = (ours - r).abs().max().item(), (p - r).abs().max().item()
        worst, worst_base = max(worst, err), max(worst_base, base)
        if err > 2 * base + 1e-5:
            why.append(f"{name} error {err:.3g} > 2 x {base:.3g} + 1e-5")
    empty = torch.isneginf(lse64)
    if empty.any() and dq[empty].abs().max().item() != 0:
        why.append("dQ of rows without keys is not 0")
    kept = backward_kept_map_differs(folder, seq, cfg, caps, (do, q, k, v, o, lse), sym,
                                     (dk, dv), ref, plain)
    if kept:
        why.append(kept)
    return not why, worst, worst_base, "; ".join(why), int(empty.sum())


def backward_map(folder, seq):
    """(the map kernel's RuntimeBundle, its buffer names) of a block-sparse
    backward sequence (its workspace entries "written_by" a kernel), else
    None."""
    writers = {w["written_by"] for w in seq.meta["workspace"] if "written_by" in w}
    if not writers:
        return None
    (writer,) = writers
    names = [w["name"] for w in seq.meta["workspace"] if w.get("written_by") == writer]
    return gpu_runtime.RuntimeBundle(os.path.join(folder, seq.meta["kernels"][writer])), names


def run_backward_map(folder, seq, q, k, caps_ops, sym, fill=-1):
    """Runs the backward's map kernel alone: {name: tensor} of its buffers
    (filled with `fill` first), or None when the backward is not
    block-sparse."""
    found = backward_map(folder, seq)
    if not found:
        return None
    pre, names = found
    shapes = {w["name"]: [cb.evaluate(e, sym) for e in w["shape"]] for w in seq.meta["workspace"]}
    bufs = {n: torch.full(shapes[n], fill, dtype=torch.int32, device="cuda") for n in names}
    ops = {"query": q, "key": k, "value": k, **caps_ops, **bufs}
    pre.launch({r: rt(t) for r, t in ops.items()}, torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    return bufs


def backward_kept_map_differs(folder, seq, cfg, caps, inputs, sym, dkdv, ref, plain):
    """A block-sparse backward given a kept map (its map kernel run alone
    first, the buffers passed: the runtime skips the sequence's own, as
    fa_mlir.torch's block_mask does) must give dK and dV bitwise equal to
    the sequence's own run and dQ (added in a run-dependent order) within
    the criterion. '' when it does or the backward is not block-sparse."""
    do, q, k, v, o, lse = inputs
    caps_ops = {f"capture{i}": caps[name] for i, name in enumerate(cfg.captures)}
    bufs = run_backward_map(folder, seq, q, k, caps_ops, sym)
    if bufs is None:
        return ""
    dq2, dk2, dv2 = (torch.full_like(t, float("nan")) for t in (q, k, v))
    ops = dict(grad_output=do, query=q, key=k, value=v, output=o, lse=lse, grad_query=dq2,
               grad_key=dk2, grad_value=dv2, **caps_ops, **bufs)
    ops.update(seq.workspace(sym, q.device))
    seq.runtime.launch({r: rt(t) for r, t in ops.items()},
                       torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    if not (torch.equal(dk2, dkdv[0]) and torch.equal(dv2, dkdv[1])):
        return "dK/dV with a kept map (map kernel skipped) differ from the sequence's"
    err = (dq2.double() - ref[0]).abs().max().item()
    base = (plain[0] - ref[0]).abs().max().item()
    if not err <= 2 * base + 1e-5:
        return f"dQ with a kept map: error {err:.3g} > 2 x {base:.3g} + 1e-5"
    return ""


def expected_backward_map(cfg, caps, b, hq, hkv, sq, sk, per_batch, per_head, bm=64, bn=128):
    """The backward's map from the PyTorch mask: {(b', kv head', key block):
    [(query tile, full)]}, query tiles in order; a tile is listed when a
    query head of the kv head's group (or any, without a map per head)
    sees a key of it, full when every element inside the lengths and the
    band is kept for each of them."""
    dev = "cuda"
    ii, jj, band = band_of(cfg, sq, sk)
    group = hq // hkv
    out = {}
    for bi in range(b if per_batch else 1):
        for hk in range(hkv if per_head else 1):
            heads = range(hk * group, (hk + 1) * group) if per_head else [0]
            keep = torch.stack([cfg.torch_keep(torch.tensor(bi, device=dev),
                                               torch.tensor(h, device=dev), ii, jj,
                                               caps).expand(sq, sk) & band for h in heads])
            ok = keep | ~band
            for kb in range(-(-sk // bn)):
                cols = slice(kb * bn, min(sk, (kb + 1) * bn))
                listed = []
                for qt in range(-(-sq // bm)):
                    rows = slice(qt * bm, min(sq, (qt + 1) * bm))
                    if keep[:, rows, cols].any():
                        listed.append((qt, bool(ok[:, rows, cols].all())))
                out[(bi, hk, kb)] = listed
    return out


def check_backward_map(folder, cfg, b, hq, hkv, sq, sk, single_docs=False, seed=5):
    """Runs the backward's map kernel alone and compares its map with
    expected_backward_map's, exactly: '' when equal, else the first
    difference (or that the backward is not block-sparse)."""
    seq = cb.Sequence(folder)
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(seed + sq * 3 + sk + hq)
    caps = captures_for(cfg, b, hq, max(sq, sk), g, dev, single_docs)
    dtype = cd.DTYPES[cfg.dtype]
    q = torch.zeros(b, hq, sq, cfg.head_dim, device=dev, dtype=dtype)
    k = torch.zeros(b, hkv, sk, cfg.head_dim, device=dev, dtype=dtype)
    sym = dict(batch=b, heads_q=hq, heads_kv=hkv, seq_q=sq, seq_k=sk, head_dim=cfg.head_dim,
               head_dim_v=cfg.head_dim)
    caps_ops = {f"capture{i}": caps[name] for i, name in enumerate(cfg.captures)}
    bufs = run_backward_map(folder, seq, q, k, caps_ops, sym)
    if bufs is None:
        return "expected a block-sparse backward (no kernel of its sequence writes a map)"
    num, idx = bufs["q_num_blocks"].cpu(), bufs["q_indices"].cpu()
    (shape,) = [w["shape"] for w in seq.meta["workspace"] if w["name"] == "q_num_blocks"]
    per_batch, per_head = shape[0] != "1", shape[1] != "1"
    want = expected_backward_map(cfg, caps, b, hq, hkv, sq, sk, per_batch, per_head)
    for (bi, hk, kb), listed in want.items():
        n = int(num[bi, hk, kb])
        got = [(int(e) >> 1, bool(int(e) & 1)) for e in idx[bi, hk, kb, :max(n, 0)]]
        if got != listed:
            return f"backward map of (b {bi}, kv head {hk}, key block {kb}): {got} != " \
                f"expected {listed}"
    return ""


def band_of(cfg, sq, sk):
    """(query indices [sq, 1], key indices [1, sk], the [sq, sk] band the
    attributes and the one folded out of mask_mod leave) on the GPU."""
    dev = "cuda"
    ii = torch.arange(sq, device=dev).view(sq, 1)
    jj = torch.arange(sk, device=dev).view(1, sk)
    band = torch.ones(sq, sk, dtype=torch.bool, device=dev)
    if cfg.causal:
        band &= jj <= ii
    if cfg.window:
        band &= (jj >= ii - cfg.window[0]) & (jj <= ii + cfg.window[1])
    if cfg.folded_band:
        band &= cfg.folded_band(ii, jj)
    return ii, jj, band


def expected_map(cfg, caps, b, hq, sq, sk, bm, bn, per_batch, per_head):
    """The block map the pre-kernel must write, from the PyTorch mask:
    {(b', h', query block): [(key tile, full)]}, the key tiles in order. A
    tile is listed when it has a visible element; it is full when every
    element inside the lengths that the band (the attributes' and the one
    folded out of mask_mod) leaves is kept."""
    dev = "cuda"
    ii, jj, band = band_of(cfg, sq, sk)
    out = {}
    for bi in range(b if per_batch else 1):
        for hi in range(hq if per_head else 1):
            keep = cfg.torch_keep(torch.tensor(bi, device=dev), torch.tensor(hi, device=dev),
                                  ii, jj, caps).expand(sq, sk) & band
            ok = keep | ~band
            for qb in range(-(-sq // bm)):
                rows = slice(qb * bm, min(sq, (qb + 1) * bm))
                listed = []
                for kt in range(-(-sk // bn)):
                    cols = slice(kt * bn, min(sk, (kt + 1) * bn))
                    if keep[rows, cols].any():
                        listed.append((kt, bool(ok[rows, cols].all())))
                out[(bi, hi, qb)] = listed
    return out


def block_map_buffers(path, b, hq, sq, sk, fill=-1):
    """{name: tensor} workspace buffers for the map of the block-sparse
    sequence at `path` (filled with `fill`), the _block_map bundle's path
    and whether the map is per batch and per head; None when `path` is not
    block-sparse."""
    parts = block_map_parts(path)
    if not parts:
        return None
    pre_path, bm, bn = parts
    shapes = {w["name"]: w["shape"] for w in json.load(open(pre_path))["scratch"]}
    per_batch = shapes["kv_num_blocks"][0] != "1"
    per_head = shapes["kv_num_blocks"][1] != "1"
    nb, nh, nq, nk = (b if per_batch else 1), (hq if per_head else 1), -(-sq // bm), -(-sk // bn)
    bufs = {"kv_num_blocks": torch.full((nb, nh, nq), fill, dtype=torch.int32, device="cuda"),
            "kv_indices": torch.full((nb, nh, nq, nk), fill, dtype=torch.int32, device="cuda")}
    return bufs, pre_path, per_batch, per_head


def check_block_map(path, cfg, b, hq, hkv, sq, sk, single_docs=False, seed=5):
    """Runs the sequence's _block_map pre-kernel alone and compares its map
    with expected_map's, exactly; '' when equal, else the first difference."""
    found = block_map_buffers(path, b, hq, sq, sk)
    if not found:
        return "not a block-sparse sequence (no _block_map kernel)"
    bufs, pre_path, per_batch, per_head = found
    _, bm, bn = block_map_parts(path)
    num, idx = bufs["kv_num_blocks"], bufs["kv_indices"]
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(seed + sq * 3 + sk + hq)
    caps = captures_for(cfg, b, hq, max(sq, sk), g, dev, single_docs)
    # The sizes the runtime reads off Q, K, V: the pre-kernel takes them too.
    d = cfg.head_dim
    dtype = cd.DTYPES[cfg.dtype]
    q = torch.zeros(b, hq, sq, d, device=dev, dtype=dtype)
    k = torch.zeros(b, hkv, sk, d, device=dev, dtype=dtype)
    ops = {"query": q, "key": k, "value": k, "kv_num_blocks": num, "kv_indices": idx}
    for i, name in enumerate(cfg.captures):
        ops[f"capture{i}"] = caps[name]
    bundle = gpu_runtime.RuntimeBundle(pre_path)
    bundle.launch({r: rt(t) for r, t in ops.items()}, torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    want = expected_map(cfg, caps, b, hq, sq, sk, bm, bn, per_batch, per_head)
    num_h, idx_h = num.cpu(), idx.cpu()
    for (bi, hi, qb), listed in want.items():
        n = int(num_h[bi, hi, qb])
        got = [(int(e) >> 1, bool(int(e) & 1)) for e in idx_h[bi, hi, qb, :max(n, 0)]]
        if got != listed:
            return f"map of (b {bi}, h {hi}, query block {qb}): {got} != expected {listed}"
    return ""


def cases(cfg):
    small = os.environ.get("CHECK_SMALL")
    out = [  # batch, heads_q, heads_kv, seq_q, seq_k, single-token documents
        (2, 4, 4, 300, 300, False),
        (1, 8, 2, 77, 77, False),
        (2, 6, 3, 1000, 1000, False),
        (1, 4, 4, 129, 129, True),
    ]
    if not small:
        out.append((1, 16, 4, 2048, 2048, False))
    if "docs" not in cfg.captures:  # documents are of self-attention
        out.append((2, 4, 2, 300, 500, False))
        out.append((1, 4, 4, 500, 200, False))
    return out


def same_kernel(folder, cfg):
    """'' when a configuration that must compile to the attribute's kernel
    does, else what differs."""
    if not cfg.same_kernel_as:
        return ""
    a, b = bundle_path(folder, cfg.name), bundle_path(folder, cfg.same_kernel_as)
    if not a or not b:
        return "no bundle to compare with"
    ka, kb = (json.load(open(p))["kernel"] for p in (a, b))
    if ka != kb:
        return f"kernel {ka} is not the attribute's {kb}"
    ca, cb = (open(os.path.join(os.path.dirname(p), json.load(open(p))["cubin"]), "rb").read()
              for p in (a, b))
    return "" if ca == cb else "the cubins differ"


def check_backward(folder, cfg, rows):
    """The backward of `cfg` over its cases; returns the failures."""
    seq_dir = os.path.join(folder, cfg.name + "_bwd")
    if not os.path.isdir(seq_dir) or not glob.glob(os.path.join(seq_dir, "*.cubin")):
        print(f"FAIL {cfg.name} backward: no sequence in {seq_dir}")
        rows.append([cfg.name + "_bwd", "-", False, "nan", "nan", "no sequence"])
        return 1
    failed = 0
    # Under memcheck (CHECK_SMALL) two cases per configuration.
    for case in cases(cfg)[:2] if os.environ.get("CHECK_SMALL") else cases(cfg):
        if cfg.block_sparse:
            try:
                why = check_backward_map(seq_dir, cfg, *case)
            except Exception as ex:  # a launch error is a failed case
                why = f"{type(ex).__name__}: {ex}"
            failed += bool(why)
            label = "map b{}h{}/{} {}x{}{}".format(*case[:5], " single-docs" if case[5] else "")
            rows.append([cfg.name + "_bwd", label, not why, "", "", why])
            print(f"{'FAIL' if why else 'PASS'} {cfg.name} backward {label} {why}", flush=True)
        try:
            ok, err, base, why, empty = run_backward_case(seq_dir, cfg, *case)
        except Exception as ex:  # a launch error is a failed case
            ok, err, base, why, empty = False, float("nan"), float("nan"), \
                f"{type(ex).__name__}: {ex}", 0
        failed += not ok
        label = "b{}h{}/{} {}x{}{}".format(*case[:5], " single-docs" if case[5] else "")
        rows.append([cfg.name + "_bwd", label, ok, f"{err:.3g}", f"{base:.3g}", why])
        print(f"{'PASS' if ok else 'FAIL'} {cfg.name} backward {label} err {err:.3g} "
              f"base {base:.3g} rows-without-keys {empty} {why}", flush=True)
    return failed


def main(argv):
    folder = argv[1]
    rows, failed, count = [], 0, 0
    for cfg in gm.CONFIGS.values():
        path = bundle_path(folder, cfg.name)
        if not path:
            print(f"FAIL {cfg.name}: no bundle in {folder}/{cfg.name}")
            rows.append([cfg.name, "-", False, "nan", "nan", "no bundle"])
            failed += 1
            continue
        count += 1
        differs = same_kernel(folder, cfg)
        if differs:
            failed += 1
            rows.append([cfg.name, "same kernel", False, "", "", differs])
            print(f"FAIL {cfg.name}: {differs}")
        if cfg.block_sparse != bool(block_map_parts(path)):
            failed += 1
            why = "expected a block-sparse sequence" if cfg.block_sparse else \
                "unexpectedly block-sparse"
            rows.append([cfg.name, "block-sparse", False, "", "", why])
            print(f"FAIL {cfg.name}: {why}")
        elif cfg.block_sparse:
            for case in cases(cfg):
                label = "map b{}h{}/{} {}x{}{}".format(*case[:5],
                                                      " single-docs" if case[5] else "")
                try:
                    why = check_block_map(path, cfg, *case)
                except Exception as ex:  # a launch error is a failed case
                    why = f"{type(ex).__name__}: {ex}"
                failed += bool(why)
                rows.append([cfg.name, label, not why, "", "", why])
                print(f"{'FAIL' if why else 'PASS'} {cfg.name} {label} {why}", flush=True)
        for case in cases(cfg):
            try:
                ok, err, base, why, empty = run_case(path, cfg, *case)
            except Exception as ex:  # a launch error is a failed case
                ok, err, base, why, empty = False, float("nan"), float("nan"), \
                    f"{type(ex).__name__}: {ex}", 0
            failed += not ok
            label = "b{}h{}/{} {}x{}{}".format(*case[:5], " single-docs" if case[5] else "")
            rows.append([cfg.name, label, ok, f"{err:.3g}", f"{base:.3g}", why])
            print(f"{'PASS' if ok else 'FAIL'} {cfg.name} {label} err {err:.3g} "
                  f"base {base:.3g} rows-without-keys {empty} {why}", flush=True)
        failed += check_backward(folder, cfg, rows)
    return cd.report(argv, rows, failed, "modifier check", count, "bundles")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
