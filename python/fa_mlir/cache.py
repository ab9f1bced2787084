"""The on-disk bundle cache: one directory per (configuration, target,
compiler version).

The compiler version is the package version plus a hash of the compiler
binaries (fa-opt, and fa-compile for sm_90a), so rebuilding the compiler
invalidates every entry without anyone clearing the cache. Entries are
written to a temporary directory and renamed into place, so concurrent
processes never see half a bundle. An entry that fails to load (corrupt,
edited, or holding another configuration's kernel) is removed and rebuilt.
"""
import hashlib
import json
import os
import shutil
import tempfile

from . import __version__

_hash_memo = {}


def cache_root():
    """$FA_MLIR_CACHE, else $XDG_CACHE_HOME/fa_mlir, else ~/.cache/fa_mlir."""
    root = os.environ.get("FA_MLIR_CACHE")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME",
                              os.path.join(os.path.expanduser("~"), ".cache"))
        root = os.path.join(base, "fa_mlir")
    return root


def usable_dir(path, source=None):
    """`path`, a cache directory, made if missing; BundleError naming where
    it came from (`source`, else FA_MLIR_CACHE or the default) when it
    cannot hold entries (a file, a read-only or unwritable place) instead
    of the OSError of whichever call met it."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise unusable(path, e, source) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise unusable(path, "not writable", source)
    return path


def unusable(path, why, source=None):
    """The BundleError of a cache directory that cannot be used."""
    from .errors import BundleError
    if isinstance(why, OSError):
        why = f"{type(why).__name__}: {why.strerror or why}"
    if source is None:
        source = ("FA_MLIR_CACHE names it" if os.environ.get("FA_MLIR_CACHE")
                  else "the default; FA_MLIR_CACHE is not set")
    fix = ("pass a writable directory" if source.startswith("the cache_dir")
           else "set FA_MLIR_CACHE to a writable directory")
    return BundleError(f"the kernel cache {path} cannot be used ({why}; "
                       f"{source}): {fix}")


def file_hash(path):
    """sha256 of a file, remembered per (path, size, mtime) in this process."""
    st = os.stat(path)
    memo_key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    if memo_key not in _hash_memo:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _hash_memo[memo_key] = h.hexdigest()
    return _hash_memo[memo_key]


# The modules that write the MLIR a kernel is compiled from: editing them
# changes the generated code, so they are part of the compiler version.
_GENERATOR_SOURCES = ("config.py", "spec.py", "signature.py", "compiler.py",
                      "cpu.py")


def compiler_version(tools):
    """{"fa_mlir": version, "generator": sha256, tool name: sha256, ...}."""
    here = os.path.dirname(os.path.abspath(__file__))
    gen = hashlib.sha256()
    for name in _GENERATOR_SOURCES:
        gen.update(file_hash(os.path.join(here, name)).encode())
    version = {"fa_mlir": __version__, "generator": gen.hexdigest()[:16]}
    for path in tools:
        version[os.path.basename(path)] = file_hash(path)
    return version


def entry_key(kcfg, target, version):
    text = json.dumps({"config": kcfg.to_dict(), "target": target,
                       "compiler": version}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def entry_dir(key, target, root=None):
    return os.path.join(root or cache_root(), target, key)


def publish(tmp_dir, final_dir):
    """Moves a finished bundle directory into place; the first writer wins."""
    usable_dir(os.path.dirname(final_dir))
    os.chmod(tmp_dir, 0o755)  # mkdtemp makes it private; a cache is shared
    try:
        os.rename(tmp_dir, final_dir)
    except OSError:
        if not os.path.isdir(final_dir):
            raise
        shutil.rmtree(tmp_dir, ignore_errors=True)  # lost a benign race
    return final_dir


def staging_dir(target, root=None):
    source = "the cache_dir argument names it" if root else None
    base = usable_dir(os.path.join(root or cache_root(), target), source)
    try:
        return tempfile.mkdtemp(prefix=".tmp-", dir=base)
    except OSError as e:  # a read-only file system, say
        raise unusable(base, e, source) from None


def cached_bundle(final_dir, kcfg, target, load):
    """The bundle in cache entry `final_dir` loaded with `load`, or None when
    there is none or it is unusable: then the entry is discarded, so that
    the caller builds and publishes a fresh one."""
    from .bundle import MANIFEST
    from .errors import BundleError
    if not os.path.exists(os.path.join(final_dir, MANIFEST)):
        return None
    try:
        bundle = load(final_dir)
    except BundleError:
        discard(final_dir)
        return None
    if bundle.config != kcfg or bundle.target != target:
        discard(final_dir)  # another configuration's bundle under this key
        return None
    return bundle


def discard(entry_dir):
    """Removes a cache entry; renamed away first, so that no reader sees a
    half-deleted directory."""
    trash = tempfile.mkdtemp(prefix=".trash-", dir=os.path.dirname(entry_dir))
    try:
        os.rename(entry_dir, os.path.join(trash, "entry"))
    except OSError:
        pass  # already gone (another process discarded it)
    shutil.rmtree(trash, ignore_errors=True)


def clear(root=None):
    """Removes every cached bundle."""
    shutil.rmtree(root or cache_root(), ignore_errors=True)
