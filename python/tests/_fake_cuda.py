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


class HostSync(AssertionError):
    """A CUDA tensor's values were read on the host (a device->host sync)."""


def _trap(name):
    def read(self, *args, **kwargs):
        raise HostSync(f"Tensor.{name} on a CUDA tensor: a device->host "
                       "sync (and no CUDA graph could capture the call)")
    return read


class SyncTrap(FakeCuda):
    """A FakeCuda whose values cannot be read back to the host: every way
    to a Python value or a CPU copy raises HostSync (tensors computed from
    it are SyncTraps too: torch's subclass propagation)."""
    item = _trap("item")
    tolist = _trap("tolist")
    cpu = _trap("cpu")
    numpy = _trap("numpy")
    __bool__ = _trap("__bool__")
    __int__ = _trap("__int__")
    __float__ = _trap("__float__")
    __index__ = _trap("__index__")

    def to(self, *args, **kwargs):
        device = kwargs.get("device", args[0] if args else None)
        if isinstance(device, (str, torch.device)) and \
                torch.device(device).type == "cpu":
            raise HostSync("Tensor.to('cpu') on a CUDA tensor")
        return super().to(*args, **kwargs)


def sync_trap(t):
    return torch.Tensor._make_subclass(SyncTrap, t)


class _CaptureCopy(FakeCuda):
    """A FakeCuda whose .cpu() is a plain CPU copy, as a CUDA tensor's is:
    the modifier trace indexes host copies of the tensors a function
    captures (modifiers._with_host_copies)."""

    def cpu(self):
        return self.as_subclass(torch.Tensor).clone()


def fake_cuda_capture(t):
    """`t` posing as CUDA, as a tensor a score_mod/mask_mod captures."""
    return torch.Tensor._make_subclass(_CaptureCopy, t)
