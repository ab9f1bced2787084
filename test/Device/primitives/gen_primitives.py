"""Writes primitives.mlir: one small kernel per Hopper primitive.

Run: python3 gen_primitives.py > primitives.mlir   (build.sh does this)
check_primitives.py (on the GPU) runs each kernel against a numpy/torch
reference. Tile conventions follow the attention kernel:
  * a "row" of a tile is one sequence position, 64 bf16 (128 B) of head dim
    per TMA box (128B swizzle limits a box's inner extent to 128 B);
  * a 128-dim tile is two boxes, the second 64 dims at +rows*128 B.
"""
from mlirgen import Kernel, module, acc_type

ROWB = 128  # bytes of one swizzled row


def k_tma(by_value):
    """(1) TMA: a 4-D tensor map [dim, seq, head, batch], box [64, 128, 1, 1],
    128B swizzle; smem is copied raw to `out` so the checker sees the swizzle."""
    tm = ("tmap", "tmap") if by_value else ("tmap", "gptr")
    k = Kernel("tma_load_" + ("param" if by_value else "global"),
               [tm, ("out", "gptr"), ("c0", "i32"), ("c1", "i32"), ("c2", "i32"), ("c3", "i32")], 128)
    t = k.tid()
    base = k.smem_base()
    bar = k.sat(base, 16384)
    is0 = k.op(f"arith.cmpi eq, {t}, {k.c32(0)} : i32")
    k.if_begin(is0)
    k.mbar_init(bar, 1)
    k.fence_mbar_init()
    k.if_end()
    k.syncthreads()
    k.if_begin(is0)
    k.expect_tx(bar, 16384)
    k.tma_load(base, "%tmap", bar, ["%c0", "%c1", "%c2", "%c3"])
    k.if_end()
    k.wait(bar, 0)
    # 4096 words, 32 per thread
    out = "%out"
    iv, _, _ = k.for_begin(k.c32(0), k.c32(32))
    idx = k.bin("addi", k.bin("muli", iv, k.c32(128)), t)
    off = k.bin("muli", idx, k.c32(4))
    v = k.load_sh_i32(k.sat(base, off))
    k.store_i32(out, idx, v)
    k.for_end()
    return k


def load_tile(k, base, tmap, bar, rows, dims, row0, extra=()):
    """TMA a [rows x dims] tile (dims in boxes of 64) at seq row0. Returns bytes."""
    nbytes = rows * dims * 2
    k.expect_tx(bar, nbytes)
    for b in range(dims // 64):
        dst = k.sat(base, b * rows * ROWB)
        k.tma_load(dst, tmap, bar, [k.c32(64 * b), row0] + list(extra))
    return nbytes


def kmajor_desc(k, base, rows, kk, row_off=0):
    """K-major SW128 descriptor for k-step kk (16 elems) of a tile whose 64-elem
    boxes are `rows` rows apart; row_off selects a 64-row slab (for A)."""
    box = kk // 4
    d = k.desc(k.sat(base, box * rows * ROWB + row_off * ROWB), 16, 1024)
    return k.desc_add(d, (kk % 4) * 32)


def store_acc(k, acc, n, out, t, ld, row_base=None):
    for i in range(n // 2):
        r, c = k.frag_row_col(t, i)
        if row_base is not None:
            r = k.bin("addi", r, row_base)
        idx = k.bin("addi", k.bin("muli", r, k.c32(ld)), c)
        k.store_f32(out, idx, k.extract(acc, i, n))


def init_bars(k, t, bars_counts):
    is0 = k.op(f"arith.cmpi eq, {t}, {k.c32(0)} : i32")
    k.if_begin(is0)
    for bar, cnt in bars_counts:
        k.mbar_init(bar, cnt)
    k.fence_mbar_init()
    k.if_end()
    k.syncthreads()
    return is0


def k_ss(ksteps):
    """(2)+(3) S = A B^T with A [64 x 16*ksteps] and B [128 x ...], both K-major.
    ksteps == 1 also dumps raw registers: raw[t*64 + i] = acc[i]."""
    k = Kernel(f"wgmma_ss_k{16 * ksteps}", [("tmA", "tmap"), ("tmB", "tmap"), ("out", "gptr"), ("raw", "gptr")], 128)
    t = k.tid()
    base = k.smem_base()
    sa, sb = base, k.sat(base, 16384)
    bar = k.sat(base, 16384 + 32768)
    is0 = init_bars(k, t, [(bar, 1)])
    dims = 64 if ksteps <= 4 else 128
    k.if_begin(is0)
    k.expect_tx(bar, 64 * dims * 2 + 128 * dims * 2)
    for b in range(dims // 64):
        k.tma_load(k.sat(sa, b * 64 * ROWB), "%tmA", bar, [k.c32(64 * b), k.c32(0)])
        k.tma_load(k.sat(sb, b * 128 * ROWB), "%tmB", bar, [k.c32(64 * b), k.c32(0)])
    k.if_end()
    k.wait(bar, 0)
    acc = k.zero_acc(64)
    k.wgmma_fence()
    for kk in range(ksteps):
        da = kmajor_desc(k, sa, 64, kk)
        db = kmajor_desc(k, sb, 128, kk)
        acc = k.wgmma_ss(acc, da, db, 128, kk > 0, False)
    k.wgmma_commit()
    k.wgmma_wait(0)
    store_acc(k, acc, 128, "%out", t, 128)
    if ksteps == 1:
        for i in range(64):
            idx = k.bin("addi", k.bin("muli", t, k.c32(64)), k.c32(i))
            k.store_f32("%raw", idx, k.extract(acc, i, 128))
    return k


def mn_desc(k, vbase, kk, lbo, sbo):
    """MN-major (transposed) SW128 descriptor of V for k-step kk: V smem is
    [kv rows x 64 dims] boxes, k-step kk covers rows 16kk..16kk+15."""
    d = k.desc(k.sat(vbase, kk * 16 * ROWB), lbo, sbo)
    return d


def k_mn(variant, n=128):
    """(4) O = P V with P [64 x 128] K-major and V [128 kv x n dims] N-major.
    variant 'a': LBO = stride between 64-dim atoms (the next box), SBO = 1024
    (next 8 kv rows); 'b': swapped."""
    k = Kernel(f"wgmma_mn_{variant}_n{n}", [("tmP", "tmap"), ("tmV", "tmap"), ("out", "gptr")], 128)
    t = k.tid()
    base = k.smem_base()
    sp, sv = base, k.sat(base, 16384)
    bar = k.sat(base, 16384 + 32768)
    is0 = init_bars(k, t, [(bar, 1)])
    k.if_begin(is0)
    k.expect_tx(bar, 64 * 128 * 2 + 128 * n * 2)
    for b in range(2):
        k.tma_load(k.sat(sp, b * 64 * ROWB), "%tmP", bar, [k.c32(64 * b), k.c32(0)])
    for b in range(n // 64):
        k.tma_load(k.sat(sv, b * 128 * ROWB), "%tmV", bar, [k.c32(64 * b), k.c32(0)])
    k.if_end()
    k.wait(bar, 0)
    atom = 128 * ROWB  # next 64-dim box of V
    lbo, sbo = (atom, 1024) if variant == "a" else (1024, atom)
    acc = k.zero_acc(n // 2)
    k.wgmma_fence()
    for kk in range(8):
        da = kmajor_desc(k, sp, 64, kk)
        db = mn_desc(k, sv, kk, lbo, sbo)
        acc = k.wgmma_ss(acc, da, db, n, kk > 0, True)
    k.wgmma_commit()
    k.wgmma_wait(0)
    store_acc(k, acc, n, "%out", t, n)
    return k


def k_rs(n=128, dtype="bf16"):
    """(5) S = Q K^T (SS), P = bf16(S) packed in registers, O = P V (RS)."""
    k = Kernel(f"wgmma_rs_{dtype}_n{n}", [("tmQ", "tmap"), ("tmK", "tmap"), ("tmV", "tmap"), ("out", "gptr")], 128)
    t = k.tid()
    base = k.smem_base()
    sq = base                    # 64 x 128 dims : 16 KB
    sk = k.sat(base, 16384)      # 128 x 128     : 32 KB
    sv = k.sat(base, 49152)      # 128 x n       : 32 KB
    bar = k.sat(base, 81920)
    is0 = init_bars(k, t, [(bar, 1)])
    k.if_begin(is0)
    k.expect_tx(bar, 64 * 256 + 128 * 256 + 128 * n * 2)
    for b in range(2):
        k.tma_load(k.sat(sq, b * 64 * ROWB), "%tmQ", bar, [k.c32(64 * b), k.c32(0)])
        k.tma_load(k.sat(sk, b * 128 * ROWB), "%tmK", bar, [k.c32(64 * b), k.c32(0)])
    for b in range(n // 64):
        k.tma_load(k.sat(sv, b * 128 * ROWB), "%tmV", bar, [k.c32(64 * b), k.c32(0)])
    k.if_end()
    k.wait(bar, 0)
    s = k.zero_acc(64)
    k.wgmma_fence()
    for kk in range(8):
        s = k.wgmma_ss(s, kmajor_desc(k, sq, 64, kk), kmajor_desc(k, sk, 128, kk), 128, kk > 0, False, dtype)
    k.wgmma_commit()
    k.wgmma_wait(0)
    # accumulator regs 8j..8j+7 hold S[:, 16j:16j+16] exactly as the A operand
    # fragment of k-step j wants them: (r,c..c+1), (r+8,..), (r,c+8..), (r+8,c+8..)
    regs = [k.pack2(k.extract(s, 2 * p, 128), k.extract(s, 2 * p + 1, 128), dtype) for p in range(32)]
    o = k.zero_acc(n // 2)
    k.wgmma_fence()
    for kk in range(8):
        o = k.wgmma_rs(o, regs[4 * kk:4 * kk + 4], mn_desc(k, sv, kk, 128 * ROWB, 1024), n, kk > 0, True, dtype)
    k.wgmma_commit()
    k.wgmma_wait(0)
    store_acc(k, o, n, "%out", t, n)
    return k


def k_ws():
    """(6) Warp specialization: producer warpgroup (setmaxnreg.dec 40) streams
    K tiles through a 2-stage ring (full/empty mbarriers); two consumer
    warpgroups (setmaxnreg.inc 232) each own 64 rows of a 128-row Q tile and
    accumulate S += Q K_j^T over j < ntiles."""
    k = Kernel("warp_specialized", [("tmQ", "tmap"), ("tmK", "tmap"), ("out", "gptr"), ("ntiles", "i32")], 384)
    t = k.tid()
    base = k.smem_base()
    sq = base                                  # 128 x 128 : 32 KB
    sk = [k.sat(base, 32768 * (1 + s)) for s in range(2)]
    bq = k.sat(base, 98304)
    full = [k.sat(base, 98304 + 8 * (1 + s)) for s in range(2)]
    empty = [k.sat(base, 98304 + 24 + 8 * s) for s in range(2)]
    init_bars(k, t, [(bq, 1), (full[0], 1), (full[1], 1), (empty[0], 256), (empty[1], 256)])
    wg = k.bin("shrui", t, k.c32(7))
    isprod = k.op(f"arith.cmpi eq, {wg}, {k.c32(0)} : i32")
    k.if_begin(isprod)
    k.setmaxnreg(False, 40)
    is0 = k.op(f"arith.cmpi eq, {t}, {k.c32(0)} : i32")
    k.if_begin(is0)
    load_tile(k, sq, "%tmQ", bq, 128, 128, k.c32(0))
    iv, _, _ = k.for_begin(k.c32(0), "%ntiles")
    st = k.bin("andi", iv, k.c32(1))
    ph = k.bin("andi", k.bin("shrui", iv, k.c32(1)), k.c32(1))
    row0 = k.bin("muli", iv, k.c32(128))
    # two stages unrolled by a select on the stage index
    for s in range(2):
        here = k.op(f"arith.cmpi eq, {st}, {k.c32(s)} : i32")
        k.if_begin(here)
        k.wait(empty[s], k.bin("xori", ph, k.c32(1)))
        load_tile(k, sk[s], "%tmK", full[s], 128, 128, row0)
        k.if_end()
    k.for_end()
    k.if_end()
    k.else_begin()
    k.setmaxnreg(True, 232)
    ct = k.bin("subi", t, k.c32(128))
    cw = k.bin("shrui", ct, k.c32(7))  # consumer index 0/1
    lt = k.bin("andi", ct, k.c32(127))
    k.wait(bq, 0)
    acc0 = k.zero_acc(64)
    T = acc_type(64)
    iv, (acc,), res = k.for_begin(k.c32(0), "%ntiles", [(acc0, T)])
    st = k.bin("andi", iv, k.c32(1))
    ph = k.bin("andi", k.bin("shrui", iv, k.c32(1)), k.c32(1))
    # Q slab of this consumer: rows 64*cw (each box holds 128 rows)
    qoff = k.bin("muli", cw, k.c32(64 * ROWB))
    qslab = k.sat(sq, qoff)
    # select stage base address arithmetically: base + 32768*(1+st)
    kb = k.sat(base, k.bin("muli", k.bin("addi", st, k.c32(1)), k.c32(32768)))
    fb = k.sat(base, k.bin("addi", k.c32(98304 + 8), k.bin("muli", st, k.c32(8))))
    eb = k.sat(base, k.bin("addi", k.c32(98304 + 24), k.bin("muli", st, k.c32(8))))
    k.wait(fb, ph)
    k.wgmma_fence()
    a = acc
    for kk in range(8):
        a = k.wgmma_ss(a, kmajor_desc(k, qslab, 128, kk), kmajor_desc(k, kb, 128, kk), 128, True, False)
    k.wgmma_commit()
    k.wgmma_wait(0)
    k.arrive(eb)
    k.for_end([a], [T])
    store_acc(k, res[0], 128, "%out", lt, 128, k.bin("muli", cw, k.c32(64)))
    k.if_end()
    return k


def main():
    ks = [k_tma(True), k_tma(False), k_ss(1), k_ss(8), k_mn("a"), k_mn("b"), k_mn("a", 64),
          k_rs(128, "bf16"), k_rs(128, "f16"), k_rs(64, "bf16"), k_ws()]
    print(module(ks))


if __name__ == "__main__":
    main()
