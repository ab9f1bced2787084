"""Valid shapes that used to fail inside the compiler, now computed on the
CPU and checked against the float64 reference: head dim 1, a bias whose
batch and heads are dynamic, and problems with no row or no key."""
import numpy as np
import pytest

from fa_mlir import testing
from fa_mlir.config import AttentionConfig

TILED = "fa-cpu-pipeline"
REFERENCE = "fa-cpu-pipeline{tiled=false}"


@pytest.mark.parametrize("head_dim, head_dim_v", [(1, 1), (1, 4), (4, 1)])
def test_head_dim_one(head_dim, head_dim_v):
    cfg = AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=5, seq_k=7,
                          head_dim=head_dim, head_dim_v=head_dim_v,
                          causal=True, mask_alignment="bottom_right")
    fwd = testing.check_forward(cfg)
    assert fwd["ok"], fwd
    bwd = testing.check_backward(cfg)
    assert bwd["ok"], bwd


@pytest.mark.parametrize("pipeline", [TILED, REFERENCE])
def test_bias_with_dynamic_batch_and_heads(pipeline):
    # A dynamic bias dim is per-batch / per-head (broadcast needs a static 1).
    cfg = AttentionConfig(batch=2, heads_q=2, heads_kv=1, seq_q=3, seq_k=6,
                          head_dim=4, bias=(True, True),
                          dynamic=("batch", "heads"))
    assert "?x?x3x6" in cfg.type_of("bias")
    fwd = testing.check_forward(cfg, pipeline=pipeline)
    assert fwd["ok"], fwd
    bwd = testing.check_backward(cfg, pipeline=pipeline)
    assert bwd["ok"], bwd


def _zero_problem(**sizes):
    fields = dict(batch=2, heads_q=2, heads_kv=1, seq_q=3, seq_k=4,
                  head_dim=4, bias=(False, False))
    fields.update(sizes)
    return AttentionConfig(**fields)


@pytest.mark.parametrize("sizes", [dict(batch=0), dict(seq_q=0),
                                   dict(seq_k=0)])
def test_empty_problems(sizes):
    """No row or no key: the forward writes O = 0 and LSE = -inf (no key
    visible), the backward zero gradients; the broadcast bias's gradient is
    an exact 0 (a sum over nothing)."""
    cfg = _zero_problem(**sizes)
    inputs = testing.random_inputs(cfg)
    o, lse = testing.run_forward(cfg, inputs, TILED)
    assert o.shape == cfg.shape_bhsd("output") and not np.isnan(o).any()
    assert (o == 0).all() and np.isneginf(lse).all()
    do = np.ones(cfg.shape_bhsd("grad_output"))
    grads = testing.run_backward(cfg, inputs, do, o, lse, TILED)
    for name, g in zip(("dq", "dk", "dv", "dbias"), grads):
        assert not np.isnan(g).any(), name
        assert (g == 0).all(), name
    assert grads[3].shape == (1, 1, cfg.seq_q, cfg.seq_k)
