"""Whole-model IR for the fa-raise-attention tests: N decoder layers in the
styles front ends emit (written here, after the shapes of torch-mlir's and
TOSA exporters' output, not copied from them).

* torch_mlir(...): linalg on tensors as torch-mlir lowers an HF GPT-2 block:
  one 0-d scale constant, one 0-d fill constant (finfo.min) and one constant
  lower-triangular `bias` buffer shared by every layer; each layer slices the
  buffer to the sequence length (layers 2.. reuse one slice), heads split by
  expand_shape + transpose, batch_matmul on [B*H, S, D], the softmax as
  max / sub+exp / sum / div generics. elt="bf16" gives the HF Llama
  precision: bf16 weights and activations, f32-accumulating matmuls, the
  softmax in f32, P and the output truncated to bf16.
* tosa(...): TOSA as a TFLite / MIGraphX export: a shared scale constant, Q
  passed through `add` with a zero tensor, K / V repeated to the query heads
  by `add` with a zero tensor of the larger shape (GQA), the row max
  broadcast by `mul` with ones, and a causal mask computed from constants
  (row / column index tensors, `greater`, an i1 -> i32 -> i8 -> i1 cast
  chain, `select`).

Every function takes the hidden state and the weights as arguments and
returns the final hidden state; each layer is h + attention(h) Wo.
"""


def _bool_tril(n):
    rows = ", ".join(
        "[" + ", ".join("true" if j <= i else "false" for j in range(n)) + "]"
        for i in range(n))
    return f"dense<[[[{rows}]]]>"


def torch_mlir(name, layers=4, batch=2, seq=16, heads=4, dim=16,
               buffer=32, elt="f32", remark=None):
    """Text of func @name in torch-mlir style; `remark`, if given, is the
    expected-remark text put on each layer's P·V."""
    B, S, H, D = batch, seq, heads, dim
    E = H * D
    BH = B * H
    acc = "f32"
    low = elt != "f32"
    out = []
    w = out.append
    args = [f"%h0: tensor<{B}x{S}x{E}x{elt}>"]
    for l in range(layers):
        for p in "qkvo":
            args.append(f"%w{p}{l}: tensor<{E}x{E}x{elt}>")
    w(f"func.func @{name}({', '.join(args)}) -> tensor<{B}x{S}x{E}x{elt}> {{")
    # Shared by every layer (torch-mlir materializes each once).
    w("  %zero = arith.constant 0.0 : f32")
    w("  %ninf = arith.constant 0xFF800000 : f32")
    w(f"  %scale = arith.constant dense<{float(D) ** 0.5}> : tensor<f64>")
    w("  %minval = arith.constant dense<-3.40282347E+38> : tensor<f32>")
    w(f"  %buf = arith.constant {_bool_tril(buffer)} : "
      f"tensor<1x1x{buffer}x{buffer}xi1>")
    w(f"  %shared_mask = tensor.extract_slice %buf[0, 0, 0, 0] "
      f"[1, 1, {S}, {S}] [1, 1, 1, 1] : tensor<1x1x{buffer}x{buffer}xi1> to "
      f"tensor<1x1x{S}x{S}xi1>")
    for l in range(layers):
        h = f"%h{l}"
        w(f"  // layer {l}")
        # Projections [B*S, E] x [E, E], accumulated in f32.
        w(f"  %hc{l} = tensor.collapse_shape {h} [[0, 1], [2]] : "
          f"tensor<{B}x{S}x{E}x{elt}> into tensor<{B * S}x{E}x{elt}>")
        w(f"  %pe{l} = tensor.empty() : tensor<{B * S}x{E}x{acc}>")
        w(f"  %pf{l} = linalg.fill ins(%zero : f32) outs(%pe{l} : "
          f"tensor<{B * S}x{E}x{acc}>) -> tensor<{B * S}x{E}x{acc}>")
        heads_of = {}
        for p in "qkv":
            w(f"  %{p}m{l} = linalg.matmul ins(%hc{l}, %w{p}{l} : "
              f"tensor<{B * S}x{E}x{elt}>, tensor<{E}x{E}x{elt}>) outs(%pf{l} : "
              f"tensor<{B * S}x{E}x{acc}>) -> tensor<{B * S}x{E}x{acc}>")
            src = f"%{p}m{l}"
            if low:
                w(f"  %{p}te{l} = tensor.empty() : tensor<{B * S}x{E}x{elt}>")
                w(f"  %{p}t{l} = linalg.generic {{indexing_maps = [#id2, #id2], "
                  f"iterator_types = [\"parallel\", \"parallel\"]}} ins({src} : "
                  f"tensor<{B * S}x{E}x{acc}>) outs(%{p}te{l} : "
                  f"tensor<{B * S}x{E}x{elt}>) {{")
                w(f"  ^bb0(%in: {acc}, %o: {elt}):")
                w(f"    %r = arith.truncf %in : {acc} to {elt}")
                w(f"    linalg.yield %r : {elt}")
                w(f"  }} -> tensor<{B * S}x{E}x{elt}>")
                src = f"%{p}t{l}"
            w(f"  %{p}x{l} = tensor.expand_shape {src} [[0, 1], [2, 3]] "
              f"output_shape [{B}, {S}, {H}, {D}] : tensor<{B * S}x{E}x{elt}> "
              f"into tensor<{B}x{S}x{H}x{D}x{elt}>")
            perm = "[0, 2, 3, 1]" if p == "k" else "[0, 2, 1, 3]"
            shape = f"{B}x{H}x{D}x{S}" if p == "k" else f"{B}x{H}x{S}x{D}"
            w(f"  %{p}pe{l} = tensor.empty() : tensor<{shape}x{elt}>")
            w(f"  %{p}p{l} = linalg.transpose ins(%{p}x{l} : "
              f"tensor<{B}x{S}x{H}x{D}x{elt}>) outs(%{p}pe{l} : "
              f"tensor<{shape}x{elt}>) permutation = {perm}")
            s3 = f"{BH}x{D}x{S}" if p == "k" else f"{BH}x{S}x{D}"
            w(f"  %{p}c{l} = tensor.collapse_shape %{p}p{l} [[0, 1], [2], [3]] "
              f": tensor<{shape}x{elt}> into tensor<{s3}x{elt}>")
            heads_of[p] = f"%{p}c{l}"
        # Scores, accumulated in f32.
        w(f"  %se{l} = tensor.empty() : tensor<{BH}x{S}x{S}xf32>")
        w(f"  %sf{l} = linalg.fill ins(%zero : f32) outs(%se{l} : "
          f"tensor<{BH}x{S}x{S}xf32>) -> tensor<{BH}x{S}x{S}xf32>")
        w(f"  %s{l} = linalg.batch_matmul ins({heads_of['q']}, {heads_of['k']} "
          f": tensor<{BH}x{S}x{D}x{elt}>, tensor<{BH}x{D}x{S}x{elt}>) "
          f"outs(%sf{l} : tensor<{BH}x{S}x{S}xf32>) -> tensor<{BH}x{S}x{S}xf32>")
        w(f"  %s4{l} = tensor.expand_shape %s{l} [[0, 1], [2], [3]] output_shape "
          f"[{B}, {H}, {S}, {S}] : tensor<{BH}x{S}x{S}xf32> into "
          f"tensor<{B}x{H}x{S}x{S}xf32>")
        w(f"  %e4{l} = tensor.empty() : tensor<{B}x{H}x{S}x{S}xf32>")
        w(f"  %sc{l} = linalg.generic {{indexing_maps = [#id4, #scalar4, #id4], "
          f"iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
          f"\"parallel\"]}} ins(%s4{l}, %scale : tensor<{B}x{H}x{S}x{S}xf32>, "
          f"tensor<f64>) outs(%e4{l} : tensor<{B}x{H}x{S}x{S}xf32>) {{")
        w("  ^bb0(%in: f32, %c: f64, %o: f32):")
        w("    %ct = arith.truncf %c : f64 to f32")
        w("    %r = arith.divf %in, %ct : f32")
        w("    linalg.yield %r : f32")
        w(f"  }} -> tensor<{B}x{H}x{S}x{S}xf32>")
        mask = "%shared_mask"
        if l < 2:
            mask = f"%mask{l}"
            w(f"  {mask} = tensor.extract_slice %buf[0, 0, 0, 0] "
              f"[1, 1, {S}, {S}] [1, 1, 1, 1] : "
              f"tensor<1x1x{buffer}x{buffer}xi1> to tensor<1x1x{S}x{S}xi1>")
        w(f"  %mk{l} = linalg.generic {{indexing_maps = [#bcast11, #id4, "
          f"#scalar4, #id4], iterator_types = [\"parallel\", \"parallel\", "
          f"\"parallel\", \"parallel\"]}} ins({mask}, %sc{l}, %minval : "
          f"tensor<1x1x{S}x{S}xi1>, tensor<{B}x{H}x{S}x{S}xf32>, tensor<f32>) "
          f"outs(%e4{l} : tensor<{B}x{H}x{S}x{S}xf32>) {{")
        w("  ^bb0(%m: i1, %in: f32, %f: f32, %o: f32):")
        w("    %r = arith.select %m, %in, %f : f32")
        w("    linalg.yield %r : f32")
        w(f"  }} -> tensor<{B}x{H}x{S}x{S}xf32>")
        w(f"  %re{l} = tensor.empty() : tensor<{B}x{H}x{S}xf32>")
        w(f"  %mf{l} = linalg.fill ins(%ninf : f32) outs(%re{l} : "
          f"tensor<{B}x{H}x{S}xf32>) -> tensor<{B}x{H}x{S}xf32>")
        w(f"  %mx{l} = linalg.generic {{indexing_maps = [#id4, #row4], "
          f"iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
          f"\"reduction\"]}} ins(%mk{l} : tensor<{B}x{H}x{S}x{S}xf32>) "
          f"outs(%mf{l} : tensor<{B}x{H}x{S}xf32>) {{")
        w("  ^bb0(%in: f32, %o: f32):")
        w("    %r = arith.maximumf %in, %o : f32")
        w("    linalg.yield %r : f32")
        w(f"  }} -> tensor<{B}x{H}x{S}xf32>")
        w(f"  %ex{l} = linalg.generic {{indexing_maps = [#id4, #row4, #id4], "
          f"iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
          f"\"parallel\"]}} ins(%mk{l}, %mx{l} : tensor<{B}x{H}x{S}x{S}xf32>, "
          f"tensor<{B}x{H}x{S}xf32>) outs(%e4{l} : tensor<{B}x{H}x{S}x{S}xf32>) {{")
        w("  ^bb0(%in: f32, %m: f32, %o: f32):")
        w("    %d = arith.subf %in, %m : f32")
        w("    %r = math.exp %d : f32")
        w("    linalg.yield %r : f32")
        w(f"  }} -> tensor<{B}x{H}x{S}x{S}xf32>")
        w(f"  %lf{l} = linalg.fill ins(%zero : f32) outs(%re{l} : "
          f"tensor<{B}x{H}x{S}xf32>) -> tensor<{B}x{H}x{S}xf32>")
        w(f"  %l{l} = linalg.generic {{indexing_maps = [#id4, #row4], "
          f"iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
          f"\"reduction\"]}} ins(%ex{l} : tensor<{B}x{H}x{S}x{S}xf32>) "
          f"outs(%lf{l} : tensor<{B}x{H}x{S}xf32>) {{")
        w("  ^bb0(%in: f32, %o: f32):")
        w("    %r = arith.addf %in, %o : f32")
        w("    linalg.yield %r : f32")
        w(f"  }} -> tensor<{B}x{H}x{S}xf32>")
        w(f"  %pe4{l} = tensor.empty() : tensor<{B}x{H}x{S}x{S}x{elt}>")
        w(f"  %p{l} = linalg.generic {{indexing_maps = [#id4, #row4, #id4], "
          f"iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
          f"\"parallel\"]}} ins(%ex{l}, %l{l} : tensor<{B}x{H}x{S}x{S}xf32>, "
          f"tensor<{B}x{H}x{S}xf32>) outs(%pe4{l} : "
          f"tensor<{B}x{H}x{S}x{S}x{elt}>) {{")
        w(f"  ^bb0(%in: f32, %s: f32, %o: {elt}):")
        w("    %r = arith.divf %in, %s : f32")
        if low:
            w(f"    %t = arith.truncf %r : f32 to {elt}")
            w(f"    linalg.yield %t : {elt}")
        else:
            w("    linalg.yield %r : f32")
        w(f"  }} -> tensor<{B}x{H}x{S}x{S}x{elt}>")
        w(f"  %p3{l} = tensor.collapse_shape %p{l} [[0, 1], [2], [3]] : "
          f"tensor<{B}x{H}x{S}x{S}x{elt}> into tensor<{BH}x{S}x{S}x{elt}>")
        w(f"  %oe{l} = tensor.empty() : tensor<{BH}x{S}x{D}xf32>")
        w(f"  %of{l} = linalg.fill ins(%zero : f32) outs(%oe{l} : "
          f"tensor<{BH}x{S}x{D}xf32>) -> tensor<{BH}x{S}x{D}xf32>")
        if remark:
            w(f"  // expected-remark @+1 {{{{{remark}}}}}")
        w(f"  %o{l} = linalg.batch_matmul ins(%p3{l}, {heads_of['v']} : "
          f"tensor<{BH}x{S}x{S}x{elt}>, tensor<{BH}x{S}x{D}x{elt}>) "
          f"outs(%of{l} : tensor<{BH}x{S}x{D}xf32>) -> tensor<{BH}x{S}x{D}xf32>")
        o = f"%o{l}"
        if low:
            w(f"  %ote{l} = tensor.empty() : tensor<{BH}x{S}x{D}x{elt}>")
            w(f"  %ot{l} = linalg.generic {{indexing_maps = [#id3, #id3], "
              f"iterator_types = [\"parallel\", \"parallel\", \"parallel\"]}} "
              f"ins(%o{l} : tensor<{BH}x{S}x{D}xf32>) outs(%ote{l} : "
              f"tensor<{BH}x{S}x{D}x{elt}>) {{")
            w(f"  ^bb0(%in: f32, %x: {elt}):")
            w(f"    %r = arith.truncf %in : f32 to {elt}")
            w(f"    linalg.yield %r : {elt}")
            w(f"  }} -> tensor<{BH}x{S}x{D}x{elt}>")
            o = f"%ot{l}"
        w(f"  %o4{l} = tensor.expand_shape {o} [[0, 1], [2], [3]] output_shape "
          f"[{B}, {H}, {S}, {D}] : tensor<{BH}x{S}x{D}x{elt}> into "
          f"tensor<{B}x{H}x{S}x{D}x{elt}>")
        w(f"  %ope{l} = tensor.empty() : tensor<{B}x{S}x{H}x{D}x{elt}>")
        w(f"  %op{l} = linalg.transpose ins(%o4{l} : tensor<{B}x{H}x{S}x{D}x{elt}>) "
          f"outs(%ope{l} : tensor<{B}x{S}x{H}x{D}x{elt}>) permutation = [0, 2, 1, 3]")
        w(f"  %om{l} = tensor.collapse_shape %op{l} [[0, 1], [2, 3]] : "
          f"tensor<{B}x{S}x{H}x{D}x{elt}> into tensor<{B * S}x{E}x{elt}>")
        # Output projection and residual.
        w(f"  %y{l} = linalg.matmul ins(%om{l}, %wo{l} : tensor<{B * S}x{E}x{elt}>, "
          f"tensor<{E}x{E}x{elt}>) outs(%pf{l} : tensor<{B * S}x{E}x{acc}>) -> "
          f"tensor<{B * S}x{E}x{acc}>")
        w(f"  %y3{l} = tensor.expand_shape %y{l} [[0, 1], [2]] output_shape "
          f"[{B}, {S}, {E}] : tensor<{B * S}x{E}x{acc}> into "
          f"tensor<{B}x{S}x{E}x{acc}>")
        w(f"  %he{l} = tensor.empty() : tensor<{B}x{S}x{E}x{elt}>")
        w(f"  %h{l + 1} = linalg.generic {{indexing_maps = [#id3, #id3, #id3], "
          f"iterator_types = [\"parallel\", \"parallel\", \"parallel\"]}} "
          f"ins({h}, %y3{l} : tensor<{B}x{S}x{E}x{elt}>, tensor<{B}x{S}x{E}x{acc}>) "
          f"outs(%he{l} : tensor<{B}x{S}x{E}x{elt}>) {{")
        w(f"  ^bb0(%a: {elt}, %b: {acc}, %o: {elt}):")
        if low:
            w(f"    %ae = arith.extf %a : {elt} to f32")
            w("    %s = arith.addf %ae, %b : f32")
            w(f"    %r = arith.truncf %s : f32 to {elt}")
        else:
            w("    %r = arith.addf %a, %b : f32")
        w(f"    linalg.yield %r : {elt}")
        w(f"  }} -> tensor<{B}x{S}x{E}x{elt}>")
    w(f"  return %h{layers} : tensor<{B}x{S}x{E}x{elt}>")
    w("}")
    maps = ("#id2 = affine_map<(d0, d1) -> (d0, d1)>\n"
            "#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>\n"
            "#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>\n"
            "#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>\n"
            "#scalar4 = affine_map<(d0, d1, d2, d3) -> ()>\n"
            "#bcast11 = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>\n")
    return maps + "\n".join(out) + "\n"


def tosa(name, layers=4, seq=16, heads=4, kv_heads=2, dim=16, remark=None):
    """Text of func @name in TOSA style (batch 1)."""
    S, H, G, D = seq, heads, heads // kv_heads, dim
    HK = kv_heads
    E, EK = H * D, HK * D
    out = []
    w = out.append
    t = lambda shape: "tensor<" + "x".join(map(str, shape)) + "xf32>"
    args = [f"%h0: {t([1, S, E])}"]
    for l in range(layers):
        args += [f"%wq{l}: {t([1, E, E])}", f"%wk{l}: {t([1, E, EK])}",
                 f"%wv{l}: {t([1, E, EK])}", f"%wo{l}: {t([1, E, E])}"]
    w(f"func.func @{name}({', '.join(args)}) -> {t([1, S, E])} {{")

    def shape_const(n, shape):
        w(f"  %{n} = tosa.const_shape {{values = dense<[{', '.join(map(str, shape))}]> : "
          f"tensor<{len(shape)}xindex>}} : () -> !tosa.shape<{len(shape)}>")

    shape_const("s_q4", [1, S, H, D])
    shape_const("s_kv4", [1, S, HK, D])
    shape_const("s_kv5", [1, HK, 1, S, D])
    shape_const("s_q3", [H, S, D])
    shape_const("s_o4", [1, H, S, D])
    shape_const("s_e", [1, S, E])
    w('  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>')
    w('  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>')
    w(f'  %scale = "tosa.const"() <{{values = dense<{1.0 / D ** 0.5}> : tensor<1x1x1xf32>}}> : () -> tensor<1x1x1xf32>')
    w(f'  %zq = "tosa.const"() <{{values = dense<0.0> : {t([H, S, D])}}}> : () -> {t([H, S, D])}')
    w(f'  %zkv = "tosa.const"() <{{values = dense<0.0> : {t([1, HK, G, S, D])}}}> : () -> {t([1, HK, G, S, D])}')
    w(f'  %ones = "tosa.const"() <{{values = dense<1.0> : {t([H, S, S])}}}> : () -> {t([H, S, S])}')
    w(f'  %ninf = "tosa.const"() <{{values = dense<0xFF800000> : tensor<1x1x1xf32>}}> : () -> tensor<1x1x1xf32>')
    # The causal mask from constants: key index > query index hides.
    rows = ", ".join(f"[{i}]" for i in range(S))
    cols = ", ".join(str(j) for j in range(S))
    w(f'  %qi = "tosa.const"() <{{values = dense<[[{rows}]]> : tensor<1x{S}x1xi32>}}> : () -> tensor<1x{S}x1xi32>')
    w(f'  %kj = "tosa.const"() <{{values = dense<[[[{cols}]]]> : tensor<1x1x{S}xi32>}}> : () -> tensor<1x1x{S}xi32>')
    w(f"  %gt = tosa.greater %kj, %qi : (tensor<1x1x{S}xi32>, tensor<1x{S}x1xi32>) -> tensor<1x{S}x{S}xi1>")
    w(f"  %g32 = tosa.cast %gt : (tensor<1x{S}x{S}xi1>) -> tensor<1x{S}x{S}xi32>")
    w(f"  %g8 = tosa.cast %g32 : (tensor<1x{S}x{S}xi32>) -> tensor<1x{S}x{S}xi8>")
    w(f"  %hide = tosa.cast %g8 : (tensor<1x{S}x{S}xi8>) -> tensor<1x{S}x{S}xi1>")
    for l in range(layers):
        h = f"%h{l}"
        w(f"  // layer {l}")

        def proj(p, width, heads_n):
            w(f"  %{p}m{l} = tosa.matmul {h}, %w{p}{l}, %zp, %zp : ({t([1, S, E])}, "
              f"{t([1, E, width])}, tensor<1xf32>, tensor<1xf32>) -> {t([1, S, width])}")
            s4 = "s_q4" if heads_n == H else "s_kv4"
            w(f"  %{p}4{l} = tosa.reshape %{p}m{l}, %{s4} : ({t([1, S, width])}, "
              f"!tosa.shape<4>) -> {t([1, S, heads_n, D])}")
            w(f"  %{p}t{l} = tosa.transpose %{p}4{l} {{perms = array<i32: 0, 2, 1, 3>}} : "
              f"({t([1, S, heads_n, D])}) -> {t([1, heads_n, S, D])}")

        proj("q", E, H)
        proj("k", EK, HK)
        proj("v", EK, HK)
        w(f"  %q3{l} = tosa.reshape %qt{l}, %s_q3 : ({t([1, H, S, D])}, !tosa.shape<3>) -> {t([H, S, D])}")
        w(f"  %qz{l} = tosa.add %q3{l}, %zq : ({t([H, S, D])}, {t([H, S, D])}) -> {t([H, S, D])}")
        for p in "kv":
            w(f"  %{p}5{l} = tosa.reshape %{p}t{l}, %s_kv5 : ({t([1, HK, S, D])}, "
              f"!tosa.shape<5>) -> {t([1, HK, 1, S, D])}")
            w(f"  %{p}r{l} = tosa.add %{p}5{l}, %zkv : ({t([1, HK, 1, S, D])}, "
              f"{t([1, HK, G, S, D])}) -> {t([1, HK, G, S, D])}")
            w(f"  %{p}3{l} = tosa.reshape %{p}r{l}, %s_q3 : ({t([1, HK, G, S, D])}, "
              f"!tosa.shape<3>) -> {t([H, S, D])}")
        w(f"  %kT{l} = tosa.transpose %k3{l} {{perms = array<i32: 0, 2, 1>}} : ({t([H, S, D])}) -> {t([H, D, S])}")
        w(f"  %s{l} = tosa.matmul %qz{l}, %kT{l}, %zp, %zp : ({t([H, S, D])}, {t([H, D, S])}, "
          f"tensor<1xf32>, tensor<1xf32>) -> {t([H, S, S])}")
        w(f"  %ss{l} = tosa.mul %s{l}, %scale, %shift : ({t([H, S, S])}, tensor<1x1x1xf32>, "
          f"tensor<1xi8>) -> {t([H, S, S])}")
        w(f"  %sm{l} = tosa.select %hide, %ninf, %ss{l} : (tensor<1x{S}x{S}xi1>, "
          f"tensor<1x1x1xf32>, {t([H, S, S])}) -> {t([H, S, S])}")
        w(f"  %mx{l} = tosa.reduce_max %sm{l} {{axis = 2 : i32}} : ({t([H, S, S])}) -> {t([H, S, 1])}")
        w(f"  %mb{l} = tosa.mul %mx{l}, %ones, %shift : ({t([H, S, 1])}, {t([H, S, S])}, "
          f"tensor<1xi8>) -> {t([H, S, S])}")
        w(f"  %d{l} = tosa.sub %sm{l}, %mb{l} : ({t([H, S, S])}, {t([H, S, S])}) -> {t([H, S, S])}")
        w(f"  %e{l} = tosa.exp %d{l} : ({t([H, S, S])}) -> {t([H, S, S])}")
        w(f"  %l{l} = tosa.reduce_sum %e{l} {{axis = 2 : i32}} : ({t([H, S, S])}) -> {t([H, S, 1])}")
        w(f"  %rl{l} = tosa.reciprocal %l{l} : ({t([H, S, 1])}) -> {t([H, S, 1])}")
        w(f"  %p{l} = tosa.mul %e{l}, %rl{l}, %shift : ({t([H, S, S])}, {t([H, S, 1])}, "
          f"tensor<1xi8>) -> {t([H, S, S])}")
        if remark:
            w(f"  // expected-remark @+1 {{{{{remark}}}}}")
        w(f"  %o{l} = tosa.matmul %p{l}, %v3{l}, %zp, %zp : ({t([H, S, S])}, {t([H, S, D])}, "
          f"tensor<1xf32>, tensor<1xf32>) -> {t([H, S, D])}")
        w(f"  %o4{l} = tosa.reshape %o{l}, %s_o4 : ({t([H, S, D])}, !tosa.shape<4>) -> {t([1, H, S, D])}")
        w(f"  %ot{l} = tosa.transpose %o4{l} {{perms = array<i32: 0, 2, 1, 3>}} : "
          f"({t([1, H, S, D])}) -> {t([1, S, H, D])}")
        w(f"  %om{l} = tosa.reshape %ot{l}, %s_e : ({t([1, S, H, D])}, !tosa.shape<3>) -> {t([1, S, E])}")
        w(f"  %y{l} = tosa.matmul %om{l}, %wo{l}, %zp, %zp : ({t([1, S, E])}, {t([1, E, E])}, "
          f"tensor<1xf32>, tensor<1xf32>) -> {t([1, S, E])}")
        w(f"  %h{l + 1} = tosa.add {h}, %y{l} : ({t([1, S, E])}, {t([1, S, E])}) -> {t([1, S, E])}")
    w(f"  return %h{layers} : {t([1, S, E])}")
    w("}")
    return "\n".join(out) + "\n"
