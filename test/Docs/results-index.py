# results/ holds the raw outputs the docs cite. Every file there is listed
# in results/README.md (and every listed file exists), every results/ path
# that a doc, script or benchmark names exists (brace lists and globs
# expanded), and nothing names the old docs/bench or docs/hopper-logs.
# RUN: %python %s %fa_src_root | FileCheck %s
# CHECK: results: {{[0-9]+}} files
# CHECK: cited paths: {{[0-9]+}}
# CHECK-NOT: missing
import glob
import itertools
import os
import re
import sys

root = sys.argv[1]
results = os.path.join(root, "results")
problems = []

files = sorted(f for f in os.listdir(results) if f != "README.md")
with open(os.path.join(results, "README.md")) as f:
    listed = set(re.findall(r"\]\(([^)/]+)\)", f.read()))
problems += [f"missing from results/README.md: {f}"
             for f in files if f not in listed]
problems += [f"missing: results/README.md lists {f}"
             for f in sorted(listed - set(files))]
print(f"results: {len(files)} files")


def expand(pattern):
    """results/a-{1,2}.csv -> [results/a-1.csv, results/a-2.csv]."""
    parts = re.split(r"\{([^{}]*)\}", pattern)
    choices = [[p] if i % 2 == 0 else p.split(",")
               for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


cited = 0
texts = (glob.glob(os.path.join(root, "docs", "*.md")) +
         [os.path.join(root, "README.md")] +
         glob.glob(os.path.join(root, "benchmarks", "**", "*.py"),
                   recursive=True) +
         [p for p in glob.glob(os.path.join(root, "scripts", "*"))
          if os.path.isfile(p)])
path_re = re.compile(r"results/[A-Za-z0-9_.*{},-]+\.(?:csv|log|md|txt)")
for text_path in texts:
    with open(text_path) as f:
        text = f.read()
    rel = os.path.relpath(text_path, root)
    if "docs/bench" in text or "docs/hopper-logs" in text:
        problems.append(f"missing folder: {rel} names docs/bench or "
                        "docs/hopper-logs (now results/)")
    for pattern in path_re.findall(text):
        for path in expand(pattern):
            cited += 1
            if not glob.glob(os.path.join(root, path)):
                problems.append(f"missing: {rel} cites {path}")
print(f"cited paths: {cited}")
print("\n".join(problems))
