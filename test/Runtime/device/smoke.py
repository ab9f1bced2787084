#!/usr/bin/env python3
"""GPU smoke test of libfa_runtime.so through its C API (ctypes + torch).

Usage: smoke.py <libfa_runtime.so> <dir with the bundles and smoke_kernels.cubin>

Each case loads a bundle of bundles/, launches it on tensors made by torch and
compares the result with what the kernel must produce. Prints one PASS/FAIL
line per case and a summary; exits 1 on any failure.
"""
import ctypes
import json
import os
import sys
import time

import torch

FA_MAX_RANK = 8
DTYPES = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2,
          torch.int32: 6, torch.int64: 7}


class FaTensor(ctypes.Structure):
    _fields_ = [("role", ctypes.c_char_p), ("data", ctypes.c_void_p),
                ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * FA_MAX_RANK),
                ("strides", ctypes.c_int64 * FA_MAX_RANK)]


lib = ctypes.CDLL(sys.argv[1])
work = sys.argv[2]
lib.fa_last_error.restype = ctypes.c_char_p
lib.fa_status_name.restype = ctypes.c_char_p
lib.fa_bundle_kernel_name.restype = ctypes.c_char_p
lib.fa_bundle_load.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
lib.fa_bundle_free.argtypes = [ctypes.c_void_p]
lib.fa_bundle_kernel_name.argtypes = [ctypes.c_void_p]
lib.fa_bundle_launch.argtypes = [ctypes.c_void_p, ctypes.POINTER(FaTensor),
                                 ctypes.c_int, ctypes.c_void_p]

results = []


def report(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + (": " + detail if detail else ""),
          flush=True)


def fa_tensor(role, t):
    ft = FaTensor()
    ft.role = role.encode()
    ft.data = t.data_ptr()
    ft.dtype = DTYPES[t.dtype]
    ft.rank = t.dim()
    for i in range(t.dim()):
        ft.sizes[i] = t.size(i)
        ft.strides[i] = t.stride(i)
    return ft


def load(name, edit=None):
    path = os.path.join(work, name)
    if edit:  # a variant of a bundle, written next to it
        doc = json.load(open(path))
        edit(doc)
        path = os.path.join(work, "variant_" + name)
        json.dump(doc, open(path, "w"))
    handle = ctypes.c_void_p()
    status = lib.fa_bundle_load(path.encode(), ctypes.byref(handle))
    if status != 0:
        raise RuntimeError(lib.fa_last_error().decode())
    return handle


def launch(bundle, operands, stream=None):
    arr = (FaTensor * len(operands))(*[fa_tensor(r, t) for r, t in operands])
    if stream is None:
        stream = torch.cuda.current_stream().cuda_stream
    status = lib.fa_bundle_launch(bundle, arr, len(operands), stream)
    return status, lib.fa_status_name(status).decode(), lib.fa_last_error().decode()


def expect_ok(name, bundle, operands, check, stream=None):
    status, sname, msg = launch(bundle, operands, stream)
    if status != 0:
        report(name, False, sname + ": " + msg)
        return
    torch.cuda.synchronize()
    ok, detail = check()
    report(name, ok, detail)


def expect_error(name, bundle, operands, want_status, want_text):
    status, sname, msg = launch(bundle, operands)
    ok = sname == want_status and want_text in msg
    report(name, ok, sname + ": " + msg)


def same_bits(a, b):
    a16, b16 = a.contiguous().view(torch.int16), b.contiguous().view(torch.int16)
    bad = (a16 != b16).sum().item()
    return bad == 0, "%d of %d elements differ" % (bad, a16.numel())


def main():
    n = ctypes.c_int(0)
    status = lib.fa_driver_check(ctypes.byref(n))
    print("driver: %s, %d device(s), %s" % (lib.fa_status_name(status).decode(),
          n.value, torch.cuda.get_device_name()), flush=True)
    torch.manual_seed(0)
    B, S, H, D = 2, 200, 3, 64  # S is not a multiple of the 64-row tile

    # 1. tensor_map (no swizzle), bf16, > 48 KiB dynamic shared memory.
    copy = load("tma_copy.json")
    q = torch.randn(B, S, H, D, device="cuda", dtype=torch.bfloat16)
    o = torch.full_like(q, 7.0)
    expect_ok("tma_copy bf16 bshd swizzle=none smem=100000", copy,
              [("query", q), ("output", o)], lambda: same_bits(o, q))

    # 2. Strided (padded) query: the descriptor takes the caller's strides.
    qp = torch.randn(B, S, H, 2 * D, device="cuda", dtype=torch.bfloat16)[..., :D]
    o = torch.zeros(B, S, H, D, device="cuda", dtype=torch.bfloat16)
    expect_ok("tma_copy strided query (stride %s)" % (qp.stride(),), copy,
              [("query", qp), ("output", o)], lambda: same_bits(o, qp))

    # 3. On a non-default stream.
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        q2 = torch.randn(1, 65, 1, D, device="cuda", dtype=torch.bfloat16)
        o2 = torch.zeros_like(q2)
    expect_ok("tma_copy on a side stream", copy, [("query", q2), ("output", o2)],
              lambda: same_bits(o2, q2), stream=s.cuda_stream)

    # 4. 128B swizzle, f16, L2 promotion 256B.
    sw = load("tma_copy_swizzle.json")
    qh = torch.randn(B, S, H, D, device="cuda", dtype=torch.float16)
    oh = torch.zeros_like(qh)
    expect_ok("tma_copy f16 swizzle=128B", sw, [("query", qh), ("output", oh)],
              lambda: same_bits(oh, qh))

    # 5. bhsd layout: the kernel writes [b, s, h, d] order into the buffer.
    bh = load("tma_copy_bhsd.json")
    qb = torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
    ob = torch.zeros_like(qb)
    expect_ok("tma_copy bhsd swizzle=128B", bh, [("query", qb), ("output", ob)],
              lambda: same_bits(ob.view(B, S, H, D), qb.permute(0, 2, 1, 3)))

    # 6. tensor_map_global: descriptor in runtime-owned device memory.
    gl = load("tma_copy_global.json")
    o = torch.zeros_like(q)
    expect_ok("tma_copy_global (descriptor in global memory)", gl,
              [("query", q), ("output", o)], lambda: same_bits(o, q))

    # 7. ptr + i64 + i32 + f32 parameters.
    fill = load("fill_lse.json")
    lse = torch.zeros(B, H, 77, device="cuda", dtype=torch.float32)
    want = 32.0 + torch.arange(77, device="cuda", dtype=torch.float32).expand(B, H, 77)
    expect_ok("fill_lse ptr/i64/i32/f32 params", fill, [("lse", lse)],
              lambda: (torch.equal(lse, want), "max err %g" % (lse - want).abs().max().item()))

    # 8. Cluster launch, scratch operand sized by num_sms.
    cl = load("cluster_rank.json")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    ranks = torch.full((sms,), -1, device="cuda", dtype=torch.int32)
    want_r = (torch.arange(sms, device="cuda", dtype=torch.int32) % 2) + 200
    expect_ok("cluster [2,1,1] launch (%d blocks)" % sms, cl, [("ranks", ranks)],
              lambda: (torch.equal(ranks, want_r), "first ranks %s" % ranks[:4].tolist()))

    # 8b. A kernel sequence: the workspace allocated (and zeroed) by the
    # runtime, then passed by the caller full of garbage (zeroed too), on
    # the current and on a side stream; three kernels queued in order.
    seq = load("seq.json")
    out = torch.zeros(B, H, 77, device="cuda", dtype=torch.float32)
    twenty = torch.full_like(out, 20.0)
    for i in range(3):  # the pool's memory comes back holding 2s
        out.zero_()
        expect_ok("sequence, runtime-allocated workspace (launch %d)" % (i + 1),
                  seq, [("lse", out)],
                  lambda: (torch.equal(out, twenty), "out %s" % out.flatten()[:3].tolist()))
    acc = torch.full((B * H * 77,), 7.0, device="cuda", dtype=torch.float32)
    out.zero_()
    expect_ok("sequence, caller's workspace zeroed by the runtime", seq,
              [("lse", out), ("acc", acc)],
              lambda: (torch.equal(out, twenty) and bool((acc == 2).all()),
                       "out %s acc %s" % (out.flatten()[:2].tolist(), acc[:2].tolist())))
    side = torch.cuda.Stream()
    out.zero_()
    side.wait_stream(torch.cuda.current_stream())
    expect_ok("sequence on a side stream", seq, [("lse", out)],
              lambda: (torch.equal(out, twenty), "out %s" % out.flatten()[:3].tolist()),
              stream=side.cuda_stream)
    expect_error("sequence: wrong workspace size rejected", seq,
                 [("lse", out), ("acc", acc[:-1])], "FA_ERROR_TENSOR",
                 "operand 'acc': dimension 0 (i) is 461, expected 462")

    # 9. Errors on a real device.
    mis = torch.empty(B * S * H * D + 1, device="cuda", dtype=torch.bfloat16)[1:].view(B, S, H, D)
    expect_error("misaligned query rejected", copy, [("query", mis), ("output", o)],
                 "FA_ERROR_TENSOR", "not 16-byte aligned, as TMA requires")
    expect_error("wrong dtype rejected", copy, [("query", qh), ("output", o)],
                 "FA_ERROR_TENSOR", "operand 'query': dtype is f16, expected bf16")
    expect_error("chip mismatch rejected", load("tma_copy.json",
                 lambda d: d.update(chip="sm_80")), [("query", q), ("output", o)],
                 "FA_ERROR_UNSUPPORTED_DEVICE", "compiled for sm_80, which device 0 (sm_90)")
    expect_error("too much shared memory rejected", load("tma_copy.json",
                 lambda d: d.update(shared_memory_bytes=300000)),
                 [("query", q), ("output", o)], "FA_ERROR_UNSUPPORTED_DEVICE",
                 "needs 300000 bytes of shared memory")
    expect_error("param list checked against the cubin", load("fill_lse.json",
                 lambda d: d["params"].pop()), [("lse", lse)],
                 "FA_ERROR_INVALID_BUNDLE", "takes 4 parameters but the bundle lists 3")
    expect_error("param size checked against the cubin", load("fill_lse.json",
                 lambda d: d["params"][1].update(kind="i32")), [("lse", lse)],
                 "FA_ERROR_INVALID_BUNDLE", "params[1] (i32) is 4 bytes but parameter 1")

    # 10. Host cost of a launch (module cached, 2 tensor maps not involved).
    small = torch.zeros(1, 1, 64, device="cuda", dtype=torch.float32)
    launch(fill, [("lse", small)])
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(2000):
        launch(fill, [("lse", small)])
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    for _ in range(2000):
        launch(copy, [("query", q), ("output", o)])
    t3 = time.perf_counter()
    torch.cuda.synchronize()
    print("launch cost (host, incl. ctypes): fill_lse %.1f us, tma_copy %.1f us"
          % ((t1 - t0) / 2000 * 1e6, (t3 - t2) / 2000 * 1e6), flush=True)

    for b in (copy, sw, bh, gl, fill, cl, seq):
        lib.fa_bundle_free(b)
    print("smoke: %d passed, %d failed" % (sum(results), len(results) - sum(results)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
