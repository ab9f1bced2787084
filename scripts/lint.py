"""Lints the lines that changed since a base commit, so that the checks
apply to new code without reformatting the tree:

  C and C++   clang-format (.clang-format: LLVM style; FAToNVVM at 100
              columns) and clang-tidy (.clang-tidy: LLVM's and MLIR's
              checks) on the changed lines; clang-tidy needs
              build/compile_commands.json and skips files it does not list;
  Python      ruff check (ruff.toml) on the changed lines.

    .venv/bin/python scripts/lint.py [--base REV] [--tidy-max N]

The base is --base, else $FA_LINT_BASE, else the parent of HEAD (in CI, the
submitted commit's changes). Uncommitted changes count as changed. The
tools are the pinned ones scripts/setup.sh installs into .venv. Prints each
problem and "lint: N problems in changed lines"; exits 1 if N > 0.

clang-tidy parses each file with MLIR's headers (about 40 s of CPU a file
here), so --tidy-max bounds how many changed sources it checks, those with
the most changed lines first, and names the ones it left out (CI: 4).
"""
import argparse
import concurrent.futures
import difflib
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # --root
C_SUFFIXES = (".c", ".cpp", ".h")
PY_SUFFIXES = (".py",)


def git(*args):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True,
                          text=True)


def tool(name):
    """The .venv's pinned tool (next to this interpreter), else PATH's."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else shutil.which(name)


def changed_lines(base):
    """{path: [(first, last)]} of lines added or changed since `base`."""
    diff = git("diff", "-U0", "--no-color", "--diff-filter=AMR", base, "--")
    ranges, path = {}, None
    for line in diff.stdout.splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@") and path:
            m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
            first, count = int(m.group(1)), int(m.group(2) or 1)
            if count:
                ranges.setdefault(path, []).append((first, first + count - 1))
    return {p: r for p, r in ranges.items()
            if os.path.isfile(os.path.join(ROOT, p))}


def in_ranges(row, ranges):
    return any(first <= row <= last for first, last in ranges)


def clang_format(path, ranges):
    """The diff clang-format would make to the changed lines of `path`."""
    full = os.path.join(ROOT, path)
    args = [tool("clang-format"), "--style=file"]
    args += [f"--lines={first}:{last}" for first, last in ranges]
    with open(full) as f:
        before = f.read()
    after = subprocess.run(args + [full], capture_output=True, text=True,
                           check=True).stdout
    if before == after:
        return []
    diff = "".join(difflib.unified_diff(
        before.splitlines(True), after.splitlines(True), path, path + " "
        "(clang-format)"))
    return [f"{path}: not formatted (clang-format):\n{diff}"]


def compile_database(build):
    path = os.path.join(build, "compile_commands.json")
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {os.path.realpath(os.path.join(e["directory"], e["file"]))
                for e in json.load(f)}


def clang_tidy(path, ranges, build):
    full = os.path.join(ROOT, path)
    line_filter = json.dumps([{"name": full,
                               "lines": [list(r) for r in ranges]}])
    proc = subprocess.run(
        [tool("clang-tidy"), "-p", build, "--quiet",
         f"--line-filter={line_filter}", full],
        capture_output=True, text=True)
    # Only this file's lines (the line filter names no header).
    found = [line for line in proc.stdout.splitlines()
             if line.startswith(full + ":")
             and re.search(r": (warning|error): ", line)]
    return [f"{line} (clang-tidy)" for line in found]


def changed_count(ranges):
    return sum(last - first + 1 for first, last in ranges)


def tidy_sources(c_files, ranges, build, limit):
    """clang-tidy's findings on the changed lines of the changed sources
    that the build's compile database lists (at most `limit` of them)."""
    known = compile_database(build)
    sources = sorted((p for p in c_files
                      if os.path.realpath(os.path.join(ROOT, p)) in known),
                     key=lambda p: -changed_count(ranges[p]))
    if limit is not None and len(sources) > limit:
        print(f"lint: clang-tidy checks {limit} of {len(sources)} changed "
              f"sources; not checked: {', '.join(sources[limit:])}")
        sources = sources[:limit]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        found = pool.map(lambda p: clang_tidy(p, ranges[p], build), sources)
        return [problem for problems in found for problem in problems]


def ruff(paths, ranges):
    if not paths:
        return []
    proc = subprocess.run(
        [tool("ruff"), "check", "--output-format", "json", "--no-fix",
         *[os.path.join(ROOT, p) for p in paths]],
        capture_output=True, text=True, cwd=ROOT)
    problems = []
    for d in json.loads(proc.stdout or "[]"):
        path = os.path.relpath(d["filename"], ROOT)
        row = d["location"]["row"]
        if in_ranges(row, ranges.get(path, [])):
            problems.append(f"{path}:{row}:{d['location']['column']}: "
                            f"{d['code']} {d['message']} (ruff)")
    return problems


def main():
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=os.environ.get("FA_LINT_BASE"))
    parser.add_argument("--root", default=ROOT,
                        help="the git work tree to lint (default: this one)")
    parser.add_argument("--build", default=None,
                        help="the build with compile_commands.json "
                        "(default: ROOT/build)")
    parser.add_argument("--tidy-max", type=int, default=None,
                        help="clang-tidy at most this many changed sources "
                        "(0: none; default: all)")
    args = parser.parse_args()
    ROOT = os.path.abspath(args.root)
    args.build = args.build or os.path.join(ROOT, "build")
    base = args.base or "HEAD~1"
    if git("rev-parse", "--verify", "--quiet", base + "^{commit}").returncode:
        print(f"lint: no base commit {base}: nothing to compare, skipped")
        return 0
    ranges = changed_lines(base)
    c_files = sorted(p for p in ranges if p.endswith(C_SUFFIXES))
    py_files = sorted(p for p in ranges if p.endswith(PY_SUFFIXES))

    problems = []
    for path in c_files:
        problems += clang_format(path, ranges[path])
    problems += ruff(py_files, ranges)
    problems += tidy_sources(c_files, ranges, args.build, args.tidy_max)
    for problem in problems:
        print(problem)
    print(f"lint: {len(problems)} problems in changed lines of "
          f"{len(c_files)} C/C++ and {len(py_files)} Python files since "
          f"{base}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
