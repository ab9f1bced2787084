"""Inputs that crashed the process, raised a raw error or were silently
accepted (issue 39, item 5), each handled where it arises: OpenMP thread
counts, batch 0 in the serving calls, an unusable FA_MLIR_CACHE, messages
naming the function called and the real limits, and outputs that overlap
themselves or another operand."""
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import fa_mlir  # noqa: E402
import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import bundle as fa_bundle  # noqa: E402
from fa_mlir import cache, cpu  # noqa: E402
from fa_mlir.arguments import MAX_SIZE  # noqa: E402
from fa_mlir.errors import ArgumentError, BundleError  # noqa: E402

from test_runtime_host import BUNDLE as GPU_BUNDLE, operands  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CFG = dict(dtype="f32", head_dim=8, heads_q=2, heads_kv=1)


def rand(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


@pytest.fixture(scope="module")
def kernel():
    """The kernel fa_mlir.torch.attention asks for on CFG's tensors."""
    return fa_mlir.compile(**CFG, layout="bhsd")


def arrays(b=1, sq=3, sk=4):
    q, k, v = rand(b, 2, sq, 8), rand(b, 1, sk, 8), rand(b, 1, sk, 8)
    return dict(query=q.numpy(), key=k.numpy(), value=v.numpy(),
                output=np.empty((b, 2, sq, 8), np.float32),
                lse=np.empty((b, 2, sq), np.float32))


# -- OpenMP thread counts ----------------------------------------------------

@pytest.mark.parametrize("threads", [-4, 0, 2.0, True, "8"])
def test_bad_thread_counts_are_refused(kernel, threads):
    with pytest.raises(ArgumentError, match=r"threads must be an int in \[1, "):
        kernel.launch(arrays(), threads=threads)


def test_thread_count_is_capped_at_the_usable_cpus():
    assert fa_bundle.thread_count("t", 10**6) == fa_bundle.usable_cpus()
    assert fa_bundle.thread_count("t", 1) == 1


# In a subprocess whose address space is bounded (libomp's thread stacks
# come from it): before the cap, libomp tried to create the million
# threads, exhausting the machine's processes before it aborted. numpy
# only: torch maps more address space than the bound.
HUGE_THREADS = """
import resource, sys
import numpy as np
import fa_mlir
resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
k = fa_mlir.load_bundle(sys.argv[1])
rng = np.random.default_rng(0)
q, kv = rng.standard_normal((1, 2, 3, 8), np.float32), \
    rng.standard_normal((1, 1, 4, 8), np.float32)
def run(threads):
    out = np.empty((1, 2, 3, 8), np.float32)
    k.launch(dict(query=q, key=kv, value=kv, output=out,
                  lse=np.empty((1, 2, 3), np.float32)), threads=threads)
    return out
assert np.array_equal(run(10**6), run(1))
print("ok")
"""


def test_huge_thread_count_runs(kernel):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE))
    proc = subprocess.run([sys.executable, "-c", HUGE_THREADS, kernel.path],
                          capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_torch_thread_count_is_capped(kernel, monkeypatch):
    """fa_mlir.torch passes torch.get_num_threads(), which
    torch.set_num_threads(100000) makes 100000 (only its value is
    faked here: torch's own ops would start that many threads)."""
    from fa_mlir import registry
    from fa_mlir.torch import _ops
    asked = []
    kernel._fn()  # loaded, so that the recorder replaces libomp's setter
    monkeypatch.setattr(kernel, "_set_threads", asked.append)
    monkeypatch.setattr(registry, "get_bundle", lambda kcfg, target: kernel)
    monkeypatch.setattr(_ops, "get_bundle", lambda kcfg, target: kernel)
    monkeypatch.setattr(torch, "get_num_threads", lambda: 100000)
    q, kv = rand(1, 2, 3, 8), rand(1, 1, 4, 8)
    out = fat.attention(q, kv, kv)
    assert asked == [fa_bundle.usable_cpus()]
    ref = torch.nn.functional.scaled_dot_product_attention(
        q, kv.expand(1, 2, 4, 8), kv.expand(1, 2, 4, 8))
    assert torch.allclose(out, ref, atol=1e-5)


# -- batch 0 -----------------------------------------------------------------

def test_attention_batch_zero():
    out, lse = fat.attention(rand(0, 2, 3, 8), rand(0, 1, 4, 8),
                             rand(0, 1, 4, 8), return_lse=True)
    assert out.shape == (0, 2, 3, 8) and lse.shape == (0, 2, 3)


def test_varlen_batch_zero():
    cu = torch.zeros(1, dtype=torch.int32)
    out, lse = fat.varlen_attention(rand(0, 2, 8), rand(0, 1, 8), rand(0, 1, 8),
                                    cu, cu, 0, 0, return_lse=True)
    assert out.shape == (0, 2, 8) and lse.shape == (2, 0)


@pytest.mark.parametrize("paged, append", [(False, False), (True, False),
                                           (False, True), (True, True)])
def test_kvcache_batch_zero(paged, append):
    """Before: torch.cat of no sequences raised a ValueError."""
    cache_k = rand(3 if paged else 0, 4, 1, 8)
    cache_v = rand(3 if paged else 0, 4, 1, 8)
    new = dict(k=rand(0, 2, 1, 8), v=rand(0, 2, 1, 8)) if append else {}
    table = torch.zeros(0, 2, dtype=torch.int32) if paged else None
    out, lse = fat.attention_with_kvcache(
        rand(0, 1, 2, 8), cache_k, cache_v,
        cache_seqlens=torch.zeros(0, dtype=torch.int32), block_table=table,
        causal=True, return_lse=True, **new)
    assert out.shape == (0, 1, 2, 8) and lse.shape == (0, 2, 1)
    assert out.dtype == torch.float32 and lse.dtype == torch.float32


# -- FA_MLIR_CACHE -------------------------------------------------------------

def _unusable_caches(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    return {"a file": str(a_file), "under a file": str(a_file / "sub"),
            "read-only": "/proc/fa_mlir_cache"}


@pytest.mark.parametrize("case", ["a file", "under a file", "read-only"])
def test_unusable_cache_names_fa_mlir_cache(tmp_path, monkeypatch, case):
    path = _unusable_caches(tmp_path)[case]
    monkeypatch.setenv("FA_MLIR_CACHE", path)
    message = rf"kernel cache {path}\S* cannot be used .*FA_MLIR_CACHE names it"
    with pytest.raises(BundleError, match=message):
        fa_mlir.compile(cache_dir=None, **dict(CFG, head_dim=4))
    with pytest.raises(BundleError, match=message):
        cpu.compile_to_shared_library("module {}")  # combine's, FP8's cache


def test_unusable_default_cache_says_to_set_it(tmp_path, monkeypatch):
    monkeypatch.delenv("FA_MLIR_CACHE")
    with pytest.raises(BundleError, match="FA_MLIR_CACHE is not set"):
        cache.usable_dir(_unusable_caches(tmp_path)["a file"])


# -- messages ------------------------------------------------------------------

def _kvcache(**changes):
    args = dict(q=rand(1, 1, 2, 8), k_cache=rand(1, 4, 1, 8),
                v_cache=rand(1, 4, 1, 8), cache_seqlens=2)
    args.update(changes)
    q, kc, vc = args.pop("q"), args.pop("k_cache"), args.pop("v_cache")
    return fat.attention_with_kvcache(q, kc, vc, **args)


def _varlen(**options):
    cu = torch.tensor([0, 3], dtype=torch.int32)
    return fat.varlen_attention(rand(3, 2, 8), rand(3, 1, 8), rand(3, 1, 8),
                                cu, cu, 3, 3, **options)


@pytest.mark.parametrize("call, message", [
    (lambda: _kvcache(q=rand(1, 1, 2, 8, dtype=torch.float64)),
     r"attention_with_kvcache: q has dtype torch.float64"),
    (lambda: _kvcache(window=(1.5, 0)),
     r"attention_with_kvcache: window left must be an int in \[0, "),
    (lambda: _varlen(window=(0, "3")),
     r"varlen_attention: window right must be an int in \[0, "),
    (lambda: _varlen(window=3), r"varlen_attention: window must be \(left, "),
    # No sequence: no kernel call checks the options, so varlen must.
    (lambda: fat.varlen_attention(
        rand(0, 2, 8), rand(0, 1, 8), rand(0, 1, 8),
        *(torch.zeros(1, dtype=torch.int32),) * 2, 0, 0, scale=float("nan")),
     r"varlen_attention: scale must be finite"),
    (lambda: fat.quantize_fp8(*(rand(1, 1, 2, 8, dtype=torch.float64),) * 3),
     r"quantize_fp8: query has dtype torch.float64"),
    (lambda: fat.quantize_fp8(*(rand(1, 1, 2, 8),) * 3, layout="sbhd"),
     r"quantize_fp8: layout must be 'bhsd' or 'bshd', got 'sbhd'"),
    (lambda: fat.quantize_fp8(*(rand(1, 1, 2, 8),) * 3, incoherent=1),
     r"quantize_fp8: incoherent must be True or False"),
    (lambda: fat.attention(*(rand(1, 1, 2, 8),) * 3, window=(2**40, 0)),
     rf"attention: window left must be an int in \[0, {MAX_SIZE}\]"),
    (lambda: fat.attention(*(rand(1, 1, 2, 8),) * 3,
                           bias=torch.zeros(2, 2, dtype=torch.int32)),
     r"bias has dtype torch.int32; expected torch.bool or torch.float32$"),
    (lambda: fat.attention(*(rand(1, 1, 2, 8, dtype=torch.float16),) * 3,
                           bias=torch.zeros(2, 2, dtype=torch.int32)),
     r"expected torch.bool, torch.float32 or torch.float16$"),
    (lambda: fat.attention(*(rand(1, 1, 2, 8),) * 3, bias=0.5),
     r"attention: bias must be a torch.Tensor or None, got float"),
])
def test_messages_name_the_function_and_the_limit(call, message):
    with pytest.raises(ArgumentError, match=message):
        call()


# -- outputs that overlap --------------------------------------------------------

@pytest.fixture(scope="module")
def gpu_bundle():
    return fa_mlir.load_bundle(GPU_BUNDLE)


def _with(ops, role, **fields):
    """`ops` with some of `role`'s (addr, dtype, sizes, strides) replaced."""
    new = dict(zip(("addr", "dtype", "sizes", "strides"), ops[role]))
    new.update(fields)
    ops[role] = tuple(new.values())
    return ops


@pytest.mark.parametrize("change, message", [
    # Rows of one head share memory: seq stride 0, then smaller than a row.
    (lambda o: _with(o, "output", strides=(300 * 512, 0, 128, 1)),
     r"'output' is written, but its strides .* may place two elements"),
    (lambda o: _with(o, "output", strides=(300 * 512, 64, 128, 1)),
     r"'output' is written, but its strides"),
    (lambda o: _with(o, "lse", strides=(300, 1, 1)),
     r"'lse' is written, but its strides"),
    (lambda o: _with(o, "output", addr=o["query"][0] + 1024),
     r"'output' is written, but its memory .* overlaps that of 'query'"),
    (lambda o: _with(o, "lse", addr=o["output"][0] + 4096),
     r"'output' is written, but its memory .* overlaps that of 'lse'"),
])
def test_gpu_check_refuses_overlapping_outputs(gpu_bundle, change, message):
    with pytest.raises(ArgumentError, match=message):
        gpu_bundle.check(change(operands()))


def test_gpu_check_takes_padded_and_permuted_outputs(gpu_bundle):
    """Disjoint layouts pass: padded rows, heads outermost (a bhsd tensor
    read as bshd), and inputs sharing memory (q, k and v of one qkv)."""
    padded = _with(operands(), "output", strides=(300 * 1024, 1024, 128, 1))
    assert gpu_bundle.check(padded) == (3, 4, 2)
    heads_out = _with(operands(), "output",
                      strides=(4 * 300 * 128, 128, 300 * 128, 1))
    assert gpu_bundle.check(heads_out) == (3, 4, 2)
    qkv = operands()
    for i, role in enumerate(("query", "key", "value")):
        qkv = _with(qkv, role, addr=0x100000 + 256 * i,
                    strides=(300 * 1536, 1536, 128, 1))
    assert gpu_bundle.check(qkv) == (3, 4, 2)


def test_cpu_launch_refuses_an_output_aliasing_an_input(kernel):
    a = arrays()
    a["output"] = a["query"]  # same shape and dtype: it would be accepted
    with pytest.raises(ArgumentError, match="output 'output' shares memory "
                       "with 'query'"):
        kernel.launch(a)
    a = arrays()
    a["lse"] = a["output"].reshape(-1)[:6].reshape(1, 2, 3)
    with pytest.raises(ArgumentError, match="'output' shares memory with "
                       "'lse'"):
        kernel.launch(a)


def test_append_into_an_expanded_cache_is_refused():
    """Found by test_fuzz_api: torch's own RuntimeError (a write through
    overlapping memory) reached the caller."""
    cache = rand(1, 8, 1, 8).expand(2, 8, 1, 8)
    with pytest.raises(ArgumentError, match="attention_with_kvcache: "
                       "k_cache is appended into, but its strides"):
        fat.attention_with_kvcache(
            rand(2, 1, 2, 8), cache, rand(2, 8, 1, 8), cache_seqlens=3,
            k=rand(2, 1, 1, 8), v=rand(2, 1, 1, 8))


@pytest.mark.parametrize("seq_k", [1, 31, 100])
def test_rows_of_very_negative_scores(seq_k):
    """Found by test_fuzz_api: at a key-tile edge (seq_k 1, 31, 100 against
    32-lane register blocks) the masked row max padded its dead lanes with
    the smallest negative denormal (upstream's masked-reduction lowering),
    not -inf, so a row of scores below -87.3 gave O = 0, LSE = -inf."""
    q = torch.full((1, 1, 1, 8), -100.0 * 8 ** -0.5)  # every score -100
    k = torch.ones(1, 1, seq_k, 8)
    v = torch.arange(seq_k, dtype=torch.float32)[:, None].expand(
        seq_k, 8).reshape(1, 1, seq_k, 8).contiguous()
    out, lse = fat.attention(q, k, v, return_lse=True)
    assert torch.allclose(out, torch.full_like(out, (seq_k - 1) / 2))
    assert torch.allclose(lse, torch.full_like(lse, -100.0 + np.log(seq_k)))


def test_unusable_cache_dir_argument_is_named(tmp_path):
    a_file = _unusable_caches(tmp_path)["a file"]
    with pytest.raises(BundleError, match="the cache_dir argument names it"
                       r"\): pass a writable directory"):
        fa_mlir.compile(cache_dir=a_file, **dict(CFG, head_dim=4))


@pytest.mark.parametrize("paged", [False, True])
def test_huge_int_cache_seqlens_is_refused(paged):
    """An int cache_seqlens is checked as an int: 2**40 made torch.full's
    int32 tensor overflow (a raw RuntimeError) before any check."""
    cache = rand(2, 8, 1, 8)
    table = torch.zeros(1, 2, dtype=torch.int32) if paged else None
    with pytest.raises(ArgumentError, match="attention_with_kvcache: "
                       "sequence 0 (holds|needs)"):
        fat.attention_with_kvcache(rand(2 if not paged else 1, 1, 2, 8), cache,
                                   cache, cache_seqlens=2**40,
                                   block_table=table)
