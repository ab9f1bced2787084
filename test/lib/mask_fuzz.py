"""Random mask programs for the raiser's differential test.

Each case is one attention (test/lib/mask_programs.py's skeleton) whose
masking stage is a random program over the query row i and key column j:
integer arithmetic in i8 / i16 / i32 / i64 / index (positions cast signed or
unsigned, offsets that include constants near the type's limits, so that
sums wrap), signed and unsigned compares, and / or / xor / not, extensions
of booleans, integer to float conversions, then a select with a -inf or
finfo.min fill or an additive 0 / fill term; sometimes next to a data bias
or a key padding mask taken as arguments. Linalg bodies and TOSA ops on
index constants. The generator knows nothing of what the raiser accepts:
the test demands only that whatever is raised computes what the original
does (test/Execution/raise-mask-fuzz.py). Position cases read key
positions and an attention_mask input through tensor.extract, as
transformers' masking_utils does (key padding, or a read elsewhere).
"""
import random

from mask_programs import linalg_program, tosa_program, tosa_index_consts

WIDTH = {"i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}
CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
CMPF = ["ogt", "oge", "olt", "ole", "oeq", "une"]


def _signed(v, w):
    """`v` modulo 2^w, written as MLIR prints a signless constant."""
    v %= 1 << w
    return v - (1 << w) if v >= 1 << (w - 1) else v


class _Body:
    """SSA lines of a linalg body with fresh names."""

    def __init__(self, rng, seq):
        self.rng, self.seq, self.lines, self.n = rng, seq, [], 0

    def emit(self, rhs):
        self.n += 1
        name = f"%v{self.n}"
        self.lines.append(f"{name} = {rhs}")
        return name

    def const(self, t):
        w, r = WIDTH[t], self.rng
        kind = r.random()
        if kind < 0.55:
            v = r.randint(-3, self.seq + 3)
        elif kind < 0.8:  # near the signed limits
            v = r.choice([(1 << (w - 1)) - r.randint(1, self.seq),
                          -(1 << (w - 1)) + r.randint(0, self.seq)])
        else:  # near the unsigned limit
            v = (1 << w) - r.randint(1, self.seq)
        return self.emit(f"arith.constant {_signed(v, w)} : {t}")

    def pos(self, t, which):
        if t == "index":
            return which
        cast = self.rng.choice(["index_cast", "index_castui"])
        return self.emit(f"arith.{cast} {which} : index to {t}")

    def term(self, t, depth):
        r = self.rng.random()
        if depth == 0 or r < 0.45:
            return self.pos(t, self.rng.choice(["%i", "%j"]))
        if r < 0.55:
            return self.const(t)
        op = self.rng.choice(["addi", "subi", "subi", "muli"])
        a = self.term(t, depth - 1)
        b = (self.const(t) if op == "muli" or self.rng.random() < 0.5
             else self.term(t, depth - 1))
        flags = " overflow<nsw>" if self.rng.random() < 0.1 else ""
        return self.emit(f"arith.{op} {a}, {b}{flags} : {t}")

    def offset(self, t, which):
        """`which` plus or minus a constant (or alone)."""
        p = self.pos(t, which)
        if self.rng.random() < 0.3:
            return p
        op = self.rng.choice(["addi", "subi"])
        flags = " overflow<nsw>" if self.rng.random() < 0.1 else ""
        return self.emit(f"arith.{op} {p}, {self.const(t)}{flags} : {t}")

    def banded(self, t):
        """The shapes causal masks and windows take: j against i plus an
        offset, or the difference i - j against a constant (unsigned: the
        wrap of j > i is part of the test)."""
        if self.rng.random() < 0.7:
            a, b = self.pos(t, "%j"), self.offset(t, "%i")
            if self.rng.random() < 0.5:
                a, b = b, a
        else:
            first, second = ("%i", "%j") if self.rng.random() < 0.7 else ("%j", "%i")
            a = self.emit(f"arith.subi {self.pos(t, first)}, "
                          f"{self.pos(t, second)} : {t}")
            b = self.const(t)
        return self.emit(f"arith.cmpi {self.rng.choice(CMPI)}, {a}, {b} : {t}")

    def cond(self, depth):
        r, t = self.rng.random(), self.rng.choice(list(WIDTH))
        if depth > 0 and r < 0.2:
            op = self.rng.choice(["andi", "andi", "ori", "xori"])
            return self.emit(f"arith.{op} {self.cond(depth - 1)}, "
                             f"{self.cond(depth - 1)} : i1")
        if depth > 0 and r < 0.27:
            true = self.emit("arith.constant true")
            return self.emit(f"arith.xori {self.cond(depth - 1)}, {true} : i1")
        if depth > 0 and r < 0.35:  # a boolean extended, then compared
            wide = self.rng.choice(["i8", "i32"])
            ext = self.rng.choice(["extsi", "extui"])
            e = self.emit(f"arith.{ext} {self.cond(depth - 1)} : i1 to {wide}")
            zero = self.emit(f"arith.constant 0 : {wide}")
            pred = self.rng.choice(["ne", "slt", "sgt", "ult"])
            return self.emit(f"arith.cmpi {pred}, {e}, {zero} : {wide}")
        if r < 0.45 and t != "index":  # through floats
            conv = self.rng.choice(["sitofp", "uitofp"])
            ft = self.rng.choice(["f32", "f16"])
            a = self.emit(f"arith.{conv} {self.pos(t, '%j')} : {t} to {ft}")
            b = self.emit(f"arith.{conv} {self.offset(t, '%i')} : {t} to {ft}")
            return self.emit(f"arith.cmpf {self.rng.choice(CMPF)}, {a}, {b} : {ft}")
        if r < 0.85:
            return self.banded(t)
        a, b = self.term(t, 2), self.term(t, 2)
        return self.emit(f"arith.cmpi {self.rng.choice(CMPI)}, {a}, {b} : {t}")


def linalg_case(name, rng):
    """The text of one random linalg mask program."""
    big = rng.random() < 0.15
    sq, sk = (140, 140) if big else rng.choice([(16, 16), (12, 20), (20, 12)])
    body = _Body(rng, max(sq, sk))
    score, inputs = "%s", []
    if rng.random() < 0.2:
        inputs.append(("bias", f"tensor<2x{sq}x{sk}xf32>", "b, i, j"))
        score = body.emit("arith.addf %s, %in0 : f32")
    if rng.random() < 0.15:
        inputs.append(("pad", f"tensor<2x{sk}xi1>", "b, j"))
        score = body.emit(f"arith.select %in{len(inputs) - 1}, {score}, "
                          "%ninf : f32")
    cond = body.cond(2)
    fill = rng.choice(["%ninf", "%ninf", "%fmin"])
    how = rng.random()
    if how < 0.4:
        body.lines.append(f"%x = arith.select {cond}, {score}, {fill} : f32")
    elif how < 0.8:
        body.lines.append(f"%x = arith.select {cond}, {fill}, {score} : f32")
    else:
        zero = body.emit("arith.constant 0.0 : f32")
        add = body.emit(f"arith.select {cond}, {zero}, {fill} : f32")
        body.lines.append(f"%x = arith.addf {score}, {add} : f32")
    bh = 1 if big else 2
    inputs = [(n, t.replace("tensor<2x", f"tensor<{bh}x"), m)
              for n, t, m in inputs]
    text = linalg_program(name, "\n".join(body.lines), bh=bh, sq=sq, sk=sk,
                          d=4 if big else 8, inputs=inputs)
    return text


def _and_padding(body, cond, at, b, s):
    """`cond` AND attention_mask[b, at] != 0 (%am, an input)."""
    a = body.emit(f"tensor.extract %am[%b, {at}] : tensor<{b}x{s}xi64>")
    zero = body.emit("arith.constant 0 : i64")
    keep = body.emit(f"arith.cmpi ne, {a}, {zero} : i64")
    return body.emit(f"arith.andi {cond}, {keep} : i1")


def _masked_score(body, rng, cond):
    """%x: the score %s where `cond`, a -inf or finfo.min fill elsewhere,
    by a select or an additive where(cond, 0, fill)."""
    _mask_score(body, rng, "%s", cond, rng.choice(["%ninf", "%ninf", "%fmin"]))


def position_case(name, rng):
    """A mask read through tensors, as transformers builds it: key positions
    from a constant position tensor read by tensor.extract (an arange, or a
    permutation of one), and maybe attention_mask[b, ...] read from an
    input at the key (a key padding mask) or elsewhere (not one)."""
    b, h, s = 2, 2, rng.choice([8, 12, 16])
    body = _Body(rng, s)
    perm = list(range(s))
    if rng.random() < 0.4:
        rng.shuffle(perm) if rng.random() < 0.5 else perm.reverse()
    pre = (f"%kpos = arith.constant dense<[{', '.join(map(str, perm))}]> : "
           f"tensor<{s}xi64>")
    kv = body.emit(f"tensor.extract %kpos[%j] : tensor<{s}xi64>")
    qv = body.emit("arith.index_cast %i : index to i64")
    lo = body.emit(f"arith.constant {rng.randint(-2, 3)} : i64")
    shifted = body.emit(f"arith.addi {qv}, {lo} : i64")
    cond = body.emit(f"arith.cmpi {rng.choice(['sle', 'slt', 'sge', 'ult'])}, "
                     f"{kv}, {shifted} : i64")
    inputs = []
    if rng.random() < 0.6:
        inputs.append(("am", f"tensor<{b}x{s}xi64>", "b, i"))
        at = rng.choice(["%j", "%j", "%j", "%i", "%jn"])
        if at == "%jn":
            one = body.emit("arith.constant 1 : index")
            size = body.emit(f"arith.constant {s} : index")
            nxt = body.emit(f"arith.addi %j, {one} : index")
            body.emit(f"arith.remui {nxt}, {size} : index")
            at = f"%v{body.n}"
        cond = _and_padding(body, cond, at, b, s)
    _masked_score(body, rng, cond)
    return linalg_program(name, "\n".join(body.lines), bh=b, heads=h, sq=s,
                          sk=s, d=8, inputs=inputs, pre=pre)


def _mask_score(body, rng, score, cond, fill):
    """%x: `score` hidden where `cond` is false, by a select or by adding
    select(cond, 0, fill)."""
    if rng.random() < 0.5:
        body.lines.append(f"%x = arith.select {cond}, {score}, {fill} : f32")
    else:
        zero = body.emit("arith.constant 0.0 : f32")
        add = body.emit(f"arith.select {cond}, {zero}, {fill} : f32")
        body.lines.append(f"%x = arith.addf {score}, {add} : f32")


def _bucket(body, rng, nb):
    """An index in [0, nb) computed from k - q as relative position biases
    compute it: |d|, max(d, 0) or -min(d, 0), T5's log buckets past an
    exact range, clamped (so that the table read stays in bounds)."""
    d = body.emit("arith.subi %j, %i : index")
    d = body.emit(f"arith.index_cast {d} : index to i64")
    zero = body.emit("arith.constant 0 : i64")
    kind = rng.choice(["abs", "max", "negmin"])
    if kind == "abs":
        r = body.emit(f"math.absi {d} : i64")
    elif kind == "max":
        r = body.emit(f"arith.maxsi {d}, {zero} : i64")
    else:
        m = body.emit(f"arith.minsi {d}, {zero} : i64")
        r = body.emit(f"arith.subi {zero}, {m} : i64")
    if rng.random() < 0.5:  # T5: exact below e, log-spaced above
        e = rng.randint(1, max(1, nb // 2))
        ce = body.emit(f"arith.constant {e} : i64")
        small = body.emit(f"arith.cmpi slt, {r}, {ce} : i64")
        rf = body.emit(f"arith.sitofp {r} : i64 to f32")
        ef = body.emit(f"arith.constant {float(e)} : f32")
        q = body.emit(f"arith.divf {rf}, {ef} : f32")
        lg = body.emit(f"math.log {q} : f32")
        den = body.emit(f"arith.constant {rng.choice([1.5, 2.0794415, 3.0])} "
                        ": f32")
        sc = body.emit(f"arith.divf {lg}, {den} : f32")
        width = body.emit(f"arith.constant {float(nb - e)} : f32")
        y = body.emit(f"arith.mulf {sc}, {width} : f32")
        yi = body.emit(f"arith.fptosi {y} : f32 to i64")
        large = body.emit(f"arith.addi {yi}, {ce} : i64")
        r = body.emit(f"arith.select {small}, {r}, {large} : i64")
    top = body.emit(f"arith.constant {nb - 1} : i64")
    r = body.emit(f"arith.minsi {r}, {top} : i64")
    r = body.emit(f"arith.maxsi {r}, {zero} : i64")
    return body.emit(f"arith.index_cast {r} : i64 to index")


def region_case(name, rng):
    """A bias or mask that is none of causal, window or key padding, as
    score_mod / mask_mod express them: a [buckets, heads] table read at a
    bucket of k - q (T5), per-head slopes times a distance (ALiBi),
    per-token document ids compared at query and key, an attention_mask
    read at the query; with or without a positional condition, -inf or
    finfo.min fills, in a select or added, or the bias masked_fill'ed."""
    b, h, s = 2, 2, rng.choice([8, 12, 16])
    body = _Body(rng, s)
    args, score = [], "%s"
    bias = None
    kind = rng.choice(["table", "slopes", "none"])
    if kind == "table":
        nb = rng.randint(3, 8)
        args.append(("tab", f"tensor<{nb}x{h}xf32>"))
        bk = _bucket(body, rng, nb)
        bias = body.emit(f"tensor.extract %tab[{bk}, %h] : "
                         f"tensor<{nb}x{h}xf32>")
    elif kind == "slopes":
        args.append(("sl", f"tensor<{h}xf32>"))
        sl = body.emit(f"tensor.extract %sl[%h] : tensor<{h}xf32>")
        a, c = rng.choice([("%j", "%i"), ("%i", "%j"), ("%j", None)])
        d = body.emit(f"arith.subi {a}, {c} : index") if c else a
        d = body.emit(f"arith.index_cast {d} : index to i64")
        df = body.emit(f"arith.sitofp {d} : i64 to f32")
        bias = body.emit(f"arith.mulf {sl}, {df} : f32")
    conds = []
    if kind == "none" or rng.random() < 0.6:
        what = rng.choice(["doc", "query", "doc_query"])
        if "doc" in what:
            args.append(("doc", f"tensor<{b}x{s}xi64>"))
            di = body.emit(f"tensor.extract %doc[%b, %i] : tensor<{b}x{s}xi64>")
            dj = body.emit(f"tensor.extract %doc[%b, %j] : tensor<{b}x{s}xi64>")
            conds.append(body.emit(f"arith.cmpi eq, {di}, {dj} : i64"))
        if "query" in what:
            args.append(("am", f"tensor<{b}x{s}xi64>"))
            a = body.emit(f"tensor.extract %am[%b, %i] : tensor<{b}x{s}xi64>")
            zero = body.emit("arith.constant 0 : i64")
            conds.append(body.emit(f"arith.cmpi ne, {a}, {zero} : i64"))
    if rng.random() < 0.6:
        conds.append(body.cond(1) if rng.random() < 0.3 else
                     body.emit("arith.cmpi ule, %j, %i : index"))
    cond = None
    for c in conds:
        cond = c if cond is None else body.emit(f"arith.andi {cond}, {c} : i1")
    fill = rng.choice(["%ninf", "%fmin"])
    if bias is not None and cond is not None and rng.random() < 0.3:
        # T5 under sdpa: the bias masked_fill'ed, then added.
        bias = body.emit(f"arith.select {cond}, {bias}, {fill} : f32")
        cond = None
    if bias is not None:
        score = body.emit(f"arith.addf {score}, {bias} : f32")
    if cond is None:
        body.lines.append(f"%x = arith.addf {score}, %zero : f32")
    else:
        _mask_score(body, rng, score, cond, fill)
    return linalg_program(name, "\n".join(body.lines), bh=b, heads=h, sq=s,
                          sk=s, d=8, extra_args=args)


class _Tosa:
    """TOSA ops on index constants; every value is [1, sq|1, sk|1]."""

    def __init__(self, rng, sq, sk, t):
        self.rng, self.sq, self.sk, self.t = rng, sq, sk, t
        self.lines, self.n = [], 0

    def ty(self, shape, elt):
        return f"tensor<1x{shape[0]}x{shape[1]}x{elt}>"

    def emit(self, rhs):
        self.n += 1
        self.lines.append(f"%t{self.n} = {rhs}")
        return f"%t{self.n}"

    def binary(self, op, a, b, elt):
        (na, sa), (nb, sb) = a, b
        shape = (max(sa[0], sb[0]), max(sa[1], sb[1]))
        ea = eb = self.t if op in ("add", "sub", "greater", "greater_equal",
                                   "equal") else "i1"
        if elt == "i1" and op in ("logical_and", "logical_or", "logical_xor"):
            ea = eb = "i1"
        name = self.emit(f"tosa.{op} {na}, {nb} : ({self.ty(sa, ea)}, "
                         f"{self.ty(sb, eb)}) -> {self.ty(shape, elt)}")
        return name, shape

    def term(self, depth):
        r = self.rng.random()
        if depth == 0 or r < 0.5:
            return self.rng.choice([("%qi", (self.sq, 1)),
                                    ("%kj", (1, self.sk))])
        if r < 0.6:
            return self.const(), (1, 1)
        op = self.rng.choice(["add", "sub"])
        return self.binary(op, self.term(depth - 1),
                           (self.const(), (1, 1)) if self.rng.random() < 0.6
                           else self.term(depth - 1), self.t)

    def const(self):
        w, r = WIDTH[self.t], self.rng
        v = (r.randint(-3, max(self.sq, self.sk) + 3) if r.random() < 0.6
             else r.choice([(1 << (w - 1)) - r.randint(1, 20),
                            -(1 << (w - 1)) + r.randint(0, 20)]))
        ty = self.ty((1, 1), self.t)
        return self.emit(f'"tosa.const"() <{{values = dense<{_signed(v, w)}> '
                         f': {ty}}}> : () -> {ty}')

    def cond(self, depth):
        r = self.rng.random()
        if depth > 0 and r < 0.3:
            op = self.rng.choice(["logical_and", "logical_or", "logical_xor"])
            return self.binary(op, self.cond(depth - 1), self.cond(depth - 1),
                               "i1")
        if depth > 0 and r < 0.4:
            n, s = self.cond(depth - 1)
            return self.emit(f"tosa.logical_not {n} : ({self.ty(s, 'i1')}) -> "
                             f"{self.ty(s, 'i1')}"), s
        if depth > 0 and r < 0.5:  # MIGraphX's i1 -> i32 -> i8 -> i1
            n, s = self.cond(depth - 1)
            for a, b in (("i1", "i32"), ("i32", "i8"), ("i8", "i1")):
                n = self.emit(f"tosa.cast {n} : ({self.ty(s, a)}) -> "
                              f"{self.ty(s, b)}")
            return n, s
        op = self.rng.choice(["greater", "greater", "greater_equal", "equal"])
        if r < 0.85:  # j against i plus an offset, either way round
            i = ("%qi", (self.sq, 1))
            if self.rng.random() < 0.7:
                i = self.binary(self.rng.choice(["add", "sub"]), i,
                                (self.const(), (1, 1)), self.t)
            a, b = ("%kj", (1, self.sk)), i
            if self.rng.random() < 0.5:
                a, b = b, a
            return self.binary(op, a, b, "i1")
        return self.binary(op, self.term(2), self.term(2), "i1")


def tosa_case(name, rng):
    sq, sk = rng.choice([(16, 16), (12, 20), (20, 12)])
    t = rng.choice(["i8", "i16", "i32"])
    g = _Tosa(rng, sq, sk, t)
    cond, cs = g.cond(2)
    s3 = f"tensor<2x{sq}x{sk}xf32>"
    score, args = "%ss", []
    if rng.random() < 0.2:
        args.append(("bias", s3))
        score = g.emit(f"tosa.add %ss, %bias : ({s3}, {s3}) -> {s3}")
    fill = rng.choice(["%ninf", "%fmin"])
    c1 = g.ty((1, 1), "f32")
    ct = g.ty(cs, "i1")
    if rng.random() < 0.7:
        a, b = (score, fill) if rng.random() < 0.5 else (fill, score)
        ta = s3 if a == score else c1
        tb = s3 if b == score else c1
        g.lines.append(f"%x = tosa.select {cond}, {a}, {b} : ({ct}, {ta}, "
                       f"{tb}) -> {s3}")
    else:
        add = g.emit(f"tosa.select {cond}, %fzero, {fill} : ({ct}, {c1}, "
                     f"{c1}) -> {g.ty(cs, 'f32')}")
        g.lines.append(f"%x = tosa.add {score}, {add} : ({s3}, "
                       f"{g.ty(cs, 'f32')}) -> {s3}")
    text = tosa_program(name, tosa_index_consts(sq, sk, t) +
                        "\n".join(g.lines), sq=sq, sk=sk, args=args)
    return text


def _arange(name, n, start=0, elt="i64"):
    """A linalg.generic arange (cache_position, kv_arange) from `start`."""
    return f"""
%e_{name} = tensor.empty() : tensor<{n}x{elt}>
%{name} = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} outs(%e_{name} : tensor<{n}x{elt}>) {{
^bb0(%o: {elt}):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to {elt}
  %c = arith.constant {start} : {elt}
  %z = arith.addi %y, %c : {elt}
  linalg.yield %z : {elt}
}} -> tensor<{n}x{elt}>
"""


def _computed_positions(rng, b, s, p):
    """Statements defining %{p}pos (prefix `p` on every name): tensor<b x s x i64>, position ids computed
    the ways transformers' exports compute them, and a description."""
    kind = rng.choice(["broadcast", "slice", "cumsum", "constant", "concat"])
    if kind == "broadcast":  # arange(s) broadcast per batch element
        return _arange(p + "ar", s, rng.randint(0, 3)) + f"""
%{p}e_pos = tensor.empty() : tensor<{b}x{s}xi64>
%{p}pos = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%{p}ar : tensor<{s}xi64>) outs(%{p}e_pos : tensor<{b}x{s}xi64>) {{
^bb0(%in: i64, %o: i64):
  linalg.yield %in : i64
}} -> tensor<{b}x{s}xi64>
"""
    if kind == "slice":  # a window of a longer arange, expanded per batch
        off = rng.randint(0, 4)
        return _arange(p + "ar", s + 4, rng.randint(-2, 2)) + f"""
%{p}sl = tensor.extract_slice %{p}ar[{off}] [{s}] [1] : tensor<{s + 4}xi64> to tensor<{s}xi64>
%{p}pex = tensor.expand_shape %{p}sl [[0, 1]] output_shape [1, {s}] : tensor<{s}xi64> into tensor<1x{s}xi64>
%{p}e_pos = tensor.empty() : tensor<{b}x{s}xi64>
%{p}pos = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%{p}pex : tensor<1x{s}xi64>) outs(%{p}e_pos : tensor<{b}x{s}xi64>) {{
^bb0(%in: i64, %o: i64):
  linalg.yield %in : i64
}} -> tensor<{b}x{s}xi64>
"""
    if kind in ("cumsum", "constant"):
        # A constant 0/1 pattern per batch element (mostly ones), then its
        # inclusive or exclusive cumsum: aranges, or restarts.
        rows = [[int(rng.random() < 0.93) for _ in range(s)]
                for _ in range(b)]
        if rng.random() < 0.7:
            rows = [rows[0]] * b
        dense = "[" + ", ".join("[" + ", ".join(map(str, r)) + "]"
                                for r in rows) + "]"
        if kind == "constant":
            vals = [[sum(r[:k]) for k in range(s)] for r in rows]
            dense = "[" + ", ".join("[" + ", ".join(map(str, r)) + "]"
                                    for r in vals) + "]"
            return (f"%{p}pos = arith.constant dense<{dense}> : "
                    f"tensor<{b}x{s}xi64>\n")
        inclusive = rng.choice(["true", "false"])
        return f"""
%{p}bits = arith.constant dense<{dense}> : tensor<{b}x{s}xi64>
%{p}c0_i64 = arith.constant 0 : i64
%{p}e_pos = tensor.empty() : tensor<{b}x{s}xi64>
%{p}z = linalg.fill ins(%{p}c0_i64 : i64) outs(%{p}e_pos : tensor<{b}x{s}xi64>) -> tensor<{b}x{s}xi64>
%{p}e_b = tensor.empty() : tensor<{b}xi64>
%{p}z1 = linalg.fill ins(%{p}c0_i64 : i64) outs(%{p}e_b : tensor<{b}xi64>) -> tensor<{b}xi64>
%{p}cums:2 = tm_tensor.scan dimension(1) inclusive({inclusive}) ins(%{p}bits : tensor<{b}x{s}xi64>) outs(%{p}z, %{p}z1 : tensor<{b}x{s}xi64>, tensor<{b}xi64>) {{
^bb0(%a: i64, %c: i64):
  %r = arith.addi %a, %c : i64
  tm_tensor.yield %r : i64
}} -> tensor<{b}x{s}xi64>, tensor<{b}xi64>
%{p}pos = tensor.cast %{p}cums#0 : tensor<{b}x{s}xi64> to tensor<{b}x{s}xi64>
"""
    # concat: [first - 1, pos] then the difference (packed-sequence
    # detection's diff), as position ids 1 + cumsum-free arange.
    return _arange(p + "ar", s) + f"""
%{p}pex = tensor.expand_shape %{p}ar [[0, 1]] output_shape [1, {s}] : tensor<{s}xi64> into tensor<1x{s}xi64>
%{p}first = tensor.extract_slice %{p}pex[0, 0] [1, 1] [1, 1] : tensor<1x{s}xi64> to tensor<1x1xi64>
%{p}cat = tensor.concat dim(1) %{p}first, %{p}pex : (tensor<1x1xi64>, tensor<1x{s}xi64>) -> tensor<1x{s + 1}xi64>
%{p}hi = tensor.extract_slice %{p}cat[0, {rng.randint(0, 1)}] [1, {s}] [1, 1] : tensor<1x{s + 1}xi64> to tensor<1x{s}xi64>
%{p}e_pos = tensor.empty() : tensor<{b}x{s}xi64>
%{p}pos = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%{p}hi : tensor<1x{s}xi64>) outs(%{p}e_pos : tensor<{b}x{s}xi64>) {{
^bb0(%in: i64, %o: i64):
  linalg.yield %in : i64
}} -> tensor<{b}x{s}xi64>
"""


def position_tensor_case(name, rng):
    """A mask over position ids that the program computes (an arange
    broadcast per batch element, a slice of a longer one, a cumsum by
    tm_tensor.scan, a concat, or constant ids that may restart per batch
    element), read with tensor.extract at [b, i] and [b, j] (sometimes
    through a negative-index wrap, as torch-mlir emits), compared with an
    offset, maybe a window and an attention_mask input read at the key or
    at the query. The raiser must fold the computed tensors exactly and keep
    the input as data."""
    b, h, s = 2, 2, rng.choice([8, 12])
    body = _Body(rng, s)

    def read(tensor, at):
        idx = at
        if rng.random() < 0.3:  # torch-mlir's wrap of negative indices
            v = body.emit(f"arith.index_cast {at} : index to i64")
            z = body.emit("arith.constant 0 : i64")
            neg = body.emit(f"arith.cmpi slt, {v}, {z} : i64")
            n = body.emit(f"arith.constant {s} : i64")
            w = body.emit(f"arith.addi {v}, {n} : i64")
            sel = body.emit(f"arith.select {neg}, {w}, {v} : i64")
            idx = body.emit(f"arith.index_cast {sel} : i64 to index")
        return body.emit(f"tensor.extract {tensor}[%b, {idx}] : "
                         f"tensor<{b}x{s}xi64>")

    # Query and key positions from one tensor, or each from its own
    # (cache_position and kv_arange), so that an offset does not cancel.
    pre = _computed_positions(rng, b, s, "q")
    kpos = "%qpos"
    if rng.random() < 0.6:
        pre += _computed_positions(rng, b, s, "k")
        kpos = "%kpos"
    qv, kv = read("%qpos", "%i"), read(kpos, "%j")
    shifted = body.emit(f"arith.addi {qv}, "
                        f"{body.emit(f'arith.constant {rng.choice([0, 0, 0, 1, -1, 2]):d} : i64')}"
                        f" : i64")
    cond = body.emit(f"arith.cmpi {rng.choice(['sle', 'sle', 'slt', 'sge'])}, "
                     f"{kv}, {shifted} : i64")
    if rng.random() < 0.4:  # sliding window: q - kv < w
        d = body.emit(f"arith.subi {qv}, {kv} : i64")
        w = body.emit(f"arith.constant {rng.randint(1, 5)} : i64")
        inside = body.emit(f"arith.cmpi slt, {d}, {w} : i64")
        cond = body.emit(f"arith.andi {cond}, {inside} : i1")
    inputs = []
    if rng.random() < 0.5:
        inputs.append(("am", f"tensor<{b}x{s}xi64>", "b, i"))
        at = rng.choice(["%j", "%j", "%j", "%i"])
        cond = _and_padding(body, cond, at, b, s)
    _masked_score(body, rng, cond)
    return linalg_program(name, "\n".join(body.lines), bh=b, heads=h, sq=s,
                          sk=s, d=8, inputs=inputs, pre=pre)


def cases(seed, count, positions=0, tosa_share=0.3, computed=0,
          regions=0):
    """[(name, text, is_tosa)], deterministic in `seed`: `count` linalg and
    TOSA cases, then `positions` position cases, `computed` cases over
    computed position tensors and `regions` region cases
    (each their own stream, so that adding them changes none of the
    others)."""
    rng = random.Random(seed)
    out = []
    for n in range(count):
        tosa = rng.random() < tosa_share
        name = f"{'tosa' if tosa else 'linalg'}_mask_{n}"
        text = (tosa_case if tosa else linalg_case)(name, rng)
        out.append((name, text, tosa))
    rng = random.Random(seed + 1)
    for n in range(positions):
        name = f"position_mask_{n}"
        out.append((name, position_case(name, rng), False))
    rng = random.Random(seed + 2)
    for n in range(computed):
        name = f"computed_positions_{n}"
        out.append((name, position_tensor_case(name, rng), False))
    rng = random.Random(seed + 3)
    for n in range(regions):
        name = f"region_mask_{n}"
        out.append((name, region_case(name, rng), False))
    return out
