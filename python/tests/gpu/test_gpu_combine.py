"""fa.combine's standalone sm_90a kernel (fa_mlir.torch._combine_cuda,
fa_combine_d<D>_<dtype>) on an sm_90a GPU against a float64 merge in torch.

Partials with LSE -inf whose outputs hold NaN (they must be selected out,
never multiplied), rows whose every partial is -inf (O = 0, LSE = -inf),
one split, no split, no row, row counts that are not multiples of the
four rows a CTA merges, row lengths 1, 64, 72, 128, 512, outputs f32, f16
and bf16. The kernel has not run on a GPU yet: this is its first check
there.

The kernels are in configs.json (python/tests/test_combine_cuda_route.py
checks that on the CPU)."""
import pytest

torch = pytest.importorskip("torch")

from fa_mlir.torch._combine_cuda import combine_cuda  # noqa: E402

# (splits, rows, dim, output dtype): what configs.json builds for.
CASES = [
    (4, 1001, 128, torch.bfloat16),
    (4, 1001, 128, torch.float16),
    (4, 1001, 128, torch.float32),
    (2, 37, 64, torch.bfloat16),
    (8, 130, 72, torch.float32),
    (3, 9, 1, torch.float32),
    (5, 20, 512, torch.float32),
    (1, 50, 128, torch.bfloat16),
]
# |error| <= ATOL + RTOL |reference|: ex2/lg2.approx in f32, then one
# rounding to the output dtype.
TOLERANCE = {torch.float32: (1e-5, 1e-5), torch.float16: (1e-3, 2e-3),
             torch.bfloat16: (1e-2, 1.6e-2)}


def reference(partial_output, partial_lse):
    """(O, LSE) in float64: L = log sum exp L_c, O = sum exp(L_c - L) O_c
    over the finite L_c; O = 0 and L = -inf where none is."""
    po, pl = partial_output.double(), partial_lse.double()
    finite = torch.isfinite(pl)
    m = torch.where(finite, pl, -torch.inf).amax(0) if len(pl) else \
        torch.full(pl.shape[1:], -torch.inf, dtype=torch.float64,
                   device=pl.device)
    any_finite = torch.isfinite(m)
    safe = torch.where(any_finite, m, 0.0)
    w = torch.where(finite, torch.exp(pl - safe), 0.0)
    s = w.sum(0)
    lse = torch.where(any_finite, safe + torch.log(s), -torch.inf)
    w = torch.where(any_finite, w / torch.where(any_finite, s, 1.0), 0.0)
    o = (w[..., None] * torch.where(finite[..., None], po, 0.0)).sum(0)
    return o, lse


def partials(n, rows, dim, seed=0):
    """Random partials; split c of row r has LSE -inf (and NaN outputs) for
    a third of the (c, r), and rows 0 and 5 (when present) have none."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    po = torch.randn(n, rows, dim, generator=g, device="cuda")
    pl = 4 * torch.randn(n, rows, generator=g, device="cuda")
    dead = torch.rand(n, rows, generator=g, device="cuda") < 1 / 3
    for r in (0, 5):
        if r < rows:
            dead[:, r] = True
    pl[dead] = -torch.inf
    po[dead] = torch.nan
    return po.contiguous(), pl.contiguous()


@pytest.mark.parametrize("n, rows, dim, dtype", CASES,
                         ids=[f"n{c[0]}_r{c[1]}_d{c[2]}_{str(c[3])[6:]}"
                              for c in CASES])
def test_matches_float64(n, rows, dim, dtype):
    po, pl = partials(n, rows, dim)
    out, lse = combine_cuda(po, pl, dtype)
    torch.cuda.synchronize()
    assert out.shape == (rows, dim) and out.dtype == dtype
    assert lse.shape == (rows,) and lse.dtype == torch.float32
    want_o, want_lse = reference(po, pl)
    assert not torch.isnan(out).any() and not torch.isnan(lse).any()
    empty = ~torch.isfinite(want_lse)
    assert empty[0] and (rows <= 5 or empty[5])
    assert (lse[empty] == -torch.inf).all()
    assert (out[empty] == 0).all()
    assert torch.allclose(lse[~empty].double(), want_lse[~empty], atol=1e-5,
                          rtol=1e-5)
    atol, rtol = TOLERANCE[dtype]
    assert torch.allclose(out.double(), want_o, atol=atol, rtol=rtol)


def test_no_split_and_no_row():
    # No partial at all: every row is empty.
    po, pl = torch.empty(0, 6, 128, device="cuda"), torch.empty(
        0, 6, device="cuda")
    out, lse = combine_cuda(po, pl, torch.bfloat16)
    torch.cuda.synchronize()
    assert (out == 0).all() and (lse == -torch.inf).all()
    # No row: nothing is launched, empty results.
    out, lse = combine_cuda(torch.empty(3, 0, 128, device="cuda"),
                            torch.empty(3, 0, device="cuda"), torch.bfloat16)
    assert out.shape == (0, 128) and lse.shape == (0,)


def test_current_stream():
    po, pl = partials(4, 1001, 128, seed=1)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        out, lse = combine_cuda(po, pl, torch.float32)
    stream.synchronize()
    want_o, want_lse = reference(po, pl)
    assert torch.allclose(out.double(), want_o, atol=1e-5, rtol=1e-5)


def test_public_combine_flattens_the_rows():
    """fa_mlir.torch.combine on CUDA tensors with several row dims (what
    ring attention merges: [2, B, H, S, D]) reaches the same kernel."""
    import fa_mlir.torch as fat
    po, pl = partials(2, 2 * 3 * 35, 128, seed=4)
    po, pl = po.reshape(2, 2, 3, 35, 128), pl.reshape(2, 2, 3, 35)
    out, lse = fat.combine(po, pl)
    torch.cuda.synchronize()
    ref_out, ref_lse = reference(po, pl)
    assert out.shape == (2, 3, 35, 128) and lse.shape == (2, 3, 35)
    assert not torch.isnan(out).any()
    assert (out.double() - ref_out).abs().max() <= 1e-5 + 1e-5 * ref_out.abs().max()
    finite = torch.isfinite(ref_lse)
    assert torch.equal(torch.isfinite(lse), finite)
    assert (lse.double() - ref_lse)[finite].abs().max() <= 1e-4
