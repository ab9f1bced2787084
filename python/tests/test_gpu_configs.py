"""The GPU tests' kernels are in python/tests/gpu/configs.json.

On the GPU machine kernels come only from the AOT directory that
`run_device.sh build` compiles from configs.json; a call whose KernelConfig
is missing there fails with "no sm_90a bundle". This runs the op's Python
half (argument checks, bias preparation, KernelConfig) for every variant of
gpu/test_gpu_attention.py on CPU tensors, stops it at the kernel lookup, and
checks the configuration it asks for is one configs.json builds.
"""
import importlib.util
import json
import os

import pytest

torch = pytest.importorskip("torch")

from fa_mlir import aot, registry  # noqa: E402
from fa_mlir.torch import _ops  # noqa: E402

from _cuda_route import Routed  # noqa: E402
from _fake_cuda import fake_cuda, fake_cuda_capture  # noqa: E402

GPU_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu")


def _gpu_tests(name):
    spec = importlib.util.spec_from_file_location(
        f"fa_{name}", os.path.join(GPU_DIR, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GPU = _gpu_tests("test_gpu_attention")


def _aot_configs():
    with open(os.path.join(GPU_DIR, "configs.json")) as f:
        return [kcfg.to_dict() for kcfg, target in
                aot.expand(json.load(f), "sm_90a") if target == "sm_90a"]


class _Lookup(Exception):
    pass


def _requested(monkeypatch, var, bias_view=None):
    """The KernelConfig the GPU test's call for `var` looks up (CPU run)."""
    asked = []

    def lookup(kcfg, target):
        asked.append(kcfg)
        raise _Lookup()

    monkeypatch.setattr(_ops, "get_bundle", lookup)
    q, k, v, bias = GPU.variant_inputs(var, device="cpu")
    if bias_view is not None:
        bias = GPU.bias_layouts(bias)[bias_view]
    with pytest.raises(_Lookup):
        GPU.call(var, q, k, v, bias)
    # The registry also tries the kernel for any head count, which is what
    # the AOT build compiles (configs.json gives no heads).
    return registry.candidates(asked[0])[-1]


@pytest.mark.parametrize("var", GPU.VARIANTS, ids=[v.name for v in GPU.VARIANTS])
def test_variant_kernel_is_built_ahead_of_time(monkeypatch, var):
    kcfg = _requested(monkeypatch, var)
    assert kcfg.to_dict() in _aot_configs(), (
        f"{var.name} asks for {kcfg.key()}, which configs.json does not build")


@pytest.mark.parametrize("view", ["padded-rows", "heads-outermost",
                                  "expanded-batch", "expanded-heads"])
def test_bias_views_share_one_kernel(monkeypatch, view):
    want = _requested(monkeypatch, GPU.FULL_BIAS)
    assert _requested(monkeypatch, GPU.FULL_BIAS, view) == want


def test_variants_are_distinct_kernels(monkeypatch):
    # Each variant is there for a kernel of its own; the new AOT entries are
    # exactly theirs (a stale entry would cost a compile for nothing).
    kernels = [_requested(monkeypatch, v).key() for v in GPU.VARIANTS]
    assert len(set(kernels)) == len(kernels)
    aot_keys = [json.dumps(c, sort_keys=True) for c in _aot_configs()]
    assert set(kernels) <= set(aot_keys)
    assert len(aot_keys) == len(set(aot_keys)), "duplicate configs.json entries"


BWD = _gpu_tests("test_gpu_backward")


_BWD_CASES = ([(c, False) for c in BWD.CASES + BWD.BIAS_CASES] +
              [(c, True) for c in BWD.DETERMINISTIC + BWD.BIAS_DETERMINISTIC])


@pytest.mark.parametrize("case, deterministic", _BWD_CASES,
                         ids=[c.name for c, _ in _BWD_CASES])
def test_backward_kernels_are_built_ahead_of_time(case, deterministic):
    # The forward and the backward KernelConfig the GPU backward tests ask
    # for (what backward_impl derives on CUDA, heads made dynamic as the
    # registry does) must both be in configs.json; with a bias, of its
    # broadcast and dtype.
    q, k, v, _ = BWD.inputs(case, device="cpu")
    bias = BWD.bias_input(case, device="cpu")
    for op, det in (("forward", False), ("backward", deterministic)):
        kcfg = _ops.kernel_config(op, q, k, v, bias, case.causal, None, -1, -1,
                                  None, "", case.layout, det)
        assert kcfg.bias == case.bias
        kcfg.check_target("sm_90a")
        kcfg = registry.candidates(kcfg)[-1]
        assert kcfg.to_dict() in _aot_configs(), (
            f"{case.name} asks for {kcfg.key()}, which configs.json does not "
            "build")


KVCACHE = _gpu_tests("test_gpu_kvcache")


def _kvcache_requested(monkeypatch, call, inputs, op="kvcache"):
    """The KernelConfig (heads dynamic, as the AOT build compiles it) of
    `call` on CPU tensors posing as CUDA: the call takes its sm_90a route,
    up to the kernel lookup (of a kernel of `op`)."""
    asked = []

    def lookup(kcfg, target):
        asked.append(kcfg)
        raise _Lookup()

    monkeypatch.setattr(_ops, "_target", lambda t: "sm_90a")
    monkeypatch.setattr(_ops, "get_bundle", lookup)
    with pytest.raises(_Lookup):
        call(inputs)
    kcfg = registry.candidates(asked[0])[-1]
    assert kcfg.op == op
    return kcfg


@pytest.mark.parametrize("sq", [1, 4])
def test_kvcache_kernel_is_built_ahead_of_time(monkeypatch, sq):
    inputs = [fake_cuda(t) for t in KVCACHE.cache_inputs(sq, device="cpu")]
    kcfg = _kvcache_requested(monkeypatch, lambda i: KVCACHE.call(*i), inputs)
    assert kcfg.to_dict() in _aot_configs(), (
        f"test_gpu_kvcache asks for {kcfg.key()}, which configs.json does not "
        "build")


@pytest.mark.parametrize("case", KVCACHE.CASES,
                         ids=[c.name for c in KVCACHE.CASES])
def test_paged_and_append_kernels_are_built_ahead_of_time(monkeypatch, case):
    inputs, _ = KVCACHE.case_inputs(case, device="cpu")
    inputs = {n: None if t is None else fake_cuda(t)
              for n, t in inputs.items()}
    kcfg = _kvcache_requested(
        monkeypatch, lambda i: KVCACHE.case_call(case, i), inputs)
    assert kcfg.page_size == case.page_size
    assert kcfg.append == (case.seq_new > 0)
    assert kcfg.to_dict() in _aot_configs(), (
        f"{case.name} asks for {kcfg.key()}, which configs.json does not "
        "build")


VARLEN = _gpu_tests("test_gpu_varlen")


def _varlen_requested(monkeypatch, case):
    """The KernelConfigs (heads dynamic) test_gpu_varlen's call for `case`
    asks for on CPU tensors posing as CUDA: the varlen kernel, and with a
    backward the varlen backward (stopped at its lookup)."""
    Routed(monkeypatch)  # CUDA tensors from torch.empty, the sm_90a target
    asked = []

    def lookup(kcfg, target):
        asked.append(registry.candidates(kcfg)[-1])
        if kcfg.op != "varlen":
            raise _Lookup()

    monkeypatch.setattr(_ops, "get_bundle", lookup)
    monkeypatch.setattr(_ops, "_launch", lambda bundle, tensors, device: None)
    x = {n: fake_cuda(t) for n, t in VARLEN.inputs(case, device="cpu").items()}
    for n in "qkv":
        x[n].requires_grad_()
    out, _ = VARLEN.call(case, x)
    if case.backward:
        with pytest.raises(_Lookup):
            out.backward(x["dout"])
    return asked


@pytest.mark.parametrize("case", VARLEN.CASES,
                         ids=[c.name for c in VARLEN.CASES])
def test_varlen_kernels_are_built_ahead_of_time(monkeypatch, case):
    asked = _varlen_requested(monkeypatch, case)
    assert [k.op for k in asked] == ["varlen"] + (["varlen_backward"] if
                                                  case.backward else [])
    for kcfg in asked:
        assert kcfg.to_dict() in _aot_configs(), (
            f"{case.name} asks for {kcfg.key()}, which configs.json does not "
            "build")


def test_graph_kernels_are_built_ahead_of_time():
    # gpu/test_gpu_graphs.py's calls: attention forward and backward (bf16
    # d64 causal bhsd), a contiguous and a paged (page 64) decode (GQA 32/8,
    # d128, causal, num_splits 0), a causal varlen forward (d128, 8 heads).
    q = torch.zeros(2, 4, 300, 64, dtype=torch.bfloat16)
    asked = [_ops.kernel_config(op, q, q, q, None, True, None, -1, -1, None,
                                "", "bhsd") for op in ("forward", "backward")]
    dq = torch.zeros(4, 1, 32, 128, dtype=torch.bfloat16)
    cache = torch.zeros(4, 1024, 8, 128, dtype=torch.bfloat16)
    asked.append(_ops.kvcache_config(dq, cache, cache, None, False, True,
                                     None, -1, -1, None, 0))
    paged = torch.zeros(64, 64, 8, 128, dtype=torch.bfloat16)
    asked.append(_ops.kvcache_config(dq, paged, paged, 64, False, True,
                                     None, -1, -1, None, 0))
    packed = torch.zeros(1000, 8, 128, dtype=torch.bfloat16)
    asked.append(_ops.varlen_config(packed, packed, packed, True, None, -1,
                                    -1, None, ""))
    for kcfg in asked:
        kcfg = registry.candidates(kcfg)[-1]
        assert kcfg.to_dict() in _aot_configs(), kcfg.key()


MODS = _gpu_tests("test_gpu_modifiers")


class _NoLaunch:
    """A bundle whose launch does nothing: the call goes on to its next
    kernel lookup (the backward's after the forward's)."""

    def launch(self, tensors, threads=None):
        pass


@pytest.mark.parametrize("case", MODS.CASES, ids=[c.name for c in MODS.CASES])
def test_modifier_kernels_are_built_ahead_of_time(monkeypatch, case):
    # The forward and backward KernelConfig of each score_mod/mask_mod case
    # (the traced regions and the captures' types), as the op asks for them,
    # are in configs.json, and sm_90a takes them.
    asked = []
    monkeypatch.setattr(_ops, "get_bundle",
                        lambda kcfg, target: asked.append(kcfg) or _NoLaunch())
    monkeypatch.setattr(_ops, "prefetch_backward", lambda *a, **kw: None)
    q, k, v, dout = MODS.inputs(case, device="cpu")
    caps = MODS.captures(case, "cpu")
    MODS.with_grads(lambda *x: MODS.call(case, *x, caps), q, k, v, dout)
    assert [kcfg.op for kcfg in asked] == ["forward", "backward"]
    for kcfg in asked:
        assert kcfg.captures, case.name
        kcfg.check_target("sm_90a")
        kcfg = registry.candidates(kcfg)[-1]
        assert kcfg.to_dict() in _aot_configs(), (
            f"{case.name} asks for {kcfg.key()}, which configs.json does not "
            "build")


SINKS = _gpu_tests("test_gpu_sinks")


@pytest.mark.parametrize("case", SINKS.CASES, ids=[c.name for c in SINKS.CASES])
def test_sinks_kernels_are_built_ahead_of_time(case):
    """The forward and backward with sinks the GPU sinks tests ask for."""
    b, hq, hkv, sq, sk = case.shape
    shapes = [(b, hq, sq, case.d), (b, hkv, sk, case.d), (b, hkv, sk, case.d)]
    if case.layout == "bshd":
        shapes = [(x, s, h, d) for x, h, s, d in shapes]
    q, k, v = (torch.zeros(*s, dtype=case.dtype) for s in shapes)
    for op in ("forward", "backward"):
        kcfg = _ops.kernel_config(op, q, k, v, None, case.causal, None, -1, -1,
                                  None, case.mask_alignment or "", case.layout,
                                  sinks=True)
        assert kcfg.sinks
        kcfg.check_target("sm_90a")
        kcfg = registry.candidates(kcfg)[-1]
        assert kcfg.to_dict() in _aot_configs(), (
            f"{case.name} asks for {kcfg.key()}, which configs.json does not build")


SEQMODS = _gpu_tests("test_gpu_sequence_modifiers")
_SEQMODS_CASES = ([("varlen", c) for c in SEQMODS.VARLEN_CASES] +
                  [("kvcache", c) for c in SEQMODS.KV_CASES])


def _sequence_modifiers_call(op, case):
    """test_gpu_sequence_modifiers' call for `case` on CPU tensors posing
    as CUDA (its captures too)."""
    caps = {n: fake_cuda_capture(t) for n, t in SEQMODS.captures(
        len(SEQMODS.CACHED) if op == "kvcache" else len(case.lengths_q),
        "cpu").items()}
    if op == "varlen":
        x = {n: fake_cuda(t) for n, t in
             SEQMODS.varlen_inputs(case, "cpu").items()}
        return lambda: SEQMODS.varlen_call(case, x, caps)
    x, _ = SEQMODS.kv_inputs(case, "cpu")
    x = {n: None if t is None else fake_cuda(t) for n, t in x.items()}
    return lambda: SEQMODS.kv_call(case, x, caps)


@pytest.mark.parametrize("op, case", _SEQMODS_CASES,
                         ids=[c.name for _, c in _SEQMODS_CASES])
def test_sequence_modifier_kernels_are_built_ahead_of_time(monkeypatch, op,
                                                           case):
    # The varlen / kvcache KernelConfig with the traced regions and the
    # captures' types, as the call asks for it, is in configs.json, and
    # sm_90a takes it.
    kcfg = _kvcache_requested(monkeypatch, lambda call: call(),
                              _sequence_modifiers_call(op, case), op)
    assert kcfg.captures and (kcfg.score_mod and kcfg.mask_mod), case.name
    kcfg.check_target("sm_90a")
    assert kcfg.to_dict() in _aot_configs(), (
        f"{case.name} asks for {kcfg.key()}, which configs.json does not "
        "build")

