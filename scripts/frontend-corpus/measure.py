#!/usr/bin/env python3
"""Counts the attention layers fa-raise-attention raises in each file of the
frontend corpus (test/Frontends/corpus) and prints a Markdown table: one row
per model and element type, one column per attn_implementation x dialect,
each cell `raised/layers`, then the decline remarks and errors by count.

    python3 scripts/frontend-corpus/measure.py [--fa-opt build/bin/fa-opt]
"""
import argparse
import collections
import json
import os
import re
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "test", "Frontends", "corpus")
COLUMNS = [("eager", "linalg"), ("eager", "tosa"), ("sdpa", "linalg"),
           ("sdpa", "tosa"), ("sdpa-whole", "linalg")]


def raise_file(fa_opt, path):
    """(raised count, [decline reasons], error line or None)."""
    proc = subprocess.run(
        [fa_opt, path, "--fa-raise-attention",
         "--mlir-print-op-on-diagnostic=false", "-o", os.devnull],
        capture_output=True, text=True)
    raised = proc.stderr.count("raised to fa.attention")
    declined = re.findall(r"attention not raised: (.*)", proc.stderr)
    error = None
    if proc.returncode != 0:
        errs = [l for l in proc.stderr.splitlines() if "error:" in l]
        error = re.sub(r"^.*?error: ", "", errs[0]) if errs else "failed"
    return raised, declined, error


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fa-opt", default=os.path.join(ROOT, "build", "bin",
                                                     "fa-opt"))
    a = ap.parse_args()
    manifest = json.load(open(os.path.join(CORPUS, "manifest.json")))
    reasons = collections.Counter()
    totals = collections.Counter()
    header = "| model | type | " + " | ".join(
        f"{i} {d}" for i, d in COLUMNS) + " |"
    rows = [header, "|" + "---|" * (len(COLUMNS) + 2)]
    for model in sorted(manifest):
        entry = manifest[model]
        layers = len(entry["layers"])
        for dtype in ("f32", "bf16"):
            cells, any_ = [], False
            for impl, dialect in COLUMNS:
                v = f"{model}.{impl}.{dtype}.{dialect}"
                info = entry["variants"].get(v)
                if info is None:
                    cells.append("")
                    continue
                any_ = True
                if not info["exported"]:
                    cells.append("no export")
                    continue
                raised, declined, error = raise_file(
                    a.fa_opt, os.path.join(CORPUS, v + ".mlir"))
                key = (impl, dialect)
                totals[key + ("layers",)] += layers
                totals[key + ("raised",)] += raised if not error else 0
                if error:
                    cells.append("error")
                    reasons[f"error: {error}"] += 1
                    continue
                cells.append(f"{raised}/{layers}")
                for r in declined:
                    reasons[r] += 1
            if any_:
                rows.append(f"| {model} | {dtype} | " + " | ".join(cells) +
                            " |")
    rows.append("| **all** | | " + " | ".join(
        f"**{totals[(i, d, 'raised')]}/{totals[(i, d, 'layers')]}**"
        for i, d in COLUMNS) + " |")
    print("\n".join(rows))
    print()
    print("| count | decline remark or error (files with errors count once) |")
    print("|---|---|")
    for r, n in reasons.most_common():
        print(f"| {n} | {r.replace('|', '/')} |")


if __name__ == "__main__":
    main()
