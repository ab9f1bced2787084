"""The CPU halves of the device round's serving benchmark (stage 11,
test/Device/bench_api_overhead.py, and test/Device/decode_peers.py, which
bench_decode.py shares): the bandwidth floor's arithmetic, FA4's paged call
and its split fallback, and the FA4 columns (unavailable, refused when FA4's
output fails the check, the ratio otherwise). Fakes stand in for the GPU
and for FA4; nothing is timed."""
import importlib.util
import os
import sys

import pytest
import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_bench():
    """test/Device/bench_api_overhead.py, with sys.path as it was after (the
    bench puts test/Device and python/ ahead for its own imports)."""
    path = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location(
            "fa_bench_api_overhead",
            os.path.join(REPO, "test", "Device", "bench_api_overhead.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = path
    return module


bench = load_bench()
decode_peers = bench.decode_peers
peers = bench.peers


def test_decode_bytes_count_each_sequences_keys_values_q_and_out():
    q = torch.zeros(2, 1, 4, 8, dtype=torch.bfloat16)
    key_cache = torch.zeros(5, 16, 2, 8, dtype=torch.bfloat16)  # 32 B a row
    value_cache = torch.zeros(5, 16, 2, 16, dtype=torch.float32)  # 128 B a row
    out = torch.zeros(2, 1, 4, 16, dtype=torch.bfloat16)
    # 3 + 20 rows (not the 5 x 16 rows the pages hold), q 128 B, out 256 B
    assert decode_peers.decode_bytes(q, key_cache, value_cache, [3, 20], out) \
        == 23 * (32 + 128) + 128 + 256


def test_copy_bandwidth_counts_the_read_and_the_write():
    copies = []

    def two_ms(fn):
        copies.append(fn())
        return 2.0
    bandwidth = decode_peers.copy_bandwidth(two_ms, device="cpu", nbytes=1024)
    assert bandwidth == 2 * 1024 / 2e-3
    assert copies[0].numel() * copies[0].element_size() == 1024


def test_floor_columns():
    row = bench.floor_columns(3e9, 3e12, 1.5)
    assert row["floor_ms"] == pytest.approx(1.0)
    assert row["api_over_floor"] == pytest.approx(1.5)
    assert row["copy_tb_s"] == pytest.approx(3.0)


class FakeFA4:
    """flash_attn_varlen_func's stand-in: records each call's arguments;
    refuses num_splits=0 like FA4's sm_90 kernel when `refuse_split`."""

    def __init__(self, refuse_split=False):
        self.calls, self.refuse_split = [], refuse_split

    def __call__(self, q, k, v, **kw):
        self.calls.append(kw)
        if self.refuse_split and kw["num_splits"] == 0:
            raise AssertionError("SplitKV not supported on SM 9.0")
        return q + 1, None


def test_fa4_paged_passes_the_page_table_and_lengths(monkeypatch):
    fake = FakeFA4()
    monkeypatch.setattr(peers, "fa4_varlen_func", lambda: fake)
    q, lens, table = torch.zeros(2, 1, 4, 8), torch.tensor([3, 5]), torch.zeros(2, 1)
    call = decode_peers.fa4_paged(q, None, None, lens, table, causal=True)
    assert torch.equal(call()[0], q + 1)
    assert fake.calls[-1]["seqused_k"] is lens
    assert fake.calls[-1]["page_table"] is table
    assert fake.calls[-1]["num_splits"] == 0 and fake.calls[-1]["causal"]


def test_fa4_paged_times_unsplit_where_fa4_refuses_to_split(monkeypatch):
    fake = FakeFA4(refuse_split=True)
    monkeypatch.setattr(peers, "fa4_varlen_func", lambda: fake)
    call = decode_peers.fa4_paged(torch.zeros(1), None, None, None, None)
    call()
    assert fake.calls[-1]["num_splits"] == 1


def test_fa4_paged_without_fa4_raises_unavailable(monkeypatch):
    def absent():
        raise peers.Unavailable("flash_attn.cute: ModuleNotFoundError")
    monkeypatch.setattr(peers, "fa4_varlen_func", absent)
    with pytest.raises(peers.Unavailable):
        decode_peers.fa4_paged(None, None, None, None, None)


OURS = torch.arange(6.0).reshape(2, 3)


def case_with(fa4):
    """A case whose check passes exactly our output."""
    return bench.Case(api=None, check=lambda out: "PASS" if torch.equal(
        out, OURS) else "FAIL", bundle=None, tensors=None, fa4=fa4)


def must_not_time(fn):
    raise AssertionError("a FA4 call that failed the check was timed")


def test_fa4_columns_say_unavailable_without_fa4():
    def absent():
        raise peers.Unavailable("flash_attn.cute: ModuleNotFoundError")
    row = bench.fa4_columns(case_with(absent), OURS, 1.0, must_not_time)
    assert row == dict.fromkeys(bench.FA4_COLUMNS, "unavailable")


def test_fa4_columns_refuse_to_time_a_different_result():
    wrong = OURS.clone()
    wrong[1, 2] += 0.5
    row = bench.fa4_columns(case_with(lambda: lambda: (wrong, None)), OURS,
                            1.0, must_not_time)
    assert row["fa4_check"] == "FAIL"
    assert row["fa4_max_diff"] == "5.00e-01"
    assert row["fa4_ms"].startswith("not timed")
    assert row["fa4_over_api"].startswith("not timed")


def test_fa4_columns_time_fa4_and_divide_by_the_api():
    row = bench.fa4_columns(case_with(lambda: lambda: (OURS.clone(), None)),
                            OURS, 0.5, lambda fn: 0.75)
    assert row["fa4_check"] == "PASS" and row["fa4_max_diff"] == "0.00e+00"
    assert row["fa4_ms"] == 0.75 and row["fa4_over_api"] == 1.5


def test_fa4_columns_report_a_fa4_that_cannot_run():
    def fails():
        raise RuntimeError("no sm_90 kernel for this shape\nmore")
    row = bench.fa4_columns(case_with(lambda: fails), OURS, 1.0, must_not_time)
    assert row["fa4_ms"] == "error RuntimeError: no sm_90 kernel for this shape"


def test_cases_without_fa4_get_no_fa4_columns():
    assert bench.fa4_columns(case_with(None), OURS, 1.0, must_not_time) == {}
