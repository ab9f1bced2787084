"""python -m fa_mlir.aot: a bundle directory that a machine without the
compiler uses through FA_MLIR_BUNDLE_PATH."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from fa_mlir import registry
from fa_mlir.errors import BundleError
from fa_mlir.spec import KernelConfig

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_aot_directory_is_used_without_a_compiler(tmp_path, monkeypatch):
    configs = tmp_path / "configs.json"
    configs.write_text(json.dumps([
        {"dtype": "f32", "head_dim": 8, "heads_q": 2, "heads_kv": 2,
         "causal": True, "op": "both"},
        {"dtype": "bf16", "head_dim": 16, "heads_q": 4, "heads_kv": 1,
         "window": [4, 0]},
    ]))
    out = tmp_path / "bundles"
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    proc = subprocess.run([sys.executable, "-m", "fa_mlir.aot", "--configs",
                           str(configs), "--out", str(out), "--runtime"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "3 bundles" in proc.stdout
    index = json.loads((out / "index.json").read_text())
    assert len(index["entries"]) == 3
    assert (out / "lib" / "libfa_runtime.so").exists()

    # A machine without MLIR: no fa-opt, only the AOT directory.
    monkeypatch.setenv("FA_BUILD_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setenv("FA_MLIR_BUNDLE_PATH", str(out))
    registry.forget()
    cfg = KernelConfig(dtype="f32", head_dim=8, heads_q=2, heads_kv=2,
                       causal=True)
    bundle = registry.get_bundle(cfg, "cpu")
    q = np.random.default_rng(0).standard_normal((1, 2, 3, 8)).astype(np.float32)
    o, lse = bundle(query=q, key=q, value=q)
    assert np.isfinite(o).all() and o.shape == q.shape
    assert registry.get_bundle(cfg.with_(op="backward"), "cpu").op == "backward"
    with pytest.raises(BundleError, match="no compiler here"):
        registry.get_bundle(cfg.with_(causal=False), "cpu")
    registry.forget()


def test_bad_config_entry_is_reported(tmp_path):
    configs = tmp_path / "configs.json"
    configs.write_text(json.dumps([{"dtype": "f64", "head_dim": 8}]))
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    proc = subprocess.run([sys.executable, "-m", "fa_mlir.aot", "--configs",
                           str(configs), "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, env=env)
    assert proc.returncode != 0
    assert "entry 0" in proc.stderr and "dtype" in proc.stderr


def test_keep_going_leaves_out_what_fails(tmp_path, monkeypatch, capsys):
    # What run_device.sh build uses: one configuration the compiler rejects
    # costs only its own tests. No compiler needed: build_bundle is faked.
    from fa_mlir import aot
    from fa_mlir.errors import UnsupportedError

    def fake_build(kcfg, target, path):
        if kcfg.head_dim == 96:
            raise UnsupportedError("fa-compile failed for sm_90a (1):\n"
                                   "head dim 96 is not supported")
        os.makedirs(path)

    monkeypatch.setattr(aot, "build_bundle", fake_build)
    configs = tmp_path / "configs.json"
    configs.write_text(json.dumps([{"dtype": "bf16", "head_dim": 64},
                                   {"dtype": "bf16", "head_dim": 96}]))
    out = tmp_path / "out"
    args = ["--configs", str(configs), "--out", str(out), "--target", "sm_90a"]
    assert aot.main(args + ["--keep-going"]) == 0
    index = json.loads((out / "index.json").read_text())
    assert [e["config"]["head_dim"] for e in index["entries"]] == [64]
    failed = (out / "failed.txt").read_text()
    assert '"head_dim": 96' in failed and "head dim 96 is not supported" in failed
    captured = capsys.readouterr()
    assert "1 bundles in" in captured.out
    assert "1 of 2 entries failed" in captured.err
    assert "fa-compile failed for sm_90a (1)" in captured.err
    # Without it the first failure stops the build.
    assert aot.main(args) == 1
    assert "head dim 96 is not supported" in capsys.readouterr().err
    # Nothing built is an error either way; a clean build drops failed.txt.
    configs.write_text(json.dumps([{"dtype": "bf16", "head_dim": 96}]))
    assert aot.main(args + ["--keep-going"]) == 1
    configs.write_text(json.dumps([{"dtype": "bf16", "head_dim": 64}]))
    assert aot.main(args + ["--keep-going"]) == 0
    assert not (out / "failed.txt").exists()
