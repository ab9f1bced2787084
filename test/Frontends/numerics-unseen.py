# Corpus models added from scripts/frontend-corpus/sweep.py (architectures
# the raise had not seen), raised, compiled by fa-cpu-pipeline and compared
# with PyTorch (test/lib/corpus_numerics.py), one variant per mechanism:
# Falcon's ALiBi added before the norm factor (the bias scaled with the
# scores, one kv head), GPT-Neo's dense_resource causal and local buffers
# (scale 1, a window), XGLM's clamp of the masked scores at finfo.min, MPT's
# ALiBi with a boolean mask both layers select with, ModernBERT's
# bidirectional window under sdpa.
# RUN: %python %s | FileCheck %s
# CHECK: ok falcon.eager.f32.linalg: raised 2 of 2
# CHECK: ok gpt_neo.eager.f32.tosa: raised 2 of 2
# CHECK: ok xglm.eager.f32.linalg: raised 2 of 2
# CHECK: ok mpt.eager.f32.tosa: raised 2 of 2
# CHECK: ok modernbert.sdpa.f32.linalg: raised 2 of 2
# CHECK: 0 failed
import corpus_numerics

corpus_numerics.report([
    "falcon.eager.f32.linalg",
    "gpt_neo.eager.f32.tosa",
    "xglm.eager.f32.linalg",
    "mpt.eager.f32.tosa",
    "modernbert.sdpa.f32.linalg",
])
