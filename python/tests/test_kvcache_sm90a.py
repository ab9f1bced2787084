"""attention_with_kvcache's sm_90a path without a GPU: the kvcache
KernelConfig, its kernel sequence compiled by fa-compile and checked by
libfa_runtime on the host (fa_bundle_check needs no GPU), the operands
fa_mlir.torch builds for it. Paged caches and appends are
test_kvcache_paged.py; the launch itself is
python/tests/gpu/test_gpu_kvcache.py."""
import os
import shutil

import pytest

torch = pytest.importorskip("torch")

import fa_mlir  # noqa: E402
import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import compiler  # noqa: E402
from fa_mlir.errors import (ArgumentError, RuntimeLibraryError,  # noqa: E402
                            UnsupportedError)
from fa_mlir.signature import signature  # noqa: E402
from fa_mlir.spec import KernelConfig  # noqa: E402
from fa_mlir.torch import _ops  # noqa: E402

from _fake_cuda import fake_cuda  # noqa: E402

needs_fa_compile = pytest.mark.skipif(
    not os.path.exists(os.path.join(compiler.build_dir(), "bin",
                                    "fa-compile")),
    reason="no fa-compile in this build")

KVCACHE = KernelConfig(op="kvcache", dtype="bf16", head_dim=128,
                       layout="bshd", causal=True)
B, SQ, CAP, HQ, HKV, D = 4, 1, 1024, 32, 8, 128


# -- KernelConfig -----------------------------------------------------------

def test_kvcache_config_round_trips():
    kcfg = KVCACHE.with_(window=(100, 0), softcap=30.0, scale=0.1,
                         num_splits=3, heads_q=HQ, heads_kv=HKV)
    assert KernelConfig.from_dict(kcfg.to_dict()) == kcfg
    assert KernelConfig.from_dict(kcfg.to_dict()).key() == kcfg.key()


def test_kvcache_num_splits_none_is_the_heuristic():
    # fa.attention_kvcache without num_splits is its heuristic, as 0 is:
    # one kernel, one key.
    assert KVCACHE.num_splits == 0
    assert KVCACHE.with_(num_splits=None).key() == KVCACHE.key()


@pytest.mark.parametrize("change, message", [
    (dict(layout="bhsd"), "op kvcache takes layout bshd"),
    (dict(bias=(True, True)), "op kvcache takes no bias"),
    (dict(return_lse=False), "always returns the LSE"),
    (dict(mask_alignment="top_left"), "aligns its masks bottom-right"),
])
def test_kvcache_config_refuses(change, message):
    with pytest.raises(ArgumentError, match=message):
        KVCACHE.with_(**change)


def test_kvcache_signature_has_int32_cache_seqlens():
    sig = {a["role"]: a for a in signature(KVCACHE)}
    assert list(sig) == ["query", "key", "value", "cache_seqlens", "output",
                         "lse"]
    assert sig["cache_seqlens"]["dtype"] == "i32"
    assert sig["cache_seqlens"]["shape"] == ["batch"]
    assert sig["key"]["shape"] == ["batch", "seq_k", "heads_kv", 128]


def test_kvcache_mlir_is_fa_attention_kvcache():
    text = compiler._sm90a_mlir(KVCACHE.with_(window=(100, 0)))
    assert "fa.attention_kvcache %query, %key, %value, %cache_seqlens" in text
    assert "tensor<?xi32>" in text
    # The op has neither attribute: always bshd, masks bottom-right.
    assert "layout" not in text and "mask_alignment" not in text
    assert "num_splits = 0 : i64" in text


def test_cpu_target_refuses_kvcache(tmp_path):
    with pytest.raises(UnsupportedError, match="target cpu has no kvcache"):
        compiler.build_bundle(KVCACHE, "cpu", str(tmp_path / "b"))


# -- the sm_90a kernel sequence, checked on the host ------------------------

def _runtime_operands(shapes_dtypes):
    """{role: (fake aligned address, dtype, sizes, contiguous strides)}."""
    out = {}
    for i, (role, (dtype, shape)) in enumerate(shapes_dtypes.items()):
        strides, acc = [], 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= n
        out[role] = (0x10000000 * (i + 1), dtype, tuple(shape),
                     tuple(strides))
    return out


def kvcache_operands(**changes):
    ops = {"query": ("bf16", (B, SQ, HQ, D)), "key": ("bf16", (B, CAP, HKV, D)),
           "value": ("bf16", (B, CAP, HKV, D)),
           "cache_seqlens": ("i32", (B,)),
           "output": ("bf16", (B, SQ, HQ, D)), "lse": ("f32", (B, HQ, SQ))}
    ops.update(changes)
    return _runtime_operands(ops)


@pytest.fixture(scope="module")
def kvcache_bundle():
    return fa_mlir.compile(KVCACHE, target="sm_90a")


@needs_fa_compile
def test_kvcache_compiles_to_a_sequence(kvcache_bundle):
    assert kvcache_bundle.op == "kvcache" and kvcache_bundle.is_sequence
    rt = kvcache_bundle.runtime
    assert rt.op == "attention_kvcache" and rt.num_kernels == 2
    assert "cache_seqlens" in rt.required
    assert [w["name"] for w in rt.workspace] == ["o_partial", "lse_partial"]
    # A fresh load (the bundle directory as AOT ships it) passes too.
    assert fa_mlir.load_bundle(kvcache_bundle.path).config == KVCACHE


@needs_fa_compile
def test_runtime_checks_kvcache_operands(kvcache_bundle):
    grid = kvcache_bundle.check(kvcache_operands())
    assert len(grid) == 3 and all(n >= 1 for n in grid)


@needs_fa_compile
@pytest.mark.parametrize("change, message", [
    (dict(cache_seqlens=("f32", (B,))),
     "'cache_seqlens': dtype is f32, expected i32"),
    (dict(cache_seqlens=("i32", (B + 1,))),
     r"'cache_seqlens': dimension 0 \(batch\) is 5, expected 4"),
])
def test_runtime_rejects_bad_cache_seqlens(kvcache_bundle, change, message):
    with pytest.raises(RuntimeLibraryError, match=message):
        kvcache_bundle.check(kvcache_operands(**change))


@needs_fa_compile
def test_runtime_requires_cache_seqlens(kvcache_bundle):
    ops = kvcache_operands()
    del ops["cache_seqlens"]
    with pytest.raises(RuntimeLibraryError,
                       match="missing operand 'cache_seqlens'"):
        kvcache_bundle.check(ops)


@needs_fa_compile
def test_forward_with_num_splits_compiles_to_a_sequence(tmp_path):
    kcfg = KernelConfig(op="forward", dtype="bf16", head_dim=128,
                        layout="bshd", num_splits=0)
    path = compiler.build_bundle(kcfg, "sm_90a", str(tmp_path / "fwd"))
    bundle = fa_mlir.load_bundle(path)
    assert bundle.is_sequence and bundle.runtime.op == "attention_fwd"
    assert bundle.runtime.num_kernels == 2
    shutil.rmtree(path)


# -- fa_mlir.torch's half on CPU tensors ------------------------------------

def cache_inputs(device_of=lambda t: t, lens=(1000, 517, 0, 1)):
    g = torch.Generator().manual_seed(0)
    q = torch.randn(B, SQ, HQ, D, generator=g).bfloat16()
    kc, vc = (torch.randn(B, CAP, HKV, D, generator=g).bfloat16()
              for _ in range(2))
    seqlens = torch.tensor(lens, dtype=torch.int32)
    return [device_of(t) for t in (q, kc, vc, seqlens)]


@needs_fa_compile
def test_kvcache_operands_pass_the_runtime_check(kvcache_bundle):
    # What run_kvcache launches, checked by libfa_runtime on the host: the
    # roles, dtypes and shapes of the tensors fa_mlir.torch builds.
    q, kc, vc, lens = cache_inputs()
    tensors = _ops.kvcache_operands(q, kc, vc, lens)
    assert tensors["output"].shape == (B, SQ, HQ, D)
    assert tensors["output"].is_contiguous()
    assert tensors["lse"].shape == (B, HQ, SQ)
    assert tensors["lse"].dtype == torch.float32
    from fa_mlir.torch._convert import RUNTIME_DTYPE
    fake = {r: (0x10000000 * (i + 1), RUNTIME_DTYPE[t.dtype], tuple(t.shape),
                t.stride()) for i, (r, t) in enumerate(tensors.items())}
    assert kvcache_bundle.check(fake) == kvcache_bundle.check(
        kvcache_operands())


class _Lookup(Exception):
    pass


@pytest.fixture
def requested(monkeypatch):
    """The KernelConfigs a CUDA call looks up; the lookup then stops it."""
    asked = []

    def lookup(kcfg, target):
        asked.append((kcfg, target))
        raise _Lookup()

    monkeypatch.setattr(_ops, "_target", lambda t: "sm_90a")
    monkeypatch.setattr(_ops, "get_bundle", lookup)
    return asked


def test_cuda_call_asks_for_the_kvcache_kernel(requested):
    # (An int cache_seqlens becomes a CUDA tensor, which needs a GPU: the
    # GPU test covers it.)
    q, kc, vc, lens = cache_inputs(fake_cuda)
    with pytest.raises(_Lookup):
        fat.attention_with_kvcache(q, kc, vc, cache_seqlens=lens, causal=True,
                                   window=(100, 0), softcap=30.0,
                                   num_splits=3)
    (kcfg, target), = requested
    assert target == "sm_90a"
    assert kcfg == KVCACHE.with_(window=(100, 0), softcap=30.0, num_splits=3,
                                 heads_q=HQ, heads_kv=HKV)


def test_cuda_argument_errors_come_before_any_compile(requested,
                                                      monkeypatch):
    # cache_seqlens' values are read on CUDA only when asked (a sync).
    monkeypatch.setenv("FA_MLIR_DEBUG_CHECKS", "1")
    q, kc, vc, _ = cache_inputs(fake_cuda)
    with pytest.raises(ArgumentError, match="cache_seqlens has dtype "
                       "torch.int64"):
        fat.attention_with_kvcache(q, kc, vc, cache_seqlens=fake_cuda(
            torch.zeros(B, dtype=torch.int64)))
    too_long = fake_cuda(torch.tensor([CAP + 1, 0, 0, 0], dtype=torch.int32))
    with pytest.raises(ArgumentError, match="sequence 0 holds 1025 keys"):
        fat.attention_with_kvcache(q, kc, vc, cache_seqlens=too_long)
    with pytest.raises(ArgumentError, match="k_cache is on cpu"):
        fat.attention_with_kvcache(q, kc.as_subclass(torch.Tensor), vc,
                                   cache_seqlens=too_long)
    assert requested == []


@needs_fa_compile
def test_launch_takes_int32_cache_seqlens_only(kvcache_bundle, monkeypatch):
    launched = []
    monkeypatch.setattr(kvcache_bundle, "launch",
                        lambda tensors, stream=None: launched.append(tensors))
    q, kc, vc, lens = cache_inputs(fake_cuda)
    out = fake_cuda(torch.empty(B, SQ, HQ, D, dtype=torch.bfloat16))
    lse = fake_cuda(torch.empty(B, HQ, SQ))
    args = dict(query=q, key=kc, value=vc, output=out, lse=lse)
    for bad in (lens.float(), lens.long()):
        with pytest.raises(ArgumentError, match="'cache_seqlens' has dtype "
                           ".*expected torch.int32"):
            fat.launch(kvcache_bundle, stream=0, cache_seqlens=fake_cuda(bad),
                       **args)
    fat.launch(kvcache_bundle, stream=0, cache_seqlens=lens, **args)
    assert launched and launched[0]["cache_seqlens"][1] == "i32"
