"""Writes the fuzzer's seed corpus (seeds/) from the fa dialect's lit tests:
one file per -split-input-file piece, comments dropped. Rerun after adding
tests: python3 fuzz/compiler/make_seeds.py"""
import hashlib
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "..", "test", "Dialect", "FA")
SOURCES = ["round-trip.mlir", "invalid.mlir", "invalid-dynamic.mlir",
           "tile-attention.mlir", "tile-attention-backward.mlir",
           "tile-attention-edge-shapes.mlir", "decompose-attention.mlir"]


def pieces(text):
    for piece in re.split(r"^// -----\s*$", text, flags=re.M):
        lines = [l for l in piece.splitlines()
                 if l.strip() and not l.lstrip().startswith("//")]
        if lines:
            yield "\n".join(lines) + "\n"


def main():
    out = os.path.join(HERE, "seeds")
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        os.remove(os.path.join(out, name))
    count = 0
    for source in SOURCES:
        path = os.path.join(TESTS, source)
        if not os.path.exists(path):
            continue
        for piece in pieces(open(path).read()):
            digest = hashlib.sha1(piece.encode()).hexdigest()[:12]
            with open(os.path.join(out, f"{source[:-5]}-{digest}.mlir"), "w") as f:
                f.write(piece)
            count += 1
    print(f"{count} seeds in {out}")


if __name__ == "__main__":
    main()
