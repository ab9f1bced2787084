"""CPU tensors that say they are on CUDA: what the torch API's routing looks
at, so that its CUDA path runs on a machine without a GPU up to where a
kernel is needed (tests stop it there)."""
import torch


class FakeCuda(torch.Tensor):
    @property
    def device(self):
        return torch.device("cuda", 0)


def fake_cuda(t):
    return torch.Tensor._make_subclass(FakeCuda, t)
