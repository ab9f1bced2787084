"""fa_mlir.torch.launch: any bundle on torch tensors, checked, no copies."""
import pytest

torch = pytest.importorskip("torch")

import fa_mlir  # noqa: E402
import fa_mlir.torch as fat  # noqa: E402
from fa_mlir.errors import ArgumentError  # noqa: E402


@pytest.fixture(scope="module")
def bundle():
    return fa_mlir.compile(dtype="bf16", head_dim=16, heads_q=4, heads_kv=2,
                           causal=True)


def tensors(b=2, sq=5, sk=7, dtype=torch.bfloat16):
    g = torch.Generator().manual_seed(0)
    r = lambda *s: torch.randn(*s, generator=g).to(dtype)  # noqa: E731
    return dict(query=r(b, 4, sq, 16), key=r(b, 2, sk, 16), value=r(b, 2, sk, 16),
                output=torch.empty(b, 4, sq, 16, dtype=dtype),
                lse=torch.empty(b, 4, sq))


def test_launch_writes_outputs_in_place(bundle):
    t = tensors()
    fat.launch(bundle, **t)
    ref = fat.attention(t["query"], t["key"], t["value"], causal=True)
    assert torch.equal(t["output"], ref)


@pytest.mark.parametrize("change, message", [
    (lambda t: t.update(query=t["query"].float()),
     "'query' has dtype torch.float32, expected torch.bfloat16"),
    (lambda t: t.update(key=t["key"].transpose(2, 3).contiguous().transpose(2, 3)),
     "'key' must be contiguous for a CPU kernel"),
    (lambda t: t.update(value=t["value"][:, :, :6].contiguous()),
     r"'value' dimension 2 \(seq_k\) is 6, expected 7"),
    (lambda t: t.update(lse=t["lse"].to("meta")),
     "'lse' is on meta; this CPU kernel needs CPU tensors"),
    (lambda t: t.update(output=t["output"].double()),
     "'output' has dtype torch.float64"),
    (lambda t: t.pop("lse"), "missing operand 'lse'"),
    (lambda t: t.update(query=[[0.0]]), "'query' must be a torch.Tensor"),
])
def test_launch_errors(bundle, change, message):
    t = tensors()
    change(t)
    with pytest.raises(ArgumentError, match=message):
        fat.launch(bundle, **t)
