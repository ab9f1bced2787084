"""Call functions of an MLIR-compiled shared library with numpy arrays.

Each memref argument is passed as a pointer to MLIR's strided-memref
descriptor (the `_mlir_ciface_` convention of `llvm.emit_c_interface`).
Needs only ctypes and numpy: this is the CPU runtime, no compiler involved.
"""
import ctypes
import functools


@functools.lru_cache(maxsize=None)
def _descriptor_type(rank):
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank),
                   ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def memref_descriptor(array):
    """A strided-memref descriptor viewing `array` (which must stay alive)."""
    if not array.flags["C_CONTIGUOUS"]:
        raise ValueError("arrays passed to compiled code must be C-contiguous")
    desc = _descriptor_type(array.ndim)()
    desc.allocated = desc.aligned = array.ctypes.data
    desc.offset = 0
    for i, (size, stride) in enumerate(zip(array.shape, array.strides)):
        desc.sizes[i] = size
        desc.strides[i] = stride // array.itemsize
    return desc


class CompiledFunction:
    """A function of a compiled module, called with numpy arrays in order."""

    def __init__(self, so_path, name):
        self.library = ctypes.CDLL(so_path)
        self.function = getattr(self.library, f"_mlir_ciface_{name}")
        self.function.restype = None

    def __call__(self, *arrays):
        descriptors = [memref_descriptor(a) for a in arrays]
        self.function(*[ctypes.byref(d) for d in descriptors])
