# Masks and biases raised into fa.attention's score_mod / mask_mod regions
# (T5's bucketed table, ALiBi slopes, document masks with -inf and with a
# finite fill, padding masks read at the query or per head): the raised
# functions against the originals, same inputs.
# RUN: %python %s | FileCheck %s
# CHECK-NOT: FAIL
# CHECK: total: 0 failed
import os
import sys

import raise_equiv

DIALECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "Dialect", "FA")
CASES = {
    "raise-attention-regions.mlir": [
        "t5_bucket_bias", "document_mask_causal", "document_mask_finite_fill",
        "alibi_slopes", "prefix_lm", "document_mask_select_finite"],
    "raise-attention-position-masks.mlir": ["padding_read_at_query"],
    "raise-attention-mask-combos.mlir": ["causal_and_padding"],
    "raise-attention-masks.mlir": ["padding_mask_bias"],
    "raise-attention-frontends.mlir": ["causal_and_head_bias"],
    # Index masks no attribute states, now mask_mod in the program's types.
    "raise-attention-mask-types.mlir": ["i8_wraps_at_128", "sitofp_of_i8",
                                        "add_int64_max_wraps"],
    "raise-attention-negatives.mlir": ["checkerboard_mask"],
    "raise-attention-decode.mlir": ["gqa_causal_decode_declined"],
    # Forward and backward, both ops with the score_mod.
    "raise-attention-backward.mlir": ["gqa_key_bias_fwd_bwd"],
}
TOSA_CASES = {"raise-attention-frontends.mlir": ["tosa_causal_and_alibi"],
              "raise-attention-mask-types.mlir": ["tosa_i8_add_wraps"]}
failed = 0
for cases, tosa in ((CASES, False), (TOSA_CASES, True)):
    for name, funcs in cases.items():
        failed += raise_equiv.run_file(os.path.join(DIALECT, name), funcs,
                                       tosa=tosa)
print(f"total: {failed} failed")
sys.exit(0)
