"""The text of an op's score_mod / mask_mod regions for the CPU numeric
tests of the modifiers (test/Execution/modifiers*.py)."""


def regions(mod):
    """` score_mod {...} mask_mod {...}` of `mod`'s "score" and "mask" region
    bodies (each given with its ^bb0 line), the ones it has."""
    text = ""
    if "score" in mod:
        text += " score_mod {" + mod["score"] + "\n  }"
    if "mask" in mod:
        text += " mask_mod {" + mod["mask"] + "\n  }"
    return text
