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
        "alibi_slopes"],
    "raise-attention-position-masks.mlir": ["padding_read_at_query"],
    "raise-attention-mask-combos.mlir": ["causal_and_padding"],
    "raise-attention-masks.mlir": ["padding_mask_bias"],
    "raise-attention-frontends.mlir": ["causal_and_head_bias"],
}
TOSA_CASES = {"raise-attention-frontends.mlir": ["tosa_causal_and_alibi"]}
failed = 0
for cases, tosa in ((CASES, False), (TOSA_CASES, True)):
    for name, funcs in cases.items():
        failed += raise_equiv.run_file(os.path.join(DIALECT, name), funcs,
                                       tosa=tosa)
print(f"total: {failed} failed")
sys.exit(0)
