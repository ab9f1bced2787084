# fa-raise-attention on forms first seen in architectures outside the
# frontend corpus (raise-attention-unseen.mlir): each function, original vs
# raised, on the CPU.
# RUN: %python %s | FileCheck %s
# CHECK: ok bias_before_scale
# CHECK: ok position_bias_before_scale
# CHECK: ok resource_buffer_causal
# CHECK: ok score_floor_causal
# CHECK: ok kv_broadcast_differently
# CHECK: ok k_rope_after_repeat
# CHECK: ok v_biased_after_repeat
# CHECK: ok k_per_head_factor
# CHECK: ok k_times_group_constant
# CHECK: ok v_shared_k_grouped_two_products
# CHECK: ok scores_times_causal_buffer
# CHECK: 0 failed in all
import os

import raise_equiv

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "Dialect", "FA")

failed = raise_equiv.run_file(
    os.path.join(here, "raise-attention-unseen.mlir"),
    ["bias_before_scale", "position_bias_before_scale",
     "resource_buffer_causal", "score_floor_causal",
     "kv_broadcast_differently"])
# K and V computed after their repeat (raise-attention-kv-after-repeat.mlir).
failed += raise_equiv.run_file(
    os.path.join(here, "raise-attention-kv-after-repeat.mlir"),
    ["k_rope_after_repeat", "v_biased_after_repeat", "k_per_head_factor",
     "k_times_group_constant"])
# Forms of the 2026-12-06 sweep (raise-attention-sweep.mlir).
failed += raise_equiv.run_file(
    os.path.join(here, "raise-attention-sweep.mlir"),
    ["v_shared_k_grouped_two_products", "scores_times_causal_buffer"])
print(f"{failed} failed in all")
