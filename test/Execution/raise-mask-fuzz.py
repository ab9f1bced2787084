# Differential test of the raiser's mask prover (issue 39): random small mask
# programs (test/lib/mask_fuzz.py: integer types i8..i64 and index, signed
# and unsigned compares, offsets near the types' limits, and / or / xor,
# boolean extensions, int-to-float, -inf and finfo.min fills, additive
# terms, data biases and padding masks; linalg bodies and TOSA). Whatever
# fa-raise-attention raises must compute what the original computes, on the
# same random inputs (test/lib/raise_equiv.py); a declined case must say why.
# Then masks read through tensors as transformers builds them (key
# positions and attention_mask by tensor.extract: key padding or not), and
# masks over position ids that the program computes (aranges, slices,
# concats, tm_tensor.scan cumsums, ids that restart per batch element),
# which the raiser folds (Raising/PositionTensors.cpp), and region-shaped
# terms (mask_fuzz.region_case: bucketed tables, slopes, document ids,
# masks read at the query; score_mod / mask_mod).
# RUN: %python %s | FileCheck %s
# CHECK: enough raised
# CHECK-NEXT: mismatches 0
import mask_fuzz
import raise_equiv

SEED, COUNT, POSITIONS, COMPUTED, REGIONS = 39, 36, 12, 16, 16
cases = mask_fuzz.cases(SEED, COUNT, POSITIONS, computed=COMPUTED,
                        regions=REGIONS)
raised = mismatches = 0
for name, text, tosa in cases:
    r = raise_equiv.check(text, name, tosa=tosa, allow_decline=True)
    raised += r["raised"]
    if not r["ok"]:
        mismatches += 1
        print(f"MISMATCH {name}: max error {r['err']:.3g}, remarks:\n"
              f"{r['remarks'].strip()}\n{text}")
print(f"raised {raised} of {len(cases)}")
# A generator whose cases are all declined would test nothing.
print("enough raised" if raised >= len(cases) // 4 else "TOO FEW RAISED")
print(f"mismatches {mismatches}")
