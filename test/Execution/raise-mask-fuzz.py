# Differential test of the raiser's mask prover (issue 39): random small mask
# programs (test/lib/mask_fuzz.py: integer types i8..i64 and index, signed
# and unsigned compares, offsets near the types' limits, and / or / xor,
# boolean extensions, int-to-float, -inf and finfo.min fills, additive
# terms, data biases and padding masks; linalg bodies and TOSA). Whatever
# fa-raise-attention raises must compute what the original computes, on the
# same random inputs (test/lib/raise_equiv.py); a declined case must say why.
# RUN: %python %s | FileCheck %s
# CHECK: enough raised
# CHECK-NEXT: mismatches 0
import sys

import mask_fuzz
import raise_equiv

SEED, COUNT = 39, int(sys.argv[1]) if len(sys.argv) > 1 else 36
raised = mismatches = 0
for name, text, tosa in mask_fuzz.cases(SEED, COUNT):
    r = raise_equiv.check(text, name, tosa=tosa, allow_decline=True)
    raised += r["raised"]
    if not r["ok"]:
        mismatches += 1
        print(f"MISMATCH {name}: max error {r['err']:.3g}, remarks:\n"
              f"{r['remarks'].strip()}\n{text}")
print(f"raised {raised} of {COUNT}")
# A generator whose cases are all declined would test nothing.
print("enough raised" if raised >= COUNT // 4 else "TOO FEW RAISED")
print(f"mismatches {mismatches}")
