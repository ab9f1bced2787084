"""fa_mlir.torch.create_block_mask: a mask_mod's block map, built once and
reused by every call (FlexAttention's create_block_mask / BlockMask).

On sm_90a a mask_mod that is more than a band (document masks, prefix-LM,
padding) makes the forward block-sparse: a `_block_map` kernel writes, per
query block, the key tiles to visit (partial or full), and the forward
walks them (docs/Modifiers.md, *Block sparsity on sm_90a*). Without a
BlockMask every call builds that map again; with one, the first call that
needs a map for its kernel's tile shape and sizes builds it and later calls
(the other layers of a model, the next steps) pass it to the kernel
sequence, which then skips the map kernel (its buffers are "written_by"
it: docs/BundleFormat.md, *Buffers a caller may keep*).

The map is the one the kernels read, built by the compiler's own map kernel
(not a torch computation of it), so it cannot disagree with them.
"""
import torch

from ..arguments import MAX_SIZE, is_int
from ..errors import ArgumentError
from . import modifiers

CREATE = "fa_mlir.torch.create_block_mask"


class BlockMask:
    """A mask_mod and the sizes it is for; the block maps built for it.

    mask_mod, B, H, Q_LEN, KV_LEN and device are create_block_mask's
    arguments (B or H None: any batch / query heads). The maps are built
    lazily, one per kernel tile shape and sizes (the forward of bf16 d128
    and of f16 d64 tile differently), from the values the tensors mask_mod
    reads hold when that map is built: a mask whose tensors change (other
    documents) needs a new BlockMask, as FlexAttention's does."""

    def __init__(self, mask_mod, B, H, Q_LEN, KV_LEN, device):
        self.mask_mod = mask_mod
        self.B, self.H, self.Q_LEN, self.KV_LEN = B, H, Q_LEN, KV_LEN
        self.device = device
        self._maps = {}

    def __repr__(self):
        return (f"BlockMask(B={self.B}, H={self.H}, Q_LEN={self.Q_LEN}, "
                f"KV_LEN={self.KV_LEN}, device={self.device}, "
                f"maps built: {len(self._maps)})")

    def buffers(self, bundle, index, tensors, symbols):
        """{name: tensor} of kernel `index` of `bundle`'s "written_by"
        buffers for a call with these size symbols: built by that kernel
        on first use, then the same tensors."""
        from . import _ops  # _ops imports the front end's modules
        kernel = bundle.kernel_bundle(index)
        key = (kernel.json_path, tuple(sorted(symbols.items())))
        built = self._maps.get(key)
        if built is None:
            built = self._maps[key] = _ops.compute_written(
                bundle, index, tensors, symbols, tensors["query"].device)
        return built

    def check_call(self, where, mask_mod, sizes, device):
        """The mask_mod a call with this block mask runs (the block mask's);
        raises ArgumentError naming `block_mask` (or `mask_mod`) when the
        call does not match it."""
        if mask_mod is not None and mask_mod is not self.mask_mod:
            raise ArgumentError(
                f"{where}: mask_mod differs from block_mask's (a block mask "
                "carries its mask_mod: pass block_mask alone, or a "
                "BlockMask made from this mask_mod)")
        for name, want, key in (("B", self.B, "batch"),
                                ("H", self.H, "heads_q"),
                                ("Q_LEN", self.Q_LEN, "seq_q"),
                                ("KV_LEN", self.KV_LEN, "seq_k")):
            any_size = key in ("batch", "heads_q") and want in (None, 1)
            if not any_size and want != sizes[key]:
                raise ArgumentError(
                    f"{where}: block_mask was made for {name}={want}, but "
                    f"this call's {key} is {sizes[key]}")
        if device.type != self.device.type or (
                self.device.index is not None and
                device.index != self.device.index):
            raise ArgumentError(
                f"{where}: block_mask was made for device {self.device}, but "
                f"q is on {device}")
        return self.mask_mod


def _check_size(name, value, optional):
    if value is None and optional:
        return None
    if not is_int(value) or not 0 < value <= MAX_SIZE:
        allowed = "None or " if optional else ""
        raise ArgumentError(f"{CREATE}: {name} must be {allowed}an int in "
                            f"[1, {MAX_SIZE}], got {value!r}")
    return int(value)


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device="cuda"):
    """A BlockMask for `mask_mod(b, h, q_idx, kv_idx) -> bool` (True keeps
    the key), as FlexAttention's create_block_mask: make it once, pass it
    as attention(..., block_mask=...) to every call with these sizes (B,
    H: None or 1 for any batch / query heads; Q_LEN, KV_LEN: the sequence
    lengths). mask_mod is traced here, so that what cannot be traced is an
    error now; the maps are built by the first call that needs each (the
    kernel's tile shape decides its blocks) and kept. docs/Python.md."""
    if not callable(mask_mod):
        raise ArgumentError(f"{CREATE}: mask_mod must be a function "
                            f"mask_mod(b, h, q_idx, kv_idx), got "
                            f"{type(mask_mod).__name__}")
    B, H = _check_size("B", B, True), _check_size("H", H, True)
    Q_LEN = _check_size("Q_LEN", Q_LEN, False)
    KV_LEN = _check_size("KV_LEN", KV_LEN, False)
    try:
        device = torch.device(device)
    except (RuntimeError, TypeError) as e:
        raise ArgumentError(f"{CREATE}: device {device!r}: {e}") from None
    modifiers.trace(CREATE, None, mask_mod, device)
    return BlockMask(mask_mod, B, H, Q_LEN, KV_LEN, device)
