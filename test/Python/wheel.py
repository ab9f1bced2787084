# The fa_mlir wheel, as a machine without the compiler gets it: built by
# scripts/build-wheel.sh with libfa_runtime.so, installed (not editable) into
# a clean virtual environment, and imported there with the source tree and
# the build out of reach. Every module under python/fa_mlir must be in it
# and import; the runtime library, the schemas and the fa-mlir-aot script
# must be installed and usable. The venv sees this environment's
# third-party packages (numpy, jsonschema, torch) through a .pth file, so
# that torch is not installed again.
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %fa_src_root %fa_libs/libfa_runtime.so %t | FileCheck %s
# CHECK: wheel: fa_mlir-{{.+}}-linux_x86_64.whl
# CHECK: installed from the wheel
# CHECK: imported [[N:[0-9]+]] of [[N]] modules
# CHECK: fa_mlir.torch.distributed
# CHECK: runtime ABI {{[0-9]+}} from {{.+}}/site-packages/fa_mlir/lib/libfa_runtime.so
# CHECK: schemas: 3, an empty bundle has {{[1-9][0-9]*}} schema errors
# CHECK: fa-mlir-aot installed
# CHECK: no compiler: fa-opt not found
import glob
import os
import site
import subprocess
import sys
import textwrap

src_root, runtime_lib, work = sys.argv[1:4]


def run(cmd, **kwargs):
    return subprocess.run(cmd, check=True, text=True, **kwargs)


def source_modules():
    """Every module of the source tree's fa_mlir, by dotted name."""
    base = os.path.join(src_root, "python")
    names = []
    for path in glob.glob(os.path.join(base, "fa_mlir", "**", "*.py"),
                          recursive=True):
        rel = os.path.relpath(path, base)[:-len(".py")].split(os.sep)
        if rel[-1] == "__init__":
            rel = rel[:-1]
        names.append(".".join(rel))
    return sorted(names)


def build_wheel():
    dist = os.path.join(work, "dist")
    env = dict(os.environ, PYTHON=sys.executable)
    run(["bash", os.path.join(src_root, "scripts", "build-wheel.sh"), dist,
         runtime_lib], env=env, stdout=subprocess.DEVNULL)
    (wheel,) = glob.glob(os.path.join(dist, "fa_mlir-*.whl"))
    print("wheel:", os.path.basename(wheel), flush=True)
    return wheel


def make_venv(wheel):
    venv = os.path.join(work, "venv")
    run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = os.path.join(venv, "bin", "python")
    purelib = run([python, "-c", "import sysconfig; "
                   "print(sysconfig.get_paths()['purelib'])"],
                  capture_output=True).stdout.strip()
    # After the venv's own site-packages: fa_mlir comes from the wheel.
    with open(os.path.join(purelib, "outer-env.pth"), "w") as f:
        f.write("\n".join(site.getsitepackages()) + "\n")
    run([sys.executable, "-m", "pip", "--python", python, "install",
         "--quiet", "--disable-pip-version-check", "--no-deps", "--no-index",
         wheel])
    return venv


CHECK_INSTALLED = textwrap.dedent("""
    import importlib, json, os, shutil, sys
    venv, modules = sys.argv[1], json.loads(sys.argv[2])
    import fa_mlir
    assert fa_mlir.__file__.startswith(venv + os.sep), fa_mlir.__file__
    print("installed from the wheel")
    for name in modules:
        importlib.import_module(name)
    print(f"imported {len(modules)} of {len(modules)} modules")
    print("\\n".join(modules))
    from fa_mlir import gpu_runtime, manifest
    lib = gpu_runtime.library()
    print(f"runtime ABI {lib.fa_runtime_abi_version()} from {lib._name}")
    errors = manifest.schema_errors({}, "kernel-bundle.schema.json")
    count = len(os.listdir(manifest._SCHEMA_DIR))
    print(f"schemas: {count}, an empty bundle has {len(errors)} schema errors")
    assert os.access(os.path.join(venv, "bin", "fa-mlir-aot"), os.X_OK)
    print("fa-mlir-aot installed")
    from fa_mlir import cpu
    try:
        cpu.find_fa_opt()
    except fa_mlir.CompileError:
        print("no compiler: fa-opt not found")
""")


def check(venv):
    python = os.path.join(venv, "bin", "python")
    # Neither the source tree (PYTHONPATH) nor the build (FA_BUILD_DIR).
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "FA_RUNTIME_LIB")}
    env["FA_BUILD_DIR"] = os.path.join(work, "no-build")
    import json
    run([python, "-c", CHECK_INSTALLED, venv, json.dumps(source_modules())],
        env=env, cwd=work)


check(make_venv(build_wheel()))
