# Whole corpus models (test/Frontends/corpus) exported by torch-mlir as
# linalg-on-tensors: raised, compiled by fa-cpu-pipeline, run on PyTorch's
# inputs and compared with PyTorch's results (test/lib/corpus_numerics.py).
# Every attention layer must be raised. One variant per form, to keep CI
# short: sdpa's _safe_softmax (BERT, ViT), tm_tensor.attention with
# tm_tensor.scan and GQA (Llama, GPT-2, T5 with its position bias, MQA in
# GPT-BigCode), bf16 (Qwen2; OPT's causal mask), score_mod regions (T5's
# bucketed table eager, BLOOM's ALiBi slopes, Llama's eager mask with the
# packed-sequence ids as a finite-fill score_mod), sdpa on bf16 narrowed
# from f32 (Llama, narrow-promoted), left-padded Llama eager (its padding
# in mask_mod, the rows its finfo.min mask hides entirely: the mean of V),
# right-padded BERT eager (its padding added in score_mod with finfo.min),
# left-padded Llama eager in bf16 (against the float64 program, whose
# softmax the generator keeps in float64).
# RUN: %python %s | FileCheck %s
# CHECK: ok bert.sdpa.f32.linalg: raised 2 of 2
# CHECK: ok vit.sdpa.f32.linalg: raised 2 of 2
# CHECK: ok llama.sdpa-whole.f32.linalg: raised 2 of 2
# CHECK: ok gpt2.sdpa-whole.f32.linalg: raised 2 of 2
# CHECK: ok t5.sdpa-whole.f32.linalg: raised 6 of 6
# CHECK: ok gpt_bigcode.sdpa-whole.f32.linalg: raised 2 of 2
# CHECK: ok qwen2.sdpa-whole.bf16.linalg: raised 2 of 2
# CHECK: ok opt.eager.bf16.linalg: raised 2 of 2
# CHECK: ok t5.eager.f32.linalg: raised 6 of 6
# CHECK: ok bloom.eager.f32.linalg: raised 2 of 2
# CHECK: ok llama.eager.f32.linalg: raised 2 of 2
# CHECK: ok llama.sdpa.bf16.linalg: raised 2 of 2
# CHECK: ok llama-padded.eager.f32.linalg: raised 2 of 2
# CHECK: ok bert-padded.eager.f32.linalg: raised 2 of 2
# CHECK: ok llama-padded.eager.bf16.linalg: raised 2 of 2
# CHECK: 0 failed
import corpus_numerics

corpus_numerics.report([
    "bert.sdpa.f32.linalg",
    "vit.sdpa.f32.linalg",
    "llama.sdpa-whole.f32.linalg",
    "gpt2.sdpa-whole.f32.linalg",
    "t5.sdpa-whole.f32.linalg",
    "gpt_bigcode.sdpa-whole.f32.linalg",
    "qwen2.sdpa-whole.bf16.linalg",
    "opt.eager.bf16.linalg",
    "t5.eager.f32.linalg",
    "bloom.eager.f32.linalg",
    "llama.eager.f32.linalg",
    "llama.sdpa.bf16.linalg",
    "llama-padded.eager.f32.linalg",
    "bert-padded.eager.f32.linalg",
    "llama-padded.eager.bf16.linalg",
])
