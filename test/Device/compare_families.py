"""Compiles every kernel family the device round builds with two fa-compile
binaries and compares what they write: cubins byte for byte and bundle JSON
(single kernels and kernel sequences) as text. Byte-identical cubins run at
identical speed and equal bundles launch them identically, so a refactoring
of the emitter that keeps both is proven to change no kernel without a GPU.

  compare_families.py OLD_FA_COMPILE NEW_FA_COMPILE [--jobs N] [--ref-cache DIR]
                      [--family NAME ...]

Families (each a list of jobs: one input module and fa-compile options):
  forward    gen_attention_inputs.py all, one function per job
  bench      gen_attention_inputs.py bench with the schedules the device
             round and the tests compile: default, --overlap=false,
             --stages=3, --pingpong=true
  variants   gen_bench_inputs.py split (the variant benchmark)
  fp8        check_fp8_sequences.py gen (FP8 sequences, per-tensor and
             per-block descales)
  decode     gen_decode_inputs.py (split-KV, paged, append), default and
             --stages=3
  varlen     gen_varlen_inputs.py, default and --pingpong=true
  backward   gen_backward_inputs.py, --deterministic where the config says
  combine    fa.combine at every row length class and output type
  modifiers  gen_modifier_inputs.py, one configuration per job (stage 12's
             score_mod/mask_mod kernels and sequences)
  modifiers-bwd  gen_modifier_inputs.py backward, their backward sequences
  sinks      gen_sinks_inputs.py, one configuration per job (stage 13's
             forward bundles and backward sequences; `_det` ones with
             --deterministic)
  varlen-bwd gen_varlen_backward_inputs.py, default and (its `det` module)
             --deterministic
  tests      each test/Conversion/FAToNVVM/*.mlir that fa-compile takes
             whole (no --split-input-file), default options
  dynamic    the bench and varlen modules with --dynamic-tiles (the
             device round's DYNAMIC_TILES=1 kernels)

Only jobs the old compiler accepts are compared (a job the new one rejects
is a difference). The bundles name their cubin by kernel name and hold
nothing that depends on the build (no paths, times or hashes); bundle JSON
whose text differs is compared by meaning: the same JSON values, shape
expressions (grid, params' values, scratch and workspace shapes) as syntax
trees, so redundant parentheses do not count (they are reported apart). `--ref-cache DIR` keeps the old
compiler's outputs in DIR, keyed by its sha256, so that later runs compile
with the new compiler only. Prints one line per family and one per
difference; exits 1 when anything differs.
"""
import argparse
import ast
import concurrent.futures
import filecmp
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)


def run_py(script, *args, stdout=None):
    subprocess.run([sys.executable, os.path.join(HERE, script), *args], check=True,
                   stdout=stdout)


def module_of(work, name, script, *args):
    """One module on stdout of `script args` -> work/name.mlir."""
    path = os.path.join(work, name + ".mlir")
    with open(path, "w") as f:
        run_py(script, *args, stdout=f)
    return path


def split_dir(work, name, script, *args):
    """`script args DIR`: one file per function in a fresh DIR."""
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    run_py(script, *args, d)
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".mlir"))


def listed_modules(work, family, script, *prefix):
    """One module per configuration `script list` names: `script prefix
    NAME` -> work/family/NAME.mlir."""
    d = os.path.join(work, family)
    os.makedirs(d, exist_ok=True)
    out = subprocess.run([sys.executable, os.path.join(HERE, script), "list"],
                         check=True, capture_output=True, text=True).stdout.split()
    return [module_of(d, name, script, *prefix, name) for name in out]


def sinks_jobs(work):
    """prepare_sinks' compiles: `_det` configurations with --deterministic."""
    return [(f, ["--deterministic"] if f.endswith("_det.mlir") else [])
            for f in listed_modules(work, "sinks", "gen_sinks_inputs.py")]


def combine_module(work):
    """fa.combine: one row per lane-column class (1 column, fewer than a
    warp, whole warps, a partial last pass, the widest) and output type."""
    funcs = []
    for dim in (1, 24, 32, 64, 72, 128, 256, 512):
        for out in ("f32", "f16", "bf16"):
            po, pl = f"tensor<?x?x{dim}xf32>", "tensor<?x?xf32>"
            o, lse = f"tensor<?x{dim}x{out}>", "tensor<?xf32>"
            funcs.append(f"func.func @c_{dim}_{out}(%po: {po}, %pl: {pl}) -> ({o}, {lse}) {{\n"
                         f"  %o, %l = fa.combine %po, %pl : {po}, {pl} -> {o}, {lse}\n"
                         f"  return %o, %l : {o}, {lse}\n}}\n")
    path = os.path.join(work, "combine.mlir")
    with open(path, "w") as f:
        f.write("\n".join(funcs))
    return path


def backward_jobs(work):
    from gen_backward_inputs import flags
    files = split_dir(work, "backward", "gen_backward_inputs.py")
    jobs = []
    for f in files:
        with open(f[:-len(".mlir")] + ".cfg.json") as cfg:
            jobs.append((f, flags(json.load(cfg))))
    return jobs


def conversion_tests():
    d = os.path.join(ROOT, "test", "Conversion", "FAToNVVM")
    out = []
    for f in sorted(os.listdir(d)):
        path = os.path.join(d, f)
        if f.endswith(".mlir") and "split-input-file" not in open(path).read():
            out.append(path)
    return out


SCHEDULES = [[], ["--overlap=false"], ["--stages=3"], ["--pingpong=true"]]


def families(work):
    """name -> [(input file, options)]."""
    fwd = split_dir(work, "forward", "gen_attention_inputs.py", "all", "--split")
    bench = split_dir(work, "bench", "gen_attention_inputs.py", "bench", "--split")
    variants = split_dir(work, "variants", "gen_bench_inputs.py", "split")
    decode = module_of(work, "decode", "gen_decode_inputs.py")
    varlen = module_of(work, "varlen", "gen_varlen_inputs.py")
    return {
        "forward": [(f, []) for f in fwd],
        "bench": [(f, s) for f in bench for s in SCHEDULES],
        "variants": [(f, []) for f in variants],
        "fp8": [(module_of(work, "fp8", "check_fp8_sequences.py", "gen"), [])],
        "decode": [(decode, []), (decode, ["--stages=3"])],
        "varlen": [(varlen, []), (varlen, ["--pingpong=true"])],
        "backward": backward_jobs(work),
        "combine": [(combine_module(work), [])],
        "modifiers": [(f, []) for f in listed_modules(work, "modifiers",
                                                      "gen_modifier_inputs.py")],
        "modifiers-bwd": [(f, []) for f in listed_modules(work, "modifiers-bwd",
                                                          "gen_modifier_inputs.py", "backward")],
        "sinks": sinks_jobs(work),
        "varlen-bwd": [(module_of(work, "varlen_bwd", "gen_varlen_backward_inputs.py"), []),
                       (module_of(work, "varlen_bwd_det", "gen_varlen_backward_inputs.py", "det"),
                        ["--deterministic"])],
        "tests": [(f, []) for f in conversion_tests()],
        "dynamic": [(f, ["--dynamic-tiles"]) for f in bench] + [(varlen, ["--dynamic-tiles"])],
    }


def job_key(family, src, opts):
    tag = "_".join(o.lstrip("-").replace("=", "") for o in opts)
    return f"{family}/{os.path.basename(src)[:-len('.mlir')]}{'_' + tag if tag else ''}"


def compile_job(fa_compile, src, opts, out):
    """Bundles of one job into `out`; False when fa-compile rejects it."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    r = subprocess.run([fa_compile, src, "-o", out, *opts], capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(out)
        with open(out + ".rejected", "w") as f:
            f.write(r.stderr)
        return False
    return True


# Where a bundle or sequence holds shape expressions (docs/BundleFormat.md,
# *Expressions*): their text may differ in redundant parentheses only.
EXPRESSION_FIELDS = ("grid", "shape", "value")


def expression_tree(text):
    """The expression's syntax tree: the format's grammar is a subset of
    Python's (ceildiv, min, max, stride, size are calls), and the tree has no
    parentheses."""
    return ast.dump(ast.parse(text, mode="eval"))


def same_meaning(old, new, key=None):
    """Whether two parsed bundle JSON documents are equal, with expression
    strings compared as syntax trees."""
    if isinstance(old, dict) and isinstance(new, dict):
        return old.keys() == new.keys() and all(
            same_meaning(old[k], new[k], k) for k in old)
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(
            same_meaning(a, b, key) for a, b in zip(old, new))
    if key in EXPRESSION_FIELDS and isinstance(old, str) and isinstance(new, str):
        try:
            return expression_tree(old) == expression_tree(new)
        except SyntaxError:
            return False
    return old == new and type(old) is type(new)


def same_json(old_path, new_path):
    with open(old_path) as a, open(new_path) as b:
        return same_meaning(json.load(a), json.load(b))


def compare_dirs(old, new):
    """Differences between two output folders, as lines. Bundle JSON whose
    text differs counts as equal when its meaning is (same_meaning): a
    bundle is read, never compared as text, by both readers."""
    a, b = set(os.listdir(old)), set(os.listdir(new))
    diffs = [f"only old: {n}" for n in sorted(a - b)] + [f"only new: {n}" for n in sorted(b - a)]
    for n in sorted(a & b):
        o, w = os.path.join(old, n), os.path.join(new, n)
        if filecmp.cmp(o, w, shallow=False):
            continue
        if n.endswith(".json") and same_json(o, w):
            TEXT_ONLY.append(n)
            continue
        diffs.append(f"differs: {n}")
    return diffs


# The bundle JSON files equal in meaning but not in text (compare_dirs).
TEXT_ONLY = []


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:16]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--ref-cache", help="folder for the old compiler's outputs")
    p.add_argument("--family", action="append", help="only these families")
    p.add_argument("--ref-only", action="store_true",
                   help="only fill --ref-cache with the old compiler's outputs")
    args = p.parse_args()
    if args.ref_only and not args.ref_cache:
        p.error("--ref-only needs --ref-cache")
    work = tempfile.mkdtemp(prefix="compare-families-")
    try:
        fams = families(os.path.join(work, "src"))
        if args.family:
            fams = {k: v for k, v in fams.items() if k in args.family}
        ref = (os.path.join(args.ref_cache, sha256(args.old)) if args.ref_cache
               else os.path.join(work, "old"))
        jobs = [(fam, src, opts) for fam, js in fams.items() for src, opts in js]

        def run(job):
            fam, src, opts = job
            key = job_key(fam, src, opts)
            old_out, new_out = os.path.join(ref, key), os.path.join(work, "new", key)
            os.makedirs(os.path.dirname(old_out), exist_ok=True)
            os.makedirs(os.path.dirname(new_out), exist_ok=True)
            if os.path.isdir(old_out):
                old_ok = True
            elif os.path.exists(old_out + ".rejected"):
                old_ok = False
            else:
                old_ok = compile_job(args.old, src, opts, old_out)
            if not old_ok:
                return fam, key, None
            if args.ref_only:
                return fam, key, []
            if not compile_job(args.new, src, opts, new_out):
                return fam, key, ["new compiler rejects it"]
            return fam, key, compare_dirs(old_out, new_out)

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(run, jobs))
        failed = False
        for fam in fams:
            rs = [r for r in results if r[0] == fam]
            compared = [r for r in rs if r[2] is not None]
            files = {"cubin": 0, "json": 0}
            for _, key, diffs in compared:
                for n in os.listdir(os.path.join(ref, key)):
                    ext = n.rsplit(".", 1)[-1]
                    if ext in files:
                        files[ext] += 1
            bad = [(key, d) for _, key, ds in compared for d in ds]
            failed |= bool(bad)
            print(f"{fam:9s} jobs {len(compared)}/{len(rs)} (old compiler rejects "
                  f"{len(rs) - len(compared)}); cubins {files['cubin']}, bundles "
                  f"{files['json']}; differences {len(bad)}")
            for key, d in bad:
                print(f"  {key}: {d}")
        if TEXT_ONLY:
            print(f"bundle JSON equal in meaning, not in text (expressions' "
                  f"parentheses): {len(TEXT_ONLY)}")
        print("compare_families: " + ("DIFFERENT" if failed else "identical"))
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
