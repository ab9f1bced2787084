"""Ahead-of-time builds: a directory of bundles for a list of configurations,
to ship to machines without MLIR.

    python -m fa_mlir.aot --configs configs.json --out bundles/ [--runtime] [--keep-going]

configs.json is a list (or {"configs": [...]}) of KernelConfig fields plus
an optional "target" ("cpu" default, or "sm_90a"); "op": "both" stands for
a forward and a backward entry. The output has one bundle directory per
entry and index.json; on the target machine set FA_MLIR_BUNDLE_PATH to it
(or call fa_mlir.add_bundle_dir). --runtime also copies libfa_runtime.so
into lib/, where the GPU runtime looks for it. --keep-going builds every
entry it can: one the compiler rejects is reported (stderr and OUT/failed.txt)
and left out of the index, and the exit status is 0 unless every entry
failed, so that a test suite over the directory runs and names what is
missing.
"""
import argparse
import hashlib
import json
import os
import shutil
import sys

from .compiler import build_bundle, build_dir, make_config
from .errors import FaError
from .registry import INDEX, INDEX_FORMAT


def expand(entries, default_target="cpu"):
    """[(KernelConfig, target)] from the JSON entries."""
    if isinstance(entries, dict):
        entries = entries.get("configs", [])
    out = []
    for i, e in enumerate(entries):
        e = dict(e)
        target = e.pop("target", default_target)
        ops = ["forward", "backward"] if e.get("op") == "both" else [
            e.get("op", "forward")]
        for op in ops:
            e["op"] = op
            for k in ("window", "bias"):
                if isinstance(e.get(k), list):
                    e[k] = tuple(e[k])
            try:
                out.append((make_config(e), target))
            except (FaError, TypeError) as err:
                raise SystemExit(f"configs entry {i}: {err}")
    return out


def _one_line(error, limit=300):
    text = " ".join(line.strip() for line in str(error).splitlines()
                    if line.strip())
    text = text or type(error).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def build(entries, out_dir, runtime=False, log=print, failures=None):
    """Builds the bundles and writes the index; returns the index.

    When `failures` is a list, an entry whose build raises FaError is left
    out (and listed in OUT/failed.txt) and (KernelConfig, target, error) is
    appended to it; otherwise the error propagates.
    """
    os.makedirs(out_dir, exist_ok=True)
    index = {"format": INDEX_FORMAT, "version": 1, "entries": []}
    failed = []
    for kcfg, target in entries:
        name = hashlib.sha256(f"{target}{kcfg.key()}".encode()).hexdigest()[:16]
        rel = os.path.join(target, f"{kcfg.op}-{kcfg.dtype}-d{kcfg.head_dim}-{name}")
        path = os.path.join(out_dir, rel)
        shutil.rmtree(path, ignore_errors=True)
        try:
            build_bundle(kcfg, target, path)
        except FaError as e:
            if failures is None:
                raise
            shutil.rmtree(path, ignore_errors=True)
            failed.append((kcfg, target, e))
            log(f"FAILED {rel}: {_one_line(e)}")
            continue
        index["entries"].append({"target": target, "config": kcfg.to_dict(),
                                 "path": rel})
        log(f"built {rel}")
    if runtime:
        lib = os.path.join(build_dir(), "lib", "libfa_runtime.so")
        os.makedirs(os.path.join(out_dir, "lib"), exist_ok=True)
        shutil.copy2(lib, os.path.join(out_dir, "lib", "libfa_runtime.so"))
    with open(os.path.join(out_dir, INDEX), "w") as f:
        json.dump(index, f, indent=2)
        f.write("\n")
    failed_txt = os.path.join(out_dir, "failed.txt")
    if failed:
        with open(failed_txt, "w") as f:
            for kcfg, target, e in failed:
                f.write(f"{target} {kcfg.key()}\n    " +
                        str(e).replace("\n", "\n    ") + "\n")
    elif os.path.exists(failed_txt):
        os.remove(failed_txt)
    if failures is not None:
        failures.extend(failed)
    return index


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m fa_mlir.aot",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--configs", required=True, help="JSON list of configs")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--target", default="cpu", help="default target")
    p.add_argument("--runtime", action="store_true",
                   help="copy libfa_runtime.so into OUT/lib")
    p.add_argument("--keep-going", action="store_true",
                   help="skip entries that fail to build (listed in "
                        "OUT/failed.txt) instead of stopping")
    args = p.parse_args(argv)
    with open(args.configs) as f:
        entries = expand(json.load(f), args.target)
    failures = [] if args.keep_going else None
    try:
        build(entries, args.out, args.runtime, failures=failures)
    except FaError as e:
        print(f"fa_mlir.aot: {e}", file=sys.stderr)
        return 1
    failures = failures or []
    print(f"{len(entries) - len(failures)} bundles in {args.out}")
    if failures:
        print(f"fa_mlir.aot: {len(failures)} of {len(entries)} entries failed "
              f"to build (see {os.path.join(args.out, 'failed.txt')}):",
              file=sys.stderr)
        for kcfg, target, e in failures:
            print(f"  {target} {kcfg.key()}: {_one_line(e)}",
                  file=sys.stderr)
    return 1 if failures and len(failures) == len(entries) else 0


if __name__ == "__main__":
    sys.exit(main())
