"""Minimal CUDA driver access through ctypes (no MLIR, no extra packages).

Loads cubins, encodes TMA tensor maps with cuTensorMapEncodeTiled, and
launches kernels whose parameters are tensor maps (by value, 64-byte
aligned), device pointers, i32 and f32. Device memory comes from torch.
"""
import ctypes
import struct

_cu = ctypes.CDLL("libcuda.so.1")

DTYPE = {"u8": 0, "u16": 1, "u32": 2, "i32": 3, "f16": 6, "f32": 7, "bf16": 9}
SWIZZLE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}


class CudaError(RuntimeError):
    pass


def check(res, what):
    if res != 0:
        s = ctypes.c_char_p()
        _cu.cuGetErrorString(res, ctypes.byref(s))
        raise CudaError(f"{what}: error {res} ({s.value.decode() if s.value else '?'})")


def init():
    """Make the primary context of device 0 current (torch shares it)."""
    check(_cu.cuInit(0), "cuInit")
    ctx = ctypes.c_void_p()
    check(_cu.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
    if not ctx.value:
        dev = ctypes.c_int()
        check(_cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        check(_cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
        check(_cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")


class Module:
    def __init__(self, path):
        self.data = open(path, "rb").read()
        self.mod = ctypes.c_void_p()
        check(_cu.cuModuleLoadData(ctypes.byref(self.mod), self.data), f"cuModuleLoadData({path})")

    def function(self, name, smem=0):
        f = ctypes.c_void_p()
        check(_cu.cuModuleGetFunction(ctypes.byref(f), self.mod, name.encode()), f"cuModuleGetFunction({name})")
        if smem > 48 * 1024:
            check(_cu.cuFuncSetAttribute(f, 8, ctypes.c_int(smem)), "cuFuncSetAttribute(max dynamic smem)")
        return Function(f, name)


class Function:
    def __init__(self, f, name):
        self.f = f
        self.name = name

    def attr(self, which):
        v = ctypes.c_int()
        check(_cu.cuFuncGetAttribute(ctypes.byref(v), which, self.f), "cuFuncGetAttribute")
        return v.value

    @property
    def num_regs(self):
        return self.attr(4)

    @property
    def local_bytes(self):
        return self.attr(3)

    def __call__(self, grid, block, smem, params, stream=0):
        """params: list of bytes (a tensor map) | ('ptr', int) | ('i32', int) | ('f32', float)."""
        keep = []
        ptrs = (ctypes.c_void_p * len(params))()
        for i, p in enumerate(params):
            if isinstance(p, TensorMap):
                buf = p.buf
                addr = p.addr
            else:
                kind, v = p
                fmt = {"ptr": "Q", "i32": "i", "i64": "q", "f32": "f"}[kind]
                buf = ctypes.create_string_buffer(struct.pack(fmt, v), 8)
                addr = ctypes.addressof(buf)
            keep.append(buf)
            ptrs[i] = addr
        g = tuple(grid) + (1,) * (3 - len(grid))
        b = tuple(block) + (1,) * (3 - len(block))
        check(_cu.cuLaunchKernel(self.f, g[0], g[1], g[2], b[0], b[1], b[2], smem,
                                 ctypes.c_void_p(stream), ptrs, None), f"cuLaunchKernel({self.name})")


class TensorMap:
    """A CUtensorMap (128 B, 64-byte aligned) over a torch tensor's memory."""

    def __init__(self, tensor_ptr, dtype, dims, strides_bytes, box, swizzle="128B"):
        rank = len(dims)
        assert len(strides_bytes) == rank - 1 and len(box) == rank
        self.buf = ctypes.create_string_buffer(128 + 64)
        self.addr = (ctypes.addressof(self.buf) + 63) & ~63
        u64 = ctypes.c_uint64 * rank
        u32 = ctypes.c_uint32 * rank
        gd = u64(*dims)
        gs = (ctypes.c_uint64 * max(rank - 1, 1))(*strides_bytes)
        bx = u32(*box)
        es = u32(*([1] * rank))
        check(_cu.cuTensorMapEncodeTiled(ctypes.c_void_p(self.addr), DTYPE[dtype], rank,
                                         ctypes.c_void_p(tensor_ptr), gd, gs, bx, es,
                                         0, SWIZZLE[swizzle], 3, 0),
              f"cuTensorMapEncodeTiled(dims={dims}, box={box})")

    def bytes(self):
        return ctypes.string_at(self.addr, 128)


def synchronize():
    check(_cu.cuCtxSynchronize(), "cuCtxSynchronize")
