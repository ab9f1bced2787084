// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// Masks whose positions the program computes (issue 34 item 1): transformers
// reads cache positions, position ids and packed-sequence ids with
// tensor.extract from tensors that linalg generics, slices, concatenations and
// tm_tensor.scan compute from constants. The mask evaluator folds those
// tensors in the program's own arithmetic (Raising/PositionTensors.cpp); a
// tensor that reads a function argument stays data. Last, the limits of
// replacing the rows a finite fill hides entirely (Raising/EmptyRows.cpp).
// test/Execution/raise-position-tensors.py runs the raised ones against the
// original.

// -----

// Llama without an attention_mask: position ids = arange broadcast per batch
// element, transformers' packed-sequence detection (cumsum of diff != 1 through
// an extract_slice, a concat and tm_tensor.scan), `seq[b, q] == seq[b, kv]`
// AND `pos[b, kv] <= pos[b, q]`: every tensor is folded, the mask is causal.
// CHECK-LABEL: func.func @packed_detection_causal
// CHECK-NOT: tm_tensor.scan
// CHECK: fa.attention %arg0, %arg1, %arg2 : {{.+}} {causal, scale = 1.250000e-01 : f32}
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @packed_detection_causal(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>) -> tensor<2x2x16x8xf32> {
  %e_ar = tensor.empty() : tensor<16xi64>
  %ar = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_ar : tensor<16xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<16xi64>
  
  %e_pos = tensor.empty() : tensor<2x16xi64>
  %pos = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ar : tensor<16xi64>) outs(%e_pos : tensor<2x16xi64>) {
  ^bb0(%in: i64, %o: i64):
  linalg.yield %in : i64
  } -> tensor<2x16xi64>
  
  %first = tensor.extract_slice %pos[0, 0] [2, 1] [1, 1] : tensor<2x16xi64> to tensor<2x1xi64>
  %e_b1 = tensor.empty() : tensor<2x1xi64>
  %firstm1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%first : tensor<2x1xi64>) outs(%e_b1 : tensor<2x1xi64>) {
  ^bb0(%in: i64, %o: i64):
  %c1 = arith.constant 1 : i64
  %r = arith.subi %in, %c1 : i64
  linalg.yield %r : i64
  } -> tensor<2x1xi64>
  %cat = tensor.concat dim(1) %firstm1, %pos : (tensor<2x1xi64>, tensor<2x16xi64>) -> tensor<2x17xi64>
  %lo = tensor.extract_slice %cat[0, 0] [2, 16] [1, 1] : tensor<2x17xi64> to tensor<2x16xi64>
  %hi = tensor.extract_slice %cat[0, 1] [2, 16] [1, 1] : tensor<2x17xi64> to tensor<2x16xi64>
  %e_bs = tensor.empty() : tensor<2x16xi64>
  %newseq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%hi, %lo : tensor<2x16xi64>, tensor<2x16xi64>) outs(%e_bs : tensor<2x16xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
  %d = arith.subi %a, %b : i64
  %c1 = arith.constant 1 : i64
  %ne = arith.cmpi ne, %d, %c1 : i64
  %r = arith.extui %ne : i1 to i64
  linalg.yield %r : i64
  } -> tensor<2x16xi64>
  %c0_i64 = arith.constant 0 : i64
  %z = linalg.fill ins(%c0_i64 : i64) outs(%e_bs : tensor<2x16xi64>) -> tensor<2x16xi64>
  %e_b = tensor.empty() : tensor<2xi64>
  %z1 = linalg.fill ins(%c0_i64 : i64) outs(%e_b : tensor<2xi64>) -> tensor<2xi64>
  %seq:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%newseq : tensor<2x16xi64>) outs(%z, %z1 : tensor<2x16xi64>, tensor<2xi64>) {
  ^bb0(%a: i64, %b: i64):
  %r = arith.addi %a, %b : i64
  tm_tensor.yield %r : i64
  } -> tensor<2x16xi64>, tensor<2xi64>
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x2x16x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %sq = tensor.extract %seq#0[%b, %i] : tensor<2x16xi64>
    %sk = tensor.extract %seq#0[%b, %j] : tensor<2x16xi64>
    %same = arith.cmpi eq, %sq, %sk : i64
    %pq = tensor.extract %pos[%b, %i] : tensor<2x16xi64>
    %pk = tensor.extract %pos[%b, %j] : tensor<2x16xi64>
    %le = arith.cmpi sle, %pk, %pq : i64
    %vis = arith.andi %same, %le : i1
    %zf = arith.constant 0.0 : f32
    %add = arith.select %vis, %zf, %ninf : f32
    %x = arith.addf %s, %add : f32
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
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// The same with constant position ids that restart in the second sequence
// (two packed documents): the folded sequence ids differ per batch element,
// so the mask is no causal mask: a mask_mod region (Raising/ToRegions.cpp),
// nothing [.., S, S] materialized.
// CHECK-LABEL: func.func @packed_sequences_differ
// CHECK-NOT: bias(
// CHECK: fa.attention
// CHECK-SAME: mask_mod
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @packed_sequences_differ(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>) -> tensor<2x2x16x8xf32> {
  %pos = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]> : tensor<2x16xi64>
  
  %first = tensor.extract_slice %pos[0, 0] [2, 1] [1, 1] : tensor<2x16xi64> to tensor<2x1xi64>
  %e_b1 = tensor.empty() : tensor<2x1xi64>
  %firstm1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%first : tensor<2x1xi64>) outs(%e_b1 : tensor<2x1xi64>) {
  ^bb0(%in: i64, %o: i64):
  %c1 = arith.constant 1 : i64
  %r = arith.subi %in, %c1 : i64
  linalg.yield %r : i64
  } -> tensor<2x1xi64>
  %cat = tensor.concat dim(1) %firstm1, %pos : (tensor<2x1xi64>, tensor<2x16xi64>) -> tensor<2x17xi64>
  %lo = tensor.extract_slice %cat[0, 0] [2, 16] [1, 1] : tensor<2x17xi64> to tensor<2x16xi64>
  %hi = tensor.extract_slice %cat[0, 1] [2, 16] [1, 1] : tensor<2x17xi64> to tensor<2x16xi64>
  %e_bs = tensor.empty() : tensor<2x16xi64>
  %newseq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%hi, %lo : tensor<2x16xi64>, tensor<2x16xi64>) outs(%e_bs : tensor<2x16xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
  %d = arith.subi %a, %b : i64
  %c1 = arith.constant 1 : i64
  %ne = arith.cmpi ne, %d, %c1 : i64
  %r = arith.extui %ne : i1 to i64
  linalg.yield %r : i64
  } -> tensor<2x16xi64>
  %c0_i64 = arith.constant 0 : i64
  %z = linalg.fill ins(%c0_i64 : i64) outs(%e_bs : tensor<2x16xi64>) -> tensor<2x16xi64>
  %e_b = tensor.empty() : tensor<2xi64>
  %z1 = linalg.fill ins(%c0_i64 : i64) outs(%e_b : tensor<2xi64>) -> tensor<2xi64>
  %seq:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%newseq : tensor<2x16xi64>) outs(%z, %z1 : tensor<2x16xi64>, tensor<2xi64>) {
  ^bb0(%a: i64, %b: i64):
  %r = arith.addi %a, %b : i64
  tm_tensor.yield %r : i64
  } -> tensor<2x16xi64>, tensor<2xi64>
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x2x16x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %sq = tensor.extract %seq#0[%b, %i] : tensor<2x16xi64>
    %sk = tensor.extract %seq#0[%b, %j] : tensor<2x16xi64>
    %same = arith.cmpi eq, %sq, %sk : i64
    %pq = tensor.extract %pos[%b, %i] : tensor<2x16xi64>
    %pk = tensor.extract %pos[%b, %j] : tensor<2x16xi64>
    %le = arith.cmpi sle, %pk, %pq : i64
    %vis = arith.andi %same, %le : i1
    %zf = arith.constant 0.0 : f32
    %add = arith.select %vis, %zf, %ninf : f32
    %x = arith.addf %s, %add : f32
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
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, mask_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// Position ids that the program takes as input are data: never folded or
// assumed to be an arange: they are read as captures in a mask_mod region.
// CHECK-LABEL: func.func @position_ids_input
// CHECK-NOT: bias(
// CHECK: fa.attention {{.+}} captures(
// CHECK-SAME: mask_mod
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @position_ids_input(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %pid: tensor<2x16xi64>) -> tensor<2x2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, h, i, j) -> (b, i)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %pid : tensor<2x2x16x16xf32>, tensor<2x16xi64>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: i64, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %pq = tensor.extract %pid[%b, %i] : tensor<2x16xi64>
    %pk = tensor.extract %pid[%b, %j] : tensor<2x16xi64>
    %le = arith.cmpi sle, %pk, %pq : i64
    %x = arith.select %le, %s, %ninf : f32
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
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, mask_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// Query positions arange(20)[8:20], key positions arange(20)[4:20] (static
// slices of a computed arange), `kv <= q` AND `kv > q - 3`, finfo.min:
// bottom-right causal with a window of 2.
// CHECK-LABEL: func.func @sliced_cache_positions
// CHECK: fa.attention {{.+}} {causal, mask_alignment = #fa<mask_alignment bottom_right>, scale = 1.250000e-01 : f32, window = array<i64: 2, 0>}
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @sliced_cache_positions(%q: tensor<2x2x12x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>) -> tensor<2x2x12x8xf32> {
  %e_ar20 = tensor.empty() : tensor<20xi64>
  %ar20 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e_ar20 : tensor<20xi64>) {
  ^bb0(%o: i64):
  %x = linalg.index 0 : index
  %y = arith.index_cast %x : index to i64
  linalg.yield %y : i64
  } -> tensor<20xi64>
  
  %qpos = tensor.extract_slice %ar20[8] [12] [1] : tensor<20xi64> to tensor<12xi64>
  %kpos = tensor.extract_slice %ar20[4] [16] [1] : tensor<20xi64> to tensor<16xi64>
  %zero = arith.constant 0.0 : f32
  %ninf_r = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x2x12x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2x12x16xf32>) -> tensor<2x2x12x16xf32>
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x12x8xf32>, tensor<2x2x16x8xf32>) outs(%fs : tensor<2x2x12x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x12x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x2x12x16xf32>) outs(%es : tensor<2x2x12x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %pq = tensor.extract %qpos[%i] : tensor<12xi64>
    %pk = tensor.extract %kpos[%j] : tensor<16xi64>
    %le = arith.cmpi sle, %pk, %pq : i64
    %c3 = arith.constant 3 : i64
    %lo = arith.subi %pq, %c3 : i64
    %gt = arith.cmpi sgt, %pk, %lo : i64
    %vis = arith.andi %le, %gt : i1
    %x = arith.select %vis, %s, %fmin : f32
    linalg.yield %x : f32
  } -> tensor<2x2x12x16xf32>
  %er = tensor.empty() : tensor<2x2x12xf32>
  %fm = linalg.fill ins(%ninf_r : f32) outs(%er : tensor<2x2x12xf32>) -> tensor<2x2x12xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x2x12x16xf32>) outs(%fm : tensor<2x2x12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x12xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x2x12x16xf32>, tensor<2x2x12xf32>) outs(%es : tensor<2x2x12x16xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %dd = arith.subf %a, %mm : f32
    %r = math.exp %dd : f32
    linalg.yield %r : f32
  } -> tensor<2x2x12x16xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x2x12xf32>) -> tensor<2x2x12xf32>
  %l = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x2x12x16xf32>) outs(%fl : tensor<2x2x12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x12xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x2x12x16xf32>, tensor<2x2x12xf32>) outs(%es : tensor<2x2x12x16xf32>) {
  ^bb0(%a: f32, %ll: f32, %o: f32):
    %r = arith.divf %a, %ll : f32
    linalg.yield %r : f32
  } -> tensor<2x2x12x16xf32>
  %eo = tensor.empty() : tensor<2x2x12x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x2x12x8xf32>) -> tensor<2x2x12x8xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal window [2, 0] bottom_right)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x12x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x12x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x12x8xf32>
  return %out : tensor<2x2x12x8xf32>
}

// -----

// BLOOM's ALiBi: slopes 0.25^(h+1) by math.powf in f64 (exact: integer
// powers of a power of two), times the key position, added beside a causal
// finfo.min mask: causal, and the computed [heads, keys] tensor captured by
// a score_mod region (no [.., S, S] bias).
// CHECK-LABEL: func.func @alibi_pow_slopes
// CHECK: math.powf
// CHECK-NOT: bias(
// CHECK: fa.attention {{.+}} captures(
// CHECK-SAME: causal
// CHECK-SAME: score_mod
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @alibi_pow_slopes(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>) -> tensor<2x2x16x8xf32> {
  %e_sl = tensor.empty() : tensor<2x16xf32>
  %base = arith.constant dense<0.25> : tensor<f32>
  %alibi = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%base : tensor<f32>) outs(%e_sl : tensor<2x16xf32>) {
  ^bb0(%bs: f32, %o: f32):
  %h = linalg.index 0 : index
  %j = linalg.index 1 : index
  %c1 = arith.constant 1 : index
  %h1 = arith.addi %h, %c1 : index
  %hi = arith.index_cast %h1 : index to i64
  %hf = arith.sitofp %hi : i64 to f64
  %bd = arith.extf %bs : f32 to f64
  %p = math.powf %bd, %hf : f64
  %pf = arith.truncf %p : f64 to f32
  %ji = arith.index_cast %j : index to i64
  %jf = arith.sitofp %ji : i64 to f32
  %r = arith.mulf %pf, %jf : f32
  linalg.yield %r : f32
  } -> tensor<2x16xf32>
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
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, h, i, j) -> (h, j)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %alibi : tensor<2x2x16x16xf32>, tensor<2x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %le = arith.cmpi ule, %j, %i : index
    %ab = arith.addf %s, %in0 : f32
    %x = arith.select %le, %ab, %fmin : f32
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
  // expected-remark @+1 {{raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 1.250000e-01, causal, score_mod)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// A mask compared with i^0.5: powf's last bit depends on the target's
// libm where the result is not exact, so the mask is not evaluated.
// CHECK-LABEL: func.func @pow_inexact_mask
// CHECK-NOT: fa.attention
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @pow_inexact_mask(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>) -> tensor<2x2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x2x16x16xf32>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %ii = arith.index_cast %i : index to i64
    %if = arith.sitofp %ii : i64 to f32
    %ji = arith.index_cast %j : index to i64
    %jf = arith.sitofp %ji : i64 to f32
    %half = arith.constant 0.5 : f32
    %r = math.powf %if, %half : f32
    %le = arith.cmpf ole, %jf, %r : f32
    %x = arith.select %le, %s, %ninf : f32
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
  // expected-remark @+1 {{attention not raised: the mask's 'math.powf' computes 0 ^ 0.5 at row 0, key 0: only integer powers whose result its type represents exactly are evaluated (the rounding of others depends on the target's libm)}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// Padding AND causal with a fill of -1e9 (eager, older models): the fill does
// not absorb the scores, so a fully hidden row is a softmax of its scores in
// the original. Declined (rows are replaced by the mean of V only under fills
// at or below -2^100, such as finfo.min).
// CHECK-LABEL: func.func @eager_padding_fill_1e9
// CHECK-NOT: fa.attention
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @eager_padding_fill_1e9(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, h, i, j) -> (b, i)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %am : tensor<2x2x16x16xf32>, tensor<2x16xi64>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: i64, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %le = arith.cmpi ule, %j, %i : index
    %a = tensor.extract %am[%b, %j] : tensor<2x16xi64>
    %z = arith.constant 0 : i64
    %keep = arith.cmpi ne, %a, %z : i64
    
    %vis = arith.andi %le, %keep : i1
    %big = arith.constant -1.0e9 : f32
    %zf = arith.constant 0.0 : f32
    %add = arith.select %vis, %zf, %big : f32
    %x = arith.addf %s, %add : f32
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
  // expected-remark @+1 {{attention not raised: a key padding mask with a finite fill (-1.000000e+09) next to a causal or window mask: the fill is above -2^100, so a row whose every key is hidden is a softmax of its scores in the original, which fa.attention cannot express}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}

// -----

// Causal by one select and padding by another additive term, both finfo.min:
// keys hidden by both are -inf (the sum overflows), so a fully hidden row
// mixes two fills. Declined.
// CHECK-LABEL: func.func @eager_padding_two_terms
// CHECK-NOT: fa.attention
#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @eager_padding_two_terms(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %am: tensor<2x16xi64>) -> tensor<2x2x16x8xf32> {
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
  %masked = linalg.generic {indexing_maps = [#id, affine_map<(b, h, i, j) -> (b, i)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %am : tensor<2x2x16x16xf32>, tensor<2x16xi64>) outs(%es : tensor<2x2x16x16xf32>) {
  ^bb0(%sc: f32, %in0: i64, %out: f32):
    %cscale = arith.constant 0.125 : f32
    %s = arith.mulf %sc, %cscale : f32
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ninf = arith.constant 0xFF800000 : f32
    %fmin = arith.constant -3.40282347E+38 : f32
    %le = arith.cmpi ule, %j, %i : index
    %a = tensor.extract %am[%b, %j] : tensor<2x16xi64>
    %z = arith.constant 0 : i64
    %keep = arith.cmpi ne, %a, %z : i64
    
    %c = arith.select %le, %s, %fmin : f32
    %zf = arith.constant 0.0 : f32
    %add = arith.select %keep, %zf, %fmin : f32
    %x = arith.addf %c, %add : f32
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
  // expected-remark @+1 {{attention not raised: a key padding mask with a finite fill (-3.402823e+38) next to a causal or window mask: the positional mask is another term, so a row whose every key is hidden mixes two fills in the original, which fa.attention cannot express}}
  %out = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32>) outs(%fo : tensor<2x2x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %c: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x8xf32>
  return %out : tensor<2x2x16x8xf32>
}
