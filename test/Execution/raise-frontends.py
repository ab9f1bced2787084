# The forms of test/Dialect/FA/raise-attention-frontends.mlir (what
# torch-mlir prints for Hugging Face models): each function runs as written
# and raised, on the same random inputs, through the CPU lowering
# (raise_equiv.py); the results must agree.
# RUN: %python %s | FileCheck %s
# CHECK: ok safe_softmax_f64
# CHECK: ok scale_split_after_bias
# CHECK: ok causal_and_head_bias
# CHECK: ok tosa_safe_softmax_f64
# CHECK: ok tosa_repeat_kv_tile
# CHECK: ok tosa_tile_heads
# CHECK: ok tosa_causal_and_alibi
# CHECK: 0 failed
import os

import raise_equiv

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "Dialect", "FA", "raise-attention-frontends.mlir")
failed = raise_equiv.run_file(path, ["safe_softmax_f64",
                                     "scale_split_after_bias",
                                     "causal_and_head_bias"])
failed += raise_equiv.run_file(path, ["tosa_safe_softmax_f64",
                                      "tosa_repeat_kv_tile",
                                      "tosa_tile_heads",
                                      "tosa_causal_and_alibi"], tosa=True)
print(f"{failed} failed")
