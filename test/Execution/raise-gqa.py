# fa-raise-attention on grouped-query / multi-query attention (Llama-style
# repeat_kv, bf16 with the softmax in f32): original vs raised. bf16 results
# agree to bf16 rounding (the raised form accumulates in f32 where the
# original rounds the scores and probabilities to bf16).
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

raise_equiv.run_file(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Dialect",
                 "FA", "raise-attention-gqa.mlir"),
    ["llama_gqa_bf16", "mqa_f32", "tiled_kv_heads"])
