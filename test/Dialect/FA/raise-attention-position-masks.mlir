// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Masks as transformers' masking_utils builds them (issue 34 item 1): arange
// index tensors, `kv_idx <= q_idx` (causal), `q_idx - kv_idx < window`
// (sliding), `attention_mask[batch_idx, kv_idx]` read by tensor.extract at
// computed indices (padding), ANDed, then where(mask, 0, fill) added to the
// scores. The positional part becomes causal / window, the padding a
// condition on the [B, Sk] input read at (batch, key) in mask_mod (-inf, or
// a finite fill with the mean-of-V rows) or score_mod (a finite fill alone),
// the input captured: nothing [.., Sq, Sk] is made that the program does not
// take. test/Execution/raise-position-masks.py runs
// the raised ones against the original.

// -----

// sdpa: causal AND padding, -inf fill: causal attribute and mask_mod reading
// %am at (batch, key) through the same != 0; no bias operand.
// CHECK-LABEL: func.func @hf_sdpa_causal_padding
// CHECK-NOT: linalg.generic
// CHECK: fa.attention {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} : {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} captures(%arg3 : tensor<2x16xi64>) {causal, scale = 1.250000e-01 : f32} -> tensor<2x2x16x8xf32> mask_mod {
// CHECK-NEXT: ^bb0(%[[B:[^:]+]]: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %[[J:[^:]+]]: index, %[[M:[^:]+]]: tensor<2x16xi64>):
// CHECK-NEXT: %[[X:.+]] = tensor.extract %[[M]][%[[B]], %[[J]]] : tensor<2x16xi64>
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[NZ:.+]] = arith.cmpi ne, %[[X]], %[[Z]] : i64
// CHECK-NEXT: fa.yield %[[NZ]] : i1
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @hf_sdpa_causal_padding(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x2x16x8xf32> {
  %e_kv_ar = tensor.empty() : tensor<16xi64>
  %kv_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_kv_ar : tensor<16xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<16xi64>
  %e_b_ar = tensor.empty() : tensor<2xi64>
  %b_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_b_ar : tensor<2xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<2xi64>
  %c0_i64 = arith.constant 0 : i64
  %bexp = tensor.expand_shape %b_ar [[0, 1, 2, 3]] output_shape [2, 1, 1, 1] : tensor<2xi64> into tensor<2x1x1x1xi64>
  %qexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 16, 1] : tensor<16xi64> into tensor<1x1x16x1xi64>
  %kexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 1, 16] : tensor<16xi64> into tensor<1x1x1x16xi64>
  %e_pos = tensor.empty() : tensor<1x1x16x16xi1>
  %pos = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kexp, %qexp : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>) outs(%e_pos : tensor<1x1x16x16xi1>) {
  ^bb0(%kv: i64, %qv: i64, %o: i1):
  %c = arith.cmpi sle, %kv, %qv : i64
  linalg.yield %c : i1
  } -> tensor<1x1x16x16xi1>
  %e_nz = tensor.empty() : tensor<2x16xi1>
  %nz = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%am : tensor<2x16xi64>) outs(%e_nz : tensor<2x16xi1>) {
  ^bb0(%in: i64, %o: i1):
  %z = arith.constant 0 : i64
  %c = arith.cmpi ne, %in, %z : i64
  linalg.yield %c : i1
  } -> tensor<2x16xi1>
  %e_padm = tensor.empty() : tensor<2x1x1x16xi1>
  %padm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bexp, %kexp : tensor<2x1x1x1xi64>, tensor<1x1x1x16xi64>) outs(%e_padm : tensor<2x1x1x16xi1>) {
  ^bb0(%bi: i64, %ki: i64, %o: i1):
  %z = arith.constant 0 : i64
  %nb = arith.constant 2 : i64
  %ns = arith.constant 16 : i64
  %bneg = arith.cmpi slt, %bi, %z : i64
  %bw = arith.addi %bi, %nb : i64
  %bs = arith.select %bneg, %bw, %bi : i64
  %bix = arith.index_cast %bs : i64 to index
  %kneg = arith.cmpi slt, %ki, %z : i64
  %kw = arith.addi %ki, %ns : i64
  %ks = arith.select %kneg, %kw, %ki : i64
  %kix = arith.index_cast %ks : i64 to index
  %pv = tensor.extract %nz[%bix, %kix] : tensor<2x16xi1>
  linalg.yield %pv : i1
  } -> tensor<2x1x1x16xi1>
  %e_mask = tensor.empty() : tensor<2x1x16x16xi1>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pos, %padm : tensor<1x1x16x16xi1>, tensor<2x1x1x16xi1>) outs(%e_mask : tensor<2x1x16x16xi1>) {
  ^bb0(%p: i1, %pd: i1, %o: i1):
  %c = arith.andi %p, %pd : i1
  linalg.yield %c : i1
  } -> tensor<2x1x16x16xi1>
  %e_maskf = tensor.empty() : tensor<2x1x16x16xf32>
  %maskf = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask : tensor<2x1x16x16xi1>) outs(%e_maskf : tensor<2x1x16x16xf32>) {
  ^bb0(%m: i1, %o: f32):
  %z = arith.constant 0.0 : f32
  %f = arith.constant 0xFF800000 : f32
  %r = arith.select %m, %z, %f : f32
  linalg.yield %r : f32
  } -> tensor<2x1x16x16xf32>
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2x16x16xf32>) -> tensor<2x2x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) outs(%fs : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, h, i, j) -> (b, i)>, affine_map<(b, h, i, j) -> (b, 0, i, j)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %am, %maskf : tensor<2x2x16x16xf32>, tensor<2x16xi64>, tensor<2x1x16x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: i64, %in1: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %x = arith.addf %s, %in1 : f32
    linalg.yield %x : f32
  } -> tensor<2x2x16x16xf32>
  %er = tensor.empty() : tensor<2x2x16xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x16x16xf32>) outs(%fm : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x16x16xf32>) outs(%fl : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %eo = tensor.empty() : tensor<2x2x16x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x2x16x8xf32>) -> tensor<2x2x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal, key padding mask, mask_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// A sliding window of 4 (Mistral) with causal and padding.
// CHECK-LABEL: func.func @hf_sdpa_sliding_padding
// CHECK: fa.attention {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} : {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} captures(%arg3 : tensor<2x16xi64>) {causal, scale = 1.250000e-01 : f32, window = array<i64: 3, 0>} -> tensor<2x2x16x8xf32> mask_mod {
// CHECK: tensor.extract {{.+}} : tensor<2x16xi64>
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @hf_sdpa_sliding_padding(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x2x16x8xf32> {
  %e_kv_ar = tensor.empty() : tensor<16xi64>
  %kv_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_kv_ar : tensor<16xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<16xi64>
  %e_b_ar = tensor.empty() : tensor<2xi64>
  %b_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_b_ar : tensor<2xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<2xi64>
  %c0_i64 = arith.constant 0 : i64
  %bexp = tensor.expand_shape %b_ar [[0, 1, 2, 3]] output_shape [2, 1, 1, 1] : tensor<2xi64> into tensor<2x1x1x1xi64>
  %qexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 16, 1] : tensor<16xi64> into tensor<1x1x16x1xi64>
  %kexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 1, 16] : tensor<16xi64> into tensor<1x1x1x16xi64>
  %e_pos = tensor.empty() : tensor<1x1x16x16xi1>
  %pos = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kexp, %qexp : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>) outs(%e_pos : tensor<1x1x16x16xi1>) {
  ^bb0(%kv: i64, %qv: i64, %o: i1):
  %le = arith.cmpi sle, %kv, %qv : i64
  %d = arith.subi %qv, %kv : i64
  %w = arith.constant 4 : i64
  %near = arith.cmpi slt, %d, %w : i64
  %c = arith.andi %le, %near : i1
  linalg.yield %c : i1
  } -> tensor<1x1x16x16xi1>
  %e_nz = tensor.empty() : tensor<2x16xi1>
  %nz = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%am : tensor<2x16xi64>) outs(%e_nz : tensor<2x16xi1>) {
  ^bb0(%in: i64, %o: i1):
  %z = arith.constant 0 : i64
  %c = arith.cmpi ne, %in, %z : i64
  linalg.yield %c : i1
  } -> tensor<2x16xi1>
  %e_padm = tensor.empty() : tensor<2x1x1x16xi1>
  %padm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bexp, %kexp : tensor<2x1x1x1xi64>, tensor<1x1x1x16xi64>) outs(%e_padm : tensor<2x1x1x16xi1>) {
  ^bb0(%bi: i64, %ki: i64, %o: i1):
  %z = arith.constant 0 : i64
  %nb = arith.constant 2 : i64
  %ns = arith.constant 16 : i64
  %bneg = arith.cmpi slt, %bi, %z : i64
  %bw = arith.addi %bi, %nb : i64
  %bs = arith.select %bneg, %bw, %bi : i64
  %bix = arith.index_cast %bs : i64 to index
  %kneg = arith.cmpi slt, %ki, %z : i64
  %kw = arith.addi %ki, %ns : i64
  %ks = arith.select %kneg, %kw, %ki : i64
  %kix = arith.index_cast %ks : i64 to index
  %pv = tensor.extract %nz[%bix, %kix] : tensor<2x16xi1>
  linalg.yield %pv : i1
  } -> tensor<2x1x1x16xi1>
  %e_mask = tensor.empty() : tensor<2x1x16x16xi1>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pos, %padm : tensor<1x1x16x16xi1>, tensor<2x1x1x16xi1>) outs(%e_mask : tensor<2x1x16x16xi1>) {
  ^bb0(%p: i1, %pd: i1, %o: i1):
  %c = arith.andi %p, %pd : i1
  linalg.yield %c : i1
  } -> tensor<2x1x16x16xi1>
  %e_maskf = tensor.empty() : tensor<2x1x16x16xf32>
  %maskf = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask : tensor<2x1x16x16xi1>) outs(%e_maskf : tensor<2x1x16x16xf32>) {
  ^bb0(%m: i1, %o: f32):
  %z = arith.constant 0.0 : f32
  %f = arith.constant 0xFF800000 : f32
  %r = arith.select %m, %z, %f : f32
  linalg.yield %r : f32
  } -> tensor<2x1x16x16xf32>
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2x16x16xf32>) -> tensor<2x2x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) outs(%fs : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, h, i, j) -> (b, i)>, affine_map<(b, h, i, j) -> (b, 0, i, j)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %am, %maskf : tensor<2x2x16x16xf32>, tensor<2x16xi64>, tensor<2x1x16x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: i64, %in1: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %x = arith.addf %s, %in1 : f32
    linalg.yield %x : f32
  } -> tensor<2x2x16x16xf32>
  %er = tensor.empty() : tensor<2x2x16xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x16x16xf32>) outs(%fm : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x16x16xf32>) outs(%fl : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %eo = tensor.empty() : tensor<2x2x16x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x2x16x8xf32>) -> tensor<2x2x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal window [3, 0], key padding mask, mask_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// eager: the same with finfo.min. A row whose keys are all hidden averages V
// over every key in the original (finfo.min absorbs the scores): causal, the
// padding in mask_mod, and those rows replaced by the mean of V
// (Raising/EmptyRows.cpp): a reduction over the keys that evaluates the
// padding read, no [.., Sq, Sk] result.
// CHECK-LABEL: func.func @hf_eager_causal_padding
// CHECK: %[[O:.+]] = fa.attention {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} : {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} captures(%arg3 : tensor<2x16xi64>) {causal, scale = 1.250000e-01 : f32} -> tensor<2x2x16x8xf32> mask_mod {
// CHECK: %[[K:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.+}} : tensor<16xi1>) outs(%{{.+}} : tensor<2x2x16xi1>)
// CHECK: tensor.extract %arg3
// CHECK: %[[S:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.+}} : tensor<2x2x16x8xf32>) outs(%{{.+}} : tensor<2x2x8xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[O]], %[[K]] : tensor<2x2x16x8xf32>, tensor<2x2x16xi1>)
// CHECK: tensor.extract %[[S]]
// CHECK: arith.select
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @hf_eager_causal_padding(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x2x16x8xf32> {
  %e_kv_ar = tensor.empty() : tensor<16xi64>
  %kv_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_kv_ar : tensor<16xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<16xi64>
  %e_b_ar = tensor.empty() : tensor<2xi64>
  %b_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_b_ar : tensor<2xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<2xi64>
  %c0_i64 = arith.constant 0 : i64
  %bexp = tensor.expand_shape %b_ar [[0, 1, 2, 3]] output_shape [2, 1, 1, 1] : tensor<2xi64> into tensor<2x1x1x1xi64>
  %qexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 16, 1] : tensor<16xi64> into tensor<1x1x16x1xi64>
  %kexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 1, 16] : tensor<16xi64> into tensor<1x1x1x16xi64>
  %e_pos = tensor.empty() : tensor<1x1x16x16xi1>
  %pos = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kexp, %qexp : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>) outs(%e_pos : tensor<1x1x16x16xi1>) {
  ^bb0(%kv: i64, %qv: i64, %o: i1):
  %c = arith.cmpi sle, %kv, %qv : i64
  linalg.yield %c : i1
  } -> tensor<1x1x16x16xi1>
  %e_nz = tensor.empty() : tensor<2x16xi1>
  %nz = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%am : tensor<2x16xi64>) outs(%e_nz : tensor<2x16xi1>) {
  ^bb0(%in: i64, %o: i1):
  %z = arith.constant 0 : i64
  %c = arith.cmpi ne, %in, %z : i64
  linalg.yield %c : i1
  } -> tensor<2x16xi1>
  %e_padm = tensor.empty() : tensor<2x1x1x16xi1>
  %padm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bexp, %kexp : tensor<2x1x1x1xi64>, tensor<1x1x1x16xi64>) outs(%e_padm : tensor<2x1x1x16xi1>) {
  ^bb0(%bi: i64, %ki: i64, %o: i1):
  %z = arith.constant 0 : i64
  %nb = arith.constant 2 : i64
  %ns = arith.constant 16 : i64
  %bneg = arith.cmpi slt, %bi, %z : i64
  %bw = arith.addi %bi, %nb : i64
  %bs = arith.select %bneg, %bw, %bi : i64
  %bix = arith.index_cast %bs : i64 to index
  %kneg = arith.cmpi slt, %ki, %z : i64
  %kw = arith.addi %ki, %ns : i64
  %ks = arith.select %kneg, %kw, %ki : i64
  %kix = arith.index_cast %ks : i64 to index
  %pv = tensor.extract %nz[%bix, %kix] : tensor<2x16xi1>
  linalg.yield %pv : i1
  } -> tensor<2x1x1x16xi1>
  %e_mask = tensor.empty() : tensor<2x1x16x16xi1>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pos, %padm : tensor<1x1x16x16xi1>, tensor<2x1x1x16xi1>) outs(%e_mask : tensor<2x1x16x16xi1>) {
  ^bb0(%p: i1, %pd: i1, %o: i1):
  %c = arith.andi %p, %pd : i1
  linalg.yield %c : i1
  } -> tensor<2x1x16x16xi1>
  %e_maskf = tensor.empty() : tensor<2x1x16x16xf32>
  %maskf = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask : tensor<2x1x16x16xi1>) outs(%e_maskf : tensor<2x1x16x16xf32>) {
  ^bb0(%m: i1, %o: f32):
  %z = arith.constant 0.0 : f32
  %f = arith.constant -3.40282347E+38 : f32
  %r = arith.select %m, %z, %f : f32
  linalg.yield %r : f32
  } -> tensor<2x1x16x16xf32>
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2x16x16xf32>) -> tensor<2x2x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) outs(%fs : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, h, i, j) -> (b, i)>, affine_map<(b, h, i, j) -> (b, 0, i, j)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %am, %maskf : tensor<2x2x16x16xf32>, tensor<2x16xi64>, tensor<2x1x16x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: i64, %in1: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %x = arith.addf %s, %in1 : f32
    linalg.yield %x : f32
  } -> tensor<2x2x16x16xf32>
  %er = tensor.empty() : tensor<2x2x16xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x16x16xf32>) outs(%fm : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x16x16xf32>) outs(%fl : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %eo = tensor.empty() : tensor<2x2x16x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x2x16x8xf32>) -> tensor<2x2x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal, key padding mask, mask_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// eager BERT: padding alone with finfo.min is exact added with that fill in
// score_mod (a row the padding hides entirely is uniform there too).
// CHECK-LABEL: func.func @hf_eager_padding_only
// CHECK: fa.attention {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} : {{[^ ]+}}, {{[^ ]+}}, {{[^ ]+}} captures(%arg3 : tensor<2x16xi64>) {scale = 1.250000e-01 : f32} -> tensor<2x2x16x8xf32> score_mod {
// CHECK-NEXT: ^bb0(%[[S:[^:]+]]: f32, %[[B:[^:]+]]: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %[[J:[^:]+]]: index, %[[M:[^:]+]]: tensor<2x16xi64>):
// CHECK-NEXT: %[[X:.+]] = tensor.extract %[[M]][%[[B]], %[[J]]] : tensor<2x16xi64>
// CHECK: %[[NZ:.+]] = arith.cmpi ne, %[[X]]
// CHECK: %[[F:.+]] = arith.constant -3.40282347E+38 : f32
// CHECK: %[[T:.+]] = arith.select %[[NZ]], %{{.+}}, %[[F]] : f32
// CHECK: %[[R:.+]] = arith.addf %[[S]], %[[T]] : f32
// CHECK: fa.yield %[[R]] : f32
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @hf_eager_padding_only(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x2x16x8xf32> {
  %e_kv_ar = tensor.empty() : tensor<16xi64>
  %kv_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_kv_ar : tensor<16xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<16xi64>
  %e_b_ar = tensor.empty() : tensor<2xi64>
  %b_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_b_ar : tensor<2xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<2xi64>
  %c0_i64 = arith.constant 0 : i64
  %bexp = tensor.expand_shape %b_ar [[0, 1, 2, 3]] output_shape [2, 1, 1, 1] : tensor<2xi64> into tensor<2x1x1x1xi64>
  %qexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 16, 1] : tensor<16xi64> into tensor<1x1x16x1xi64>
  %kexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 1, 16] : tensor<16xi64> into tensor<1x1x1x16xi64>
  %e_pos = tensor.empty() : tensor<1x1x16x16xi1>
  %pos = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kexp, %qexp : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>) outs(%e_pos : tensor<1x1x16x16xi1>) {
  ^bb0(%kv: i64, %qv: i64, %o: i1):
  %c = arith.cmpi sle, %kv, %qv : i64
  linalg.yield %c : i1
  } -> tensor<1x1x16x16xi1>
  %e_nz = tensor.empty() : tensor<2x16xi1>
  %nz = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%am : tensor<2x16xi64>) outs(%e_nz : tensor<2x16xi1>) {
  ^bb0(%in: i64, %o: i1):
  %z = arith.constant 0 : i64
  %c = arith.cmpi ne, %in, %z : i64
  linalg.yield %c : i1
  } -> tensor<2x16xi1>
  %e_padm = tensor.empty() : tensor<2x1x1x16xi1>
  %padm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bexp, %kexp : tensor<2x1x1x1xi64>, tensor<1x1x1x16xi64>) outs(%e_padm : tensor<2x1x1x16xi1>) {
  ^bb0(%bi: i64, %ki: i64, %o: i1):
  %z = arith.constant 0 : i64
  %nb = arith.constant 2 : i64
  %ns = arith.constant 16 : i64
  %bneg = arith.cmpi slt, %bi, %z : i64
  %bw = arith.addi %bi, %nb : i64
  %bs = arith.select %bneg, %bw, %bi : i64
  %bix = arith.index_cast %bs : i64 to index
  %kneg = arith.cmpi slt, %ki, %z : i64
  %kw = arith.addi %ki, %ns : i64
  %ks = arith.select %kneg, %kw, %ki : i64
  %kix = arith.index_cast %ks : i64 to index
  %pv = tensor.extract %nz[%bix, %kix] : tensor<2x16xi1>
  linalg.yield %pv : i1
  } -> tensor<2x1x1x16xi1>
  %e_mask = tensor.empty() : tensor<2x1x16x16xi1>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%padm : tensor<2x1x1x16xi1>) outs(%e_mask : tensor<2x1x16x16xi1>) {
  ^bb0(%pd: i1, %o: i1):
  linalg.yield %pd : i1
  } -> tensor<2x1x16x16xi1>
  %e_maskf = tensor.empty() : tensor<2x1x16x16xf32>
  %maskf = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask : tensor<2x1x16x16xi1>) outs(%e_maskf : tensor<2x1x16x16xf32>) {
  ^bb0(%m: i1, %o: f32):
  %z = arith.constant 0.0 : f32
  %f = arith.constant -3.40282347E+38 : f32
  %r = arith.select %m, %z, %f : f32
  linalg.yield %r : f32
  } -> tensor<2x1x16x16xf32>
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2x16x16xf32>) -> tensor<2x2x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) outs(%fs : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, h, i, j) -> (b, i)>, affine_map<(b, h, i, j) -> (b, 0, i, j)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %am, %maskf : tensor<2x2x16x16xf32>, tensor<2x16xi64>, tensor<2x1x16x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: i64, %in1: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %x = arith.addf %s, %in1 : f32
    linalg.yield %x : f32
  } -> tensor<2x2x16x16xf32>
  %er = tensor.empty() : tensor<2x2x16xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x16x16xf32>) outs(%fm : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x16x16xf32>) outs(%fl : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %eo = tensor.empty() : tensor<2x2x16x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x2x16x8xf32>) -> tensor<2x2x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, key padding mask, score_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// The mask read at the query, not the key: no key padding. Not materialized
// as a [2, 1, 16, 16] bias: the [B, S] mask is captured and read at
// (batch, query) in mask_mod, at the indices the program computes.
// CHECK-LABEL: func.func @padding_read_at_query
// CHECK: fa.attention {{.+}} captures(%arg3 : tensor<2x16xi64>) {causal, scale = 1.250000e-01 : f32} -> {{.+}} mask_mod {
// CHECK-NEXT: ^bb0(%[[B:.+]]: index, %{{.+}}: index, %[[I:.+]]: index, %{{.+}}: index, %[[M:.+]]: tensor<2x16xi64>):
// CHECK: arith.index_cast %[[I]]
// CHECK: tensor.extract %[[M]]
// CHECK: arith.cmpi ne
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @padding_read_at_query(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x2x16x8xf32> {
  %e_kv_ar = tensor.empty() : tensor<16xi64>
  %kv_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_kv_ar : tensor<16xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<16xi64>
  %e_b_ar = tensor.empty() : tensor<2xi64>
  %b_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_b_ar : tensor<2xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<2xi64>
  %c0_i64 = arith.constant 0 : i64
  %bexp = tensor.expand_shape %b_ar [[0, 1, 2, 3]] output_shape [2, 1, 1, 1] : tensor<2xi64> into tensor<2x1x1x1xi64>
  %qexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 16, 1] : tensor<16xi64> into tensor<1x1x16x1xi64>
  %kexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 1, 16] : tensor<16xi64> into tensor<1x1x1x16xi64>
  %e_pos = tensor.empty() : tensor<1x1x16x16xi1>
  %pos = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kexp, %qexp : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>) outs(%e_pos : tensor<1x1x16x16xi1>) {
  ^bb0(%kv: i64, %qv: i64, %o: i1):
  %c = arith.cmpi sle, %kv, %qv : i64
  linalg.yield %c : i1
  } -> tensor<1x1x16x16xi1>
  %e_nz = tensor.empty() : tensor<2x16xi1>
  %nz = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%am : tensor<2x16xi64>) outs(%e_nz : tensor<2x16xi1>) {
  ^bb0(%in: i64, %o: i1):
  %z = arith.constant 0 : i64
  %c = arith.cmpi ne, %in, %z : i64
  linalg.yield %c : i1
  } -> tensor<2x16xi1>
  %e_padm = tensor.empty() : tensor<2x1x16x1xi1>
  %padm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (0, 0, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bexp, %qexp : tensor<2x1x1x1xi64>, tensor<1x1x16x1xi64>) outs(%e_padm : tensor<2x1x16x1xi1>) {
  ^bb0(%bi: i64, %ki: i64, %o: i1):
  %z = arith.constant 0 : i64
  %nb = arith.constant 2 : i64
  %ns = arith.constant 16 : i64
  %bneg = arith.cmpi slt, %bi, %z : i64
  %bw = arith.addi %bi, %nb : i64
  %bs = arith.select %bneg, %bw, %bi : i64
  %bix = arith.index_cast %bs : i64 to index
  %kneg = arith.cmpi slt, %ki, %z : i64
  %kw = arith.addi %ki, %ns : i64
  %ks = arith.select %kneg, %kw, %ki : i64
  %kix = arith.index_cast %ks : i64 to index
  %pv = tensor.extract %nz[%bix, %kix] : tensor<2x16xi1>
  linalg.yield %pv : i1
  } -> tensor<2x1x16x1xi1>
  %e_mask = tensor.empty() : tensor<2x1x16x16xi1>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pos, %padm : tensor<1x1x16x16xi1>, tensor<2x1x16x1xi1>) outs(%e_mask : tensor<2x1x16x16xi1>) {
  ^bb0(%p: i1, %pd: i1, %o: i1):
  %c = arith.andi %p, %pd : i1
  linalg.yield %c : i1
  } -> tensor<2x1x16x16xi1>
  %e_maskf = tensor.empty() : tensor<2x1x16x16xf32>
  %maskf = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask : tensor<2x1x16x16xi1>) outs(%e_maskf : tensor<2x1x16x16xf32>) {
  ^bb0(%m: i1, %o: f32):
  %z = arith.constant 0.0 : f32
  %f = arith.constant 0xFF800000 : f32
  %r = arith.select %m, %z, %f : f32
  linalg.yield %r : f32
  } -> tensor<2x1x16x16xf32>
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2x16x16xf32>) -> tensor<2x2x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) outs(%fs : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, h, i, j) -> (b, i)>, affine_map<(b, h, i, j) -> (b, 0, i, j)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %am, %maskf : tensor<2x2x16x16xf32>, tensor<2x16xi64>, tensor<2x1x16x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: i64, %in1: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %x = arith.addf %s, %in1 : f32
    linalg.yield %x : f32
  } -> tensor<2x2x16x16xf32>
  %er = tensor.empty() : tensor<2x2x16xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x16x16xf32>) outs(%fm : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x16x16xf32>) outs(%fl : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %eo = tensor.empty() : tensor<2x2x16x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x2x16x8xf32>) -> tensor<2x2x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal, mask_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// Gemma-2: the softcap's tanh, then the mask added (causal, finfo.min).
// CHECK-LABEL: func.func @gemma2_mask_after_softcap
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32, softcap = 5.000000e+01 : f32}
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @gemma2_mask_after_softcap(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x2x16x8xf32> {
  %e_kv_ar = tensor.empty() : tensor<16xi64>
  %kv_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_kv_ar : tensor<16xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<16xi64>
  %e_b_ar = tensor.empty() : tensor<2xi64>
  %b_ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_b_ar : tensor<2xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<2xi64>
  %c0_i64 = arith.constant 0 : i64
  %bexp = tensor.expand_shape %b_ar [[0, 1, 2, 3]] output_shape [2, 1, 1, 1] : tensor<2xi64> into tensor<2x1x1x1xi64>
  %qexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 16, 1] : tensor<16xi64> into tensor<1x1x16x1xi64>
  %kexp = tensor.expand_shape %kv_ar [[0, 1, 2, 3]] output_shape [1, 1, 1, 16] : tensor<16xi64> into tensor<1x1x1x16xi64>
  %e_pos = tensor.empty() : tensor<1x1x16x16xi1>
  %pos = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kexp, %qexp : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>) outs(%e_pos : tensor<1x1x16x16xi1>) {
  ^bb0(%kv: i64, %qv: i64, %o: i1):
  %c = arith.cmpi sle, %kv, %qv : i64
  linalg.yield %c : i1
  } -> tensor<1x1x16x16xi1>
  %e_mask = tensor.empty() : tensor<2x1x16x16xi1>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pos : tensor<1x1x16x16xi1>) outs(%e_mask : tensor<2x1x16x16xi1>) {
  ^bb0(%p: i1, %o: i1):
  linalg.yield %p : i1
  } -> tensor<2x1x16x16xi1>
  %e_maskf = tensor.empty() : tensor<2x1x16x16xf32>
  %maskf = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask : tensor<2x1x16x16xi1>) outs(%e_maskf : tensor<2x1x16x16xf32>) {
  ^bb0(%m: i1, %o: f32):
  %z = arith.constant 0.0 : f32
  %f = arith.constant -3.40282347E+38 : f32
  %r = arith.select %m, %z, %f : f32
  linalg.yield %r : f32
  } -> tensor<2x1x16x16xf32>
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2x16x16xf32>) -> tensor<2x2x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) outs(%fs : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, h, i, j) -> (b, i)>, affine_map<(b, h, i, j) -> (b, 0, i, j)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %am, %maskf : tensor<2x2x16x16xf32>, tensor<2x16xi64>, tensor<2x1x16x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: i64, %in1: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %cap = arith.constant 50.0 : f32
    %t = arith.divf %s, %cap : f32
    %th = math.tanh %t : f32
    %sc2 = arith.mulf %th, %cap : f32
    %x = arith.addf %sc2, %in1 : f32
    linalg.yield %x : f32
  } -> tensor<2x2x16x16xf32>
  %er = tensor.empty() : tensor<2x2x16xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x16x16xf32>) outs(%fm : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x16x16xf32>) outs(%fl : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %eo = tensor.empty() : tensor<2x2x16x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x2x16x8xf32>) -> tensor<2x2x16x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, softcap 5.000000e+01, causal)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// Gemma-2 with a data bias after the softcap: fa.attention adds its bias
// before the softcap.
// CHECK-LABEL: func.func @gemma2_bias_after_softcap
// CHECK-NOT: fa.attention
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @gemma2_bias_after_softcap(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %am: tensor<2x16xi64>, %bias: tensor<2x1x16x16xf32>) -> tensor<2x2x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2x16x16xf32>) -> tensor<2x2x16x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) outs(%fs : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, h, i, j) -> (b, i)>, affine_map<(b, h, i, j) -> (b, 0, i, j)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %am, %bias : tensor<2x2x16x16xf32>, tensor<2x16xi64>, tensor<2x1x16x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: i64, %in1: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %cap = arith.constant 50.0 : f32
    %t = arith.divf %s, %cap : f32
    %th = math.tanh %t : f32
    %sc2 = arith.mulf %th, %cap : f32
    %x = arith.addf %sc2, %in1 : f32
    linalg.yield %x : f32
  } -> tensor<2x2x16x16xf32>
  %er = tensor.empty() : tensor<2x2x16xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x16x16xf32>) outs(%fm : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x16x16xf32>) outs(%fl : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x16x16xf32>, tensor<2x2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %eo = tensor.empty() : tensor<2x2x16x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x2x16x8xf32>) -> tensor<2x2x16x8xf32>
  // expected-remark @+1 {{attention not raised: a bias added after the softcap that is no mask (fa.attention adds its bias before the softcap)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}
