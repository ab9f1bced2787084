# Whole corpus models (test/Frontends/corpus) exported by torch-mlir as TOSA:
# raised, compiled by fa-cpu-pipeline (after upstream's tosa-to-linalg), run
# on PyTorch's inputs and compared with PyTorch's results
# (test/lib/corpus_numerics.py). Every attention layer must be raised. One
# variant per form: sdpa's _safe_softmax with the scale split over Q and K
# (BERT), GQA by tosa.tile (Llama), eager bf16 with a sliding window
# (Mistral), ALiBi (BLOOM), T5's bucketed bias under sdpa (masked_fill'ed:
# causal split off, the table read in score_mod), sdpa on bf16 narrowed
# from f32 with a sliding window (Mistral), Gemma-2 bf16 (the softcap's
# bf16 reciprocal folded into the scale), left-padded Llama eager (the
# mean-of-V rows).
# RUN: %python %s | FileCheck %s
# CHECK: ok bert.sdpa.f32.tosa: raised 2 of 2
# CHECK: ok llama.sdpa.f32.tosa: raised 2 of 2
# CHECK: ok mistral.eager.bf16.tosa: raised 2 of 2
# CHECK: ok bloom.eager.f32.tosa: raised 2 of 2
# CHECK: ok t5.sdpa.f32.tosa: raised 6 of 6
# CHECK: ok mistral.sdpa.bf16.tosa: raised 2 of 2
# CHECK: ok gemma2.eager.bf16.tosa: raised 2 of 2
# CHECK: ok llama-padded.eager.f32.tosa: raised 2 of 2
# CHECK: 0 failed
import corpus_numerics

corpus_numerics.report([
    "bert.sdpa.f32.tosa",
    "llama.sdpa.f32.tosa",
    "mistral.eager.bf16.tosa",
    "bloom.eager.f32.tosa",
    "t5.sdpa.f32.tosa",
    "mistral.sdpa.bf16.tosa",
    "gemma2.eager.bf16.tosa",
    "llama-padded.eager.f32.tosa",
])
