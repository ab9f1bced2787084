"""Attention programs whose masking stage is given as text.

One skeleton, [BH, S, D] f32, einsum-style linalg.generic contractions and a
decomposed softmax (max / sub+exp / sum / div), around a mask stage that the
caller writes:

  linalg_program(name, body, ...)   the mask is the body of one
      linalg.generic over (bh, i, j) that reads the scaled score %s (f32)
      and binds %i, %j (index: query row, key column); the body's last
      value must be %x : f32, the masked score. Extra inputs of the
      generic (`inputs`) are function arguments read through their own
      indexing map, bound to %in0, %in1, ... in the body.

  tosa_program(name, stmts, ...)    the same attention in TOSA; `stmts` are
      TOSA ops on whole tensors that compute %x : tensor<BHxSQxSKxf32> (or
      a broadcastable shape feeding tosa.select / tosa.add, see `combine`)
      from %ss (the scaled scores), with the function's extra arguments.

Both return the text of one func.func (lit's "// -----" separated files and
test/lib/raise_equiv.py read it as is).
"""

def _header(bd):
    """Indexing maps over the batch dims `bd` (["b"] or ["b", "h"])."""
    b = ", ".join(bd)
    return f"""\
#mq = affine_map<({b}, i, j, d) -> ({b}, i, d)>
#mk = affine_map<({b}, i, j, d) -> ({b}, j, d)>
#ms = affine_map<({b}, i, j, d) -> ({b}, i, j)>
#id = affine_map<({b}, i, j) -> ({b}, i, j)>
#row = affine_map<({b}, i, j) -> ({b}, i)>
#mp = affine_map<({b}, i, e, j) -> ({b}, i, j)>
#mv = affine_map<({b}, i, e, j) -> ({b}, j, e)>
#mo = affine_map<({b}, i, e, j) -> ({b}, i, e)>
"""


def _t(*shape, elt="f32"):
    return "tensor<" + "x".join(str(s) for s in shape) + "x" + elt + ">"


def linalg_program(name, body, bh=2, sq=16, sk=16, d=8, inputs=(),
                   scale=0.125, heads=None, header=True, pre="", computed=(),
                   extra_args=()):
    """[bh, S, D] operands, or [bh, heads, S, D] when `heads` is given (the
    body then also binds %b and %h). `inputs`: [(arg name without %, tensor
    type, affine map results over (b, [h,] i, j))]: function arguments read
    by the mask generic; `computed`: the same for values that the
    statements `pre` (at the start of the function) define. Both are bound
    to %in0, %in1, ... in the body, inputs first. `extra_args`: [(name
    without %, tensor type)]: function arguments the body reads only by
    tensor.extract (tables, slopes, ids)."""
    bd = ["b"] if heads is None else ["b", "h"]
    bs = [bh] if heads is None else [bh, heads]
    dims = ", ".join(bd)
    s4, r3 = _t(*bs, sq, sk), _t(*bs, sq)
    q, kv = _t(*bs, sq, d), _t(*bs, sk, d)
    par = '"parallel", ' * len(bd)
    args = [f"%q: {q}", f"%k: {kv}", f"%v: {kv}"] + [
        f"%{n}: {t}" for n, t, _ in inputs] + [
        f"%{n}: {t}" for n, t in extra_args]
    inputs = list(inputs) + list(computed)
    in_vals = ", ".join(["%qk"] + [f"%{n}" for n, _, _ in inputs])
    in_types = ", ".join([s4] + [t for _, t, _ in inputs])
    in_maps = ", ".join(["#id"] + [f"affine_map<({dims}, i, j) -> ({m})>"
                                   for _, _, m in inputs])
    bb_args = ", ".join(["%sc: f32"] + [
        f"%in{k}: {t.rsplit('x', 1)[1].rstrip('>')}"
        for k, (_, t, _) in enumerate(inputs)] + ["%out: f32"])
    batch_idx = "".join(f"    %{n} = linalg.index {k} : index\n"
                        for k, n in enumerate(bd) if heads is not None)
    body = "\n".join("    " + l.strip() for l in body.strip().splitlines())
    n = len(bd)
    pre = "".join("  " + l.strip() + "\n" for l in pre.strip().splitlines())
    return (_header(bd) if header else "") + f"""\
func.func @{name}({", ".join(args)}) -> {q} {{
{pre}  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : {s4}
  %fs = linalg.fill ins(%zero : f32) outs(%es : {s4}) -> {s4}
  %qk = linalg.generic {{indexing_maps = [#mq, #mk, #ms], iterator_types = [{par}"parallel", "parallel", "reduction"]}} ins(%q, %k : {q}, {kv}) outs(%fs : {s4}) {{
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  }} -> {s4}
  %masked = linalg.generic {{indexing_maps = [{in_maps}, #id], iterator_types = [{par}"parallel", "parallel"]}} ins({in_vals} : {in_types}) outs(%es : {s4}) {{
  ^bb0({bb_args}):
    %cscale = arith.constant {scale!r} : f32
    %s = arith.mulf %sc, %cscale : f32
{batch_idx}    %i = linalg.index {n} : index
    %j = linalg.index {n + 1} : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
{body}
    linalg.yield %x : f32
  }} -> {s4}
  %er = tensor.empty() : {r3}
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : {r3}) -> {r3}
  %mx = linalg.generic {{indexing_maps = [#id, #row], iterator_types = [{par}"parallel", "reduction"]}} ins(%masked : {s4}) outs(%fm : {r3}) {{
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  }} -> {r3}
  %ex = linalg.generic {{indexing_maps = [#id, #row, #id], iterator_types = [{par}"parallel", "parallel"]}} ins(%masked, %mx : {s4}, {r3}) outs(%es : {s4}) {{
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  }} -> {s4}
  %fl = linalg.fill ins(%zero : f32) outs(%er : {r3}) -> {r3}
  %l = linalg.generic {{indexing_maps = [#id, #row], iterator_types = [{par}"parallel", "reduction"]}} ins(%ex : {s4}) outs(%fl : {r3}) {{
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }} -> {r3}
  %p = linalg.generic {{indexing_maps = [#id, #row, #id], iterator_types = [{par}"parallel", "parallel"]}} ins(%ex, %l : {s4}, {r3}) outs(%es : {s4}) {{
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  }} -> {s4}
  %eo = tensor.empty() : {q}
  %fo = linalg.fill ins(%zero : f32) outs(%eo : {q}) -> {q}
  // REMARK
  %out = linalg.generic {{indexing_maps = [#mp, #mv, #mo], iterator_types = [{par}"parallel", "parallel", "reduction"]}} ins(%p, %v : {s4}, {kv}) outs(%fo : {q}) {{
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  }} -> {q}
  return %out : {q}
}}
"""


def tosa_program(name, stmts, bh=2, sq=16, sk=16, d=8, args=(),
                 scale=0.125):
    """`stmts` compute %x (the masked scores, [bh, sq, sk] f32) from %ss
    (the scaled scores); `args`: [(name without %, tensor type)]."""
    s3, r3 = _t(bh, sq, sk), _t(bh, sq, 1)
    q, kv, kt = _t(bh, sq, d), _t(bh, sk, d), _t(bh, d, sk)
    fargs = [f"%q: {q}", f"%k: {kv}", f"%v: {kv}"] + [
        f"%{n}: {t}" for n, t in args]
    body = "\n".join("  " + l.strip() for l in stmts.strip().splitlines())
    return f"""\
func.func @{name}({", ".join(fargs)}) -> {q} {{
  %zp = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{{values = dense<{scale!r}> : tensor<1x1x1xf32>}}> : () -> tensor<1x1x1xf32>
  %ninf = "tosa.const"() <{{values = dense<0xFF800000> : tensor<1x1x1xf32>}}> : () -> tensor<1x1x1xf32>
  %fmin = "tosa.const"() <{{values = dense<-3.40282347E+38> : tensor<1x1x1xf32>}}> : () -> tensor<1x1x1xf32>
  %fzero = "tosa.const"() <{{values = dense<0.0> : tensor<1x1x1xf32>}}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {{perms = array<i32: 0, 2, 1>}} : ({kv}) -> {kt}
  %s = tosa.matmul %q, %kt, %zp, %zp : ({q}, {kt}, tensor<1xf32>, tensor<1xf32>) -> {s3}
  %ss = tosa.mul %s, %scale, %shift : ({s3}, tensor<1x1x1xf32>, tensor<1xi8>) -> {s3}
{body}
  %rmax = tosa.reduce_max %x {{axis = 2 : i32}} : ({s3}) -> {r3}
  %rdiff = tosa.sub %x, %rmax : ({s3}, {r3}) -> {s3}
  %rexp = tosa.exp %rdiff : ({s3}) -> {s3}
  %rsum = tosa.reduce_sum %rexp {{axis = 2 : i32}} : ({s3}) -> {r3}
  %rrec = tosa.reciprocal %rsum : ({r3}) -> {r3}
  %prob = tosa.mul %rexp, %rrec, %shift : ({s3}, {r3}, tensor<1xi8>) -> {s3}
  // REMARK
  %out = tosa.matmul %prob, %v, %zp, %zp : ({s3}, {kv}, tensor<1xf32>, tensor<1xf32>) -> {q}
  return %out : {q}
}}
"""


def tosa_index_consts(sq, sk, elt="i32"):
    """%qi [1, sq, 1] and %kj [1, 1, sk] index constants (MIGraphX's
    spelling of positions), in `elt`."""
    rows = ", ".join(f"[{i}]" for i in range(sq))
    cols = ", ".join(str(j) for j in range(sk))
    return (f'%qi = "tosa.const"() <{{values = dense<[[{rows}]]> : '
            f'tensor<1x{sq}x1x{elt}>}}> : () -> tensor<1x{sq}x1x{elt}>\n'
            f'%kj = "tosa.const"() <{{values = dense<[[[{cols}]]]> : '
            f'tensor<1x1x{sk}x{elt}>}}> : () -> tensor<1x1x{sk}x{elt}>\n')
