"""fa_mlir.torch.combine on the CPU: the dialect's fa.combine compiled by
fa-cpu-pipeline, against a float64 merge; -inf partials; bad inputs."""
import pytest

torch = pytest.importorskip("torch")

from fa_mlir.errors import ArgumentError, UnsupportedError  # noqa: E402
from fa_mlir.torch import combine  # noqa: E402

INF = float("inf")


def reference(po, pl):
    """The merge in float64, -inf partials selected out."""
    po, pl = po.double(), pl.double()
    lse = torch.logsumexp(pl, 0)
    empty = torch.isinf(lse) & (lse < 0)
    w = torch.where(torch.isinf(pl) & (pl < 0), torch.zeros_like(pl),
                    torch.exp(pl - torch.where(empty, 0.0, lse)))
    out = (w.unsqueeze(-1) * torch.nan_to_num(po)).sum(0)
    return out, lse


def partials(splits, rows, dim, seed=0):
    g = torch.Generator().manual_seed(seed)
    po = torch.randn(splits, *rows, dim, generator=g)
    pl = 4 * torch.randn(splits, *rows, generator=g)
    return po, pl


@pytest.mark.parametrize("splits,rows,dim", [(1, (3,), 8), (3, (2, 3, 5), 16),
                                             (2, (7,), 33), (5, (), 4)])
def test_matches_float64_merge(splits, rows, dim):
    po, pl = partials(splits, rows, dim)
    out, lse = combine(po, pl)
    ref_out, ref_lse = reference(po, pl)
    assert out.shape == rows + (dim,) and lse.shape == rows
    assert out.dtype == torch.float32 and lse.dtype == torch.float32
    assert (out.double() - ref_out).abs().max() < 1e-5
    assert (lse.double() - ref_lse).abs().max() < 1e-5


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_output_is_rounded_once(dtype):
    po, pl = partials(4, (6, 5), 24, seed=3)
    out, lse = combine(po, pl, out_dtype=dtype)
    ref_out, _ = reference(po, pl)
    assert out.dtype == dtype
    # One rounding of the float32 merge: within half an ulp of the type.
    assert torch.equal(out, ref_out.float().to(dtype)) or \
        (out.double() - ref_out).abs().max() <= \
        (ref_out.to(dtype).double() - ref_out).abs().max() * 1.01 + 1e-7


def test_minus_inf_partials_contribute_nothing():
    po, pl = partials(3, (4,), 8, seed=1)
    pl[1, :] = -INF  # chunk 1 saw no key of any row
    po[1, :] = float("nan")  # whatever it holds is ignored
    pl[:, 2] = -INF  # row 2 saw no key at all
    out, lse = combine(po, pl)
    assert not torch.isnan(out).any() and not torch.isnan(lse).any()
    assert torch.equal(out[2], torch.zeros(8)) and lse[2] == -INF
    keep = torch.tensor([0, 2])
    ref_out, ref_lse = reference(po[keep], pl[keep])
    rows = torch.tensor([0, 1, 3])
    assert (out[rows].double() - ref_out[rows]).abs().max() < 1e-5
    assert (lse[rows].double() - ref_lse[rows]).abs().max() < 1e-5


def test_no_rows():
    out, lse = combine(torch.zeros(2, 0, 8), torch.zeros(2, 0))
    assert out.shape == (0, 8) and lse.shape == (0,)


def test_backward_raises():
    po, pl = partials(2, (3,), 4)
    po.requires_grad_()
    out, _ = combine(po, pl)
    with pytest.raises(UnsupportedError, match="not differentiable"):
        out.sum().backward()


@pytest.mark.parametrize("po,pl,kw,match", [
    (torch.zeros(2, 3, 4, dtype=torch.float64), torch.zeros(2, 3), {},
     "partial_output has dtype torch.float64"),
    (torch.zeros(2, 3, 4), torch.zeros(2, 3, dtype=torch.bfloat16), {},
     "partial_lse has dtype torch.bfloat16"),
    (torch.zeros(4), torch.zeros(()), {}, "partial_output must have rank >= 2"),
    (torch.zeros(2, 3, 4), torch.zeros(2, 4), {},
     r"partial_lse has shape \(2, 4\), expected \(2, 3\)"),
    (torch.zeros(0, 3, 4), torch.zeros(0, 3), {}, "at least one split"),
    (torch.zeros(2, 3, 0), torch.zeros(2, 3), {}, "last dim D >= 1"),
    (torch.zeros(2, 3, 4), torch.zeros(2, 3), dict(out_dtype=torch.int32),
     "out_dtype must be"),
    ([0.0], torch.zeros(2, 3), {}, "partial_output must be a torch.Tensor"),
])
def test_bad_inputs_name_the_operand(po, pl, kw, match):
    with pytest.raises(ArgumentError, match=match):
        combine(po, pl, **kw)


def test_no_rows_among_several_row_dims():
    out, lse = combine(torch.zeros(2, 3, 0, 8), torch.zeros(2, 3, 0))
    assert out.shape == (3, 0, 8) and lse.shape == (3, 0)
