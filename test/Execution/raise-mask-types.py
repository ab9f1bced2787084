# Masks proved in the program's integer and float types, and masks next to
# a bias or padding mask (issue 39): the raised functions of
# raise-attention-mask-types.mlir and raise-attention-mask-combos.mlir
# against the originals, same inputs.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
# CHECK: 0 failed
import os

import raise_equiv

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "Dialect", "FA")
raise_equiv.run_file(
    os.path.join(HERE, "raise-attention-mask-types.mlir"),
    ["i8_no_wrap", "uitofp_of_i8", "unsigned_difference_causal",
     "unsigned_difference_window", "extsi_of_bool", "bitwise_and_window",
     ("tosa_bool_to_float", dict(tosa=True))])
raise_equiv.run_file(
    os.path.join(HERE, "raise-attention-mask-combos.mlir"),
    ["causal_and_bias", "causal_and_padding",
     "window_and_bias", ("tosa_causal_and_bias", dict(tosa=True))])
