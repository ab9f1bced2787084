"""The split-KV decode sequence of fa.attention_kvcache, checked by the
runtime without a GPU: its operands (the i32 cache_seqlens role), its grid
(split count from the SM count), and the 16-byte alignment its plain Q
loads need, which the `align` of a ptr parameter checks on the address and
on every row stride."""
import json
import os
import subprocess
import sys

import pytest

from fa_mlir import gpu_runtime
from fa_mlir.compiler import find_fa_compile
from fa_mlir.errors import RuntimeLibraryError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
B, SQ, HQ, HKV, CAP, D = 8, 1, 32, 8, 4096, 128


@pytest.fixture(scope="module")
def sequence(tmp_path_factory):
    out = tmp_path_factory.mktemp("decode")
    src = out / "decode.mlir"
    gen = os.path.join(REPO, "test", "Device", "gen_decode_inputs.py")
    src.write_text(subprocess.run([sys.executable, gen], check=True, capture_output=True,
                                  text=True).stdout)
    subprocess.run([find_fa_compile(), str(src), "-o", str(out)], check=True)
    path = out / "fa_fwd_bf16_d128_bshd_lse_m64n128s2o_split_kvcache.json"
    assert json.loads(path.read_text())["op"] == "attention_kvcache"
    return gpu_runtime.RuntimeBundle(str(path))


def dense(shape, elem, addr):
    strides, n = [], 1
    for s in reversed(shape):
        strides.insert(0, n)
        n *= s
    return (addr, elem, shape, tuple(strides))


def operands(**change):
    ops = {"query": dense((B, SQ, HQ, D), "bf16", 0x100000),
           "key": dense((B, CAP, HKV, D), "bf16", 0x10000000),
           "value": dense((B, CAP, HKV, D), "bf16", 0x20000000),
           "cache_seqlens": dense((B,), "i32", 0x30000000),
           "output": dense((B, SQ, HQ, D), "bf16", 0x40000000),
           "lse": dense((B, HQ, SQ), "f32", 0x50000000)}
    ops.update(change)
    return ops


def test_required_operands_and_grid(sequence):
    assert {"query", "key", "value", "cache_seqlens", "output", "lse"} <= set(sequence.required)
    # 8 batches x 8 KV heads, one packed query block each: 132 SMs give 2 splits.
    assert sequence.check(operands(), num_sms=132) == (2, HKV, B)
    assert sequence.check(operands(), num_sms=16) == (1, HKV, B)


def test_cache_seqlens_is_checked(sequence):
    with pytest.raises(RuntimeLibraryError, match="operand 'cache_seqlens': dtype is f32, expected i32"):
        sequence.check(operands(cache_seqlens=dense((B,), "f32", 0x30000000)))
    with pytest.raises(RuntimeLibraryError, match="operand 'cache_seqlens'"):
        sequence.check(operands(cache_seqlens=dense((B + 1,), "i32", 0x30000000)))
    missing = operands()
    del missing["cache_seqlens"]
    with pytest.raises(RuntimeLibraryError, match="missing operand 'cache_seqlens'"):
        sequence.check(missing)


def test_query_rows_must_be_16_byte_aligned(sequence):
    with pytest.raises(RuntimeLibraryError, match="operand 'query': address 0x100008 is not 16-byte aligned"):
        sequence.check(operands(query=dense((B, SQ, HQ, D), "bf16", 0x100008)))
    # Heads 132 elements apart: rows at 264-byte steps, not a multiple of 16.
    odd = (0x100000, "bf16", (B, SQ, HQ, D), (SQ * HQ * 132, HQ * 132, 132, 1))
    with pytest.raises(RuntimeLibraryError,
                       match=r"operand 'query': stride of dimension 2 \(head\) is 132 elements, "
                             "not a multiple of 16 bytes"):
        sequence.check(operands(query=odd))
