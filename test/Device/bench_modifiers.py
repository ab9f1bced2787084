"""score_mod/mask_mod forward kernels (issue 35) next to FlexAttention
(torch.compile'd flex_attention with the same score_mod and a block mask
from the same mask_mod) and FlashAttention-4's score_mod/mask_mod path
(flash_attn.cute.flash_attn_func with cute.jit modifiers reading
aux_tensors), in one process on one GPU; and our causal mask written as a
mask_mod next to our causal attribute.

Rows (bf16, bhsd, d128, 16k total tokens, 16 heads, forward, LSE):
  alibi            ALiBi score_mod, 4k (B 4) and 16k (B 1), non-causal
  t5               T5's bucketed relative bias (a [heads, 32] table read at
                   log-bucketed j - i), 4k and 16k, non-causal
  alibi_document   ALiBi and the document mask (16k, 8 documents)
  document         a document mask_mod over 16k tokens in 8 documents (B 1)
  document_causal  causal & document
  prefix_lm        prefix-LM mask_mod, 4k (B 4), prefix = N / 4
  causal_mask_mod  causal as a mask_mod vs the causal attribute (ours), 4k
                   and 16k
Backward rows (direction "bwd"; not with MODS_QUICK=2): the same rows but
causal_attribute's, our backward sequence (BUNDLE_DIR/<config>_bwd/, dQ,
dK, dV from our forward's O and LSE) next to FlexAttention's compiled
backward (torch.autograd.grad through the compiled flex_attention) and
FA4's where its backward takes the row's modifiers.
FLOPs: 4 * H * D * visible pairs, the pairs counted from the mask on the GPU
over every batch row (the TFLOP/s of runs before 2026-12-06's block-sparse
kernels multiplied by B once more: the B 4 rows at 4k were 4x too high);
the backward counts 2.5 times that.
Block-sparse rows (a mask_mod that is not only a band: ours is a sequence of
the _block_map pre-kernel and the forward; the backward's starts with its
own, transposed map) time ours two ways, in both directions: "ours" builds
the map at every call (the pre-kernel launched alone into the map buffers,
then the sequence with them passed, which skips its own pre-kernel: what
fa_mlir.torch.attention does without a block mask), "ours_prebuilt" passes
a map built once before the timed region (attention(..., block_mask=bm),
what FlexAttention's timing does with its BlockMask); "ours_map" is the
pre-kernel alone. The ratios print both against each peer.
Time: median of triton.testing.do_bench(warmup=25, rep=100). Each row's
implementations are checked against ours first (max |diff| in the CSV).
Ours: the bundles of gen_modifier_inputs.py (BUNDLE_DIR/<config>/, as
scripts/device-round.sh's prepare writes them), launched through
libfa_runtime. A peer that cannot express a row is "unsupported", one whose
package is missing "unavailable", an exception "fail ..." -- never a crash.

Usage: python3 test/Device/bench_modifiers.py BUNDLE_DIR CSV_OUT
Env: MODS_QUICK=1 (4k rows only; 2: and no backward rows), PEERS (comma
list of flex, fa4), MODS_ROWS (comma list of rows; default all).
"""
import csv
import glob
import inspect
import json
import os
import sys

import torch
from triton.testing import do_bench

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import check_backward as cb  # noqa: E402
import check_modifiers as cm  # noqa: E402
import fa_rt  # noqa: E402
import gen_modifier_inputs as gm  # noqa: E402
import peers  # noqa: E402

D, H_TOTAL, TOKENS = 128, 16, 16384

# row -> (our config, mask: "none" | "causal" | "document" | "document_causal"
#         | "prefix", score: None | "alibi" | "t5")
ROWS = {
    "alibi": ("alibi_bf16_d128", "none", "alibi"),
    "t5": ("t5_bf16_d128", "none", "t5"),
    "alibi_document": ("alibi_document_bf16_d128", "document", "alibi"),
    "document": ("document_bf16_d128", "document", None),
    "document_causal": ("document_causal_bf16_d128", "document_causal", None),
    "prefix_lm": ("prefix_lm_bf16_d128", "prefix", None),
    "causal_mask_mod": ("causal_mask_mod_bf16_d128", "causal", None),
    "causal_attribute": ("causal_attr_bf16_d128", "causal", None),
}
SHAPES = {  # row -> sequence lengths (batch = TOKENS / N)
    "alibi": [4096, 16384], "t5": [4096, 16384], "alibi_document": [16384], "document": [16384],
    "document_causal": [16384], "prefix_lm": [4096], "causal_mask_mod": [4096, 16384],
    "causal_attribute": [4096, 16384],
}


def inputs(n):
    b = TOKENS // n
    g = torch.Generator(device="cuda").manual_seed(n)
    q, k, v = (torch.randn(b, H_TOTAL, n, D, device="cuda", generator=g,
                           dtype=torch.bfloat16) for _ in range(3))
    docs = torch.stack([torch.arange(n, device="cuda") * 8 // n for _ in range(b)]).to(torch.int32)
    caps = {"slopes": cm.slopes(H_TOTAL, "cuda"), "docs": docs,
            "prefix": torch.full((b,), n // 4, dtype=torch.int32, device="cuda"),
            "table": torch.randn(H_TOTAL, 32, device="cuda", generator=g)}
    return q, k, v, caps


def keep_fn(mask, caps):
    """The row's mask_mod on index tensors (FlexAttention's signature)."""
    if mask == "causal":
        return lambda b, h, i, j: j <= i
    if mask == "document":
        return lambda b, h, i, j: caps["docs"][b, i] == caps["docs"][b, j]
    if mask == "document_causal":
        return lambda b, h, i, j: (j <= i) & (caps["docs"][b, i] == caps["docs"][b, j])
    if mask == "prefix":
        return lambda b, h, i, j: (j <= i) | (j < caps["prefix"][b])
    return None


def visible_pairs(mask, caps, b, n):
    keep = keep_fn(mask, caps)
    if keep is None:
        return b * n * n
    total = 0
    i = torch.arange(n, device="cuda").view(n, 1)
    j = torch.arange(n, device="cuda").view(1, n)
    for bi in range(b):
        for r0 in range(0, n, 2048):
            total += int(keep(torch.tensor(bi, device="cuda"), 0, i[r0:r0 + 2048], j).sum())
    return total


def captures_of(cfg_name, caps):
    """{capture<i>: tensor} of configuration `cfg_name`."""
    return {f"capture{i}": caps[name] for i, name in enumerate(gm.CONFIGS[cfg_name].captures)}


def forward_launch(cfg_name, folder, q, k, v, caps):
    """A launcher of our forward (the map rebuilt per call where it has
    one), its operands (O and LSE among them) and the map's launcher alone
    (None unless block-sparse); the sequence launched alone with the
    operands reuses the map last built (its buffers are written_by the
    pre-kernel, so the runtime skips it)."""
    path = cm.bundle_path(folder, cfg_name)
    if not path:
        raise peers.Unavailable(f"no bundle for {cfg_name}")
    ops = {"query": q, "key": k, "value": v, "output": torch.empty_like(q),
           "lse": torch.empty(q.shape[:3], device="cuda")}
    ops.update(captures_of(cfg_name, caps))
    b, hq, n = q.shape[0], q.shape[1], q.shape[2]
    found = cm.block_map_buffers(path, b, hq, n, n, fill=0)
    map_launch = None
    if found:  # block-sparse: the workspace passed in, and the map alone
        bufs, pre_path = found[0], found[1]
        ops.update(bufs)
        pre = fa_rt.gpu_runtime.RuntimeBundle(pre_path)
        pre_ops = {r: ops[r] for r in ["query", "key", "value", *bufs]}
        pre_ops.update(captures_of(cfg_name, caps))
        map_launch = fa_rt.launcher(pre, {r: cm.rt(t) for r, t in pre_ops.items()},
                                    keep=(pre, bufs))
    rt = fa_rt.gpu_runtime.RuntimeBundle(path)
    sequence = fa_rt.launcher(rt, {r: cm.rt(t) for r, t in ops.items()}, keep=(rt, ops))
    if not map_launch:
        return sequence, ops, None, sequence

    def rebuilt():  # map, then the sequence with it
        map_launch()
        sequence()
    return rebuilt, ops, map_launch, sequence


def ours(cfg_name, folder, q, k, v, caps):
    """Our forward: a launcher (the map rebuilt per call), its output, the
    block map's launcher alone and the launcher of the forward with the
    map built before (both None unless block-sparse)."""
    launch, ops, map_launch, prebuilt = forward_launch(cfg_name, folder, q, k, v, caps)
    return launch, ops["output"], map_launch, (prebuilt if map_launch else None)


def grad_output_like(o):
    """The backward rows' dO: one for every implementation."""
    g = torch.Generator(device="cuda").manual_seed(17)
    return torch.randn(o.shape, device="cuda", generator=g, dtype=o.dtype)


def ours_backward(cfg_name, folder, q, k, v, caps):
    """Our backward sequence of `cfg_name` after our forward: a launcher of
    the sequence (its workspace from torch; a block-sparse one's map
    rebuilt per call: its map kernel launched alone, then the sequence with
    the map passed, which skips its own), its dQ, the map kernel's launcher
    alone and the sequence's with the map built before (None, None unless
    block-sparse)."""
    launch_fwd, fwd, _, _ = forward_launch(cfg_name, folder, q, k, v, caps)
    launch_fwd()
    seq_dir = os.path.join(folder, cfg_name + "_bwd")
    seqs = [p for p in glob.glob(os.path.join(seq_dir, "*.json"))
            if json.load(open(p)).get("format") == "fa-kernel-sequence"]
    if len(seqs) != 1:
        raise peers.Unavailable(f"no backward sequence for {cfg_name}")
    meta = json.load(open(seqs[0]))
    b, h, n, d = q.shape
    sym = dict(batch=b, heads_q=h, heads_kv=k.shape[1], seq_q=n, seq_k=k.shape[2],
               head_dim=d, head_dim_v=v.shape[3])
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    ops = dict(grad_output=grad_output_like(fwd["output"]), query=q, key=k, value=v,
               output=fwd["output"], lse=fwd["lse"], grad_query=dq, grad_key=dk,
               grad_value=dv)
    for w in meta["workspace"]:
        shape = [cb.evaluate(e, sym) for e in w["shape"]]
        ops[w["name"]] = torch.empty(shape, dtype=cb.DTYPES[w["dtype"]], device="cuda")
    ops.update(captures_of(cfg_name, caps))
    rt = fa_rt.gpu_runtime.RuntimeBundle(seqs[0])
    sequence = fa_rt.launcher(rt, {r: cm.rt(t) for r, t in ops.items()}, keep=(rt, ops))
    writers = {w["written_by"] for w in meta["workspace"] if "written_by" in w}
    if not writers:
        return sequence, dq, None, None
    (writer,) = writers
    pre = fa_rt.gpu_runtime.RuntimeBundle(os.path.join(seq_dir, meta["kernels"][writer]))
    kept = {w["name"] for w in meta["workspace"] if w.get("written_by") == writer}
    pre_ops = {r: t for r, t in ops.items() if r in kept or r in ("query", "key", "value")
               or r.startswith("capture")}
    map_launch = fa_rt.launcher(pre, {r: cm.rt(t) for r, t in pre_ops.items()},
                                keep=(pre, pre_ops))

    def rebuilt():  # map, then the sequence with it
        map_launch()
        sequence()
    return rebuilt, dq, map_launch, sequence


def autograd_backward(forward):
    """A timing call of the backward of `forward(q, k, v)` (a peer's, on
    leaves that require grad) and a holder of its dQ."""
    def prepare(mask, score, q, k, v, caps):
        leaves = [t.detach().requires_grad_() for t in (q, k, v)]
        call, holder = forward(mask, score, *leaves, caps)
        out = call()
        do = grad_output_like(out)
        grads = {}

        def backward():
            grads["o"] = torch.autograd.grad(out, leaves, do, retain_graph=True)[0]
            return grads["o"]
        backward()
        return backward, grads
    return prepare


_flex = {}


def flex(mask, score, q, k, v, caps):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    if "compiled" not in _flex:
        from torch import _dynamo
        _dynamo.config.recompile_limit = 1000
        _dynamo.config.accumulated_recompile_limit = 10000
        _flex["compiled"] = torch.compile(flex_attention, dynamic=False)
    keep = keep_fn(mask, caps)
    b, _, n, _ = q.shape
    block_mask = create_block_mask(keep, b, None, n, n, device="cuda") if keep else None
    score_mod = None
    if score == "alibi":
        sl = caps["slopes"]

        def score_mod(s, bi, h, i, j):
            return s + sl[h] * (j - i).to(s.dtype)
    elif score == "t5":
        def score_mod(s, bi, h, i, j):  # the bucketed table read, as ours
            return gm.torch_t5(s, bi, h, i, j, caps)
    o = {}

    def call():
        o["o"] = _flex["compiled"](q, k, v, score_mod=score_mod, block_mask=block_mask)
        return o["o"]
    call()
    return call, o


_fa4_mods = {}


def fa4_mods():
    """FA4's cute.jit score_mod (ALiBi) and mask_mods reading aux_tensors:
    slopes [H] f32, document ids [B, N] i32, prefix lengths [B] i32."""
    if not _fa4_mods:
        import cutlass
        import cutlass.cute as cute

        def scalar(x, ty=cutlass.Int32):
            r = cute.make_rmem_tensor(1, ty)
            r.store(x)
            return r[0]

        @cute.jit
        def alibi(score, b_idx, h_idx, q_idx, kv_idx, seqlen_info, aux_tensors):
            slope = cute.make_rmem_tensor(1, cutlass.Float32)
            slope[0] = aux_tensors[0][scalar(h_idx)]
            dist = cute.make_rmem_tensor(1, cutlass.Float32)
            dist[0] = (scalar(kv_idx) - scalar(q_idx)).to(cutlass.Float32)
            return score + slope.load() * dist.load()

        # FA4's backward takes the derivative as its own function: ALiBi adds
        # a constant per (h, q, k), so d score_mod / d score is 1.
        @cute.jit
        def alibi_bwd(grad, score, b_idx, h_idx, q_idx, kv_idx, seqlen_info, aux_tensors):
            return grad

        # A mask_mod returns a TensorSSA (FA4 indexes its result; a
        # Boolean scalar failed with "'Boolean' object is not subscriptable"
        # in 2026-12-06's runs): comparisons of the index TensorSSAs and of
        # loaded ids made TensorSSAs, as FA4's own mask_definitions.py does.
        def ssa(x, ty=cutlass.Int32):
            r = cute.make_rmem_tensor(1, ty)
            r[0] = x
            return r.load()

        def same_doc(b_idx, q_idx, kv_idx, docs):
            b = scalar(b_idx)
            return ssa(docs[b, scalar(q_idx)]) == ssa(docs[b, scalar(kv_idx)])

        @cute.jit
        def document(b_idx, h_idx, q_idx, kv_idx, seqlen_info, aux_tensors):
            return same_doc(b_idx, q_idx, kv_idx, aux_tensors[len(aux_tensors) - 1])

        @cute.jit
        def document_causal(b_idx, h_idx, q_idx, kv_idx, seqlen_info, aux_tensors):
            return (kv_idx <= q_idx) & same_doc(b_idx, q_idx, kv_idx,
                                                aux_tensors[len(aux_tensors) - 1])

        @cute.jit
        def prefix(b_idx, h_idx, q_idx, kv_idx, seqlen_info, aux_tensors):
            return (kv_idx <= q_idx) | (kv_idx < ssa(aux_tensors[len(aux_tensors) - 1][scalar(b_idx)]))

        @cute.jit
        def causal(b_idx, h_idx, q_idx, kv_idx, seqlen_info, aux_tensors):
            return kv_idx <= q_idx

        _fa4_mods.update(alibi=alibi, alibi_bwd=alibi_bwd, document=document, document_causal=document_causal,
                         prefix=prefix, causal=causal)
    return _fa4_mods


def fa4_block_sparsity(f, mask, caps, q):
    """FA4's block-sparse tensors for `mask` from Flex's BlockMask (128x128
    blocks), where FA4's interface takes them: (forward's KV-direction,
    backward's Q-direction); None otherwise (then FA4 evaluates every tile,
    and the row's note says so). A block size that does not match FA4's
    tile shows up as a wrong result in the diff."""
    keep = keep_fn(mask, caps) if mask != "causal" else None
    if keep is None or "block_sparse_tensors" not in inspect.signature(f).parameters:
        return None
    try:
        from flash_attn.cute.block_sparsity import BlockSparseTensorsTorch
    except ImportError:
        return None
    from torch.nn.attention.flex_attention import create_block_mask
    b, _, n, _ = q.shape
    bm = create_block_mask(keep, b, None, n, n, device="cuda", BLOCK_SIZE=128)
    kw = {}
    if "block_size" in BlockSparseTensorsTorch._fields:  # FA4 asks for it
        kw["block_size"] = (128, 128)
    try:
        fwd = BlockSparseTensorsTorch(
            mask_block_cnt=bm.kv_num_blocks, mask_block_idx=bm.kv_indices,
            full_block_cnt=bm.full_kv_num_blocks, full_block_idx=bm.full_kv_indices, **kw)
        bwd = BlockSparseTensorsTorch(
            mask_block_cnt=bm.q_num_blocks, mask_block_idx=bm.q_indices,
            full_block_cnt=bm.full_q_num_blocks, full_block_idx=bm.full_q_indices, **kw)
    except TypeError as ex:  # another FA4 version's fields
        print(f"# fa4 block sparsity not passed: {ex}")
        return None
    return fwd, bwd


def fa4(mask, score, q, k, v, caps):
    f = peers.fa4_func()
    qs, ks, vs = (t.transpose(1, 2).contiguous() for t in (q, k, v))
    mods = fa4_mods()
    kw = {}
    aux = []  # ALiBi reads aux 0, a mask_mod the last one
    if score == "t5":
        raise peers.Unavailable("unsupported: no T5 score_mod is written for FA4 here")
    if score == "alibi":
        kw.update(score_mod=mods["alibi"], score_mod_bwd=mods["alibi_bwd"])
        aux.append(caps["slopes"])
    if mask in ("document", "document_causal"):
        kw.update(mask_mod=mods[mask])
        aux.append(caps["docs"])
    elif mask == "prefix":
        kw.update(mask_mod=mods["prefix"])
        aux.append(caps["prefix"])
    elif mask == "causal":
        kw.update(causal=True)  # FA4's own causal: its fastest form of this row
    if aux:
        kw.update(aux_tensors=aux)
    sparse = fa4_block_sparsity(f, mask, caps, q)
    if sparse is not None:
        kw.update(block_sparse_tensors=sparse[0])
        if "block_sparse_tensors_bwd" in inspect.signature(f).parameters:
            kw.update(block_sparse_tensors_bwd=sparse[1])
    o = {}

    def call():
        out = f(qs, ks, vs, **kw)
        o["o"] = (out[0] if isinstance(out, tuple) else out).transpose(1, 2)
        return o["o"]
    call()
    return call, o


def time_ms(call):
    return do_bench(call, warmup=25, rep=100, return_mode="median")


def main(argv):
    folder, out_path = argv[1], argv[2]
    quick = os.environ.get("MODS_QUICK")
    peer_names = os.environ.get("PEERS", "flex,fa4").split(",")
    rows = []
    directions = {"fwd": (ours, flex, fa4),
                  "bwd": (ours_backward, autograd_backward(flex), autograd_backward(fa4))}
    only = [r for r in os.environ.get("MODS_ROWS", "").split(",") if r]
    for (row, (cfg_name, mask, score)), direction in (
            (r, d) for d in directions for r in ROWS.items() if not only or r[0] in only):
        if direction == "bwd" and (row == "causal_attribute" or quick == "2"):
            continue
        run_ours, run_flex, run_fa4 = directions[direction]
        for n in SHAPES[row]:
            if quick and n != 4096 and len(SHAPES[row]) > 1:
                continue
            q, k, v, caps = inputs(n)
            b = q.shape[0]
            pairs = visible_pairs(mask, caps, b, n)  # over all b rows
            flops = 4 * H_TOTAL * D * pairs * (2.5 if direction == "bwd" else 1)
            results = {}
            try:
                launch, o_ours, map_launch, prebuilt = run_ours(cfg_name, folder, q, k, v,
                                                                caps)
                launch()  # also builds the map the prebuilt launches reuse
                torch.cuda.synchronize()
                results["ours"] = (time_ms(launch), o_ours, "ok" if not map_launch else
                                   "map rebuilt per call")
                if prebuilt:
                    results["ours_prebuilt"] = (time_ms(prebuilt), o_ours,
                                                "map built once (block_mask)")
                if map_launch:
                    results["ours_map"] = (time_ms(map_launch), None, "block map alone")
            except Exception as ex:  # noqa: BLE001
                results["ours"] = (float("nan"), None, f"fail {type(ex).__name__}: {ex}"[:120])
            for name, prep in (("flex", run_flex), ("fa4", run_fa4)):
                if name not in peer_names or row == "causal_attribute":
                    continue
                try:
                    call, holder = prep(mask, score, q, k, v, caps)
                    torch.cuda.synchronize()
                    results[name] = (time_ms(call), holder["o"], "ok")
                except peers.Unavailable as ex:
                    results[name] = (float("nan"), None, str(ex)[:120])
                except Exception as ex:  # noqa: BLE001
                    results[name] = (float("nan"), None, f"fail {type(ex).__name__}: {ex}"[:120])
            ref = results["ours"][1]
            for name, (ms, o, status) in results.items():
                tf = flops / ms / 1e9 if ms == ms and name != "ours_map" else float("nan")
                diff = ((o.float() - ref.float()).abs().max().item()
                        if o is not None and ref is not None else float("nan"))
                rows.append([row, n, b, name, f"{ms:.4f}", f"{tf:.1f}", f"{diff:.3g}", status,
                             direction])
                print(f"{row:17s} {direction} N={n:6d} {name:5s} {ms:8.4f} ms {tf:7.1f} "
                      f"TFLOP/s diff {diff:.3g} {status}", flush=True)
    # Ratios: ours over each peer and mask_mod causal over the attribute.
    by = {(r[8], r[0], r[1], r[3]): float(r[5]) for r in rows}
    print("\nratios (ours / peer):")
    for (direction, row, n, name), tf in sorted(by.items()):
        if name in ("ours", "ours_map", "ours_prebuilt"):
            continue
        for mine in ("ours", "ours_prebuilt"):
            ours_tf = by.get((direction, row, n, mine), float("nan"))
            if mine != "ours" and ours_tf != ours_tf:
                continue  # not block-sparse: one "ours"
            label = f"  {row:17s} {direction} N={n:6d} {mine}/{name}:"
            print(f"{label} {ours_tf / tf:.3f}" if tf == tf and tf else f"{label} -")
    for n in SHAPES["causal_mask_mod"]:
        a = by.get(("fwd", "causal_attribute", n, "ours"))
        m = by.get(("fwd", "causal_mask_mod", n, "ours"))
        if a and m:
            print(f"  mask_mod causal / causal attribute N={n}: {m / a:.3f} (floor 0.95)")
    with open(out_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["row", "seqlen", "batch", "impl", "ms", "tflops", "maxdiff_vs_ours",
                    "status", "direction"])
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
