#!/usr/bin/env python3
"""Tries fa-raise-attention on Hugging Face architectures the corpus does not
hold: tiny random configs, exported with generate.py's machinery into a
scratch directory (never test/), then counted with measure.py.

    .venv-frontend/bin/python scripts/frontend-corpus/sweep.py \\
        [--out /tmp/unseen] [--timeout 300] [--dtypes f32] [archs...]
    python3 scripts/frontend-corpus/measure.py --corpus /tmp/unseen --where
    .venv/bin/python scripts/frontend-corpus/sweep.py --numerics \\
        falcon.eager.f32.linalg ...     # CPU numerics against PyTorch

Each architecture is exported in its own process, time-boxed: one that
torch-mlir cannot export (or that hangs) is recorded in the manifest and
skipped. The configs are built from one set of small sizes whatever the
config class calls them (hidden_size / n_embd / d_model / dim, ...); the
attention layers a model has are counted on the PyTorch module (the
innermost modules whose class name says Attention), so a new architecture
needs one line here.
"""
import argparse
import inspect
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# Parameter spellings of the config classes -> the small sizes of the sweep
# (generate.SMALL: hidden 32, 4 heads of 8, 2 kv heads, 2 layers, a window
# of 4).
SIZES = {
    ("hidden_size", "n_embd", "d_model", "dim"): 32,
    ("num_hidden_layers", "n_layer", "n_layers", "num_layers",
     "encoder_layers", "decoder_layers", "num_decoder_layers"): 2,
    ("num_attention_heads", "n_head", "n_heads", "num_heads",
     "attention_heads", "encoder_attention_heads",
     "decoder_attention_heads"): 4,
    ("num_key_value_heads", "num_kv_heads"): 2,
    ("intermediate_size", "n_inner", "ffn_dim", "encoder_ffn_dim",
     "decoder_ffn_dim", "d_ff", "hidden_dim"): 64,
    ("vocab_size", "decoder_vocab_size"): 64,
    ("max_position_embeddings", "n_positions", "max_seq_len",
     "max_target_positions"): 64,
    ("d_kv", "head_dim"): 8,
    ("rotary_dim",): 4,
    ("pad_token_id", "bos_token_id", "eos_token_id",
     "decoder_start_token_id"): 0,
    ("image_size",): 16,
    ("patch_size",): 8,
    ("num_channels",): 3,
    ("relative_attention_num_buckets",): 8,
    ("relative_attention_max_distance",): 16,
    ("num_mel_bins",): 8,
    # Whisper's encoder halves the frames: 10 frames, 5 positions.
    ("max_source_positions",): 5,
}

# name: (config class, model class, kind, extra config arguments). Kinds:
# decoder (input_ids, causal), encoder (input_ids), seq2seq (input_ids and
# decoder_input_ids), vision (pixel_values), speech (input_features).
ARCHS = {
    # Text decoders.
    "falcon": ("FalconConfig", "FalconModel", "decoder", {}),
    "falcon-new": ("FalconConfig", "FalconModel", "decoder",
                   dict(new_decoder_architecture=True)),
    "falcon-alibi": ("FalconConfig", "FalconModel", "decoder",
                     dict(alibi=True)),
    "gptj": ("GPTJConfig", "GPTJModel", "decoder", {}),
    "codegen": ("CodeGenConfig", "CodeGenModel", "decoder", dict(n_ctx=64)),
    "mpt": ("MptConfig", "MptModel", "decoder", {}),
    "stablelm": ("StableLmConfig", "StableLmModel", "decoder", {}),
    "cohere": ("CohereConfig", "CohereModel", "decoder", {}),
    "cohere2": ("Cohere2Config", "Cohere2Model", "decoder",
                dict(sliding_window=4)),
    "granite": ("GraniteConfig", "GraniteModel", "decoder", {}),
    "mixtral": ("MixtralConfig", "MixtralModel", "decoder",
                dict(num_local_experts=2, num_experts_per_tok=1)),
    "qwen2_moe": ("Qwen2MoeConfig", "Qwen2MoeModel", "decoder",
                  dict(num_experts=2, num_experts_per_tok=1,
                       moe_intermediate_size=32,
                       shared_expert_intermediate_size=32)),
    "gemma": ("GemmaConfig", "GemmaModel", "decoder", {}),
    "gemma3": ("Gemma3TextConfig", "Gemma3TextModel", "decoder",
               dict(sliding_window=4, query_pre_attn_scalar=8)),
    "phi": ("PhiConfig", "PhiModel", "decoder", {}),
    "persimmon": ("PersimmonConfig", "PersimmonModel", "decoder", {}),
    "xglm": ("XGLMConfig", "XGLMModel", "decoder", {}),
    "biogpt": ("BioGptConfig", "BioGptModel", "decoder", {}),
    "gpt_neo": ("GPTNeoConfig", "GPTNeoModel", "decoder",
                dict(attention_types=[[["global", "local"], 1]],
                     window_size=4)),
    "olmo": ("OlmoConfig", "OlmoModel", "decoder", {}),
    "olmoe": ("OlmoeConfig", "OlmoeModel", "decoder",
              dict(num_experts=2, num_experts_per_tok=1)),
    "glm": ("GlmConfig", "GlmModel", "decoder", {}),
    "glm4": ("Glm4Config", "Glm4Model", "decoder", {}),
    "helium": ("HeliumConfig", "HeliumModel", "decoder", {}),
    "smollm3": ("SmolLM3Config", "SmolLM3Model", "decoder", {}),
    "exaone4": ("Exaone4Config", "Exaone4Model", "decoder",
                dict(sliding_window=4)),
    "nemotron": ("NemotronConfig", "NemotronModel", "decoder", {}),
    "ministral": ("MinistralConfig", "MinistralModel", "decoder",
                  dict(sliding_window=4)),
    "arcee": ("ArceeConfig", "ArceeModel", "decoder", {}),
    # Corpus decoders, swept with padding (`<arch>-padded`): ALiBi through
    # baddbmm, multi-query, OPT's and GPT-NeoX's own masks, a window with
    # padding, a softcap with a window and padding.
    "bloom": ("BloomConfig", "BloomModel", "decoder", {}),
    "opt": ("OPTConfig", "OPTModel", "decoder", dict(word_embed_proj_dim=32)),
    "gpt_bigcode": ("GPTBigCodeConfig", "GPTBigCodeModel", "decoder",
                    dict(multi_query=True)),
    "gpt_neox": ("GPTNeoXConfig", "GPTNeoXModel", "decoder", {}),
    "mistral": ("MistralConfig", "MistralModel", "decoder",
                dict(sliding_window=4)),
    "gemma2": ("Gemma2Config", "Gemma2Model", "decoder",
               dict(sliding_window=4, query_pre_attn_scalar=8,
                    attn_logit_softcapping=50.0)),
    # Causal masks from a stored buffer (CTRL: triu * -1e4; GPT-1:
    # w * b - 1e4 * (1 - b)).
    "ctrl": ("CTRLConfig", "CTRLModel", "decoder", {}),
    "openai_gpt": ("OpenAIGPTConfig", "OpenAIGPTModel", "decoder", {}),
    # Differential attention: V's two halves per head, one softmax.
    "diffllama": ("DiffLlamaConfig", "DiffLlamaModel", "decoder", {}),
    # Chunked attention (a block-diagonal causal mask), NoPE layers with
    # temperature-tuned queries; no MoE layers.
    "llama4": ("Llama4TextConfig", "Llama4TextModel", "decoder",
               dict(attention_chunk_size=4, moe_layers=[],
                    interleave_moe_layer_step=0, intermediate_size_mlp=64,
                    no_rope_layers=[1, 0])),
    # Multi-head latent attention: Q.K over 16 dims, V of 8 (MHA: K and V
    # per head); dense layers.
    "deepseek_v3": ("DeepseekV3Config", "DeepseekV3Model", "decoder",
                    dict(kv_lora_rank=16, q_lora_rank=None,
                         qk_rope_head_dim=8, qk_nope_head_dim=8,
                         v_head_dim=8, first_k_dense_replace=2,
                         num_key_value_heads=4,
                         n_routed_experts=2, num_experts_per_tok=1,
                         n_group=1, topk_group=1, moe_intermediate_size=32)),
    # Attention sinks and alternating sliding / full layers (MoE MLP).
    "gpt_oss": ("GptOssConfig", "GptOssModel", "decoder",
                dict(sliding_window=4, num_local_experts=2,
                     num_experts_per_tok=1)),
    "olmo3": ("Olmo3Config", "Olmo3Model", "decoder",
              dict(sliding_window=4)),
    # Text encoders.
    "distilbert": ("DistilBertConfig", "DistilBertModel", "encoder", {}),
    "electra": ("ElectraConfig", "ElectraModel", "encoder",
                dict(embedding_size=32)),
    "albert": ("AlbertConfig", "AlbertModel", "encoder",
               dict(embedding_size=32)),
    "deberta_v2": ("DebertaV2Config", "DebertaV2Model", "encoder",
                   dict(relative_attention=True, position_buckets=8,
                        pos_att_type=["p2c", "c2p"],
                        max_relative_positions=16)),
    "xlm_roberta": ("XLMRobertaConfig", "XLMRobertaModel", "encoder", {}),
    "mpnet": ("MPNetConfig", "MPNetModel", "encoder", {}),
    "modernbert": ("ModernBertConfig", "ModernBertModel", "encoder",
                   dict(local_attention=4, global_attn_every_n_layers=2)),
    "roformer": ("RoFormerConfig", "RoFormerModel", "encoder",
                 dict(embedding_size=32)),
    "megatron_bert": ("MegatronBertConfig", "MegatronBertModel", "encoder",
                      {}),
    "esm": ("EsmConfig", "EsmModel", "encoder",
            dict(position_embedding_type="rotary", mask_token_id=1)),
    "ernie": ("ErnieConfig", "ErnieModel", "encoder", {}),
    "camembert": ("CamembertConfig", "CamembertModel", "encoder", {}),
    # Bottlenecked Q/K and a V from the full hidden state.
    "mobilebert": ("MobileBertConfig", "MobileBertModel", "encoder",
                   dict(embedding_size=16, intra_bottleneck_size=32,
                        true_hidden_size=32)),
    # 1x1 convolutions: Q, K, V in a [B, H, D, S] layout.
    "squeezebert": ("SqueezeBertConfig", "SqueezeBertModel", "encoder",
                    dict(embedding_size=32)),
    # Half the heads a span convolution, half attention.
    "convbert": ("ConvBertConfig", "ConvBertModel", "encoder",
                 dict(embedding_size=32, head_ratio=2)),
    # XLM-style masks (masked_fill of the scores by a [B, 1, 1, S] mask).
    "flaubert": ("FlaubertConfig", "FlaubertModel", "encoder",
                 dict(emb_dim=32, n_langs=1)),
    # Relative attention with pooled queries (seq_q != seq_k).
    "funnel": ("FunnelConfig", "FunnelBaseModel", "encoder",
               dict(block_sizes=[1, 1], d_head=8, n_head=4, d_inner=64)),
    # Two-stream relative attention (einsums).
    "xlnet": ("XLNetConfig", "XLNetModel", "encoder",
              dict(d_head=8, d_inner=64)),
    "clip_text": ("CLIPTextConfig", "CLIPTextModel", "encoder", {}),
    "siglip_text": ("SiglipTextConfig", "SiglipTextModel", "encoder", {}),
    # Encoder-decoders.
    "bart": ("BartConfig", "BartModel", "seq2seq", {}),
    "mbart": ("MBartConfig", "MBartModel", "seq2seq", {}),
    "pegasus": ("PegasusConfig", "PegasusModel", "seq2seq", {}),
    "marian": ("MarianConfig", "MarianModel", "seq2seq", {}),
    "blenderbot": ("BlenderbotConfig", "BlenderbotModel", "seq2seq", {}),
    "m2m100": ("M2M100Config", "M2M100Model", "seq2seq", {}),
    "t5": ("T5Config", "T5Model", "seq2seq", {}),
    "mt5": ("MT5Config", "MT5Model", "seq2seq", {}),
    "umt5": ("UMT5Config", "UMT5Model", "seq2seq", {}),
    "whisper": ("WhisperConfig", "WhisperModel", "speech", {}),
    # Vision.
    "deit": ("DeiTConfig", "DeiTModel", "vision", {}),
    "beit": ("BeitConfig", "BeitModel", "vision",
             dict(use_relative_position_bias=True)),
    "dinov2": ("Dinov2Config", "Dinov2Model", "vision", dict(mlp_ratio=2)),
    "clip_vision": ("CLIPVisionConfig", "CLIPVisionModel", "vision", {}),
    "siglip_vision": ("SiglipVisionConfig", "SiglipVisionModel", "vision",
                      {}),
    "yolos": ("YolosConfig", "YolosModel", "vision",
              dict(num_detection_tokens=2, image_size=[16, 16])),
    # Spatial reduction: K and V from a downsampled sequence.
    "segformer": ("SegformerConfig", "SegformerModel", "vision",
                  dict(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1],
                       hidden_sizes=[16, 32], num_attention_heads=[2, 4],
                       patch_sizes=[3, 3], strides=[2, 2],
                       mlp_ratios=[2, 2])),
    "swin": ("SwinConfig", "SwinModel", "vision",
             dict(embed_dim=16, depths=[2], num_heads=[2], window_size=2,
                  patch_size=4)),
}


def config_arguments(cfg_cls, extra):
    """The sweep's sizes under the names this config class's __init__ takes
    (or, for configs that take **kwargs only, the attribute_map names)."""
    params = set(inspect.signature(cfg_cls.__init__).parameters)
    amap = getattr(cfg_cls, "attribute_map", {})
    out = {}
    for names, value in SIZES.items():
        for n in names:
            if n in params:
                out[n] = value
            elif n in amap and amap[n] in params:
                out[amap[n]] = value
    out.update(extra)
    return out


def attention_layers(model, run):
    """The attention calls of a model, in call order: calls of the innermost
    modules whose class name contains 'Attention' (BertSelfAttention inside
    BertAttention counts once; ALBERT's one shared layer once per use), as
    `run()` (a forward) makes them."""
    mods = {n: m for n, m in model.named_modules()
            if "Attention" in type(m).__name__}
    leaves = [n for n in mods
              if not any(o != n and o.startswith(n + ".") for o in mods)]
    calls = []
    hooks = [mods[n].register_forward_hook(
        lambda *_, n=n: calls.append(n)) for n in leaves]
    try:
        run()
    finally:
        for h in hooks:
            h.remove()
    return calls


def arch_of(name):
    """`<arch>` or `<arch>-padded` (an attention_mask with padding: left in
    decoders, right in encoders, as generate.py pads) -> `<arch>`."""
    return name[:-len("-padded")] if name.endswith("-padded") else name


def spec_for(name):
    import numpy as np
    import torch
    import transformers
    import generate as g

    cfg_name, model_name, kind, extra = ARCHS[arch_of(name)]
    cfg_cls = getattr(transformers, cfg_name)
    model_cls = getattr(transformers, model_name)

    def build(impl):
        cfg = cfg_cls(**config_arguments(cfg_cls, extra),
                      attn_implementation=impl)
        return cfg, model_cls

    def expect(cfg):
        torch.manual_seed(0)
        model = model_cls(cfg).eval()
        kwargs = inputs(np.random.default_rng(7), name.endswith("-padded"))
        if kind != "encoder" and kind != "vision":
            kwargs["use_cache"] = False

        def run():
            with torch.no_grad():
                model(**kwargs)
        return [dict(causal=None, window=None, heads=None, kv_heads=None,
                     module=n) for n in attention_layers(model, run)]

    def seq2seq_inputs(rng, padded):
        d = g.encoder_inputs(rng, padded)
        d["decoder_input_ids"] = torch.from_numpy(
            rng.integers(0, g.VOCAB, (g.BATCH, g.SEQ)))
        return d

    def speech_inputs(rng, padded):
        return dict(
            input_features=torch.from_numpy(rng.standard_normal(
                (g.BATCH, 8, 10)).astype(np.float32)),
            decoder_input_ids=torch.from_numpy(
                rng.integers(0, g.VOCAB, (g.BATCH, g.SEQ))))

    inputs = dict(decoder=g.decoder_inputs, encoder=g.encoder_inputs,
                  seq2seq=seq2seq_inputs, vision=g.vit_inputs,
                  speech=speech_inputs)[kind]
    return dict(build=build, inputs=inputs, expect=expect,
                decoder=kind == "decoder", padded=name.endswith("-padded"),
                use_cache=kind in ("decoder", "seq2seq", "speech"))


def run_one(name, out, dtypes):
    import generate as g
    g.OUT = out
    spec = spec_for(name)
    spec["dtypes"] = dtypes
    mpath = os.path.join(out, "manifest.json")
    manifest = json.load(open(mpath)) if os.path.exists(mpath) else {}
    log = []
    g.generate(name, spec, manifest, log)
    manifest[name]["arch"] = ARCHS[arch_of(name)][1]
    with open(mpath, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    print("\n".join(log), flush=True)


def record_failure(out, name, why):
    mpath = os.path.join(out, "manifest.json")
    manifest = json.load(open(mpath)) if os.path.exists(mpath) else {}
    manifest[name] = dict(arch=ARCHS[arch_of(name)][1], layers=[], failed=why,
                          variants={})
    with open(mpath, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)


def op_summary(fa_opt, path):
    """One word per raised fa.attention of a file: what its masks became
    (causal, window, a bias operand and its shape, regions), so that a
    decoder raised with an [.., S, S] bias instead of `causal` shows."""
    proc = subprocess.run(
        [fa_opt, path, "--fa-raise-attention",
         "--mlir-print-op-on-diagnostic=false", "-o", "-"],
        capture_output=True, text=True)
    words = []
    for line in proc.stdout.splitlines():
        if "= fa.attention" not in line:
            continue
        types = re.findall(r"tensor<([0-9x]+)x\w+>", line.split("{")[0])
        w = []
        if re.search(r"[{ ]causal[,}]", line):
            w.append("causal")
        m = re.search(r"window = array<i64: (\d+), (\d+)>", line)
        if m:
            w.append(f"window{m.group(1)},{m.group(2)}")
        if " bias(" in line:
            w.append("bias" + (f"[{types[3]}]" if len(types) > 3 else ""))
        for r in ("score_mod", "mask_mod"):
            if r in line:
                w.append(r)
        words.append("+".join(w) or "plain")
    return words


def ops(fa_opt, out):
    """Prints each exported file's raised ops (op_summary), one line a file."""
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    for model in sorted(manifest):
        for v, info in sorted(manifest[model].get("variants", {}).items()):
            if info.get("exported"):
                words = op_summary(fa_opt, os.path.join(out, v + ".mlir"))
                print(f"{v}: {' '.join(words) or '-'}")


def numerics(out, variants):
    """CPU numerics of swept variants against PyTorch (corpus_numerics, run
    on the scratch directory): the project's .venv, not the generator's."""
    root = os.path.abspath(os.path.join(HERE, "..", ".."))
    sys.path[:0] = [os.path.join(root, "test", "lib"),
                    os.path.join(root, "python")]
    import corpus_inputs
    import corpus_numerics
    corpus_inputs.CORPUS_DIR = out
    failed = 0
    for v in variants:
        # One that cannot be compiled (upstream's tosa-to-linalg has no
        # tosa.scatter) is reported and counted, not fatal.
        try:
            r = corpus_numerics.run(v)
        except Exception as e:  # noqa: BLE001
            failed += 1
            print(f"NOT RUN {v}: {str(e).strip().splitlines()[-1][:200]}")
            continue
        failed += not r["ok"]
        print(f"{'ok' if r['ok'] else 'FAIL'} {v}: raised {r['raised']} of "
              f"{r['layers']}, max error {r['err']:.3g} "
              f"(bound {r['bound']:.3g})", flush=True)
        for d in r["declined"]:
            print("  " + d)
    print(f"{failed} failed or not run")
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("archs", nargs="*", default=list(ARCHS))
    ap.add_argument("--out", default="/tmp/unseen")
    ap.add_argument("--timeout", type=int, default=300,
                    help="seconds for one architecture's exports")
    ap.add_argument("--dtypes", default="f32")
    ap.add_argument("--numerics", action="store_true",
                    help="run the named variants (<arch>.<impl>.<dtype>."
                    "<dialect>) on the CPU against PyTorch instead")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ops", action="store_true",
                    help="print what each raised op's masks became")
    ap.add_argument("--fa-opt", default=os.path.join(
        HERE, "..", "..", "build", "bin", "fa-opt"))
    a = ap.parse_args()
    if a.ops:
        return ops(a.fa_opt, a.out)
    if a.numerics:
        sys.exit(1 if numerics(a.out, a.archs) else 0)
    os.makedirs(a.out, exist_ok=True)
    dtypes = a.dtypes.split(",")
    if a.one:
        run_one(a.archs[0], a.out, dtypes)
        return
    for name in a.archs:
        cmd = [sys.executable, __file__, "--one", "--out", a.out,
               "--dtypes", a.dtypes, name]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=a.timeout)
            tail = (p.stdout + p.stderr).strip().splitlines()
            ok = p.returncode == 0
            print(f"{name}: {'ok' if ok else 'failed'}: "
                  + " / ".join(l[:200] for l in
                               (tail[-6:] if ok else tail[-2:])), flush=True)
            if not ok:
                record_failure(a.out, name, tail[-1][:300] if tail else "")
        except subprocess.TimeoutExpired:
            print(f"{name}: timed out after {a.timeout} s", flush=True)
            record_failure(a.out, name, f"timed out after {a.timeout} s")


if __name__ == "__main__":
    main()
