// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Causal masks and sliding windows in the forms frontends really emit. Each
// mask is evaluated on the whole (query row, key column) grid and matched
// against fa.attention's causal / window masks of either alignment.
// Generated with the same contraction and softmax skeleton (einsum-style
// linalg.generic contractions, torch-mlir-style decomposed softmax); only
// the mask stage differs.

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
#scalar4 = affine_map<(b, h, i, j) -> ()>
#bcast11 = affine_map<(b, h, i, j) -> (0, 0, i, j)>
// GPT-2: torch.where(causal_bias, w / 8.0, finfo(f32).min), the bias a
// constant lower-triangular bool buffer. finfo.min is a finite fill: it is
// raised as causal because every row keeps its diagonal key.
// CHECK-LABEL: func.func @gpt2_where_finfo_min
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : {{.+}} {causal, scale = 1.250000e-01 : f32}
// CHECK-NOT: arith.select
func.func @gpt2_where_finfo_min(%q: tensor<1x12x16x64xf32>, %k: tensor<1x12x16x64xf32>, %v: tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x12x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x12x16x16xf32>) -> tensor<1x12x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x12x16x64xf32>, tensor<1x12x16x64xf32>) outs(%f_s : tensor<1x12x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %c8 = arith.constant dense<8.000000e+00> : tensor<f32>
  %minval = arith.constant dense<-3.40282347E+38> : tensor<f32>
  %tril = arith.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %scaled = linalg.generic {indexing_maps = [#id4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %c8 : tensor<1x12x16x16xf32>, tensor<f32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %r = arith.divf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#bcast11, #id4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%tril, %scaled, %minval : tensor<1x1x16x16xi1>, tensor<1x12x16x16xf32>, tensor<f32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%m: i1, %in: f32, %f: f32, %out: f32):
    %r = arith.select %m, %in, %f : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<1x12x16xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x12x16x16xf32>) outs(%f_m : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x16x16xf32>) outs(%f_l : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %e_o = tensor.empty() : tensor<1x12x16x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, causal)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x12x16x16xf32>, tensor<1x12x16x64xf32>) outs(%f_o : tensor<1x12x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x64xf32>
  return %o : tensor<1x12x16x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// The mask computed from linalg.index in the body: select(j > i, -inf, s).
// CHECK-LABEL: func.func @causal_iota_select
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
func.func @causal_iota_select(%q: tensor<1x12x16x64xf32>, %k: tensor<1x12x16x64xf32>, %v: tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x12x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x12x16x16xf32>) -> tensor<1x12x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x12x16x64xf32>, tensor<1x12x16x64xf32>) outs(%f_s : tensor<1x12x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<1x12x16x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c_scale = arith.constant 0.125 : f32
    %c0f = arith.constant 0.0 : f32
    %fill = arith.constant 0xFF800000 : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %cond = arith.cmpi ugt, %j, %i : index
    %x = arith.mulf %in, %c_scale : f32
    %y = arith.select %cond, %fill, %x : f32
    linalg.yield %y : f32
  } -> tensor<1x12x16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<1x12x16xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x12x16x16xf32>) outs(%f_m : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x16x16xf32>) outs(%f_l : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %e_o = tensor.empty() : tensor<1x12x16x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, causal)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x12x16x16xf32>, tensor<1x12x16x64xf32>) outs(%f_o : tensor<1x12x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x64xf32>
  return %o : tensor<1x12x16x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// Decoding with a KV cache: 8 new queries against 24 keys, the mask aligned
// to the bottom right (j <= i + 16).
// CHECK-LABEL: func.func @causal_bottom_right
// CHECK: fa.attention {{.+}} {causal, mask_alignment = #fa<mask_alignment bottom_right>, scale = 1.250000e-01 : f32}
func.func @causal_bottom_right(%q: tensor<1x12x8x64xf32>, %k: tensor<1x12x24x64xf32>, %v: tensor<1x12x24x64xf32>) -> tensor<1x12x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x12x8x24xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x12x8x24xf32>) -> tensor<1x12x8x24xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x12x8x64xf32>, tensor<1x12x24x64xf32>) outs(%f_s : tensor<1x12x8x24xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x24xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<1x12x8x24xf32>) outs(%e_s : tensor<1x12x8x24xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c_scale = arith.constant 0.125 : f32
    %c0f = arith.constant 0.0 : f32
    %fill = arith.constant 0xFF800000 : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %off = arith.constant 16 : i64
    %diag = arith.addi %i64, %off : i64
    %cond = arith.cmpi sle, %j64, %diag : i64
    %x = arith.mulf %in, %c_scale : f32
    %y = arith.select %cond, %x, %fill : f32
    linalg.yield %y : f32
  } -> tensor<1x12x8x24xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<1x12x8xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x8xf32>) -> tensor<1x12x8xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x12x8x24xf32>) outs(%f_m : tensor<1x12x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x12x8x24xf32>, tensor<1x12x8xf32>) outs(%e_s : tensor<1x12x8x24xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x24xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x8xf32>) -> tensor<1x12x8xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x8x24xf32>) outs(%f_l : tensor<1x12x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x8x24xf32>, tensor<1x12x8xf32>) outs(%e_s : tensor<1x12x8x24xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x24xf32>
  %e_o = tensor.empty() : tensor<1x12x8x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<1x12x8x64xf32>) -> tensor<1x12x8x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, causal bottom_right)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x12x8x24xf32>, tensor<1x12x24x64xf32>) outs(%f_o : tensor<1x12x8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x64xf32>
  return %o : tensor<1x12x8x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
#ij = affine_map<(b, h, i, j) -> (i, j)>
// A constant additive mask (0 on and below the diagonal, -inf above).
// CHECK-LABEL: func.func @causal_additive_constant
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
func.func @causal_additive_constant(%q: tensor<1x12x8x64xf32>, %k: tensor<1x12x8x64xf32>, %v: tensor<1x12x8x64xf32>) -> tensor<1x12x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %cs = arith.constant 0.125 : f32
  %e_s = tensor.empty() : tensor<1x12x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x12x8x8xf32>) -> tensor<1x12x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x12x8x64xf32>, tensor<1x12x8x64xf32>) outs(%f_s : tensor<1x12x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x8xf32>
  %tri = arith.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #ij, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %tri : tensor<1x12x8x8xf32>, tensor<8x8xf32>) outs(%e_s : tensor<1x12x8x8xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %x = arith.mulf %in, %cs : f32
    %r = arith.addf %x, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<1x12x8xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x8xf32>) -> tensor<1x12x8xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x12x8x8xf32>) outs(%f_m : tensor<1x12x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x12x8x8xf32>, tensor<1x12x8xf32>) outs(%e_s : tensor<1x12x8x8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x8xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x8xf32>) -> tensor<1x12x8xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x8x8xf32>) outs(%f_l : tensor<1x12x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x8x8xf32>, tensor<1x12x8xf32>) outs(%e_s : tensor<1x12x8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x8xf32>
  %e_o = tensor.empty() : tensor<1x12x8x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<1x12x8x64xf32>) -> tensor<1x12x8x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, causal)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x12x8x8xf32>, tensor<1x12x8x64xf32>) outs(%f_o : tensor<1x12x8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x64xf32>
  return %o : tensor<1x12x8x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// masked_fill(mask, -1e9): finite, but each row keeps its diagonal key, so
// exp(-1e9 - rowmax) is exactly 0 as with -inf.
// CHECK-LABEL: func.func @causal_neg_1e9
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
func.func @causal_neg_1e9(%q: tensor<1x12x16x64xf32>, %k: tensor<1x12x16x64xf32>, %v: tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x12x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x12x16x16xf32>) -> tensor<1x12x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x12x16x64xf32>, tensor<1x12x16x64xf32>) outs(%f_s : tensor<1x12x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<1x12x16x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c_scale = arith.constant 0.125 : f32
    %c0f = arith.constant 0.0 : f32
    %fill = arith.constant -1.000000e+09 : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %cond = arith.cmpi ule, %j, %i : index
    %x = arith.mulf %in, %c_scale : f32
    %y = arith.select %cond, %x, %fill : f32
    linalg.yield %y : f32
  } -> tensor<1x12x16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<1x12x16xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x12x16x16xf32>) outs(%f_m : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x16x16xf32>) outs(%f_l : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %e_o = tensor.empty() : tensor<1x12x16x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, causal)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x12x16x16xf32>, tensor<1x12x16x64xf32>) outs(%f_o : tensor<1x12x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x64xf32>
  return %o : tensor<1x12x16x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// Sliding window of 4 keys, causal: hidden when j > i or j + 4 <= i.
// CHECK-LABEL: func.func @sliding_window
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32, window = array<i64: 3, 0>}
func.func @sliding_window(%q: tensor<1x12x16x64xf32>, %k: tensor<1x12x16x64xf32>, %v: tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x12x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x12x16x16xf32>) -> tensor<1x12x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x12x16x64xf32>, tensor<1x12x16x64xf32>) outs(%f_s : tensor<1x12x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<1x12x16x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c_scale = arith.constant 0.125 : f32
    %c0f = arith.constant 0.0 : f32
    %fill = arith.constant 0xFF800000 : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c4 = arith.constant 4 : index
    %lo = arith.addi %j, %c4 : index
    %past = arith.cmpi ugt, %j, %i : index
    %old = arith.cmpi ule, %lo, %i : index
    %cond = arith.ori %past, %old : i1
    %x = arith.mulf %in, %c_scale : f32
    %y = arith.select %cond, %fill, %x : f32
    linalg.yield %y : f32
  } -> tensor<1x12x16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<1x12x16xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x12x16x16xf32>) outs(%f_m : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x16x16xf32>) outs(%f_l : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %e_o = tensor.empty() : tensor<1x12x16x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, causal window [3, 0])}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x12x16x16xf32>, tensor<1x12x16x64xf32>) outs(%f_o : tensor<1x12x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x64xf32>
  return %o : tensor<1x12x16x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
#id2 = affine_map<(b, j) -> (b, j)>
#bj = affine_map<(b, h, i, j) -> (b, j)>
// A padding mask: (1 - mask) * -10000 added to the scores. It depends on
// data, so it is added in score_mod (exact, whatever the rows hold), read
// from the captured [1, Sk] mask: no [.., seq_q, seq_k] bias.
// CHECK-LABEL: func.func @padding_mask_bias
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : {{.+}} captures(%arg3 : tensor<1x16xf32>) {scale = 1.250000e-01 : f32} -> {{.+}} score_mod {
// CHECK: tensor.extract
// CHECK: arith.subf
// CHECK: arith.mulf
func.func @padding_mask_bias(%q: tensor<1x12x16x64xf32>, %k: tensor<1x12x16x64xf32>, %v: tensor<1x12x16x64xf32>, %pad: tensor<1x16xf32>) -> tensor<1x12x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %cs = arith.constant 0.125 : f32
  %e_s = tensor.empty() : tensor<1x12x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x12x16x16xf32>) -> tensor<1x12x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x12x16x64xf32>, tensor<1x12x16x64xf32>) outs(%f_s : tensor<1x12x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %m10k = arith.constant -1.000000e+04 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e_b = tensor.empty() : tensor<1x16xf32>
  %addmask = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%pad : tensor<1x16xf32>) outs(%e_b : tensor<1x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %inv = arith.subf %one, %in : f32
    %r = arith.mulf %inv, %m10k : f32
    linalg.yield %r : f32
  } -> tensor<1x16xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #bj, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %addmask : tensor<1x12x16x16xf32>, tensor<1x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %a: f32, %out: f32):
    %x = arith.mulf %in, %cs : f32
    %r = arith.addf %x, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<1x12x16xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x12x16x16xf32>) outs(%f_m : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x16x16xf32>) outs(%f_l : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %e_o = tensor.empty() : tensor<1x12x16x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, score_mod)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x12x16x16xf32>, tensor<1x12x16x64xf32>) outs(%f_o : tensor<1x12x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x64xf32>
  return %o : tensor<1x12x16x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// Gemma-2 logit soft-capping: 50 * tanh(s / 50) after the scale, then the
// causal mask.
// CHECK-LABEL: func.func @gemma2_softcap
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32, softcap = 5.000000e+01 : f32}
func.func @gemma2_softcap(%q: tensor<1x12x16x64xf32>, %k: tensor<1x12x16x64xf32>, %v: tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x12x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x12x16x16xf32>) -> tensor<1x12x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x12x16x64xf32>, tensor<1x12x16x64xf32>) outs(%f_s : tensor<1x12x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<1x12x16x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %cap = arith.constant 50.0 : f32
    %ninf0 = arith.constant 0xFF800000 : f32
    %x = arith.mulf %in, %c : f32
    %d = arith.divf %x, %cap : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %cap : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi ugt, %j, %i : index
    %r = arith.select %hide, %ninf0, %y : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<1x12x16xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x12x16x16xf32>) outs(%f_m : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x16x16xf32>) outs(%f_l : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %e_o = tensor.empty() : tensor<1x12x16x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, softcap 5.000000e+01, causal)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x12x16x16xf32>, tensor<1x12x16x64xf32>) outs(%f_o : tensor<1x12x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x64xf32>
  return %o : tensor<1x12x16x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
#b0ij = affine_map<(b, h, i, j) -> (b, 0, i, j)>
// masked_fill(~keep, -inf) on the scores with a data-dependent boolean mask:
// converted into a 0 / -inf bias operand.
// CHECK-LABEL: func.func @bool_mask_select
// CHECK: %[[B:.+]] = linalg.generic {{.+}} ins(%{{.+}} : tensor<1x1x16x16xi1>)
// CHECK: fa.attention {{.+}} bias(%[[B]] : tensor<1x1x16x16xf32>)
func.func @bool_mask_select(%q: tensor<1x12x16x64xf32>, %k: tensor<1x12x16x64xf32>, %v: tensor<1x12x16x64xf32>, %keep: tensor<1x1x16x16xi1>) -> tensor<1x12x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x12x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x12x16x16xf32>) -> tensor<1x12x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x12x16x64xf32>, tensor<1x12x16x64xf32>) outs(%f_s : tensor<1x12x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #b0ij, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %keep : tensor<1x12x16x16xf32>, tensor<1x1x16x16xi1>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %m: i1, %out: f32):
    %c = arith.constant 0.125 : f32
    %ninf0 = arith.constant 0xFF800000 : f32
    %x = arith.mulf %in, %c : f32
    %r = arith.select %m, %x, %ninf0 : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<1x12x16xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x12x16x16xf32>) outs(%f_m : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x16xf32>) -> tensor<1x12x16xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x16x16xf32>) outs(%f_l : tensor<1x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x16x16xf32>, tensor<1x12x16xf32>) outs(%e_s : tensor<1x12x16x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x16xf32>
  %e_o = tensor.empty() : tensor<1x12x16x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, boolean mask as bias)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x12x16x16xf32>, tensor<1x12x16x64xf32>) outs(%f_o : tensor<1x12x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x16x64xf32>
  return %o : tensor<1x12x16x64xf32>
}

// -----

// Two stacked causal attention layers (the second's queries are the first's
// output): both are raised, one after the other.
// CHECK-LABEL: func.func @two_layers
// CHECK: %[[O1:.+]] = fa.attention %{{.+}}, %{{.+}}, %{{.+}} : {{.+}} {causal
// CHECK: %[[O2:.+]] = fa.attention %[[O1]], %{{.+}}, %{{.+}} : {{.+}} {causal
// CHECK: return %[[O2]]
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
func.func @two_layers(%q: tensor<1x4x16x16xf32>, %k: tensor<1x4x16x16xf32>, %v: tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x4x16x16xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) outs(%f_s : tensor<1x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<1x4x16x16xf32>) outs(%e_s : tensor<1x4x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c_scale = arith.constant 0.25 : f32
    %c0f = arith.constant 0.0 : f32
    %fill = arith.constant 0xFF800000 : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %cond = arith.cmpi ule, %j, %i : index
    %x = arith.mulf %in, %c_scale : f32
    %y = arith.select %cond, %x, %fill : f32
    linalg.yield %y : f32
  } -> tensor<1x4x16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<1x4x16xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x4x16x16xf32>) outs(%f_m : tensor<1x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x4x16xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x4x16x16xf32>, tensor<1x4x16xf32>) outs(%e_s : tensor<1x4x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x4x16x16xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x4x16x16xf32>) outs(%f_l : tensor<1x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x4x16xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x4x16x16xf32>, tensor<1x4x16xf32>) outs(%e_s : tensor<1x4x16x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x4x16x16xf32>
  %e_o = tensor.empty() : tensor<1x4x16x16xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 2.500000e-01, causal)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) outs(%f_o : tensor<1x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x16x16xf32>
  
  %zero_2 = arith.constant 0.0 : f32
  %e_s_2 = tensor.empty() : tensor<1x4x16x16xf32>
  %f_s_2 = linalg.fill ins(%zero_2 : f32) outs(%e_s_2 : tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
  %qk_2 = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%o, %k : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) outs(%f_s_2 : tensor<1x4x16x16xf32>) {
  ^bb0(%a_2: f32, %b_2: f32, %c_2: f32):
    %m_2 = arith.mulf %a_2, %b_2 : f32
    %r_2 = arith.addf %c_2, %m_2 : f32
    linalg.yield %r_2 : f32
  } -> tensor<1x4x16x16xf32>
  %masked_2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk_2 : tensor<1x4x16x16xf32>) outs(%e_s_2 : tensor<1x4x16x16xf32>) {
  ^bb0(%in_2: f32, %out_2: f32):
    %c_scale_2 = arith.constant 0.25 : f32
    %c0f_2 = arith.constant 0.0 : f32
    %fill_2 = arith.constant 0xFF800000 : f32
    %i_2 = linalg.index 2 : index
    %j_2 = linalg.index 3 : index
    %cond_2 = arith.cmpi ule, %j_2, %i_2 : index
    %x_2 = arith.mulf %in_2, %c_scale_2 : f32
    %y_2 = arith.select %cond_2, %x_2, %fill_2 : f32
    linalg.yield %y_2 : f32
  } -> tensor<1x4x16x16xf32>
  %ninf_2 = arith.constant 0xFF800000 : f32
  %e_r_2 = tensor.empty() : tensor<1x4x16xf32>
  %f_m_2 = linalg.fill ins(%ninf_2 : f32) outs(%e_r_2 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %mx_2 = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked_2 : tensor<1x4x16x16xf32>) outs(%f_m_2 : tensor<1x4x16xf32>) {
  ^bb0(%in_2: f32, %out_2: f32):
    %r_2 = arith.maximumf %in_2, %out_2 : f32
    linalg.yield %r_2 : f32
  } -> tensor<1x4x16xf32>
  %ex_2 = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked_2, %mx_2 : tensor<1x4x16x16xf32>, tensor<1x4x16xf32>) outs(%e_s_2 : tensor<1x4x16x16xf32>) {
  ^bb0(%in_2: f32, %m_2: f32, %out_2: f32):
    %d_2 = arith.subf %in_2, %m_2 : f32
    %r_2 = math.exp %d_2 : f32
    linalg.yield %r_2 : f32
  } -> tensor<1x4x16x16xf32>
  %f_l_2 = linalg.fill ins(%zero_2 : f32) outs(%e_r_2 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %l_2 = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex_2 : tensor<1x4x16x16xf32>) outs(%f_l_2 : tensor<1x4x16xf32>) {
  ^bb0(%in_2: f32, %out_2: f32):
    %r_2 = arith.addf %in_2, %out_2 : f32
    linalg.yield %r_2 : f32
  } -> tensor<1x4x16xf32>
  %p_2 = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex_2, %l_2 : tensor<1x4x16x16xf32>, tensor<1x4x16xf32>) outs(%e_s_2 : tensor<1x4x16x16xf32>) {
  ^bb0(%in_2: f32, %s_2: f32, %out_2: f32):
    %r_2 = arith.divf %in_2, %s_2 : f32
    linalg.yield %r_2 : f32
  } -> tensor<1x4x16x16xf32>
  %e_o_2 = tensor.empty() : tensor<1x4x16x16xf32>
  %f_o_2 = linalg.fill ins(%zero_2 : f32) outs(%e_o_2 : tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 2.500000e-01, causal)}}
  %o_2 = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p_2, %v : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) outs(%f_o_2 : tensor<1x4x16x16xf32>) {
  ^bb0(%a_2: f32, %b_2: f32, %c_2: f32):
    %m_2 = arith.mulf %a_2, %b_2 : f32
    %r_2 = arith.addf %c_2, %m_2 : f32
    linalg.yield %r_2 : f32
  } -> tensor<1x4x16x16xf32>
    return %o_2 : tensor<1x4x16x16xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
#ij = affine_map<(b, h, i, j) -> (i, j)>
// An additive constant mask with -1e9 above the diagonal: finite, but every
// row keeps its diagonal key, so it is exactly causal.
// CHECK-LABEL: func.func @causal_additive_neg_1e9
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
func.func @causal_additive_neg_1e9(%q: tensor<1x12x8x64xf32>, %k: tensor<1x12x8x64xf32>, %v: tensor<1x12x8x64xf32>) -> tensor<1x12x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x12x8x8xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x12x8x8xf32>) -> tensor<1x12x8x8xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x12x8x64xf32>, tensor<1x12x8x64xf32>) outs(%f_s : tensor<1x12x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x8xf32>
  %tri = arith.constant dense<[[0.0, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.0, 0.0, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.0, 0.0, 0.0, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.0, 0.0, 0.0, 0.0, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.0, 0.0, 0.0, 0.0, 0.0, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.000000e+09, -1.000000e+09], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.000000e+09], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #ij, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %tri : tensor<1x12x8x8xf32>, tensor<8x8xf32>) outs(%e_s : tensor<1x12x8x8xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %cs = arith.constant 0.125 : f32
    %x = arith.mulf %in, %cs : f32
    %r = arith.addf %x, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e_r = tensor.empty() : tensor<1x12x8xf32>
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x8xf32>) -> tensor<1x12x8xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x12x8x8xf32>) outs(%f_m : tensor<1x12x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x12x8x8xf32>, tensor<1x12x8xf32>) outs(%e_s : tensor<1x12x8x8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x8xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x8xf32>) -> tensor<1x12x8xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x8x8xf32>) outs(%f_l : tensor<1x12x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x8x8xf32>, tensor<1x12x8xf32>) outs(%e_s : tensor<1x12x8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x8xf32>
  %e_o = tensor.empty() : tensor<1x12x8x64xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<1x12x8x64xf32>) -> tensor<1x12x8x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, causal)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x12x8x8xf32>, tensor<1x12x8x64xf32>) outs(%f_o : tensor<1x12x8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8x64xf32>
  return %o : tensor<1x12x8x64xf32>
}
