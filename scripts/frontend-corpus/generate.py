#!/usr/bin/env python3
"""Writes the frontend corpus: tiny random-weight Hugging Face models exported
by torch-mlir, as a new user would export them, with PyTorch's outputs.

    bash scripts/frontend-corpus/setup-venv.sh          # once
    .venv-frontend/bin/python scripts/frontend-corpus/generate.py [models...]

For every model (a config built here, no download) and every
  attn_implementation  eager | sdpa
  output_type          linalg-on-tensors | tosa
  element type         f32 | bf16 (decoders)
it writes test/Frontends/corpus/<model>.<impl>.<dtype>.<linalg|tosa>.mlir
through `torch_mlir.fx.export_and_import`, and for sdpa also
<model>.sdpa-whole.<dtype>.linalg.mlir with sdpa kept whole (torch-mlir then
emits `tm_tensor.attention`). The weights are function arguments (as in
exports with external parameters), computed from the hash of
test/lib/corpus_inputs.py; token ids, masks and PyTorch's results are saved
in <model>.<dtype>.npz; manifest.json describes the arguments and the
attention layers each model has (what the raise must find). The tests read
only the committed files: nothing here runs in CI.
"""
import argparse
import contextlib
import json
import os
import sys
import traceback

import numpy as np
import torch
import transformers
from torch.func import functional_call
from torch_mlir import fx
from torch_mlir.extras.fx_decomp_util import get_decomposition_table

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "test", "lib"))
sys.path.insert(0, os.path.join(ROOT, "python"))
import corpus_inputs  # noqa: E402

OUT = corpus_inputs.CORPUS_DIR
BATCH, SEQ, VOCAB = 3, 10, 64
# Small enough for the corpus, large enough that masks, windows and GQA show:
# 4 query heads of 8, 2 kv heads, a window of 4 keys over 10 positions; batch
# 3, so that every dimension of a Q, K or V type tells its role.
SMALL = dict(hidden=32, heads=4, kv_heads=2, inter=64, layers=2, window=4)
TORCH_DTYPE = {"f32": torch.float32, "bf16": torch.bfloat16}
MLIR_DTYPE = {torch.float32: "f32", torch.bfloat16: "bf16",
              torch.int64: "i64", torch.bool: "i1", torch.int32: "i32"}


def default_scale(cfg):
    """1/sqrt(head_dim): every corpus model has head_dim hidden / heads."""
    return (SMALL["hidden"] // SMALL["heads"]) ** -0.5


def decoder_inputs(rng, padded):
    ids = torch.from_numpy(rng.integers(0, VOCAB, (BATCH, SEQ)))
    if not padded:
        return dict(input_ids=ids)
    # Left padding of the second sequence (3 tokens), as batched generation.
    mask = torch.ones(BATCH, SEQ, dtype=torch.int64)
    mask[1, :3] = 0
    return dict(input_ids=ids, attention_mask=mask)


def encoder_inputs(rng, padded):
    ids = torch.from_numpy(rng.integers(0, VOCAB, (BATCH, SEQ)))
    if not padded:
        return dict(input_ids=ids)
    # Right padding of the second sequence (3 tokens).
    mask = torch.ones(BATCH, SEQ, dtype=torch.int64)
    mask[1, -3:] = 0
    return dict(input_ids=ids, attention_mask=mask)


def _llama_like(cls_cfg, cls_model, **extra):
    def build(impl):
        c = SMALL
        cfg = cls_cfg(vocab_size=VOCAB, hidden_size=c["hidden"],
                      intermediate_size=c["inter"],
                      num_hidden_layers=c["layers"],
                      num_attention_heads=c["heads"],
                      num_key_value_heads=c["kv_heads"],
                      max_position_embeddings=64, attn_implementation=impl,
                      **extra)
        return cfg, cls_model
    return build


def _expect_decoder(cfg):
    heads = cfg.num_attention_heads
    kv = getattr(cfg, "num_key_value_heads", None) or heads
    w = getattr(cfg, "sliding_window", None)
    types = getattr(cfg, "layer_types", None)
    out = []
    for i in range(cfg.num_hidden_layers):
        sliding = w is not None and (types is None or
                                     types[i] == "sliding_attention")
        out.append(dict(causal=True, window=[w - 1, 0] if sliding else None,
                        heads=heads, kv_heads=kv))
    return out


def _expect_encoder(n_attr="num_hidden_layers", h_attr="num_attention_heads"):
    def f(cfg):
        return [dict(causal=False, window=None, heads=getattr(cfg, h_attr),
                     kv_heads=getattr(cfg, h_attr))
                for _ in range(getattr(cfg, n_attr))]
    return f


def gpt2(impl):
    c = SMALL
    return transformers.GPT2Config(
        vocab_size=VOCAB, n_positions=64, n_embd=c["hidden"],
        n_layer=c["layers"], n_head=c["heads"], n_inner=c["inter"],
        bos_token_id=0, eos_token_id=0, attn_implementation=impl), \
        transformers.GPT2Model


def gpt2_expect(cfg):
    return [dict(causal=True, window=None, heads=cfg.n_head,
                 kv_heads=cfg.n_head) for _ in range(cfg.n_layer)]


def bert_like(cfg_cls, model_cls):
    def build(impl):
        c = SMALL
        return cfg_cls(vocab_size=VOCAB, hidden_size=c["hidden"],
                       num_hidden_layers=c["layers"],
                       num_attention_heads=c["heads"],
                       intermediate_size=c["inter"],
                       max_position_embeddings=64, pad_token_id=0,
                       attn_implementation=impl), model_cls
    return build


def t5(impl):
    c = SMALL
    return transformers.T5Config(
        vocab_size=VOCAB, d_model=c["hidden"], d_kv=c["hidden"] // c["heads"],
        d_ff=c["inter"], num_layers=c["layers"],
        num_decoder_layers=c["layers"], num_heads=c["heads"],
        relative_attention_num_buckets=8,
        relative_attention_max_distance=16, decoder_start_token_id=0,
        pad_token_id=0, eos_token_id=1,
        attn_implementation=impl), transformers.T5Model


def t5_expect(cfg):
    h = cfg.num_heads
    # Self-attention adds the relative position bias; cross-attention
    # does not.
    enc = [dict(causal=False, window=None, heads=h, kv_heads=h,
                position_bias=True) for _ in range(cfg.num_layers)]
    dec = []
    for _ in range(cfg.num_decoder_layers):
        dec.append(dict(causal=True, window=None, heads=h, kv_heads=h,
                        position_bias=True))
        dec.append(dict(causal=False, window=None, heads=h, kv_heads=h,
                        position_bias=False))
    return enc + dec


def t5_inputs(rng, padded):
    d = encoder_inputs(rng, padded)
    d["decoder_input_ids"] = torch.from_numpy(
        rng.integers(0, VOCAB, (BATCH, SEQ)))
    return d


def gemma2(impl):
    c = SMALL
    return transformers.Gemma2Config(
        vocab_size=VOCAB, hidden_size=c["hidden"],
        intermediate_size=c["inter"], num_hidden_layers=c["layers"],
        num_attention_heads=c["heads"], num_key_value_heads=c["kv_heads"],
        head_dim=c["hidden"] // c["heads"], query_pre_attn_scalar=8,
        sliding_window=c["window"], attn_logit_softcapping=50.0,
        final_logit_softcapping=30.0, max_position_embeddings=64,
        attn_implementation=impl), transformers.Gemma2Model


def gemma2_expect(cfg):
    out = _expect_decoder(cfg)
    for l in out:
        l["softcap"] = cfg.attn_logit_softcapping
    return out


def _expect_causal(layers, heads, kv_heads=None):
    """Causal self-attention in every layer (decoders without windows)."""
    def f(cfg):
        h = getattr(cfg, heads)
        kv = kv_heads(cfg) if kv_heads else h
        return [dict(causal=True, window=None, heads=h, kv_heads=kv)
                for _ in range(getattr(cfg, layers))]
    return f


def gpt_bigcode(impl):
    c = SMALL
    return transformers.GPTBigCodeConfig(
        vocab_size=VOCAB, n_positions=64, n_embd=c["hidden"],
        n_layer=c["layers"], n_head=c["heads"], n_inner=c["inter"],
        multi_query=True, bos_token_id=0, eos_token_id=0, pad_token_id=0,
        attn_implementation=impl), transformers.GPTBigCodeModel


def bloom(impl):
    c = SMALL
    return transformers.BloomConfig(
        vocab_size=VOCAB, hidden_size=c["hidden"], n_layer=c["layers"],
        n_head=c["heads"], bos_token_id=0, eos_token_id=0, pad_token_id=0,
        attn_implementation=impl), transformers.BloomModel


def opt(impl):
    c = SMALL
    return transformers.OPTConfig(
        vocab_size=VOCAB, hidden_size=c["hidden"],
        num_hidden_layers=c["layers"], ffn_dim=c["inter"],
        max_position_embeddings=64, num_attention_heads=c["heads"],
        word_embed_proj_dim=c["hidden"], bos_token_id=0, eos_token_id=0,
        pad_token_id=0, attn_implementation=impl), transformers.OPTModel


def gpt_neox(impl):
    c = SMALL
    return transformers.GPTNeoXConfig(
        vocab_size=VOCAB, hidden_size=c["hidden"],
        num_hidden_layers=c["layers"], num_attention_heads=c["heads"],
        intermediate_size=c["inter"], max_position_embeddings=64,
        bos_token_id=0, eos_token_id=0, pad_token_id=0,
        attn_implementation=impl), transformers.GPTNeoXModel


def vit(impl):
    c = SMALL
    return transformers.ViTConfig(
        hidden_size=c["hidden"], num_hidden_layers=c["layers"],
        num_attention_heads=c["heads"], intermediate_size=c["inter"],
        image_size=16, patch_size=8, num_channels=3,
        attn_implementation=impl), transformers.ViTModel


def vit_inputs(rng, padded):
    return dict(pixel_values=torch.from_numpy(
        rng.standard_normal((BATCH, 3, 16, 16)).astype(np.float32)))


def falcon_alibi(impl):
    c = SMALL
    return transformers.FalconConfig(
        vocab_size=VOCAB, hidden_size=c["hidden"],
        num_hidden_layers=c["layers"], num_attention_heads=c["heads"],
        alibi=True, max_position_embeddings=64, bos_token_id=0,
        eos_token_id=0, pad_token_id=0,
        attn_implementation=impl), transformers.FalconModel


def gpt_neo(impl):
    c = SMALL
    # A global and a local (windowed) layer; GPT-Neo does not scale.
    return transformers.GPTNeoConfig(
        vocab_size=VOCAB, hidden_size=c["hidden"],
        num_layers=c["layers"], num_heads=c["heads"],
        intermediate_size=c["inter"], max_position_embeddings=64,
        attention_types=[[["global", "local"], 1]],
        window_size=c["window"], bos_token_id=0, eos_token_id=0,
        pad_token_id=0, attn_implementation=impl), transformers.GPTNeoModel


def gpt_neo_expect(cfg):
    return [dict(causal=True,
                 window=[cfg.window_size - 1, 0] if t == "local" else None,
                 heads=cfg.num_heads, kv_heads=cfg.num_heads)
            for t in cfg.attention_layers]


def xglm(impl):
    c = SMALL
    return transformers.XGLMConfig(
        vocab_size=VOCAB, d_model=c["hidden"], num_layers=c["layers"],
        attention_heads=c["heads"], ffn_dim=c["inter"],
        max_position_embeddings=64, bos_token_id=0, eos_token_id=0,
        pad_token_id=0, attn_implementation=impl), transformers.XGLMModel


def mpt(impl):
    c = SMALL
    return transformers.MptConfig(
        vocab_size=VOCAB, d_model=c["hidden"], n_layers=c["layers"],
        n_heads=c["heads"], max_seq_len=64,
        attn_implementation=impl), transformers.MptModel


def modernbert(impl):
    c = SMALL
    # Layer 0 global, layer 1 local: a bidirectional window of 4 keys.
    return transformers.ModernBertConfig(
        vocab_size=VOCAB, hidden_size=c["hidden"],
        num_hidden_layers=c["layers"], num_attention_heads=c["heads"],
        intermediate_size=c["inter"], max_position_embeddings=64,
        local_attention=c["window"], global_attn_every_n_layers=2,
        pad_token_id=0, bos_token_id=0, eos_token_id=0, cls_token_id=0,
        sep_token_id=0, attn_implementation=impl), \
        transformers.ModernBertModel


def modernbert_expect(cfg):
    half = cfg.local_attention // 2
    return [dict(causal=False,
                 window=None if i % cfg.global_attn_every_n_layers == 0
                 else [half, half],
                 heads=cfg.num_attention_heads,
                 kv_heads=cfg.num_attention_heads)
            for i in range(cfg.num_hidden_layers)]


MODELS = {
    "gpt2": dict(build=gpt2, inputs=decoder_inputs, expect=gpt2_expect,
                 decoder=True),
    "bert": dict(build=bert_like(transformers.BertConfig,
                                 transformers.BertModel),
                 inputs=encoder_inputs, expect=_expect_encoder(),
                 decoder=False),
    "bert-padded": dict(build=bert_like(transformers.BertConfig,
                                        transformers.BertModel),
                        inputs=encoder_inputs, expect=_expect_encoder(),
                        decoder=False, padded=True),
    "llama": dict(build=_llama_like(transformers.LlamaConfig,
                                    transformers.LlamaModel),
                  inputs=decoder_inputs, expect=_expect_decoder, decoder=True),
    "llama-padded": dict(build=_llama_like(transformers.LlamaConfig,
                                           transformers.LlamaModel),
                         inputs=decoder_inputs, expect=_expect_decoder,
                         decoder=True, padded=True),
    "mistral": dict(build=_llama_like(transformers.MistralConfig,
                                      transformers.MistralModel,
                                      sliding_window=SMALL["window"]),
                    inputs=decoder_inputs, expect=_expect_decoder,
                    decoder=True),
    "gemma2": dict(build=gemma2, inputs=decoder_inputs, expect=gemma2_expect,
                   decoder=True,
                   scale=lambda c: c.query_pre_attn_scalar ** -0.5),
    # T5 does not scale the scores.
    "t5": dict(build=t5, inputs=t5_inputs, expect=t5_expect, decoder=False,
               scale=lambda c: 1.0, position_bias=True),
    "qwen2": dict(build=_llama_like(transformers.Qwen2Config,
                                    transformers.Qwen2Model),
                  inputs=decoder_inputs, expect=_expect_decoder, decoder=True),
    "phi3": dict(build=_llama_like(transformers.Phi3Config,
                                   transformers.Phi3Model,
                                   pad_token_id=0, bos_token_id=0,
                                   eos_token_id=0),
                 inputs=decoder_inputs, expect=_expect_decoder, decoder=True),
    "qwen3": dict(build=_llama_like(transformers.Qwen3Config,
                                    transformers.Qwen3Model, head_dim=8),
                  inputs=decoder_inputs, expect=_expect_decoder, decoder=True),
    "olmo2": dict(build=_llama_like(transformers.Olmo2Config,
                                    transformers.Olmo2Model, pad_token_id=0,
                                    bos_token_id=0, eos_token_id=0),
                  inputs=decoder_inputs, expect=_expect_decoder, decoder=True),
    "starcoder2": dict(build=_llama_like(transformers.Starcoder2Config,
                                         transformers.Starcoder2Model,
                                         sliding_window=SMALL["window"]),
                       inputs=decoder_inputs, expect=_expect_decoder,
                       decoder=True),
    "roberta": dict(build=bert_like(transformers.RobertaConfig,
                                    transformers.RobertaModel),
                    inputs=encoder_inputs, expect=_expect_encoder(),
                    decoder=False),
    # Multi-query attention: one kv head.
    "gpt_bigcode": dict(build=gpt_bigcode, inputs=decoder_inputs,
                        expect=_expect_causal("n_layer", "n_head",
                                              lambda c: 1),
                        decoder=True),
    # ALiBi: a per-head linear position bias.
    "bloom": dict(build=bloom, inputs=decoder_inputs,
                  expect=_expect_causal("n_layer", "n_head"), decoder=True,
                  position_bias=True),
    "opt": dict(build=opt, inputs=decoder_inputs,
                expect=_expect_causal("num_hidden_layers",
                                      "num_attention_heads"), decoder=True),
    "gpt_neox": dict(build=gpt_neox, inputs=decoder_inputs,
                     expect=_expect_causal("num_hidden_layers",
                                           "num_attention_heads"),
                     decoder=True),
    # 4 patches and the class token.
    "vit": dict(build=vit, inputs=vit_inputs, expect=_expect_encoder(),
                decoder=False, seq=5),
    # Found by sweep.py (architectures outside the corpus), f32 only.
    # Falcon with ALiBi: the bias added before the norm factor, one kv head.
    "falcon": dict(build=falcon_alibi, inputs=decoder_inputs,
                   expect=_expect_causal("num_hidden_layers",
                                         "num_attention_heads",
                                         lambda c: 1),
                   decoder=True, dtypes=["f32"], position_bias=True),
    # Causal and local buffers printed as dense_resource blobs; scale 1.
    "gpt_neo": dict(build=gpt_neo, inputs=decoder_inputs,
                    expect=gpt_neo_expect, decoder=True, dtypes=["f32"],
                    scale=lambda c: 1.0),
    # Scores clamped at finfo.min after the mask.
    "xglm": dict(build=xglm, inputs=decoder_inputs,
                 expect=_expect_causal("num_layers", "attention_heads"),
                 decoder=True, dtypes=["f32"]),
    # ALiBi, and a boolean causal mask every layer selects with.
    "mpt": dict(build=mpt, inputs=decoder_inputs,
                expect=_expect_causal("n_layers", "n_heads"), decoder=True,
                dtypes=["f32"], position_bias=True),
    # An encoder with a bidirectional sliding window on alternate layers.
    "modernbert": dict(build=modernbert, inputs=encoder_inputs,
                       expect=modernbert_expect, decoder=False),
}


def sdpa_contiguous_table(base):
    """The decomposition table with sdpa's output made contiguous: PyTorch's
    decomposition of _scaled_dot_product_flash_attention_for_cpu returns a
    tensor strided like [B, S, H, D], on which a later `view` (GPT-2's
    Conv1D) fails to re-trace. A clone (a copy in the IR) keeps the export
    going; used only when the plain export fails, and recorded."""
    aten = torch.ops.aten
    table = dict(base)
    orig = table[aten._scaled_dot_product_flash_attention_for_cpu.default]

    def sdpa_cpu(*a, **k):
        r = orig(*a, **k)
        return (aten.clone.default(r[0], memory_format=torch.contiguous_format),
                ) + tuple(r[1:])
    table[aten._scaled_dot_product_flash_attention_for_cpu.default] = sdpa_cpu
    return table


def whole_sdpa_table(base):
    """The decomposition table without sdpa's decompositions: torch-mlir then
    lowers aten.scaled_dot_product_attention to tm_tensor.attention."""
    aten = torch.ops.aten
    drop = {aten.scaled_dot_product_attention.default,
            aten._scaled_dot_product_flash_attention_for_cpu.default,
            aten._scaled_dot_product_attention_math.default}
    return {k: v for k, v in base.items() if k not in drop}


def weight_spec(name, p, module_types, seed):
    """(scale, offset) of a weight: norms around 1, biases small, matrices
    with unit-variance outputs (1/sqrt(fan_in)), embeddings of unit scale."""
    owner = name.rsplit(".", 1)[0]
    mtype = module_types.get(owner, "")
    last = name.rsplit(".", 1)[-1]
    if "norm" in mtype.lower() or "norm" in owner.lower() or "ln" in \
            owner.split(".")[-1]:
        return (0.1, 1.0) if last == "weight" else (0.1, 0.0)
    if last == "bias":
        return 0.1, 0.0
    if "Embedding" in mtype or p.dim() < 2 or "embed" in name or \
            "relative_attention_bias" in name:
        return 1.0, 0.0
    # nn.Linear and convolutions: [out, in, ...]; GPT-2's Conv1D: [in, out].
    fan_in = p.shape[0] if mtype == "Conv1D" else int(np.prod(p.shape[1:]))
    return fan_in ** -0.5, 0.0


class Wrapper(torch.nn.Module):
    """forward(*inputs, *weights) -> the model's first output, with the
    weights as arguments (functional_call)."""

    def __init__(self, model, input_names, weight_names, use_cache):
        super().__init__()
        self.model = model
        self.use_cache = use_cache
        self.input_names = input_names
        self.weight_names = weight_names

    def forward(self, *args):
        n = len(self.input_names)
        kwargs = dict(zip(self.input_names, args[:n]))
        if self.use_cache:
            kwargs["use_cache"] = False
        weights = dict(zip(self.weight_names, args[n:]))
        return functional_call(self.model, weights, (), kwargs)[0]


@contextlib.contextmanager
def float64_softmax():
    """softmax(x, dtype=float32) on a float64 x computes in float64: eager
    attention upcasts its scores to float32 for the softmax (Llama's
    `softmax(w, dim=-1, dtype=torch.float32)`), which in the float64
    reference turns finfo(float64).min mask fills into -inf, and the rows a
    left-padded mask hides entirely into NaN (uniform, the mean of V, in
    the program the reference stands for)."""
    f = torch.nn.functional
    softmax = f.softmax

    def wide(x, dim=None, _stacklevel=3, dtype=None):
        if x.dtype == torch.float64 and dtype is not None:
            dtype = torch.float64
        return softmax(x, dim=dim, _stacklevel=_stacklevel, dtype=dtype)

    f.softmax = wide
    try:
        yield
    finally:
        f.softmax = softmax


def build_model(name, spec, impl, dtype):
    cfg, cls = spec["build"](impl)
    torch.manual_seed(0)
    model = cls(cfg).eval()
    # Non-persistent buffers (rotary inv_freq) as constants of the program:
    # the frozen import only sees buffers in the state dict.
    for m in model.modules():
        m._non_persistent_buffers_set.clear()
    model = model.to(TORCH_DTYPE[dtype])
    return cfg, model


def model_arguments(name, spec, model, dtype, rng_seed):
    """(input names, input tensors, weight names, weight tensors, arg specs)."""
    rng = np.random.default_rng(rng_seed)
    inputs = spec["inputs"](rng, spec.get("padded", False))
    if "pixel_values" in inputs:
        inputs["pixel_values"] = inputs["pixel_values"].to(TORCH_DTYPE[dtype])
    module_types = {n: type(m).__name__ for n, m in model.named_modules()}
    args, wnames, weights = [], [], []
    for iname, t in inputs.items():
        args.append(dict(name=iname, shape=list(t.shape),
                         dtype=MLIR_DTYPE[t.dtype], saved=iname))
    for i, (pname, p) in enumerate(model.named_parameters()):
        scale, offset = weight_spec(pname, p, module_types, i)
        seed = 1000 + i
        x = corpus_inputs.uniform(seed, list(p.shape), scale, offset)
        t = torch.from_numpy(x.astype(np.float32)).to(p.dtype)
        wnames.append(pname)
        weights.append(t)
        args.append(dict(name=pname, shape=list(p.shape),
                         dtype=MLIR_DTYPE[p.dtype], seed=seed, scale=scale,
                         offset=offset))
    return list(inputs), list(inputs.values()), wnames, weights, args


def export(wrapper, tensors, output_type, table, func_name):
    module = fx.export_and_import(wrapper, *tensors, output_type=output_type,
                                  func_name=func_name,
                                  decomposition_table=table)
    return str(module)


def variant_name(model, impl, dtype, dialect):
    return f"{model}.{impl}.{dtype}.{dialect}"


def uses_cache(name, spec):
    """Whether the model's forward takes `use_cache` (set to False: no KV
    cache in the exported program)."""
    return spec.get("use_cache", spec["decoder"] or name == "t5")


def generate(name, spec, manifest, log):
    dtypes_ = spec.get("dtypes", ["f32", "bf16"] if spec["decoder"]
                       else ["f32"])
    base = get_decomposition_table()
    entry = manifest.setdefault(name, {})
    entry["variants"] = {}
    for dtype in dtypes_:
        saved, results = {}, {}
        for impl in ("eager", "sdpa"):
            try:
                cfg, model = build_model(name, spec, impl, dtype)
            except ValueError as e:
                # transformers refuses the implementation (Gemma-2: no sdpa).
                msg = str(e).split(".")[0]
                for iname_ in ([impl, "sdpa-whole"] if impl == "sdpa"
                               else [impl]):
                    for dialect in ("linalg", "tosa"):
                        v = variant_name(name, iname_, dtype, dialect)
                        entry["variants"][v] = dict(exported=False,
                                                    error=msg[:200])
                        log.append(f"{v}: no model: {msg[:200]}")
                continue
            inames, itensors, wnames, weights, args = model_arguments(
                name, spec, model, dtype, rng_seed=7)
            wrapper = Wrapper(model, inames, wnames, uses_cache(name, spec)).eval()
            tensors = itensors + weights
            with torch.no_grad():
                out = wrapper(*tensors)
            results[impl] = out.float().numpy()
            if dtype == "bf16":
                # The float64 program on the same (bf16-rounded) inputs: what
                # low-precision results are judged against, per
                # implementation (they differ on the rows a padding mask
                # hides entirely: eager averages V there, sdpa gives 0).
                ref = wrapper.to(torch.float64)
                with torch.no_grad(), float64_softmax():
                    results["f64" if impl == "eager" else "f64_" + impl] = ref(*[
                        t.double() if t.is_floating_point() else t
                        for t in tensors]).numpy()
                cfg, model = build_model(name, spec, impl, dtype)
                wrapper = Wrapper(model, inames, wnames, uses_cache(name, spec)).eval()
            for iname, t in zip(inames, itensors):
                saved[iname] = t.float().numpy() if t.is_floating_point() \
                    else t.numpy()
            entry["args"] = entry.get("args", {})
            entry["args"][dtype] = args
            entry["layers"] = spec["expect"](cfg)
            for l in entry["layers"]:
                l.setdefault("scale", spec.get("scale", default_scale)(
                    cfg))
                l.setdefault("seq", spec.get("seq", SEQ))
                # A learned or ALiBi position bias: an operand until it is a
                # function of positions (issue 34 item 5).
                l.setdefault("position_bias", spec.get("position_bias", False))
            entry["decoder"] = spec["decoder"]
            entry["result"] = dict(shape=list(out.shape),
                                   dtype=MLIR_DTYPE[out.dtype])
            impls = [(impl, base)]
            if impl == "sdpa":
                impls.append(("sdpa-whole", whole_sdpa_table(base)))
            for iname_, table in impls:
                # torch-mlir has no TOSA lowering of a whole sdpa.
                for dialect, otype in (("linalg", "linalg-on-tensors"),
                                       ("tosa", "tosa"))[
                        :1 if iname_ == "sdpa-whole" else 2]:
                    v = variant_name(name, iname_, dtype, dialect)
                    note = None
                    try:
                        try:
                            text = export(wrapper, tensors, otype, table,
                                          name.replace("-", "_"))
                        except Exception:
                            if not iname_.startswith("sdpa"):
                                raise
                            text = export(wrapper, tensors, otype,
                                          sdpa_contiguous_table(table),
                                          name.replace("-", "_"))
                            note = "sdpa output made contiguous for export"
                    except Exception as e:
                        msg = str(e).strip().splitlines()
                        msg = msg[-1] if msg else type(e).__name__
                        log.append(f"{v}: export failed: {msg[:200]}")
                        entry["variants"][v] = dict(exported=False,
                                                    error=msg[:200])
                        continue
                    path = os.path.join(OUT, v + ".mlir")
                    with open(path, "w") as f:
                        f.write(header(name, iname_, dtype, dialect, note))
                        f.write(text)
                    entry["variants"][v] = dict(exported=True,
                                                impl=iname_, dtype=dtype,
                                                dialect=dialect, note=note)
                    log.append(f"{v}: {len(text)} bytes")
        np.savez_compressed(
            os.path.join(OUT, f"{name}.{dtype}.npz"),
            **{f"input_{k}": v for k, v in saved.items()},
            **{f"result_{k}": v for k, v in results.items()})


def header(model, impl, dtype, dialect, note):
    lines = [f"// {model}, attn_implementation "
             f"{'sdpa (kept whole)' if impl == 'sdpa-whole' else impl}, "
             f"{dtype}, torch-mlir output_type "
             f"{'linalg-on-tensors' if dialect == 'linalg' else 'tosa'}.",
             f"// Generated by scripts/frontend-corpus/generate.py "
             f"(torch {torch.__version__.split('+')[0]}, transformers "
             f"{transformers.__version__}); do not edit."]
    if note:
        lines.append(f"// Export note: {note}.")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", default=list(MODELS))
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    mpath = os.path.join(OUT, "manifest.json")
    manifest = json.load(open(mpath)) if os.path.exists(mpath) else {}
    log = []
    for name in a.models:
        try:
            generate(name, MODELS[name], manifest, log)
        except Exception:
            log.append(f"{name}: failed:\n{traceback.format_exc()}")
        print("\n".join(log[-12:]), flush=True)
        with open(mpath, "w") as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
    print("\n".join(log))


if __name__ == "__main__":
    main()
