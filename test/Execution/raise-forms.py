# fa-raise-attention on the forms of issue 15 (identity ops and GQA by
# add-zero, masks from constants, log-sum-exp and tensor-level softmax,
# bf16 rounding): each function of those lit tests, original vs raised.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
# CHECK: 0 failed
# CHECK: 0 failed
# CHECK: 0 failed
import os

import raise_equiv

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "Dialect", "FA")


def lit(name):
    return os.path.join(here, name)


raise_equiv.run_file(lit("raise-attention-identities.mlir"),
                     ["add_zero_same_shape", "gqa_add_zero_broadcast",
                      "rows_times_ones"], tosa=True)
raise_equiv.run_file(lit("raise-attention-const-masks.mlir"),
                     ["buffer_slice_top_left", "buffer_slice_bottom_right",
                      "index_compare_cast_chain", "index_band_window",
                      "constant_bias_not_a_mask"], tosa=True)
raise_equiv.run_file(lit("raise-attention-spellings.mlir"),
                     ["log_sum_exp", "math_on_tensors"], tosa=True)
raise_equiv.run_file(lit("raise-attention-precision.mlir"),
                     ["bf16_kernel_rounding", "p_not_rounded"])
