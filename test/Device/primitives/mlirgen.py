"""A tiny text emitter for device-side MLIR (llvm + nvvm + arith + scf).

Used only to write the Hopper primitive tests under test/Device/primitives.
Each helper emits the same op sequence that lib/Conversion/FAToNVVM builds
in C++, so a primitive proven here is proven for the lowering too.
"""

ACC_TYPES = {}


def acc_type(n):
    """!llvm.struct of n f32: one thread's share of a wgmma accumulator."""
    return "!llvm.struct<(" + ", ".join(["f32"] * n) + ")>"


class Kernel:
    def __init__(self, name, params, threads, min_ctas=1):
        # params: list of (name, kind) with kind in tmap | gptr | i32 | f32
        self.name = name
        self.params = params
        self.threads = threads
        self.min_ctas = min_ctas
        self.lines = []
        self.depth = 2
        self.count = 0

    # -- plumbing -------------------------------------------------------
    def fresh(self, hint="v"):
        self.count += 1
        return f"%{hint}{self.count}"

    def emit(self, text):
        self.lines.append("  " * self.depth + text)

    def op(self, text, hint="v"):
        name = self.fresh(hint)
        self.emit(f"{name} = {text}")
        return name

    def c32(self, value):
        return self.op(f"arith.constant {int(value)} : i32", "c")

    def c64(self, value):
        return self.op(f"arith.constant {int(value)} : i64", "c")

    def cf32(self, value):
        return self.op(f"arith.constant {float(value)!r} : f32", "c")

    def bin(self, opname, a, b, ty="i32"):
        return self.op(f"arith.{opname} {a}, {b} : {ty}")

    def arg(self, name):
        return f"%{name}"

    # -- structured control flow ---------------------------------------
    def if_begin(self, cond):
        self.emit(f"scf.if {cond} {{")
        self.depth += 1

    def else_begin(self):
        self.depth -= 1
        self.emit("} else {")
        self.depth += 1

    def if_end(self):
        self.depth -= 1
        self.emit("}")

    def for_begin(self, lo, hi, iter_args=()):
        """scf.for over i32 bounds; iter_args: list of (value, type)."""
        iv = self.fresh("iv")
        lo_i = self.op(f"arith.index_cast {lo} : i32 to index")
        hi_i = self.op(f"arith.index_cast {hi} : i32 to index")
        one = self.op("arith.constant 1 : index")
        names = [self.fresh("it") for _ in iter_args]
        res = self.fresh("for")
        if iter_args:
            inits = ", ".join(f"{n} = {v}" for n, (v, _) in zip(names, iter_args))
            tys = ", ".join(t for _, t in iter_args)
            self.emit(f"{res}:{len(iter_args)} = scf.for {iv} = {lo_i} to {hi_i} step {one} iter_args({inits}) -> ({tys}) {{")
        else:
            self.emit(f"scf.for {iv} = {lo_i} to {hi_i} step {one} {{")
        self.depth += 1
        iv32 = self.op(f"arith.index_cast {iv} : index to i32")
        return iv32, names, [f"{res}#{i}" for i in range(len(iter_args))]

    def for_end(self, yields=(), types=()):
        if yields:
            self.emit(f"scf.yield {', '.join(yields)} : {', '.join(types)}")
        self.depth -= 1
        self.emit("}")

    # -- thread ids, shared memory -------------------------------------
    def tid(self):
        return self.op("nvvm.read.ptx.sreg.tid.x : i32", "tid")

    def smem_base(self):
        """Dynamic shared memory rounded up to 1024 B (128B-swizzle atoms)."""
        s = self.op("llvm.mlir.addressof @smem : !llvm.ptr<3>", "smem")
        si = self.op(f"llvm.ptrtoint {s} : !llvm.ptr<3> to i32")
        neg = self.bin("subi", self.c32(0), si)
        pad = self.bin("andi", neg, self.c32(1023))
        return self.op(f"llvm.getelementptr {s}[{pad}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8", "sbase")

    def sat(self, base, off):
        """base + off bytes (off: int or i32 value)."""
        if isinstance(off, int):
            if off == 0:
                return base
            return self.op(f"llvm.getelementptr {base}[{off}] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8", "sp")
        return self.op(f"llvm.getelementptr {base}[{off}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8", "sp")

    def gat(self, base, idx, elem="f32"):
        return self.op(f"llvm.getelementptr {base}[{idx}] : (!llvm.ptr, i32) -> !llvm.ptr, {elem}", "gp")

    # -- mbarrier, TMA ---------------------------------------------------
    def mbar_init(self, bar, count):
        self.emit(f"nvvm.mbarrier.init {bar}, {self.c32(count)} : !llvm.ptr<3>, i32")

    def fence_mbar_init(self):
        self.emit("nvvm.fence.mbarrier.init")

    def syncthreads(self):
        self.emit("nvvm.barrier0")

    def expect_tx(self, bar, nbytes):
        self.emit(f"nvvm.mbarrier.arrive.expect_tx {bar}, {self.c32(nbytes)} : !llvm.ptr<3>, i32")

    def arrive(self, bar):
        self.emit(f"nvvm.mbarrier.arrive {bar} : !llvm.ptr<3>")

    def wait(self, bar, parity):
        if isinstance(parity, int):
            parity = self.c32(parity)
        ticks = self.c32(10000000)
        self.emit(f"nvvm.mbarrier.try_wait.parity {bar}, {parity}, {ticks} : !llvm.ptr<3>, i32, i32")

    def tma_load(self, dst, tmap, bar, coords):
        d7 = self.op(f"llvm.addrspacecast {dst} : !llvm.ptr<3> to !llvm.ptr<7>")
        cs = ", ".join(coords)
        self.emit(f"nvvm.cp.async.bulk.tensor.shared.cluster.global {d7}, {tmap}, {bar}, box[{cs}] : !llvm.ptr<7>, !llvm.ptr")

    # -- wgmma -----------------------------------------------------------
    def desc(self, sptr, lbo, sbo, swizzle128=True):
        """Shared-memory matrix descriptor (PTX ISA 'matrix-descriptor-encode')."""
        a = self.op(f"llvm.ptrtoint {sptr} : !llvm.ptr<3> to i64")
        a4 = self.bin("shrui", a, self.c64(4), "i64")
        lo = self.bin("andi", a4, self.c64(0x3FFF), "i64")
        hi = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | ((1 << 62) if swizzle128 else 0)
        return self.bin("ori", lo, self.c64(hi), "i64")

    def desc_add(self, desc, nbytes):
        if nbytes == 0:
            return desc
        return self.bin("addi", desc, self.c64(nbytes >> 4), "i64")

    def zero_acc(self, n):
        return self.op(f"llvm.mlir.zero : {acc_type(n)}", "acc")

    def wgmma_fence(self):
        self.emit("nvvm.wgmma.fence.aligned")

    def wgmma_commit(self):
        self.emit("nvvm.wgmma.commit.group.sync.aligned")

    def wgmma_wait(self, n=0):
        self.emit(f"nvvm.wgmma.wait.group.sync.aligned {n}")

    def wgmma_ss(self, acc, da, db, n, scale_d_one, b_mn_major, dtype="bf16"):
        t = acc_type(n // 2)
        sd = "one" if scale_d_one else "zero"
        lb = "row" if b_mn_major else "col"
        return self.op(
            f"nvvm.wgmma.mma_async {da}, {db}, {acc}, <m = 64, n = {n}, k = 16>, "
            f"D [<f32>, <{sd}>], A [<{dtype}>, <one>, <row>], B [<{dtype}>, <one>, <{lb}>] : {t} -> {t}",
            "acc")

    def wgmma_rs(self, acc, a_regs, db, n, scale_d_one, b_mn_major, dtype="bf16"):
        """wgmma with A from registers: upstream nvvm.wgmma.mma_async is SS only."""
        nacc = n // 2
        t = acc_type(nacc)
        d = ", ".join(f"${i}" for i in range(nacc))
        # tied inputs take operand numbers nacc..2*nacc-1
        a = ", ".join(f"${2 * nacc + i}" for i in range(4))
        b = f"${2 * nacc + 4}"
        asm = (f"{{\\0A.reg .pred p;\\0Asetp.ne.b32 p, {1 if scale_d_one else 0}, 0;\\0A"
               f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{dtype}.{dtype} "
               f"{{{d}}}, {{{a}}}, {b}, p, 1, 1, {1 if b_mn_major else 0};\\0A}}")
        cons = ",".join(["=f"] * nacc + [str(i) for i in range(nacc)] + ["r"] * 4 + ["l"])
        vals = [self.op(f"llvm.extractvalue {acc}[{i}] : {t}") for i in range(nacc)]
        ops = ", ".join(vals + list(a_regs) + [db])
        tys = ", ".join(["f32"] * nacc + ["i32"] * 4 + ["i64"])
        return self.op(f'llvm.inline_asm has_side_effects asm_dialect = att "{asm}", "{cons}" {ops} : ({tys}) -> {t}', "acc")

    def extract(self, acc, i, n):
        return self.op(f"llvm.extractvalue {acc}[{i}] : {acc_type(n // 2)}")

    def pack2(self, lo, hi, dtype="bf16"):
        """Two f32 -> one 32-bit register of two 16-bit floats (lo in bits 0-15)."""
        e = "bf16" if dtype == "bf16" else "f16"
        v0 = self.op("llvm.mlir.undef : vector<2xf32>")
        i0 = self.c32(0)
        i1 = self.c32(1)
        v1 = self.op(f"llvm.insertelement {lo}, {v0}[{i0} : i32] : vector<2xf32>")
        v2 = self.op(f"llvm.insertelement {hi}, {v1}[{i1} : i32] : vector<2xf32>")
        h = self.op(f"llvm.fptrunc {v2} : vector<2xf32> to vector<2x{e}>")
        return self.op(f"llvm.bitcast {h} : vector<2x{e}> to i32")

    def setmaxnreg(self, inc, count):
        self.emit(f"nvvm.setmaxregister {'increase' if inc else 'decrease'} {count}")

    def store_f32(self, base, idx, val):
        p = self.gat(base, idx, "f32")
        self.emit(f"llvm.store {val}, {p} : f32, !llvm.ptr")

    def store_i32(self, base, idx, val):
        p = self.gat(base, idx, "i32")
        self.emit(f"llvm.store {val}, {p} : i32, !llvm.ptr")

    def load_sh_i32(self, sptr):
        return self.op(f"llvm.load {sptr} : !llvm.ptr<3> -> i32")

    # -- fragment coordinates -------------------------------------------
    def frag_row_col(self, t, i):
        """(row, col) of accumulator register i of warpgroup thread t (values)."""
        w = self.bin("shrui", t, self.c32(5))
        l = self.bin("andi", t, self.c32(31))
        r = self.bin("addi", self.bin("muli", w, self.c32(16)), self.bin("shrui", l, self.c32(2)))
        r = self.bin("addi", r, self.c32(8 * ((i >> 1) & 1)))
        c = self.bin("addi", self.bin("muli", self.bin("andi", l, self.c32(3)), self.c32(2)),
                     self.c32(8 * (i >> 2) + (i & 1)))
        return r, c

    # -- output ----------------------------------------------------------
    def text(self):
        ps = []
        for name, kind in self.params:
            if kind == "tmap":
                ps.append(f"%{name}: !llvm.ptr {{llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant}}")
            elif kind == "gptr":
                ps.append(f"%{name}: !llvm.ptr {{llvm.noalias}}")
            else:
                ps.append(f"%{name}: {kind}")
        head = (f"  llvm.func @{self.name}({', '.join(ps)}) attributes {{nvvm.kernel, "
                f"nvvm.maxntid = array<i32: {self.threads}, 1, 1>, nvvm.minctasm = {self.min_ctas} : i32}} {{")
        return "\n".join([head] + self.lines + ["    llvm.return", "  }"])


def module(kernels):
    body = "\n".join(k.text() for k in kernels)
    return ("module {\n"
            "  llvm.mlir.global external @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>\n"
            f"{body}\n}}\n")
