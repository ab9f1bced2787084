# Masks built the way transformers' masking_utils builds them (issue 34 item
# 1) and Gemma-2's mask after the softcap (item 5): the raised functions of
# raise-attention-position-masks.mlir against the originals, same inputs
# (the [B, Sk] attention_mask drawn as 0 / 1).
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

raise_equiv.run_file(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Dialect",
                 "FA", "raise-attention-position-masks.mlir"),
    ["hf_sdpa_causal_padding", "hf_sdpa_sliding_padding",
     "hf_eager_padding_only", "gemma2_mask_after_softcap",
     # Mostly padding: rows whose every key is hidden (the mean of V).
     ("hf_eager_causal_padding", {"mask_density": 0.3})])
