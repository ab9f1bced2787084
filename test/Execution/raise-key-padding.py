# Key padding masks as conditions on the [B, Sk] attention_mask read in
# score_mod / mask_mod (raise-attention-key-padding.mlir): the raised
# functions against the originals on the same inputs. A mask density of
# 0.05 pads whole batch elements (rows whose every key is hidden: uniform
# in the original with finfo.min, the mean of V after a softcap).
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

raise_equiv.run_file(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Dialect",
                 "FA", "raise-attention-key-padding.mlir"),
    ["select_finite_alone", ("select_finite_alone", {"mask_density": 0.05}),
     "after_softcap_absorbing",
     ("after_softcap_absorbing", {"mask_density": 0.05}),
     "before_softcap_alone", ("before_softcap_alone", {"mask_density": 0.05}),
     "ninf_with_bias", "batch_equals_seq"])
