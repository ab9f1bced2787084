# The corpus's IREE files (scripts/frontend-corpus/iree-variants.sh: the
# sdpa-whole exports with iree_linalg_ext.attention from IREE's own
# conversion): raised, compiled by fa-cpu-pipeline, run on PyTorch's inputs
# and compared with PyTorch's sdpa results (test/lib/corpus_numerics.py).
# Every attention layer must be raised: a boolean padding mask (BERT), no
# mask (ViT), GQA with causal and padding (left-padded Llama), T5's
# position bias as an additive mask.
# RUN: %python %s | FileCheck %s
# CHECK: ok bert-padded.sdpa-iree.f32.linalg: raised 2 of 2
# CHECK: ok vit.sdpa-iree.f32.linalg: raised 2 of 2
# CHECK: ok llama-padded.sdpa-iree.f32.linalg: raised 2 of 2
# CHECK: ok t5.sdpa-iree.f32.linalg: raised 6 of 6
# CHECK: 0 failed
import corpus_numerics

corpus_numerics.report([
    "bert-padded.sdpa-iree.f32.linalg",
    "vit.sdpa-iree.f32.linalg",
    "llama-padded.sdpa-iree.f32.linalg",
    "t5.sdpa-iree.f32.linalg",
])
