#!/usr/bin/env python3
"""Counts the attention layers fa-raise-attention raises in each file of the
frontend corpus (test/Frontends/corpus) and prints a Markdown table: one row
per model and element type, one column per attn_implementation x dialect,
each cell `raised/layers`, then the decline remarks and errors by count,
and the raised ops that read a bias operand (a `[.., seq_q, seq_k]` tensor:
what a mask that is causal, a window or key padding must not become).

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


def bias_operands(ir):
    """The bias operand types of the fa.attention ops in printed IR:
    `[.., seq_q, seq_k]` tensors a raise reads besides Q, K, V."""
    return re.findall(r"= fa\.attention .* bias\(%[^:]+: tensor<([0-9x]+)x\w+>\)",
                      ir)


def raise_file(fa_opt, path):
    """(raised count, [decline reasons], error line or None, [bias operand
    shapes])."""
    proc = subprocess.run(
        [fa_opt, path, "--fa-raise-attention",
         "--mlir-print-op-on-diagnostic=false", "-o", "-"],
        capture_output=True, text=True)
    raised = proc.stderr.count("raised to fa.attention")
    declined = re.findall(r"attention not raised: (.*)", proc.stderr)
    error = None
    if proc.returncode != 0:
        errs = [l for l in proc.stderr.splitlines() if "error:" in l]
        error = re.sub(r"^.*?error: ", "", errs[0]) if errs else "failed"
    return raised, declined, error, bias_operands(proc.stdout)


def table(fa_opt, corpus, manifest):
    """(Markdown rows of raised/layers per model, element type and column;
    Counter of decline remarks and errors; {remark: [variants]};
    {variant: [bias operand shapes]})."""
    biases = {}
    reasons = collections.Counter()
    where = collections.defaultdict(list)
    totals = collections.Counter()
    header = "| model | type | " + " | ".join(
        f"{i} {d}" for i, d in COLUMNS) + " |"
    rows = [header, "|" + "---|" * (len(COLUMNS) + 2)]
    for model in sorted(manifest):
        entry = manifest[model]
        layers = len(entry.get("layers", []))
        for dtype in ("f32", "bf16"):
            cells, any_ = [], False
            for impl, dialect in COLUMNS:
                v = f"{model}.{impl}.{dtype}.{dialect}"
                info = entry.get("variants", {}).get(v)
                if info is None:
                    cells.append("")
                    continue
                any_ = True
                if not info["exported"]:
                    cells.append("no export")
                    continue
                raised, declined, error, shapes = raise_file(
                    fa_opt, os.path.join(corpus, v + ".mlir"))
                if shapes:
                    biases[v] = shapes
                key = (impl, dialect)
                totals[key + ("layers",)] += layers
                totals[key + ("raised",)] += raised if not error else 0
                if error:
                    cells.append("error")
                    reasons[f"error: {error}"] += 1
                    where[f"error: {error}"].append(v)
                    continue
                cells.append(f"{raised}/{layers}")
                for r in declined:
                    reasons[r] += 1
                    where[r].append(v)
            if any_:
                rows.append(f"| {model} | {dtype} | " + " | ".join(cells) +
                            " |")
    rows.append("| **all** | | " + " | ".join(
        f"**{totals[(i, d, 'raised')]}/{totals[(i, d, 'layers')]}**"
        for i, d in COLUMNS) + " |")
    return rows, reasons, where, biases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fa-opt", default=os.path.join(ROOT, "build", "bin",
                                                     "fa-opt"))
    ap.add_argument("--corpus", default=CORPUS,
                    help="a directory with manifest.json and the IR files")
    ap.add_argument("--where", action="store_true",
                    help="list the files of each remark")
    a = ap.parse_args()
    manifest = json.load(open(os.path.join(a.corpus, "manifest.json")))
    rows, reasons, where, biases = table(a.fa_opt, a.corpus, manifest)
    print("\n".join(rows))
    print()
    print("| count | decline remark or error (files with errors count once) |")
    print("|---|---|")
    for r, n in reasons.most_common():
        print(f"| {n} | {r.replace('|', '/')} |")
        if a.where:
            print("|  | " + ", ".join(sorted(set(where[r]))) + " |")
    print()
    print(f"{sum(len(b) for b in biases.values())} raised ops read a bias "
          f"operand (a [.., seq_q, seq_k] tensor) in {len(biases)} files")
    if biases:
        print()
        print("| file | bias operands |")
        print("|---|---|")
        for v in sorted(biases):
            print(f"| {v} | " + ", ".join(f"[{s}]" for s in biases[v]) +
                  " |")


if __name__ == "__main__":
    main()
