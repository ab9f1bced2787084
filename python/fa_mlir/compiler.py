"""The compile half: KernelConfig -> kernel bundle directory, with a cache.

Needs the fa-mlir build (fa-opt; fa-compile for sm_90a) and LLVM 22's
mlir-translate and clang. The compiler is driven as a subprocess: fa-opt and
fa-compile are the project's C++ library's drivers, and a subprocess keeps
LLVM's global state (command-line options, crash handlers) out of the Python
process. docs/Python.md has the reasoning.
"""
import glob
import json
import functools
import os
import warnings
import shutil
import subprocess

from . import cache as fa_cache
from . import config as fa_config
from .bundle import (MANIFEST, MANIFEST_FORMAT, MANIFEST_VERSION, load_bundle,
                     write_manifest)
from .manifest import KERNEL_BUNDLE, KERNEL_SEQUENCE
from .cpu import (OPT_FLAGS, _repo_root, block_options, find_fa_opt,
                  host_cpu, host_target, lower_to_shared_library,
                  openmp_runtime, vector_isa)
from .arguments import check_bool
from .errors import ArgumentError, CompileError, UnsupportedError
from .signature import signature
from .spec import BACKWARD_OPS, FP8, TARGETS, KernelConfig

_FUNCTION = {"forward": "attention", "backward": "attention_grad",
             "kvcache": "attention_kvcache", "varlen": "attention_varlen",
             "varlen_backward": "attention_varlen_grad",
             "combine": "combine"}
# What the CPU runs instead of an op that lowers for sm_90a only.
_CPU_INSTEAD = {
    "kvcache": "on the CPU fa_mlir.torch.attention_with_kvcache runs the "
               "forward kernel per sequence",
    "varlen": "on the CPU fa_mlir.torch.varlen_attention runs the forward "
              "kernel per sequence",
    "varlen_backward": "on the CPU fa_mlir.torch.varlen_attention's "
                       "backward runs the backward kernel per sequence",
    "combine": "on the CPU fa_mlir.torch.combine compiles fa.combine for "
               "each call's shapes itself"}


def build_dir():
    return os.environ.get("FA_BUILD_DIR", os.path.join(_repo_root(), "build"))


def find_fa_compile():
    """fa-compile (the sm_90a driver) of the build, or UnsupportedError."""
    path = os.path.join(build_dir(), "bin", "fa-compile")
    if not os.path.exists(path):
        raise UnsupportedError(
            f"target sm_90a needs the sm_90a compiler, but {path} does not "
            "exist: this build has no Hopper back end (build the 'fa-compile' "
            "target, or set FA_BUILD_DIR to a build that has it). fa_mlir "
            "never falls back to the CPU for a GPU target.")
    return path


def cpu_pipeline():
    """$FA_MLIR_CPU_PIPELINE (e.g. "fa-cpu-pipeline{tiled=true}"), else
    fa-cpu-pipeline with register blocks for this host's vectors, on OpenMP
    threads (sequential where this machine has no OpenMP runtime). Part of
    the cache key."""
    env = os.environ.get("FA_MLIR_CPU_PIPELINE")
    if env is not None:
        return env
    openmp = " openmp=true" if openmp_runtime() else ""
    if not openmp and os.environ.get("FA_MLIR_OPENMP_RUNTIME") is None:
        _warn_no_openmp()
    return f"fa-cpu-pipeline{{{block_options()}{openmp}}}"


@functools.lru_cache(maxsize=None)
def _warn_no_openmp():
    """Sequential kernels are a choice the user should see, not a silent
    fallback (FA_MLIR_OPENMP_RUNTIME="" makes it an explicit one)."""
    warnings.warn("fa_mlir: no OpenMP runtime (libomp) on this machine: CPU "
                  "kernels run on one thread; install libomp-22-dev (or "
                  "libomp-dev), or set FA_MLIR_OPENMP_RUNTIME to a libomp.so "
                  "(\"\" to choose one thread)", RuntimeWarning, stacklevel=3)


def cpu_flags():
    """clang's flags for CPU kernels: $FA_MLIR_CPU_FLAGS (split at spaces),
    else cpu.OPT_FLAGS. Part of the cache key."""
    env = os.environ.get("FA_MLIR_CPU_FLAGS")
    return tuple(env.split()) if env is not None else OPT_FLAGS


def target_version(target):
    """The compiler version that keys the cache for `target`."""
    version = fa_cache.compiler_version(compiler_tools(target))
    if target == "cpu":
        version["pipeline"] = cpu_pipeline()
        version["flags"] = " ".join(cpu_flags())
        # Kernels are built for this CPU's ISA (-march=native).
        version["host"] = host_target()
    return version


def compiler_tools(target):
    tools = [find_fa_opt()]
    if target == "sm_90a":
        tools.append(find_fa_compile())
    return tools


def make_config(config=None, **fields):
    """A KernelConfig from a KernelConfig, a dict, or keyword fields."""
    if config is None:
        return KernelConfig.from_dict(fields)
    if isinstance(config, dict):
        config = KernelConfig.from_dict(config)
    if not isinstance(config, KernelConfig):
        raise ArgumentError(f"config must be a KernelConfig or a dict, "
                            f"got {type(config).__name__}")
    if fields:
        config = KernelConfig.from_dict(dict(config.to_dict(), **fields))
    return config


def _check_compile_options(target, cache, cache_dir):
    where = "fa_mlir.compile"
    if not isinstance(target, str) or target not in TARGETS:
        raise UnsupportedError(f"unknown target {target!r}; known: {TARGETS}")
    check_bool(where, "cache", cache)
    if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):
        raise ArgumentError(f"{where}: cache_dir must be a path or None, got "
                            f"{cache_dir!r}")


def compile(config=None, *, target="cpu", cache=True, cache_dir=None,
            **fields):
    """Compiles one attention kernel into a bundle and loads it.

    `config` is a KernelConfig (or its dict), or pass its fields as keywords:
    ``fa_mlir.compile(dtype="bf16", head_dim=64, causal=True)``. Sizes left
    None (the default) are dynamic. Returns a loaded bundle (CpuBundle or
    GpuBundle); `bundle.path` is its directory. With `cache`, bundles are
    reused across processes, keyed by the configuration, the target and the
    compiler version.
    """
    _check_compile_options(target, cache, cache_dir)
    kcfg = make_config(config, **fields)
    kcfg.check_target(target)
    version = target_version(target)
    key = fa_cache.entry_key(kcfg, target, version)
    final = fa_cache.entry_dir(key, target, cache_dir)
    if cache:
        hit = fa_cache.cached_bundle(final, kcfg, target, load_bundle)
        if hit is not None:
            return hit
    tmp = fa_cache.staging_dir(target, cache_dir)
    try:
        build_bundle(kcfg, target, tmp, version)
        path = fa_cache.publish(tmp, final) if cache else tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return load_bundle(path)


def build_bundle(kcfg, target, out_dir, version=None):
    """Writes the bundle of `kcfg` for `target` into `out_dir` (no cache)."""
    kcfg.check_target(target)
    os.makedirs(out_dir, exist_ok=True)
    version = version or target_version(target)
    manifest = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION,
                "target": target, "op": kcfg.op, "config": kcfg.to_dict(),
                "compiler": version}
    if target == "cpu":
        manifest["cpu"] = _build_cpu(kcfg, out_dir)
    elif target == "sm_90a":
        manifest["gpu"] = _build_sm90a(kcfg, out_dir)
    else:
        raise UnsupportedError(f"unknown target {target!r}; known: {TARGETS}")
    write_manifest(out_dir, manifest)
    return out_dir


def _build_cpu(kcfg, out_dir):
    if kcfg.op in _CPU_INSTEAD:
        raise UnsupportedError(
            f"target cpu has no {kcfg.op} kernel ({_SM90A_OP[kcfg.op]} "
            f"lowers for sm_90a); {_CPU_INSTEAD[kcfg.op]}")
    acfg = kcfg.attention_config()
    name = _FUNCTION[kcfg.op]
    text = (fa_config.forward_mlir(acfg, name) if kcfg.op == "forward"
            else fa_config.backward_mlir(acfg, name))
    with open(os.path.join(out_dir, "kernel.mlir"), "w") as f:
        f.write(text)
    try:
        lower_to_shared_library(text, os.path.join(out_dir, "kernel.so"),
                                cpu_pipeline(), cpu_flags())
    except CompileError as e:
        if "heads" not in kcfg.dynamic:
            raise
        # The reference decomposition's lowering crashes on dynamic head
        # counts (its dynamic [Hkv, G] expand_shape); say what to do.
        raise UnsupportedError(
            f"target cpu: {cpu_pipeline()} failed on dynamic head counts; "
            "give heads_q and heads_kv (batch and sequence lengths may stay "
            f"dynamic). The compiler said:\n{e}") from None
    out = {"library": "kernel.so", "symbol": f"_mlir_ciface_{name}",
           "source": "kernel.mlir", "pipeline": cpu_pipeline(),
           "arguments": signature(kcfg)}
    # -march=native code faults (SIGILL) on a CPU without these: the loader
    # checks them (bundle.CpuBundle), so a copied bundle fails with a message.
    if "-march=native" in cpu_flags():
        out["isa"] = vector_isa(host_cpu()[1])
    return out


# The tensor op fa-compile lowers for each op that _sm90a_mlir writes.
_SM90A_OP = {"forward": "fa.attention", "kvcache": "fa.attention_kvcache",
             "varlen": "fa.attention_varlen",
             "varlen_backward": "fa.attention_varlen_grad",
             "combine": "fa.combine"}


def _clause(acfg, name, roles):
    """An optional operand group of the op: ` name(%a, %b : ta, tb)`."""
    return (f" {name}({', '.join('%' + r for r in roles)} : "
            f"{', '.join(acfg.type_of(r) for r in roles)})")


def _op_parts(kcfg, acfg, ins, outs):
    """(leading operands, the optional groups after their types, results)
    of the op: the bias and the score_mod/mask_mod captures in their
    clauses. fa.attention_kvcache: the block table of paged caches, the
    appended tokens, and with them the updated caches as two more results
    (which the kvcache_append kernel writes in place), then the captures."""
    if kcfg.op != "kvcache":
        captures = fa_config.capture_roles(acfg)
        groups = _clause(acfg, "bias", ["bias"]) if acfg.bias else ""
        if acfg.sinks:
            groups += _clause(acfg, "sinks", ["sinks"])
        if captures:
            groups += _clause(acfg, "captures", captures)
        grouped = ["bias", "sinks"] + captures
        return [r for r in ins if r not in grouped], groups, outs
    groups = ""
    if acfg.page_size is not None:
        groups += _clause(acfg, "block_table", ["block_table"])
    caches = []
    if acfg.append:
        groups += _clause(acfg, "append", ["key_new", "value_new"])
        caches = fa_config.kvcache_caches(acfg)
    captures = fa_config.capture_roles(acfg)
    if captures:
        groups += _clause(acfg, "captures", captures)
    return ins[:4], groups, outs + caches


def _sm90a_mlir(kcfg):
    """A function on tensors holding the one fa.attention (or
    fa.attention_kvcache, fa.attention_varlen) to compile."""
    acfg = kcfg.attention_config()
    ins, outs = fa_config.op_roles(kcfg.op, acfg)
    operands, groups, outs = _op_parts(kcfg, acfg, ins, outs)
    params = ", ".join(f"%{r}: {acfg.type_of(r)}" for r in ins)
    result_types = ", ".join(acfg.type_of(r) for r in outs)
    results = ", ".join(f"%{r}_r" for r in outs)
    attrs = acfg.attributes(kvcache=kcfg.op == "kvcache")
    return (f"func.func @{_FUNCTION[kcfg.op]}({params}) -> ({result_types}) "
            f"{{\n  {results} = {_SM90A_OP[kcfg.op]} "
            f"{', '.join('%' + r for r in operands)} : "
            f"{', '.join(acfg.type_of(r) for r in operands)}{groups} {attrs} "
            f"-> {result_types}{fa_config.op_regions(acfg)}\n"
            f"  return {results} : {result_types}\n}}\n")


def sm90a_combine_mlir(kcfg):
    """The fa.combine fa-compile lowers for `kcfg` (op combine): partials
    [n, rows, head_dim] and [n, rows] f32, merged into [rows, head_dim] of
    kcfg.dtype and [rows] f32; n and rows dynamic (kernel parameters)."""
    ins = (f"tensor<?x?x{kcfg.head_dim}xf32>", "tensor<?x?xf32>")
    outs = f"tensor<?x{kcfg.head_dim}x{kcfg.dtype}>, tensor<?xf32>"
    return (f"func.func @{_FUNCTION['combine']}(%partial_output: {ins[0]}, "
            f"%partial_lse: {ins[1]}) -> ({outs}) {{\n"
            f"  %output_r, %lse_r = {_SM90A_OP['combine']} %partial_output, "
            f"%partial_lse : {ins[0]}, {ins[1]} -> {outs}\n"
            f"  return %output_r, %lse_r : {outs}\n}}\n")


def sm90a_fp8_mlir(kcfg):
    """The FP8 forward as fa-compile takes it: the memref function of the
    CPU path, with the three descales in the form the sm_90a kernel reads:
    [batch, heads_kv] (per tensor: broadcast), or with descale_block
    (bq, bk) per block, Q's [batch, heads_q, ceil(seq_q / bq)] and K's, V's
    [batch, heads_kv, ceil(seq_k / bk)]. Batch and the block counts are
    '?' when batch and the sequences are dynamic."""
    acfg = kcfg.attention_config()
    batch = "?" if "batch" in kcfg.dynamic else kcfg.batch
    shapes = [(batch, kcfg.heads_kv)] * 3
    if kcfg.descale_block is not None:
        def blocks(seq, rows):
            return "?" if "seq" in kcfg.dynamic else -(-seq // rows)
        bq, bk = kcfg.descale_block
        k_shape = (batch, kcfg.heads_kv, blocks(kcfg.seq_k, bk))
        shapes = [(batch, kcfg.heads_q, blocks(kcfg.seq_q, bq)), k_shape,
                  k_shape]
    return fa_config.fp8_forward_mlir(acfg, shapes, kcfg.descale_block,
                                      kcfg.out_dtype, _FUNCTION["forward"])


def _sm90a_format(kcfg):
    """What fa-compile writes for `kcfg`: one document of this format (and
    the files it names). The split-KV forms (kvcache, a forward with
    num_splits) are two kernels, partial and combine; so is the backward
    (pre, main, post), and the FP8 forward (V transposed, then the
    attention). The varlen and combine kernels are one bundle each (a
    varlen forward under a mask is a one-kernel sequence: _build_sm90a
    takes the sequence it finds)."""
    if kcfg.op in ("varlen", "combine") or (
            kcfg.op == "forward" and kcfg.dtype != FP8 and
            kcfg.num_splits is None):
        return KERNEL_BUNDLE
    return KERNEL_SEQUENCE


# Messages of fa-compile that mean "this configuration is not supported" (an
# UnsupportedError) rather than a compiler failure.
# ("no sm_90a kernel": a form of the op the lowering does not build yet; a
# page size the decode kernel cannot tile is a "must be".)
_UNSUPPORTED = ("not supported", "must be", "no backward kernel yet",
                "no sm_90a kernel")


def fa_compile_command(tool, src, out_dir, kcfg):
    """fa-compile's command line for `kcfg`. --deterministic (the backward's
    dQ accumulated in a fixed order) is passed only when asked for, so a
    fa-compile without the flag still compiles everything else."""
    cmd = [tool, src, "-o", out_dir]
    if kcfg.op in BACKWARD_OPS and kcfg.deterministic:
        cmd.append("--deterministic")
    return cmd


def sm90a_source(kcfg):
    """The module fa-compile compiles for `kcfg` (kernel.mlir)."""
    # fa-compile takes the memref function the CPU target compiles too (its
    # fa.attention_grad is what the NVVM pipeline lowers).
    if kcfg.op == "backward":
        return fa_config.backward_mlir(kcfg.attention_config(),
                                       _FUNCTION["backward"])
    if kcfg.op == "combine":
        return sm90a_combine_mlir(kcfg)
    if kcfg.dtype == FP8:
        return sm90a_fp8_mlir(kcfg)
    return _sm90a_mlir(kcfg)


def _build_sm90a(kcfg, out_dir):
    tool = find_fa_compile()
    src = os.path.join(out_dir, "kernel.mlir")
    with open(src, "w") as f:
        f.write(sm90a_source(kcfg))
    proc = subprocess.run(fa_compile_command(tool, src, out_dir, kcfg),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        msg = proc.stderr.strip()
        kind = (UnsupportedError if any(m in msg for m in _UNSUPPORTED)
                else CompileError)
        raise kind(f"fa-compile failed for sm_90a ({proc.returncode}):\n{msg}")
    want = _sm90a_format(kcfg)
    docs = {}
    for path in sorted(glob.glob(os.path.join(out_dir, "*.json"))):
        if os.path.basename(path) == MANIFEST:
            continue
        with open(path) as f:
            docs.setdefault(json.load(f).get("format"), []).append(
                os.path.basename(path))
    if (want == KERNEL_BUNDLE and (kcfg.mask_mod or kcfg.op == "varlen")
            and KERNEL_SEQUENCE in docs):
        # A mask_mod that is more than a band compiles to a block-sparse
        # sequence (its _block_map pre-kernel, then the forward); one that
        # is a band folds to the attribute's single kernel. A ragged batch
        # under a mask takes the dynamic scheduler: a one-kernel sequence
        # whose workspace is the tile counter.
        want = KERNEL_SEQUENCE
    found = docs.get(want, [])
    if len(found) != 1:
        raise CompileError(f"fa-compile wrote {len(found)} {want} documents "
                           f"into {out_dir}, expected 1 for the {kcfg.op}: "
                           f"{found}")
    key = "bundle" if want == KERNEL_BUNDLE else "sequence"
    return {key: found[0], "source": "kernel.mlir"}
