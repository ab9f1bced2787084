"""Bundle metadata on disk: bounded JSON reading, validation against the
schemas in fa_mlir/schemas/, and the file hashes that tie a manifest to the
files it describes.

A manifest records the sha256 of every file of its bundle (`files`) and a
digest of its own content (`digest`). Loading checks both before anything is
dlopen'ed or handed to the runtime, so a truncated kernel.so, a kernel from
another configuration or an edited manifest is a BundleError, never a crash
or a wrong answer. Needs the standard library and jsonschema.
"""
import functools
import hashlib
import json
import os
import stat

from .errors import BundleError

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "fa-mlir-bundle"
MANIFEST_VERSION = 2
# Same limit as the runtime's for bundle JSON (kMaxBundleJsonBytes).
MAX_JSON_BYTES = 1 << 20

_SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "schemas")


def _reject_duplicates(pairs):
    keys = [k for k, _ in pairs]
    for k in keys:
        if keys.count(k) > 1:
            raise ValueError(f"duplicate key {k!r}")
    return dict(pairs)


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def read_json(path, what):
    """The JSON document of a small regular file, read as strictly as the
    runtime reads it (no duplicate keys, no NaN/Infinity); BundleError else.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise BundleError(f"cannot read {what} {path}: {e}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise BundleError(f"{what} {path} is not a regular file")
        if st.st_size > MAX_JSON_BYTES:
            raise BundleError(f"{what} {path} has {st.st_size} bytes; at most "
                              f"{MAX_JSON_BYTES} are allowed")
        data = f.read(MAX_JSON_BYTES + 1)
    try:
        return json.loads(data.decode("utf-8"),
                          object_pairs_hook=_reject_duplicates,
                          parse_constant=_reject_constant)
    except (ValueError, UnicodeDecodeError) as e:
        raise BundleError(f"{what} {path} is not JSON: {e}") from None
    except RecursionError:
        raise BundleError(f"{what} {path} is nested too deeply") from None


@functools.lru_cache(maxsize=None)
def _schema(schema_name):
    with open(os.path.join(_SCHEMA_DIR, schema_name)) as f:
        return json.load(f)


def _schemas_by_id():
    return {s["$id"]: s for s in (_schema(n) for n in sorted(os.listdir(
        _SCHEMA_DIR)) if n.endswith(".schema.json"))}


@functools.lru_cache(maxsize=None)
def _validator(schema_name):
    import jsonschema  # only when a bundle is read
    schema = _schema(schema_name)
    base = jsonschema.Draft202012Validator
    base.check_schema(schema)
    # JSON integers only: 1.0 is a number, as the runtime reads it.
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _, x: isinstance(x, int) and not isinstance(x, bool))
    cls = jsonschema.validators.extend(base, type_checker=checker)
    # The sequence schema refers to the bundle schema's definitions.
    try:
        from referencing import Registry, Resource
    except ImportError:  # jsonschema < 4.18
        resolver = jsonschema.RefResolver.from_schema(
            schema, store=_schemas_by_id())
        return cls(schema, resolver=resolver)
    registry = Registry().with_resources(
        (uri, Resource.from_contents(s)) for uri, s in _schemas_by_id().items())
    return cls(schema, registry=registry)


def schema_errors(doc, schema_name):
    """Messages ("path: what") of every way `doc` breaks the schema."""
    errors = sorted(_validator(schema_name).iter_errors(doc),
                    key=lambda e: list(e.absolute_path))
    return [f"{e.json_path}: {e.message}" for e in errors]


def validate(doc, schema_name, where):
    """Raises BundleError naming the first field of `doc` the schema rejects."""
    errors = schema_errors(doc, schema_name)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise BundleError(f"{where}: {errors[0]}{more}")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def digest(manifest):
    """sha256 of the manifest's content (everything but `digest`)."""
    body = {k: v for k, v in manifest.items() if k != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


KERNEL_BUNDLE = "fa-kernel-bundle"
KERNEL_SEQUENCE = "fa-kernel-sequence"
_GPU_SCHEMAS = {KERNEL_BUNDLE: "kernel-bundle.schema.json",
                KERNEL_SEQUENCE: "kernel-sequence.schema.json"}


def read_gpu_json(json_path):
    """The validated GPU document at `json_path` (an fa-kernel-bundle or an
    fa-kernel-sequence) and, for a sequence, its kernel bundles as
    [(path as written, document)]; BundleError names what is wrong."""
    doc = read_json(json_path, "GPU kernel bundle")
    fmt = doc.get("format") if isinstance(doc, dict) else None
    validate(doc, _GPU_SCHEMAS.get(fmt, _GPU_SCHEMAS[KERNEL_BUNDLE]),
             json_path)
    kernels = []
    if fmt == KERNEL_SEQUENCE:
        base = os.path.dirname(json_path)
        for i, name in enumerate(doc["kernels"]):
            kpath = os.path.join(base, name)
            kernel = read_json(kpath, f"kernel bundle kernels[{i}] of")
            where = f"{json_path}: kernels[{i}] ({kpath})"
            if isinstance(kernel, dict) and kernel.get("format") == \
                    KERNEL_SEQUENCE:
                raise BundleError(f"{where}: is an {KERNEL_SEQUENCE}; "
                                  "sequences do not nest")
            validate(kernel, _GPU_SCHEMAS[KERNEL_BUNDLE], where)
            kernels.append((name, kernel))
    return doc, kernels


def gpu_entry(gpu):
    """(file name, format) of a manifest's "gpu" section: "bundle" names an
    fa-kernel-bundle, "sequence" an fa-kernel-sequence."""
    if "sequence" in gpu:
        return gpu["sequence"], KERNEL_SEQUENCE
    return gpu["bundle"], KERNEL_BUNDLE


def named_files(path, manifest):
    """The files a manifest's sections name: for a GPU bundle its JSON, the
    kernel JSONs of a sequence and every image they use (once each: kernels
    of a sequence may share one cubin)."""
    if "cpu" in manifest:
        return [manifest["cpu"]["library"], manifest["cpu"]["source"]]
    gpu = manifest["gpu"]
    name, _ = gpu_entry(gpu)
    doc, kernels = read_gpu_json(os.path.join(path, name))
    files = [name, gpu["source"]]
    for kname, kernel in kernels or [(name, doc)]:
        for f in (kname, kernel["cubin"]):
            if f not in files:
                files.append(f)
    return files


def write_manifest(path, manifest):
    """Adds `files` (hashes of what the manifest names) and `digest`, checks
    the result against the schema and writes manifest.json atomically."""
    manifest = dict(manifest)
    manifest.pop("digest", None)
    manifest["files"] = {}
    for name in named_files(path, {**manifest, "files": {}}):
        manifest["files"][name] = sha256(os.path.join(path, name))
    manifest["digest"] = digest(manifest)
    validate(manifest, "manifest.schema.json", f"manifest for {path}")
    tmp = os.path.join(path, MANIFEST + ".tmp")
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(path, MANIFEST))
    return manifest


def read_manifest(path):
    """The checked manifest of bundle directory `path`; BundleError when it
    breaks the schema, was edited, or a file it names is missing or differs
    from the one it was written with."""
    mpath = os.path.join(path, MANIFEST)
    manifest = read_json(mpath, "bundle manifest")
    if isinstance(manifest, dict) and manifest.get("version") != \
            MANIFEST_VERSION and manifest.get("format") == MANIFEST_FORMAT:
        raise BundleError(f"{mpath}: unsupported manifest version "
                          f"{manifest.get('version')!r} (this package reads "
                          f"{MANIFEST_VERSION})")
    validate(manifest, "manifest.schema.json", mpath)
    if manifest.get("digest") != digest(manifest):
        raise BundleError(f"{mpath}: the manifest was changed after it was "
                          "written (its digest does not match its content)")
    for name in named_files(path, manifest):
        if name not in manifest["files"]:
            raise BundleError(f"{mpath}: '{name}' is used but has no hash "
                              "in \"files\"")
    for name, want in manifest["files"].items():
        fpath = os.path.join(path, name)
        try:
            got = sha256(fpath)
        except FileNotFoundError:
            raise BundleError(f"{path}: missing {name}") from None
        except OSError as e:
            raise BundleError(f"{path}: cannot read {name}: {e}") from None
        if got != want:
            raise BundleError(
                f"{path}: {name} is not the file this bundle was built with "
                f"(sha256 {got[:16]}..., manifest says {want[:16]}...): the "
                "bundle is corrupt or mixed; rebuild it")
    return manifest
