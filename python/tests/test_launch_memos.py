"""What fa_mlir.torch remembers per call signature to keep its host time
low (_ops: the KernelConfig per inputs' key, the packed operand array per
operands' signature) answers every call as the full path does: a call
whose inputs differ from a remembered one in anything the checks or the
packing read is checked and packed anew."""
import pytest
import torch

from fa_mlir.errors import ArgumentError
from fa_mlir.gpu_runtime import pack
from fa_mlir.torch import _convert, _ops

OPTIONS = (True, None, -1, -1, None, "", "bhsd")


def qkv(b=2, h=4, s=16, d=64, dtype=torch.bfloat16):
    return [torch.zeros(b, h, s, d, dtype=dtype) for _ in range(3)]


def fresh_config(monkeypatch, *args):
    """kernel_config with the memos emptied (what an uncached call gets)."""
    monkeypatch.setattr(_ops, "_call_configs", {})
    monkeypatch.setattr(_ops, "_configs", {})
    return _ops.kernel_config(*args)


def check_message(q, k, v):
    with pytest.raises(ArgumentError) as e:
        _convert.check_inputs(q, k, v, None, "bhsd", where=_convert.WHERE)
    return str(e.value)


@pytest.mark.parametrize("change", [
    lambda q, k, v: (q, k[:, :, :, :32], v),                  # head dim
    lambda q, k, v: (q, k.to(torch.float16), v),               # dtype
    lambda q, k, v: (q, k, v[:1]),                             # batch
    lambda q, k, v: (q, k[:, :3], v[:, :3]),                   # heads % kv
    lambda q, k, v: (q, k, v.unsqueeze(0)),                    # rank
    lambda q, k, v: (q, k, [1, 2]),                            # no tensor
])
def test_changed_inputs_after_a_remembered_call_are_checked(change):
    q, k, v = qkv()
    _ops.kernel_config("forward", q, k, v, None, *OPTIONS)  # remembered
    bad = change(q, k, v)
    want = check_message(*bad)
    with pytest.raises(ArgumentError) as e:
        _ops.kernel_config("forward", *bad, None, *OPTIONS)
    assert str(e.value) == want


def test_remembered_config_is_the_full_paths(monkeypatch):
    for q, k, v in (qkv(), qkv(s=48), qkv(h=8), qkv(d=128),
                    qkv(dtype=torch.float16)):
        for op in ("forward", "backward"):
            got = _ops.kernel_config(op, q, k, v, None, *OPTIONS)
            assert _ops.kernel_config(op, q, k, v, None, *OPTIONS) is got
            with monkeypatch.context() as m:
                assert fresh_config(m, op, q, k, v, None, *OPTIONS) == got
    # Grouped heads and a bias (its broadcast flags, dtype) are in the key.
    q, k, v = qkv(h=8)
    k2, v2 = k[:, :2], v[:, :2]
    assert _ops.kernel_config("forward", q, k2, v2, None, *OPTIONS) \
        .heads_kv == 2
    bias = torch.zeros(1, 8, 16, 16, dtype=torch.bfloat16)
    full = torch.zeros(2, 8, 16, 16, dtype=torch.float32)
    a = _ops.kernel_config("forward", q, k, v, bias, *OPTIONS)
    b = _ops.kernel_config("forward", q, k, v, full, *OPTIONS)
    assert a.bias != b.bias and a.bias_dtype != b.bias_dtype


def packed_bytes(tensors):
    return bytes(pack({r: _convert.runtime_tensor(t)
                       for r, t in tensors.items()}))


def test_fa_tensors_is_pack_of_each_call():
    """The remembered template is pack()'s array of the call itself:
    repeated with other addresses, and after a change of stride, shape,
    dtype or role order (each a new signature)."""
    q, k, v = qkv()
    lse = torch.zeros(2, 4, 16)
    calls = [
        {"query": q, "key": k, "value": v, "lse": lse},
        {"query": q.clone(), "key": k.clone(), "value": v.clone(),
         "lse": lse.clone()},                                  # moved
        {"query": torch.zeros(2, 16, 4, 64, dtype=q.dtype).transpose(1, 2),
         "key": k, "value": v, "lse": lse},                    # strides
        {"query": q[:, :, :8], "key": k, "value": v, "lse": lse},  # shape
        {"query": q.float(), "key": k, "value": v, "lse": lse},    # dtype
        {"key": k, "query": q, "value": v, "lse": lse},        # role order
        {"query": q, "key": k, "value": v, "lse": lse},        # first again
    ]
    for tensors in calls:
        assert bytes(_ops._fa_tensors(tensors)) == packed_bytes(tensors)
