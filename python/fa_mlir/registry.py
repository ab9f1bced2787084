"""Where kernels come from at run time: AOT bundle directories first, then
the compiler (with its cache) when this machine has one.

An AOT directory (written by `python -m fa_mlir.aot`) has an `index.json`
listing its bundles by configuration and target. Directories are searched
in the order of $FA_MLIR_BUNDLE_PATH (os.pathsep-separated) followed by
those passed to add_bundle_dir().
"""
import json
import os
import threading

from .bundle import load_bundle
from .errors import BundleError, CompileError
from .spec import FP8

INDEX = "index.json"
INDEX_FORMAT = "fa-mlir-bundle-index"

_extra_dirs = []
_loaded = {}
_pending = {}  # (kcfg, target) -> the thread that prefetch() started
_lock = threading.Lock()


def add_bundle_dir(path):
    """Searches `path` (an AOT output directory) before compiling."""
    path = os.path.abspath(os.fspath(path))
    if not os.path.exists(os.path.join(path, INDEX)):
        raise BundleError(f"{path} has no {INDEX}: not an fa_mlir AOT "
                          "bundle directory")
    if path not in _extra_dirs:
        _extra_dirs.append(path)
    _loaded.clear()


def bundle_dirs():
    env = [p for p in os.environ.get("FA_MLIR_BUNDLE_PATH", "").split(
        os.pathsep) if p]
    return env + _extra_dirs


def read_index(path):
    ipath = os.path.join(path, INDEX)
    try:
        with open(ipath) as f:
            index = json.load(f)
    except (OSError, ValueError) as e:
        raise BundleError(f"cannot read bundle index {ipath}: {e}") from e
    if index.get("format") != INDEX_FORMAT:
        raise BundleError(f"{ipath}: format is {index.get('format')!r}, "
                          f"expected {INDEX_FORMAT!r}")
    return index


def candidates(kcfg):
    """kcfg, then the same kernel with dynamic head counts (which serves any
    heads; callers pass static heads because the CPU pipeline needs them).
    An FP8 kernel keeps its heads: its descales' shapes have them."""
    out = [kcfg]
    if kcfg.heads_q is not None and kcfg.dtype != FP8:
        out.append(kcfg.with_(heads_q=None, heads_kv=None))
    return out


def find_aot(kcfg, target):
    """Path of an AOT bundle for (kcfg, target), or None."""
    indexes = [(d, read_index(d)) for d in bundle_dirs()
               if os.path.exists(os.path.join(d, INDEX))]
    for want in (c.to_dict() for c in candidates(kcfg)):
        for d, index in indexes:
            for entry in index["entries"]:
                if entry["target"] == target and entry["config"] == want:
                    return os.path.join(d, entry["path"])
    return None


def prefetch(kcfg, target):
    """Starts getting the bundle for (kcfg, target) on a background thread
    (e.g. the backward kernel while the forward runs), unless it is loaded
    or already coming; get_bundle then waits for that thread. Errors are
    left for get_bundle to raise."""
    key = (kcfg, target)
    with _lock:
        if key in _loaded or key in _pending:
            return
        thread = threading.Thread(target=_prefetch, args=(key,), daemon=True,
                                  name=f"fa_mlir prefetch {kcfg.op}")
        _pending[key] = thread
    thread.start()


def _prefetch(key):
    try:
        get_bundle(*key)
    except Exception:  # noqa: BLE001  (get_bundle raises it to the caller)
        pass
    finally:
        with _lock:
            _pending.pop(key, None)


def get_bundle(kcfg, target):
    """The loaded bundle for (kcfg, target): AOT, cached, or compiled now."""
    key = (kcfg, target)  # KernelConfig is frozen, so hashable and cheap
    with _lock:
        if key in _loaded:
            return _loaded[key]
        pending = _pending.get(key)
    if pending is not None and pending is not threading.current_thread():
        pending.join()
        with _lock:
            if key in _loaded:
                return _loaded[key]
    kcfg.check_target(target)
    path = find_aot(kcfg, target)
    if path is not None:
        bundle = load_bundle(path)
    else:
        from . import compiler  # the compile half, only when needed
        try:
            compiler.find_fa_opt()
        except CompileError as e:
            raise BundleError(
                f"no {target} bundle for {kcfg.key()} in the bundle "
                f"directories {bundle_dirs() or '(none)'}, and no compiler "
                f"here ({e}). Build bundles with `python -m fa_mlir.aot` on a "
                "machine with the fa-mlir build and point FA_MLIR_BUNDLE_PATH "
                "at them.") from None
        # GPU kernels read head counts at launch: compile one for all heads.
        bundle = compiler.compile(kcfg if target == "cpu" else candidates(
            kcfg)[-1], target=target)
    with _lock:
        _loaded[key] = bundle
    return bundle


def forget():
    """Drops the in-process bundle memo (the on-disk cache stays), after
    the prefetches in flight end: one finishing later would put its bundle
    back into the memo just cleared."""
    with _lock:
        pending = list(_pending.values())
    for thread in pending:
        if thread is not threading.current_thread():
            thread.join()
    with _lock:
        _loaded.clear()
