"""score_mod/mask_mod of the serving calls on the CPU, where each sequence
runs the dense kernel on its own slice (batch 1, queries and keys counted
from 0): the traced regions rebased to the positions of the serving ops.

fa.attention_varlen and fa.attention_kvcache give a region the sequence as
`b` and, for a KV cache, the query's absolute position `n - seq_q + i`
(n: the keys after the append) as `q_idx` (docs/Modifiers.md, *On the
inference ops*). The dense op of one sequence has b = 0 and q_idx = i, so
the regions are rewritten as LowerSequences.cpp rewrites the per-sequence
ops it makes: one more capture, an i64 [2] tensor (sequence, query offset)
passed per sequence, read where the region reads `b` or `q_idx`. A region
that reads neither is left as it is (the kernel of fa_mlir.torch.attention
with the same functions serves it).
"""
import re
from dataclasses import replace

import torch

# The rebasing capture's type: (sequence index, query offset).
POSITION_TYPE = "tensor<?xi64>"
_NAME_END = r"(?![\w$.\-])"  # an SSA name ends where no name character follows


def _uses(body, name):
    return re.search(re.escape(name) + _NAME_END, body) is not None


def _split(text):
    """(header line, body) of a region text of modifiers._with_header."""
    lines = text.split("\n")
    if lines[0] != "{" or not lines[1].startswith("^bb0(") or \
            not text.endswith("}"):
        raise AssertionError(f"not a traced region:\n{text}")
    return lines[1], text[len("{\n") + len(lines[1]) + 1:-1]


def _prefix(cap, rebase_b, rebase_q):
    """The ops that read the rebased `b` and `q_idx` from capture %cap."""
    lines = []
    if rebase_b:
        lines += ["  %seq_c0 = arith.constant 0 : index",
                  f"  %seq_b64 = tensor.extract {cap}[%seq_c0] : "
                  f"{POSITION_TYPE}",
                  "  %seq_b = arith.index_cast %seq_b64 : i64 to index"]
    if rebase_q:
        lines += ["  %seq_c1 = arith.constant 1 : index",
                  f"  %seq_off64 = tensor.extract {cap}[%seq_c1] : "
                  f"{POSITION_TYPE}",
                  "  %seq_off = arith.index_cast %seq_off64 : i64 to index",
                  "  %seq_q_idx = arith.addi %q_idx, %seq_off : index"]
    return "".join(line + "\n" for line in lines)


def _rebased_text(text, cap_index, rebase_q):
    """`text` reading its `b` (and with rebase_q its `q_idx`) from the
    position capture, whose block argument is appended as %cap<i>."""
    header, body = _split(text)
    reads_b = _uses(body, "%b")
    reads_q = rebase_q and _uses(body, "%q_idx")
    if reads_b:
        body = re.sub(r"%b" + _NAME_END, "%seq_b", body)
    if reads_q:
        body = re.sub(r"%q_idx" + _NAME_END, "%seq_q_idx", body)
    cap = f"%cap{cap_index}"
    header = f"{header[:-2]}, {cap}: {POSITION_TYPE}):"
    return "{\n" + header + "\n" + _prefix(cap, reads_b, reads_q) + body + "}"


def _reads(mods, rebase_q):
    """Whether a region of `mods` reads `b`, or with rebase_q `q_idx`."""
    names = ("%b", "%q_idx") if rebase_q else ("%b",)
    return any(_uses(_split(text)[1], n) for text in (mods.score_mod,
                                                      mods.mask_mod)
               if text for n in names)


class SequenceModifiers:
    """The regions of a serving call (`mods`: modifiers.Modifiers or None),
    per sequence: `of(b, offset, device)` is the Modifiers of sequence b's
    dense call, whose queries start at absolute position `offset` (0 for
    a ragged batch). `rebase_q`: the op's q_idx is absolute (a KV cache)."""

    def __init__(self, mods, rebase_q):
        self.mods = mods
        self.rebased = None
        if mods is not None and _reads(mods, rebase_q):
            n = len(mods.captures)
            self.rebased = replace(
                mods,
                score_mod=mods.score_mod and _rebased_text(
                    mods.score_mod, n, rebase_q),
                mask_mod=mods.mask_mod and _rebased_text(
                    mods.mask_mod, n, rebase_q),
                capture_types=mods.capture_types + (POSITION_TYPE,),
                readers=mods.readers + ("the sequence positions",))

    def of(self, b, offset, device):
        if self.rebased is None:
            return self.mods
        position = torch.tensor([b, offset], dtype=torch.int64,
                                device=device)
        return replace(self.rebased,
                       captures=self.rebased.captures + (position,))
