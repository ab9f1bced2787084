"""Results of forward-only computations inside an autograd graph: a
backward through them raises UnsupportedError instead of the gradients
being silently left out (which is what returning a detached tensor does)."""
import torch

from ..errors import UnsupportedError


def needs_grad(*tensors):
    """Whether autograd records a graph through any of `tensors` (None and
    non-tensors allowed)."""
    return torch.is_grad_enabled() and any(
        isinstance(t, torch.Tensor) and t.requires_grad for t in tensors)


def forward_only(compute, message, *inputs, constant=()):
    """compute() (a tuple of tensors), attached to the graph when an input
    needs a gradient, so that a backward raises UnsupportedError(message).
    `constant`: indices of results that are not differentiable at all
    (e.g. an LSE no kernel takes a gradient for)."""
    if needs_grad(*inputs):
        return _ForwardOnly.apply(compute, message, constant, *inputs)
    return compute()


class _ForwardOnly(torch.autograd.Function):

    @staticmethod
    def forward(ctx, compute, message, constant, *inputs):
        ctx.message = message
        results = tuple(compute())
        ctx.mark_non_differentiable(*(results[i] for i in constant))
        return results

    @staticmethod
    def backward(ctx, *grads):
        raise UnsupportedError(ctx.message)
