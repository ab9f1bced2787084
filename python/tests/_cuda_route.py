"""The CUDA route of fa_mlir.torch's serving calls on a machine without a
GPU: operands shaped by Python's reader for libfa_runtime's host check, and
CPU tensors posing as CUDA whose launch is that check
(test_kvcache_paged.py, test_varlen_cuda_route.py)."""
import os
import subprocess

import pytest
import torch

from fa_mlir import compiler, registry
from fa_mlir.signature import signature
from fa_mlir.torch import _ops
from fa_mlir.torch._convert import runtime_tensor

from _fake_compiler import fake_fa_compile
from _fake_cuda import fake_cuda


def _strides(shape):
    out, acc = [], 1
    for n in reversed(shape):
        out.insert(0, acc)
        acc *= n
    return tuple(out)


def runtime_operands(kcfg, sizes, **changes):
    """{role: (address, dtype, sizes, strides)} of every operand of `kcfg`'s
    signature, shaped by Python's reader (signature.role_dims) with `sizes`;
    `changes` replaces roles by (dtype, shape)."""
    ops = {}
    for i, arg in enumerate(signature(kcfg)):
        shape = tuple(d if isinstance(d, int) else sizes[d]
                      for d in arg["shape"])
        ops[arg["role"]] = (arg["dtype"], shape)
    ops.update(changes)
    return {r: (0x10000000 * (i + 1), dtype, shape, _strides(shape))
            for i, (r, (dtype, shape)) in enumerate(ops.items())}



FA_OPT = os.path.join(compiler.build_dir(), "bin", "fa-opt")
needs_fa_opt = pytest.mark.skipif(not os.path.exists(FA_OPT),
                                  reason="no fa-opt in this build")


def fa_opt_output(mlir_text, tmp_path):
    """fa-opt's output for `mlir_text`, which must parse and verify (the
    ops' syntax and verifiers in FAOps.td / InferenceOps.td)."""
    src = tmp_path / "k.mlir"
    src.write_text(mlir_text)
    proc = subprocess.run([FA_OPT, str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


class Routed:
    """What the CUDA route asked for and launched, on CPU tensors posing as
    CUDA: get_bundle answers with `bundle` (or, for a dict, with the bundle
    of the KernelConfig's op: a forward and its backward), and the launch is
    libfa_runtime's host check of the tensors (their real CPU addresses)."""

    def __init__(self, monkeypatch, bundle=None):
        self.bundle, self.asked, self.launched, self.grids = bundle, [], [], []
        self.symbols = []
        self._wrapped = set()
        monkeypatch.setattr(_ops, "_target", lambda t: "sm_90a")
        monkeypatch.setattr(_ops, "get_bundle", self._get)
        monkeypatch.setattr(_ops, "_launch", self._launch)
        empty = torch.empty
        monkeypatch.setattr(torch, "empty", lambda *a, device=None, **k:
                            fake_cuda(empty(*a, **k)))

    def _get(self, kcfg, target):
        self.asked.append(kcfg)
        bundle = (self.bundle.get(kcfg.op) if isinstance(self.bundle, dict)
                  else self.bundle)
        if bundle is None:
            raise LookupError("no bundle in this test")
        if id(bundle) not in self._wrapped:  # record each bundle's calls once
            self._wrapped.add(id(bundle))
            shapes = bundle.workspace_shapes

            def recorded(symbols):
                self.symbols.append(symbols)
                return shapes(symbols)
            bundle.workspace_shapes = recorded
        return bundle

    def _launch(self, bundle, tensors, device):
        self.launched.append(tensors)
        self.grids.append(bundle.check(
            {r: runtime_tensor(t) for r, t in tensors.items()}))


def refusing_compiler(monkeypatch, tmp_path, stderr):
    """No bundle anywhere and an fa-compile that fails with `stderr`: a
    CUDA call compiles, and meets that diagnostic."""
    registry.forget()
    monkeypatch.setattr(_ops, "_target", lambda t: "sm_90a")
    monkeypatch.setattr(compiler, "target_version", lambda t: {"t": t})
    monkeypatch.setenv("FA_MLIR_BUNDLE_PATH", "")
    monkeypatch.setenv("FA_MLIR_CACHE", str(tmp_path))
    monkeypatch.setattr(compiler, "find_fa_opt", lambda: "fa-opt")
    fake_fa_compile(monkeypatch, rc=1, stderr=stderr)
