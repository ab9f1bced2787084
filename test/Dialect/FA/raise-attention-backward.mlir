// RUN: fa-opt %s --fa-raise-attention -split-input-file -verify-diagnostics | FileCheck %s

// The training backward next to its forward, as a joint forward+backward
// graph (aot_autograd) lowered to linalg spells it: dV = Pᵀ dO, dP = dO Vᵀ,
// dS = P ∘ (dP - rowsum(P ∘ dP)), dS' = scale dS, dQ = dS' K, dK = dS'ᵀ Q.
// P feeds the backward, so the forward is raised to fa.attention with its
// log-sum-exp and the backward to fa.attention_grad. BERT-base shapes.

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#tp = affine_map<(b, h, j, e, i) -> (b, h, i, j)>
#tdo = affine_map<(b, h, j, e, i) -> (b, h, i, e)>
#tdv = affine_map<(b, h, j, e, i) -> (b, h, j, e)>
#gs = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#gk = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#gq = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#hs = affine_map<(b, h, j, d, i) -> (b, h, i, j)>
#hq = affine_map<(b, h, j, d, i) -> (b, h, i, d)>
#hk = affine_map<(b, h, j, d, i) -> (b, h, j, d)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// CHECK-LABEL: func.func @bert_fwd_bwd
// CHECK-SAME: (%[[Q:.+]]: tensor<2x12x128x64xf32>, %[[K:.+]]: tensor<2x12x128x64xf32>, %[[V:.+]]: tensor<2x12x128x64xf32>, %[[DO:.+]]: tensor<2x12x128x64xf32>)
// CHECK: %[[O:.+]], %[[LSE:.+]] = fa.attention %[[Q]], %[[K]], %[[V]] : {{.+}} {scale = 1.250000e-01 : f32} -> tensor<2x12x128x64xf32>, tensor<2x12x128xf32>
// CHECK: %[[DQ:.+]], %[[DK:.+]], %[[DV:.+]] = fa.attention_grad %[[DO]], %[[Q]], %[[K]], %[[V]], %[[O]], %[[LSE]] : {{.+}} {scale = 1.250000e-01 : f32}
// CHECK-NOT: linalg.generic
// CHECK: return %[[O]], %[[DQ]], %[[DK]], %[[DV]]
func.func @bert_fwd_bwd(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>, %do: tensor<2x12x128x64xf32>) -> (tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x12x128x128xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<2x12x128x128xf32>) -> tensor<2x12x128x128xf32>
  %e_q = tensor.empty() : tensor<2x12x128x64xf32>
  %f_q = linalg.fill ins(%zero : f32) outs(%e_q : tensor<2x12x128x64xf32>) -> tensor<2x12x128x64xf32>
  %e_r = tensor.empty() : tensor<2x12x128xf32>
  // forward
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>) outs(%f_s : tensor<2x12x128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r0 = arith.mulf %x0, %c : f32
    %r = arith.addf %r0, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<2x12x128xf32>) -> tensor<2x12x128xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x12x128x128xf32>) outs(%f_m : tensor<2x12x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x12x128xf32>) -> tensor<2x12x128xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x12x128x128xf32>) outs(%f_l : tensor<2x12x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01; backward raised to fa.attention_grad)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_q : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  // backward: dV = Pᵀ dO, dP = dO Vᵀ
  %dv = linalg.generic {indexing_maps = [#tp, #tdo, #tdv], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %do : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_q : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  %dp = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%do, %v : tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>) outs(%f_s : tensor<2x12x128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  // torch-mlir's _softmax_backward_data: P∘dP - P∘rowsum(P∘dP)
  %t = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %dp : tensor<2x12x128x128xf32>, tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %f_r = linalg.fill ins(%zero : f32) outs(%e_r : tensor<2x12x128xf32>) -> tensor<2x12x128xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%t : tensor<2x12x128x128xf32>) outs(%f_r : tensor<2x12x128xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128xf32>
  %ds = linalg.generic {indexing_maps = [#id4, #id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %p, %rs : tensor<2x12x128x128xf32>, tensor<2x12x128x128xf32>, tensor<2x12x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%x0: f32, %x1: f32, %x2: f32, %out: f32):
    %pr = arith.mulf %x1, %x2 : f32
    %r = arith.subf %x0, %pr : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %dss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ds : tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r = arith.mulf %x0, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  // dQ = dS' K, dK = dS'ᵀ Q
  %dq = linalg.generic {indexing_maps = [#gs, #gk, #gq], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %k : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_q : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  %dk = linalg.generic {indexing_maps = [#hs, #hq, #hk], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %q : tensor<2x12x128x128xf32>, tensor<2x12x128x64xf32>) outs(%f_q : tensor<2x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x64xf32>
  return %o, %dq, %dk, %dv : tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#tp = affine_map<(b, h, j, e, i) -> (b, h, i, j)>
#tdo = affine_map<(b, h, j, e, i) -> (b, h, i, e)>
#tdv = affine_map<(b, h, j, e, i) -> (b, h, j, e)>
#gs = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#gk = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#gq = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#hs = affine_map<(b, h, j, d, i) -> (b, h, i, j)>
#hq = affine_map<(b, h, j, d, i) -> (b, h, i, d)>
#hk = affine_map<(b, h, j, d, i) -> (b, h, j, d)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// The other spelling of the softmax backward, P ∘ (dP - rowsum(P ∘ dP)),
// with the product fused into the row sum.
// CHECK-LABEL: func.func @fused_softmax_backward
// CHECK: fa.attention_grad
func.func @fused_softmax_backward(%q: tensor<1x4x32x16xf32>, %k: tensor<1x4x32x16xf32>, %v: tensor<1x4x32x16xf32>, %do: tensor<1x4x32x16xf32>) -> (tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x4x32x32xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x4x32x32xf32>) -> tensor<1x4x32x32xf32>
  %e_q = tensor.empty() : tensor<1x4x32x16xf32>
  %f_q = linalg.fill ins(%zero : f32) outs(%e_q : tensor<1x4x32x16xf32>) -> tensor<1x4x32x16xf32>
  %e_r = tensor.empty() : tensor<1x4x32xf32>
  // forward
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>) outs(%f_s : tensor<1x4x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<1x4x32x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r0 = arith.mulf %x0, %c : f32
    %r = arith.addf %r0, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x4x32x32xf32>) outs(%f_m : tensor<1x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x4x32x32xf32>, tensor<1x4x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x4x32x32xf32>) outs(%f_l : tensor<1x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x4x32x32xf32>, tensor<1x4x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.250000e-01; backward raised to fa.attention_grad)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  // backward: dV = Pᵀ dO, dP = dO Vᵀ
  %dv = linalg.generic {indexing_maps = [#tp, #tdo, #tdv], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %do : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  %dp = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%do, %v : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>) outs(%f_s : tensor<1x4x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  // dS = P ∘ (dP - rowsum(P ∘ dP)) with the product fused into the sum
  %f_r = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%dp, %p : tensor<1x4x32x32xf32>, tensor<1x4x32x32xf32>) outs(%f_r : tensor<1x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %b, %a : f32
    %r = arith.addf %m, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32xf32>
  %ds = linalg.generic {indexing_maps = [#id4, #id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %dp, %rs : tensor<1x4x32x32xf32>, tensor<1x4x32x32xf32>, tensor<1x4x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %x2: f32, %out: f32):
    %d = arith.subf %x1, %x2 : f32
    %r = arith.mulf %x0, %d : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  %dss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ds : tensor<1x4x32x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r = arith.mulf %x0, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  // dQ = dS' K, dK = dS'ᵀ Q
  %dq = linalg.generic {indexing_maps = [#gs, #gk, #gq], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %k : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  %dk = linalg.generic {indexing_maps = [#hs, #hq, #hk], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %q : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  return %o, %dq, %dk, %dv : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#tp = affine_map<(b, h, j, e, i) -> (b, h, i, j)>
#tdo = affine_map<(b, h, j, e, i) -> (b, h, i, e)>
#tdv = affine_map<(b, h, j, e, i) -> (b, h, j, e)>
#gs = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#gk = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#gq = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#hs = affine_map<(b, h, j, d, i) -> (b, h, i, j)>
#hq = affine_map<(b, h, j, d, i) -> (b, h, i, d)>
#hk = affine_map<(b, h, j, d, i) -> (b, h, j, d)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// Causal: the forward's where(j > i, -inf, s) and its backward
// where(j > i, 0, g), a no-op since P is 0 there. GPT-2-small shapes.
// CHECK-LABEL: func.func @causal_fwd_bwd
// CHECK: fa.attention {{.+}} {causal, scale = 1.250000e-01 : f32}
// CHECK: fa.attention_grad {{.+}} {causal, scale = 1.250000e-01 : f32}
func.func @causal_fwd_bwd(%q: tensor<1x12x64x64xf32>, %k: tensor<1x12x64x64xf32>, %v: tensor<1x12x64x64xf32>, %do: tensor<1x12x64x64xf32>) -> (tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x12x64x64xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x12x64x64xf32>) -> tensor<1x12x64x64xf32>
  %e_q = tensor.empty() : tensor<1x12x64x64xf32>
  %f_q = linalg.fill ins(%zero : f32) outs(%e_q : tensor<1x12x64x64xf32>) -> tensor<1x12x64x64xf32>
  %e_r = tensor.empty() : tensor<1x12x64xf32>
  // forward
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>) outs(%f_s : tensor<1x12x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<1x12x64x64xf32>) outs(%e_s : tensor<1x12x64x64xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r0 = arith.mulf %x0, %c : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi ugt, %j, %i : index
    %ninf0 = arith.constant 0xFF800000 : f32
    %r = arith.select %hide, %ninf0, %r0 : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x12x64xf32>) -> tensor<1x12x64xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x12x64x64xf32>) outs(%f_m : tensor<1x12x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x12x64x64xf32>, tensor<1x12x64xf32>) outs(%e_s : tensor<1x12x64x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x64xf32>) -> tensor<1x12x64xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x12x64x64xf32>) outs(%f_l : tensor<1x12x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x12x64x64xf32>, tensor<1x12x64xf32>) outs(%e_s : tensor<1x12x64x64xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01, causal; backward raised to fa.attention_grad)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>) outs(%f_q : tensor<1x12x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  // backward: dV = Pᵀ dO, dP = dO Vᵀ
  %dv = linalg.generic {indexing_maps = [#tp, #tdo, #tdv], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %do : tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>) outs(%f_q : tensor<1x12x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  %dp = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%do, %v : tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>) outs(%f_s : tensor<1x12x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  // torch-mlir's _softmax_backward_data: P∘dP - P∘rowsum(P∘dP)
  %t = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %dp : tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>) outs(%e_s : tensor<1x12x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  %f_r = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x12x64xf32>) -> tensor<1x12x64xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%t : tensor<1x12x64x64xf32>) outs(%f_r : tensor<1x12x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64xf32>
  %ds = linalg.generic {indexing_maps = [#id4, #id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %p, %rs : tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>, tensor<1x12x64xf32>) outs(%e_s : tensor<1x12x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %x2: f32, %out: f32):
    %pr = arith.mulf %x1, %x2 : f32
    %r = arith.subf %x0, %pr : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  // backward of where(j > i, -inf, s): where(j > i, 0, g)
  %dsel = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ds : tensor<1x12x64x64xf32>) outs(%e_s : tensor<1x12x64x64xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi ugt, %j, %i : index
    %z = arith.constant 0.0 : f32
    %r = arith.select %hide, %z, %x0 : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  %dss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%dsel : tensor<1x12x64x64xf32>) outs(%e_s : tensor<1x12x64x64xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r = arith.mulf %x0, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  // dQ = dS' K, dK = dS'ᵀ Q
  %dq = linalg.generic {indexing_maps = [#gs, #gk, #gq], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %k : tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>) outs(%f_q : tensor<1x12x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  %dk = linalg.generic {indexing_maps = [#hs, #hq, #hk], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %q : tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>) outs(%f_q : tensor<1x12x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x12x64x64xf32>
  return %o, %dq, %dk, %dv : tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>, tensor<1x12x64x64xf32>
}

// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#tp = affine_map<(b, h, j, e, i) -> (b, h, i, j)>
#tdo = affine_map<(b, h, j, e, i) -> (b, h, i, e)>
#tdv = affine_map<(b, h, j, e, i) -> (b, h, j, e)>
#gs = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#gk = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#gq = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#hs = affine_map<(b, h, j, d, i) -> (b, h, i, j)>
#hq = affine_map<(b, h, j, d, i) -> (b, h, i, d)>
#hk = affine_map<(b, h, j, d, i) -> (b, h, j, d)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// Near miss: the score gradient scaled by 0.5 while the forward used 0.125.
// Neither is raised (P feeds something that is not its backward); dV = Pᵀ dO,
// seen as a candidate P·V, is a near miss of its own.
// CHECK-LABEL: func.func @backward_wrong_scale
// CHECK-NOT: fa.attention
func.func @backward_wrong_scale(%q: tensor<1x4x32x16xf32>, %k: tensor<1x4x32x16xf32>, %v: tensor<1x4x32x16xf32>, %do: tensor<1x4x32x16xf32>) -> (tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x4x32x32xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x4x32x32xf32>) -> tensor<1x4x32x32xf32>
  %e_q = tensor.empty() : tensor<1x4x32x16xf32>
  %f_q = linalg.fill ins(%zero : f32) outs(%e_q : tensor<1x4x32x16xf32>) -> tensor<1x4x32x16xf32>
  %e_r = tensor.empty() : tensor<1x4x32xf32>
  // forward
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>) outs(%f_s : tensor<1x4x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<1x4x32x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r0 = arith.mulf %x0, %c : f32
    %r = arith.addf %r0, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x4x32x32xf32>) outs(%f_m : tensor<1x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x4x32x32xf32>, tensor<1x4x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x4x32x32xf32>) outs(%f_l : tensor<1x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x4x32x32xf32>, tensor<1x4x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  // expected-remark @+1 {{attention not raised: 'linalg.generic' outside the attention also reads the probabilities, and it is not a recognized backward (the gradient of Q or K is not scaled by the forward's scale)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  // backward: dV = Pᵀ dO, dP = dO Vᵀ
  // expected-remark @+1 {{attention not raised: P·V sums over a different dimension than the one the softmax normalizes}}
  %dv = linalg.generic {indexing_maps = [#tp, #tdo, #tdv], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %do : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  %dp = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%do, %v : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>) outs(%f_s : tensor<1x4x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  // torch-mlir's _softmax_backward_data: P∘dP - P∘rowsum(P∘dP)
  %t = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %dp : tensor<1x4x32x32xf32>, tensor<1x4x32x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  %f_r = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%t : tensor<1x4x32x32xf32>) outs(%f_r : tensor<1x4x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32xf32>
  %ds = linalg.generic {indexing_maps = [#id4, #id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %p, %rs : tensor<1x4x32x32xf32>, tensor<1x4x32x32xf32>, tensor<1x4x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %x2: f32, %out: f32):
    %pr = arith.mulf %x1, %x2 : f32
    %r = arith.subf %x0, %pr : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  %dss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ds : tensor<1x4x32x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %c = arith.constant 0.5 : f32
    %r = arith.mulf %x0, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  // dQ = dS' K, dK = dS'ᵀ Q
  %dq = linalg.generic {indexing_maps = [#gs, #gk, #gq], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %k : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  %dk = linalg.generic {indexing_maps = [#hs, #hq, #hk], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %q : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  return %o, %dq, %dk, %dv : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#b0 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
// The same, as torch-mlir lowers aot_autograd's joint graph: bmm on
// collapsed batch x heads, transposes of P, V and dS' as linalg.transpose,
// keepdim reductions, the scale as a division by an f64 constant.
// CHECK-LABEL: func.func @torch_mlir_fwd_bwd
// CHECK: %[[O:.+]], %[[LSE:.+]] = fa.attention
// CHECK: fa.attention_grad %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[O]], %[[LSE]]
// CHECK-NOT: linalg.batch_matmul
func.func @torch_mlir_fwd_bwd(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x128x64xf32>, %v: tensor<2x12x128x64xf32>, %do: tensor<2x12x128x64xf32>) -> (tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>) {

  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c8 = arith.constant 8.0 : f64
  %e_t = tensor.empty() : tensor<2x12x64x128xf32>
  %e_s = tensor.empty() : tensor<2x12x128x128xf32>
  %e_s3 = tensor.empty() : tensor<24x128x128xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<24x128x128xf32>) -> tensor<24x128x128xf32>
  %e_q3 = tensor.empty() : tensor<24x128x64xf32>
  %f_q3 = linalg.fill ins(%zero : f32) outs(%e_q3 : tensor<24x128x64xf32>) -> tensor<24x128x64xf32>
  %e_r4 = tensor.empty() : tensor<2x12x128x1xf32>
  %f_max = linalg.fill ins(%ninf : f32) outs(%e_r4 : tensor<2x12x128x1xf32>) -> tensor<2x12x128x1xf32>
  %f_sum = linalg.fill ins(%zero : f32) outs(%e_r4 : tensor<2x12x128x1xf32>) -> tensor<2x12x128x1xf32>
  // forward: softmax(q @ k.transpose(-2, -1) / 8) @ v
  %kt = linalg.transpose ins(%k : tensor<2x12x128x64xf32>) outs(%e_t : tensor<2x12x64x128xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  %ktc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x12x64x128xf32> into tensor<24x64x128xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<24x128x64xf32>, tensor<24x64x128xf32>) outs(%f_s3 : tensor<24x128x128xf32>) -> tensor<24x128x128xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 12, 128, 128] : tensor<24x128x128xf32> into tensor<2x12x128x128xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se : tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %t = arith.truncf %c8 : f64 to f32
    %r = arith.divf %x0, %t : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<2x12x128x128xf32>) outs(%f_max : tensor<2x12x128x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x1xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mx : tensor<2x12x128x128xf32>, tensor<2x12x128x1xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %d = arith.subf %x0, %x1 : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %l = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x12x128x128xf32>) outs(%f_sum : tensor<2x12x128x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xf32>, tensor<2x12x128x1xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.divf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x12x128x128xf32> into tensor<24x128x128xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 12 query heads / 12 kv heads, scale 1.250000e-01; backward raised to fa.attention_grad)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<24x128x128xf32>, tensor<24x128x64xf32>) outs(%f_q3 : tensor<24x128x64xf32>) -> tensor<24x128x64xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 12, 128, 64] : tensor<24x128x64xf32> into tensor<2x12x128x64xf32>
  // backward: dV = p.transpose(-2, -1) @ do
  %pt = linalg.transpose ins(%p : tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) permutation = [0, 1, 3, 2]
  %ptc = tensor.collapse_shape %pt [[0, 1], [2], [3]] : tensor<2x12x128x128xf32> into tensor<24x128x128xf32>
  %doc = tensor.collapse_shape %do [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  %dv = linalg.batch_matmul ins(%ptc, %doc : tensor<24x128x128xf32>, tensor<24x128x64xf32>) outs(%f_q3 : tensor<24x128x64xf32>) -> tensor<24x128x64xf32>
  %dve = tensor.expand_shape %dv [[0, 1], [2], [3]] output_shape [2, 12, 128, 64] : tensor<24x128x64xf32> into tensor<2x12x128x64xf32>
  // dP = do @ v.transpose(-2, -1)
  %vt = linalg.transpose ins(%v : tensor<2x12x128x64xf32>) outs(%e_t : tensor<2x12x64x128xf32>) permutation = [0, 1, 3, 2]
  %vtc = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<2x12x64x128xf32> into tensor<24x64x128xf32>
  %dp = linalg.batch_matmul ins(%doc, %vtc : tensor<24x128x64xf32>, tensor<24x64x128xf32>) outs(%f_s3 : tensor<24x128x128xf32>) -> tensor<24x128x128xf32>
  %dpe = tensor.expand_shape %dp [[0, 1], [2], [3]] output_shape [2, 12, 128, 128] : tensor<24x128x128xf32> into tensor<2x12x128x128xf32>
  // _softmax_backward_data(dP, P): P * dP - P * sum(P * dP, -1, keepdim)
  %pdp = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%dpe, %p : tensor<2x12x128x128xf32>, tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%pdp : tensor<2x12x128x128xf32>) outs(%f_sum : tensor<2x12x128x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x1xf32>
  %prs = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %rs : tensor<2x12x128x128xf32>, tensor<2x12x128x1xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %ds = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pdp, %prs : tensor<2x12x128x128xf32>, tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.subf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  %dss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ds : tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %t = arith.truncf %c8 : f64 to f32
    %r = arith.divf %x0, %t : f32
    linalg.yield %r : f32
  } -> tensor<2x12x128x128xf32>
  // dQ = dS' @ k, dK = dS'.transpose(-2, -1) @ q
  %dssc = tensor.collapse_shape %dss [[0, 1], [2], [3]] : tensor<2x12x128x128xf32> into tensor<24x128x128xf32>
  %kc = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  %dq = linalg.batch_matmul ins(%dssc, %kc : tensor<24x128x128xf32>, tensor<24x128x64xf32>) outs(%f_q3 : tensor<24x128x64xf32>) -> tensor<24x128x64xf32>
  %dqe = tensor.expand_shape %dq [[0, 1], [2], [3]] output_shape [2, 12, 128, 64] : tensor<24x128x64xf32> into tensor<2x12x128x64xf32>
  %dsst = linalg.transpose ins(%dss : tensor<2x12x128x128xf32>) outs(%e_s : tensor<2x12x128x128xf32>) permutation = [0, 1, 3, 2]
  %dsstc = tensor.collapse_shape %dsst [[0, 1], [2], [3]] : tensor<2x12x128x128xf32> into tensor<24x128x128xf32>
  %dk = linalg.batch_matmul ins(%dsstc, %qc : tensor<24x128x128xf32>, tensor<24x128x64xf32>) outs(%f_q3 : tensor<24x128x64xf32>) -> tensor<24x128x64xf32>
  %dke = tensor.expand_shape %dk [[0, 1], [2], [3]] output_shape [2, 12, 128, 64] : tensor<24x128x64xf32> into tensor<2x12x128x64xf32>
  return %oe, %dqe, %dke, %dve : tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#b0 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#sumg = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// Grouped-query training step: repeat_kv on K and V in the forward, and its
// backward, the sum of dK and dV over the query heads of each group.
// fa.attention_grad sums over the group itself.
// CHECK-LABEL: func.func @gqa_fwd_bwd
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<1x8x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>
// CHECK: %[[DQ:.+]], %[[DK:.+]], %[[DV:.+]] = fa.attention_grad {{.+}} -> tensor<1x8x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>
// CHECK: return %{{.+}}, %[[DQ]], %[[DK]], %[[DV]]
func.func @gqa_fwd_bwd(%q: tensor<1x8x64x32xf32>, %kin: tensor<1x2x64x32xf32>, %vin: tensor<1x2x64x32xf32>, %do: tensor<1x8x64x32xf32>) -> (tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) {
  // repeat_kv
  %ku = tensor.expand_shape %kin [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 64, 32] : tensor<1x2x64x32xf32> into tensor<1x2x1x64x32xf32>
  %vu = tensor.expand_shape %vin [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 64, 32] : tensor<1x2x64x32xf32> into tensor<1x2x1x64x32xf32>
  %e5 = tensor.empty() : tensor<1x2x4x64x32xf32>
  %kx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%ku : tensor<1x2x1x64x32xf32>) outs(%e5 : tensor<1x2x4x64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x4x64x32xf32>
  %vx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%vu : tensor<1x2x1x64x32xf32>) outs(%e5 : tensor<1x2x4x64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x4x64x32xf32>
  %k = tensor.collapse_shape %kx [[0], [1, 2], [3], [4]] : tensor<1x2x4x64x32xf32> into tensor<1x8x64x32xf32>
  %v = tensor.collapse_shape %vx [[0], [1, 2], [3], [4]] : tensor<1x2x4x64x32xf32> into tensor<1x8x64x32xf32>

  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c8 = arith.constant 8.0 : f64
  %e_t = tensor.empty() : tensor<1x8x32x64xf32>
  %e_s = tensor.empty() : tensor<1x8x64x64xf32>
  %e_s3 = tensor.empty() : tensor<8x64x64xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %e_q3 = tensor.empty() : tensor<8x64x32xf32>
  %f_q3 = linalg.fill ins(%zero : f32) outs(%e_q3 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %e_r4 = tensor.empty() : tensor<1x8x64x1xf32>
  %f_max = linalg.fill ins(%ninf : f32) outs(%e_r4 : tensor<1x8x64x1xf32>) -> tensor<1x8x64x1xf32>
  %f_sum = linalg.fill ins(%zero : f32) outs(%e_r4 : tensor<1x8x64x1xf32>) -> tensor<1x8x64x1xf32>
  // forward: softmax(q @ k.transpose(-2, -1) / 8) @ v
  %kt = linalg.transpose ins(%k : tensor<1x8x64x32xf32>) outs(%e_t : tensor<1x8x32x64xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x8x64x32xf32> into tensor<8x64x32xf32>
  %ktc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x8x32x64xf32> into tensor<8x32x64xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<8x64x32xf32>, tensor<8x32x64xf32>) outs(%f_s3 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 8, 64, 64] : tensor<8x64x64xf32> into tensor<1x8x64x64xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se : tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %t = arith.truncf %c8 : f64 to f32
    %r = arith.divf %x0, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x8x64x64xf32>) outs(%f_max : tensor<1x8x64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x1xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mx : tensor<1x8x64x64xf32>, tensor<1x8x64x1xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %d = arith.subf %x0, %x1 : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %l = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x8x64x64xf32>) outs(%f_sum : tensor<1x8x64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x8x64x64xf32>, tensor<1x8x64x1xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.divf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x8x64x64xf32> into tensor<8x64x64xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x8x64x32xf32> into tensor<8x64x32xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 2 kv heads, scale 1.250000e-01; backward raised to fa.attention_grad)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%f_q3 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 8, 64, 32] : tensor<8x64x32xf32> into tensor<1x8x64x32xf32>
  // backward: dV = p.transpose(-2, -1) @ do
  %pt = linalg.transpose ins(%p : tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) permutation = [0, 1, 3, 2]
  %ptc = tensor.collapse_shape %pt [[0, 1], [2], [3]] : tensor<1x8x64x64xf32> into tensor<8x64x64xf32>
  %doc = tensor.collapse_shape %do [[0, 1], [2], [3]] : tensor<1x8x64x32xf32> into tensor<8x64x32xf32>
  %dv = linalg.batch_matmul ins(%ptc, %doc : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%f_q3 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %dve = tensor.expand_shape %dv [[0, 1], [2], [3]] output_shape [1, 8, 64, 32] : tensor<8x64x32xf32> into tensor<1x8x64x32xf32>
  // dP = do @ v.transpose(-2, -1)
  %vt = linalg.transpose ins(%v : tensor<1x8x64x32xf32>) outs(%e_t : tensor<1x8x32x64xf32>) permutation = [0, 1, 3, 2]
  %vtc = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<1x8x32x64xf32> into tensor<8x32x64xf32>
  %dp = linalg.batch_matmul ins(%doc, %vtc : tensor<8x64x32xf32>, tensor<8x32x64xf32>) outs(%f_s3 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %dpe = tensor.expand_shape %dp [[0, 1], [2], [3]] output_shape [1, 8, 64, 64] : tensor<8x64x64xf32> into tensor<1x8x64x64xf32>
  // _softmax_backward_data(dP, P): P * dP - P * sum(P * dP, -1, keepdim)
  %pdp = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%dpe, %p : tensor<1x8x64x64xf32>, tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%pdp : tensor<1x8x64x64xf32>) outs(%f_sum : tensor<1x8x64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x1xf32>
  %prs = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %rs : tensor<1x8x64x64xf32>, tensor<1x8x64x1xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %ds = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pdp, %prs : tensor<1x8x64x64xf32>, tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.subf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %dss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ds : tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %t = arith.truncf %c8 : f64 to f32
    %r = arith.divf %x0, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  // dQ = dS' @ k, dK = dS'.transpose(-2, -1) @ q
  %dssc = tensor.collapse_shape %dss [[0, 1], [2], [3]] : tensor<1x8x64x64xf32> into tensor<8x64x64xf32>
  %kc = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<1x8x64x32xf32> into tensor<8x64x32xf32>
  %dq = linalg.batch_matmul ins(%dssc, %kc : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%f_q3 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %dqe = tensor.expand_shape %dq [[0, 1], [2], [3]] output_shape [1, 8, 64, 32] : tensor<8x64x32xf32> into tensor<1x8x64x32xf32>
  %dsst = linalg.transpose ins(%dss : tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) permutation = [0, 1, 3, 2]
  %dsstc = tensor.collapse_shape %dsst [[0, 1], [2], [3]] : tensor<1x8x64x64xf32> into tensor<8x64x64xf32>
  %dk = linalg.batch_matmul ins(%dsstc, %qc : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%f_q3 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %dke = tensor.expand_shape %dk [[0, 1], [2], [3]] output_shape [1, 8, 64, 32] : tensor<8x64x32xf32> into tensor<1x8x64x32xf32>
  // the backward of repeat_kv: sum over the group
  %dk5 = tensor.expand_shape %dke [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 64, 32] : tensor<1x8x64x32xf32> into tensor<1x2x4x64x32xf32>
  %dv5 = tensor.expand_shape %dve [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 64, 32] : tensor<1x8x64x32xf32> into tensor<1x2x4x64x32xf32>
  %e_kv = tensor.empty() : tensor<1x2x64x32xf32>
  %f_kv = linalg.fill ins(%zero : f32) outs(%e_kv : tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32>
  %dks = linalg.generic {indexing_maps = [#id5, #sumg], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%dk5 : tensor<1x2x4x64x32xf32>) outs(%f_kv : tensor<1x2x64x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x64x32xf32>
  %dvs = linalg.generic {indexing_maps = [#id5, #sumg], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%dv5 : tensor<1x2x4x64x32xf32>) outs(%f_kv : tensor<1x2x64x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x64x32xf32>
  return %oe, %dqe, %dks, %dvs : tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#b0 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#sumg = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// Llama-style training step: GQA and an additive [B, 1, S, S] attention
// mask. The mask passes the score gradient through unchanged; it becomes the
// bias of both ops (fa.attention_grad's dBias, which the original does not
// compute, is unused).
// CHECK-LABEL: func.func @gqa_mask_fwd_bwd
// CHECK: fa.attention {{.+}} bias(
// CHECK: fa.attention_grad {{.+}} bias(
func.func @gqa_mask_fwd_bwd(%q: tensor<2x8x32x16xf32>, %kin: tensor<2x2x32x16xf32>, %vin: tensor<2x2x32x16xf32>, %do: tensor<2x8x32x16xf32>, %mask: tensor<2x1x32x32xf32>) -> (tensor<2x8x32x16xf32>, tensor<2x8x32x16xf32>, tensor<2x2x32x16xf32>, tensor<2x2x32x16xf32>) {
  // repeat_kv
  %ku = tensor.expand_shape %kin [[0], [1, 2], [3], [4]] output_shape [2, 2, 1, 32, 16] : tensor<2x2x32x16xf32> into tensor<2x2x1x32x16xf32>
  %vu = tensor.expand_shape %vin [[0], [1, 2], [3], [4]] output_shape [2, 2, 1, 32, 16] : tensor<2x2x32x16xf32> into tensor<2x2x1x32x16xf32>
  %e5 = tensor.empty() : tensor<2x2x4x32x16xf32>
  %kx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%ku : tensor<2x2x1x32x16xf32>) outs(%e5 : tensor<2x2x4x32x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x2x4x32x16xf32>
  %vx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%vu : tensor<2x2x1x32x16xf32>) outs(%e5 : tensor<2x2x4x32x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x2x4x32x16xf32>
  %k = tensor.collapse_shape %kx [[0], [1, 2], [3], [4]] : tensor<2x2x4x32x16xf32> into tensor<2x8x32x16xf32>
  %v = tensor.collapse_shape %vx [[0], [1, 2], [3], [4]] : tensor<2x2x4x32x16xf32> into tensor<2x8x32x16xf32>

  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c8 = arith.constant 8.0 : f64
  %e_t = tensor.empty() : tensor<2x8x16x32xf32>
  %e_s = tensor.empty() : tensor<2x8x32x32xf32>
  %e_s3 = tensor.empty() : tensor<16x32x32xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<16x32x32xf32>) -> tensor<16x32x32xf32>
  %e_q3 = tensor.empty() : tensor<16x32x16xf32>
  %f_q3 = linalg.fill ins(%zero : f32) outs(%e_q3 : tensor<16x32x16xf32>) -> tensor<16x32x16xf32>
  %e_r4 = tensor.empty() : tensor<2x8x32x1xf32>
  %f_max = linalg.fill ins(%ninf : f32) outs(%e_r4 : tensor<2x8x32x1xf32>) -> tensor<2x8x32x1xf32>
  %f_sum = linalg.fill ins(%zero : f32) outs(%e_r4 : tensor<2x8x32x1xf32>) -> tensor<2x8x32x1xf32>
  // forward: softmax(q @ k.transpose(-2, -1) / 8) @ v
  %kt = linalg.transpose ins(%k : tensor<2x8x32x16xf32>) outs(%e_t : tensor<2x8x16x32xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x8x32x16xf32> into tensor<16x32x16xf32>
  %ktc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x8x16x32xf32> into tensor<16x16x32xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<16x32x16xf32>, tensor<16x16x32xf32>) outs(%f_s3 : tensor<16x32x32xf32>) -> tensor<16x32x32xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 8, 32, 32] : tensor<16x32x32xf32> into tensor<2x8x32x32xf32>
  %x = linalg.generic {indexing_maps = [#id4, #b0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se, %mask : tensor<2x8x32x32xf32>, tensor<2x1x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %t = arith.truncf %c8 : f64 to f32
    %y = arith.divf %x0, %t : f32
    %r = arith.addf %y, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<2x8x32x32xf32>) outs(%f_max : tensor<2x8x32x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x1xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mx : tensor<2x8x32x32xf32>, tensor<2x8x32x1xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %d = arith.subf %x0, %x1 : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %l = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x8x32x32xf32>) outs(%f_sum : tensor<2x8x32x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x8x32x32xf32>, tensor<2x8x32x1xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.divf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x8x32x32xf32> into tensor<16x32x32xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x8x32x16xf32> into tensor<16x32x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 2 kv heads, scale 1.250000e-01, bias; backward raised to fa.attention_grad)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<16x32x32xf32>, tensor<16x32x16xf32>) outs(%f_q3 : tensor<16x32x16xf32>) -> tensor<16x32x16xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 8, 32, 16] : tensor<16x32x16xf32> into tensor<2x8x32x16xf32>
  // backward: dV = p.transpose(-2, -1) @ do
  %pt = linalg.transpose ins(%p : tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) permutation = [0, 1, 3, 2]
  %ptc = tensor.collapse_shape %pt [[0, 1], [2], [3]] : tensor<2x8x32x32xf32> into tensor<16x32x32xf32>
  %doc = tensor.collapse_shape %do [[0, 1], [2], [3]] : tensor<2x8x32x16xf32> into tensor<16x32x16xf32>
  %dv = linalg.batch_matmul ins(%ptc, %doc : tensor<16x32x32xf32>, tensor<16x32x16xf32>) outs(%f_q3 : tensor<16x32x16xf32>) -> tensor<16x32x16xf32>
  %dve = tensor.expand_shape %dv [[0, 1], [2], [3]] output_shape [2, 8, 32, 16] : tensor<16x32x16xf32> into tensor<2x8x32x16xf32>
  // dP = do @ v.transpose(-2, -1)
  %vt = linalg.transpose ins(%v : tensor<2x8x32x16xf32>) outs(%e_t : tensor<2x8x16x32xf32>) permutation = [0, 1, 3, 2]
  %vtc = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<2x8x16x32xf32> into tensor<16x16x32xf32>
  %dp = linalg.batch_matmul ins(%doc, %vtc : tensor<16x32x16xf32>, tensor<16x16x32xf32>) outs(%f_s3 : tensor<16x32x32xf32>) -> tensor<16x32x32xf32>
  %dpe = tensor.expand_shape %dp [[0, 1], [2], [3]] output_shape [2, 8, 32, 32] : tensor<16x32x32xf32> into tensor<2x8x32x32xf32>
  // _softmax_backward_data(dP, P): P * dP - P * sum(P * dP, -1, keepdim)
  %pdp = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%dpe, %p : tensor<2x8x32x32xf32>, tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%pdp : tensor<2x8x32x32xf32>) outs(%f_sum : tensor<2x8x32x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x1xf32>
  %prs = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %rs : tensor<2x8x32x32xf32>, tensor<2x8x32x1xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %ds = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pdp, %prs : tensor<2x8x32x32xf32>, tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.subf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %dss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ds : tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %t = arith.truncf %c8 : f64 to f32
    %r = arith.divf %x0, %t : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  // dQ = dS' @ k, dK = dS'.transpose(-2, -1) @ q
  %dssc = tensor.collapse_shape %dss [[0, 1], [2], [3]] : tensor<2x8x32x32xf32> into tensor<16x32x32xf32>
  %kc = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<2x8x32x16xf32> into tensor<16x32x16xf32>
  %dq = linalg.batch_matmul ins(%dssc, %kc : tensor<16x32x32xf32>, tensor<16x32x16xf32>) outs(%f_q3 : tensor<16x32x16xf32>) -> tensor<16x32x16xf32>
  %dqe = tensor.expand_shape %dq [[0, 1], [2], [3]] output_shape [2, 8, 32, 16] : tensor<16x32x16xf32> into tensor<2x8x32x16xf32>
  %dsst = linalg.transpose ins(%dss : tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) permutation = [0, 1, 3, 2]
  %dsstc = tensor.collapse_shape %dsst [[0, 1], [2], [3]] : tensor<2x8x32x32xf32> into tensor<16x32x32xf32>
  %dk = linalg.batch_matmul ins(%dsstc, %qc : tensor<16x32x32xf32>, tensor<16x32x16xf32>) outs(%f_q3 : tensor<16x32x16xf32>) -> tensor<16x32x16xf32>
  %dke = tensor.expand_shape %dk [[0, 1], [2], [3]] output_shape [2, 8, 32, 16] : tensor<16x32x16xf32> into tensor<2x8x32x16xf32>
  // the backward of repeat_kv: sum over the group
  %dk5 = tensor.expand_shape %dke [[0], [1, 2], [3], [4]] output_shape [2, 2, 4, 32, 16] : tensor<2x8x32x16xf32> into tensor<2x2x4x32x16xf32>
  %dv5 = tensor.expand_shape %dve [[0], [1, 2], [3], [4]] output_shape [2, 2, 4, 32, 16] : tensor<2x8x32x16xf32> into tensor<2x2x4x32x16xf32>
  %e_kv = tensor.empty() : tensor<2x2x32x16xf32>
  %f_kv = linalg.fill ins(%zero : f32) outs(%e_kv : tensor<2x2x32x16xf32>) -> tensor<2x2x32x16xf32>
  %dks = linalg.generic {indexing_maps = [#id5, #sumg], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%dk5 : tensor<2x2x4x32x16xf32>) outs(%f_kv : tensor<2x2x32x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x2x32x16xf32>
  %dvs = linalg.generic {indexing_maps = [#id5, #sumg], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%dv5 : tensor<2x2x4x32x16xf32>) outs(%f_kv : tensor<2x2x32x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x2x32x16xf32>
  return %oe, %dqe, %dks, %dvs : tensor<2x8x32x16xf32>, tensor<2x8x32x16xf32>, tensor<2x2x32x16xf32>, tensor<2x2x32x16xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#b0 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#keep0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#sumg = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#bk = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
// The same step with a per-key additive bias [B, 1, 1, Sk] (a learned or
// padding bias): read in score_mod from the captured tensor, in the forward
// and the backward op alike (dS passes through the addition unchanged).
// CHECK-LABEL: func.func @gqa_key_bias_fwd_bwd
// CHECK: fa.attention {{.+}} captures(%arg4 : tensor<2x1x1x32xf32>) {{.+}} score_mod {
// CHECK: fa.attention_grad {{.+}} captures(%arg4 : tensor<2x1x1x32xf32>) {{.+}} score_mod {
// CHECK-NOT: bias(
func.func @gqa_key_bias_fwd_bwd(%q: tensor<2x8x32x16xf32>, %kin: tensor<2x2x32x16xf32>, %vin: tensor<2x2x32x16xf32>, %do: tensor<2x8x32x16xf32>, %kb: tensor<2x1x1x32xf32>) -> (tensor<2x8x32x16xf32>, tensor<2x8x32x16xf32>, tensor<2x2x32x16xf32>, tensor<2x2x32x16xf32>) {
  // repeat_kv
  %ku = tensor.expand_shape %kin [[0], [1, 2], [3], [4]] output_shape [2, 2, 1, 32, 16] : tensor<2x2x32x16xf32> into tensor<2x2x1x32x16xf32>
  %vu = tensor.expand_shape %vin [[0], [1, 2], [3], [4]] output_shape [2, 2, 1, 32, 16] : tensor<2x2x32x16xf32> into tensor<2x2x1x32x16xf32>
  %e5 = tensor.empty() : tensor<2x2x4x32x16xf32>
  %kx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%ku : tensor<2x2x1x32x16xf32>) outs(%e5 : tensor<2x2x4x32x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x2x4x32x16xf32>
  %vx = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%vu : tensor<2x2x1x32x16xf32>) outs(%e5 : tensor<2x2x4x32x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x2x4x32x16xf32>
  %k = tensor.collapse_shape %kx [[0], [1, 2], [3], [4]] : tensor<2x2x4x32x16xf32> into tensor<2x8x32x16xf32>
  %v = tensor.collapse_shape %vx [[0], [1, 2], [3], [4]] : tensor<2x2x4x32x16xf32> into tensor<2x8x32x16xf32>

  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c8 = arith.constant 8.0 : f64
  %e_t = tensor.empty() : tensor<2x8x16x32xf32>
  %e_s = tensor.empty() : tensor<2x8x32x32xf32>
  %e_s3 = tensor.empty() : tensor<16x32x32xf32>
  %f_s3 = linalg.fill ins(%zero : f32) outs(%e_s3 : tensor<16x32x32xf32>) -> tensor<16x32x32xf32>
  %e_q3 = tensor.empty() : tensor<16x32x16xf32>
  %f_q3 = linalg.fill ins(%zero : f32) outs(%e_q3 : tensor<16x32x16xf32>) -> tensor<16x32x16xf32>
  %e_r4 = tensor.empty() : tensor<2x8x32x1xf32>
  %f_max = linalg.fill ins(%ninf : f32) outs(%e_r4 : tensor<2x8x32x1xf32>) -> tensor<2x8x32x1xf32>
  %f_sum = linalg.fill ins(%zero : f32) outs(%e_r4 : tensor<2x8x32x1xf32>) -> tensor<2x8x32x1xf32>
  // forward: softmax(q @ k.transpose(-2, -1) / 8) @ v
  %kt = linalg.transpose ins(%k : tensor<2x8x32x16xf32>) outs(%e_t : tensor<2x8x16x32xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x8x32x16xf32> into tensor<16x32x16xf32>
  %ktc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x8x16x32xf32> into tensor<16x16x32xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<16x32x16xf32>, tensor<16x16x32xf32>) outs(%f_s3 : tensor<16x32x32xf32>) -> tensor<16x32x32xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 8, 32, 32] : tensor<16x32x32xf32> into tensor<2x8x32x32xf32>
  %x = linalg.generic {indexing_maps = [#id4, #bk, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%se, %kb : tensor<2x8x32x32xf32>, tensor<2x1x1x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %t = arith.truncf %c8 : f64 to f32
    %y = arith.divf %x0, %t : f32
    %r = arith.addf %y, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<2x8x32x32xf32>) outs(%f_max : tensor<2x8x32x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x1xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mx : tensor<2x8x32x32xf32>, tensor<2x8x32x1xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %d = arith.subf %x0, %x1 : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %l = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x8x32x32xf32>) outs(%f_sum : tensor<2x8x32x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x8x32x32xf32>, tensor<2x8x32x1xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.divf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x8x32x32xf32> into tensor<16x32x32xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x8x32x16xf32> into tensor<16x32x16xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 2 kv heads, scale 1.250000e-01, score_mod; backward raised to fa.attention_grad)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<16x32x32xf32>, tensor<16x32x16xf32>) outs(%f_q3 : tensor<16x32x16xf32>) -> tensor<16x32x16xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 8, 32, 16] : tensor<16x32x16xf32> into tensor<2x8x32x16xf32>
  // backward: dV = p.transpose(-2, -1) @ do
  %pt = linalg.transpose ins(%p : tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) permutation = [0, 1, 3, 2]
  %ptc = tensor.collapse_shape %pt [[0, 1], [2], [3]] : tensor<2x8x32x32xf32> into tensor<16x32x32xf32>
  %doc = tensor.collapse_shape %do [[0, 1], [2], [3]] : tensor<2x8x32x16xf32> into tensor<16x32x16xf32>
  %dv = linalg.batch_matmul ins(%ptc, %doc : tensor<16x32x32xf32>, tensor<16x32x16xf32>) outs(%f_q3 : tensor<16x32x16xf32>) -> tensor<16x32x16xf32>
  %dve = tensor.expand_shape %dv [[0, 1], [2], [3]] output_shape [2, 8, 32, 16] : tensor<16x32x16xf32> into tensor<2x8x32x16xf32>
  // dP = do @ v.transpose(-2, -1)
  %vt = linalg.transpose ins(%v : tensor<2x8x32x16xf32>) outs(%e_t : tensor<2x8x16x32xf32>) permutation = [0, 1, 3, 2]
  %vtc = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<2x8x16x32xf32> into tensor<16x16x32xf32>
  %dp = linalg.batch_matmul ins(%doc, %vtc : tensor<16x32x16xf32>, tensor<16x16x32xf32>) outs(%f_s3 : tensor<16x32x32xf32>) -> tensor<16x32x32xf32>
  %dpe = tensor.expand_shape %dp [[0, 1], [2], [3]] output_shape [2, 8, 32, 32] : tensor<16x32x32xf32> into tensor<2x8x32x32xf32>
  // _softmax_backward_data(dP, P): P * dP - P * sum(P * dP, -1, keepdim)
  %pdp = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%dpe, %p : tensor<2x8x32x32xf32>, tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #keep0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%pdp : tensor<2x8x32x32xf32>) outs(%f_sum : tensor<2x8x32x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x1xf32>
  %prs = linalg.generic {indexing_maps = [#id4, #keep0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %rs : tensor<2x8x32x32xf32>, tensor<2x8x32x1xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %ds = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pdp, %prs : tensor<2x8x32x32xf32>, tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.subf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %dss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ds : tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %t = arith.truncf %c8 : f64 to f32
    %r = arith.divf %x0, %t : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  // dQ = dS' @ k, dK = dS'.transpose(-2, -1) @ q
  %dssc = tensor.collapse_shape %dss [[0, 1], [2], [3]] : tensor<2x8x32x32xf32> into tensor<16x32x32xf32>
  %kc = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<2x8x32x16xf32> into tensor<16x32x16xf32>
  %dq = linalg.batch_matmul ins(%dssc, %kc : tensor<16x32x32xf32>, tensor<16x32x16xf32>) outs(%f_q3 : tensor<16x32x16xf32>) -> tensor<16x32x16xf32>
  %dqe = tensor.expand_shape %dq [[0, 1], [2], [3]] output_shape [2, 8, 32, 16] : tensor<16x32x16xf32> into tensor<2x8x32x16xf32>
  %dsst = linalg.transpose ins(%dss : tensor<2x8x32x32xf32>) outs(%e_s : tensor<2x8x32x32xf32>) permutation = [0, 1, 3, 2]
  %dsstc = tensor.collapse_shape %dsst [[0, 1], [2], [3]] : tensor<2x8x32x32xf32> into tensor<16x32x32xf32>
  %dk = linalg.batch_matmul ins(%dsstc, %qc : tensor<16x32x32xf32>, tensor<16x32x16xf32>) outs(%f_q3 : tensor<16x32x16xf32>) -> tensor<16x32x16xf32>
  %dke = tensor.expand_shape %dk [[0, 1], [2], [3]] output_shape [2, 8, 32, 16] : tensor<16x32x16xf32> into tensor<2x8x32x16xf32>
  // the backward of repeat_kv: sum over the group
  %dk5 = tensor.expand_shape %dke [[0], [1, 2], [3], [4]] output_shape [2, 2, 4, 32, 16] : tensor<2x8x32x16xf32> into tensor<2x2x4x32x16xf32>
  %dv5 = tensor.expand_shape %dve [[0], [1, 2], [3], [4]] output_shape [2, 2, 4, 32, 16] : tensor<2x8x32x16xf32> into tensor<2x2x4x32x16xf32>
  %e_kv = tensor.empty() : tensor<2x2x32x16xf32>
  %f_kv = linalg.fill ins(%zero : f32) outs(%e_kv : tensor<2x2x32x16xf32>) -> tensor<2x2x32x16xf32>
  %dks = linalg.generic {indexing_maps = [#id5, #sumg], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%dk5 : tensor<2x2x4x32x16xf32>) outs(%f_kv : tensor<2x2x32x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x2x32x16xf32>
  %dvs = linalg.generic {indexing_maps = [#id5, #sumg], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%dv5 : tensor<2x2x4x32x16xf32>) outs(%f_kv : tensor<2x2x32x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x2x32x16xf32>
  return %oe, %dqe, %dks, %dvs : tensor<2x8x32x16xf32>, tensor<2x8x32x16xf32>, tensor<2x2x32x16xf32>, tensor<2x2x32x16xf32>
}


// -----

#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#tp = affine_map<(b, h, j, e, i) -> (b, h, i, j)>
#tdo = affine_map<(b, h, j, e, i) -> (b, h, i, e)>
#tdv = affine_map<(b, h, j, e, i) -> (b, h, j, e)>
#gs = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#gk = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#gq = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#hs = affine_map<(b, h, j, d, i) -> (b, h, i, j)>
#hq = affine_map<(b, h, j, d, i) -> (b, h, i, d)>
#hk = affine_map<(b, h, j, d, i) -> (b, h, j, d)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// PyTorch's math SDPA in training: Q and K each scaled by sqrt(scale), the
// backward contractions read the scaled tensors and rescale their results
// (dq = (dS k') * sqrt(scale)): the factors multiply to the forward's scale.
// CHECK-LABEL: func.func @prescaled_fwd_bwd
// CHECK: %[[O:.+]], %[[LSE:.+]] = fa.attention
// CHECK: fa.attention_grad {{.+}}, %[[O]], %[[LSE]] : {{.+}} {scale = 0.17677{{[0-9]+}} : f32}
// CHECK-NOT: linalg.generic
func.func @prescaled_fwd_bwd(%q: tensor<1x8x64x32xf32>, %k: tensor<1x8x64x32xf32>, %v: tensor<1x8x64x32xf32>, %do: tensor<1x8x64x32xf32>) -> (tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x8x64x64xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32>
  %e_q = tensor.empty() : tensor<1x8x64x32xf32>
  %f_q = linalg.fill ins(%zero : f32) outs(%e_q : tensor<1x8x64x32xf32>) -> tensor<1x8x64x32xf32>
  %e_r = tensor.empty() : tensor<1x8x64xf32>
  %sq = arith.constant 0.4204482076268573 : f32
  %qs = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<1x8x64x32xf32>) outs(%e_q : tensor<1x8x64x32xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %r = arith.mulf %x0, %sq : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x32xf32>
  %ks = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<1x8x64x32xf32>) outs(%e_q : tensor<1x8x64x32xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %r = arith.mulf %x0, %sq : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x32xf32>
  // forward
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%qs, %ks : tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>) outs(%f_s : tensor<1x8x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %r = arith.addf %x0, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %f_m = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x8x64x64xf32>) outs(%f_m : tensor<1x8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<1x8x64x64xf32>, tensor<1x8x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %f_l = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x8x64x64xf32>) outs(%f_l : tensor<1x8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<1x8x64x64xf32>, tensor<1x8x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 8 query heads / 8 kv heads, scale 1.767767e-01; backward raised to fa.attention_grad)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x8x64x64xf32>, tensor<1x8x64x32xf32>) outs(%f_q : tensor<1x8x64x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x32xf32>
  // backward: dV = Pᵀ dO, dP = dO Vᵀ
  %dv = linalg.generic {indexing_maps = [#tp, #tdo, #tdv], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %do : tensor<1x8x64x64xf32>, tensor<1x8x64x32xf32>) outs(%f_q : tensor<1x8x64x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x32xf32>
  %dp = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%do, %v : tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>) outs(%f_s : tensor<1x8x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  // torch-mlir's _softmax_backward_data: P∘dP - P∘rowsum(P∘dP)
  %t = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %dp : tensor<1x8x64x64xf32>, tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %out: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %f_r = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%t : tensor<1x8x64x64xf32>) outs(%f_r : tensor<1x8x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64xf32>
  %ds = linalg.generic {indexing_maps = [#id4, #id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %p, %rs : tensor<1x8x64x64xf32>, tensor<1x8x64x64xf32>, tensor<1x8x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %x2: f32, %out: f32):
    %pr = arith.mulf %x1, %x2 : f32
    %r = arith.subf %x0, %pr : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  %dss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ds : tensor<1x8x64x64xf32>) outs(%e_s : tensor<1x8x64x64xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %c = arith.constant 1.0 : f32
    %r = arith.mulf %x0, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x64xf32>
  // dQ = dS' K, dK = dS'ᵀ Q
  %dq0 = linalg.generic {indexing_maps = [#gs, #gk, #gq], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %ks : tensor<1x8x64x64xf32>, tensor<1x8x64x32xf32>) outs(%f_q : tensor<1x8x64x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x32xf32>
  %dk0 = linalg.generic {indexing_maps = [#hs, #hq, #hk], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %qs : tensor<1x8x64x64xf32>, tensor<1x8x64x32xf32>) outs(%f_q : tensor<1x8x64x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x32xf32>
  %dq = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%dq0 : tensor<1x8x64x32xf32>) outs(%e_q : tensor<1x8x64x32xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %r = arith.mulf %x0, %sq : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x32xf32>
  %dk = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%dk0 : tensor<1x8x64x32xf32>) outs(%e_q : tensor<1x8x64x32xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %r = arith.mulf %x0, %sq : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64x32xf32>
  return %o, %dq, %dk, %dv : tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>
}

// -----


#mq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#mk = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#ms = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#mp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#mv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#mo = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#tp = affine_map<(b, h, j, e, i) -> (b, h, i, j)>
#tdo = affine_map<(b, h, j, e, i) -> (b, h, i, e)>
#tdv = affine_map<(b, h, j, e, i) -> (b, h, j, e)>
#gs = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#gk = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#gq = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#hs = affine_map<(b, h, j, d, i) -> (b, h, i, j)>
#hq = affine_map<(b, h, j, d, i) -> (b, h, i, d)>
#hk = affine_map<(b, h, j, d, i) -> (b, h, j, d)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
// As autodiff emits it (issue 15, item 7): the forward through
// linalg.softmax, the softmax gradient P ∘ (dP - rowsum(dP ∘ P)) with the
// scale multiplied inside the same elementwise op.
// CHECK-LABEL: func.func @autodiff_softmax_backward
// CHECK: %[[O:.+]], %[[LSE:.+]] = fa.attention
// CHECK: fa.attention_grad {{.+}}, %[[O]], %[[LSE]] : {{.+}} {scale = 1.250000e-01 : f32}
// CHECK-NOT: linalg.softmax
func.func @autodiff_softmax_backward(%q: tensor<1x4x32x16xf32>, %k: tensor<1x4x32x16xf32>, %v: tensor<1x4x32x16xf32>, %do: tensor<1x4x32x16xf32>) -> (tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x4x32x32xf32>
  %f_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<1x4x32x32xf32>) -> tensor<1x4x32x32xf32>
  %e_q = tensor.empty() : tensor<1x4x32x16xf32>
  %f_q = linalg.fill ins(%zero : f32) outs(%e_q : tensor<1x4x32x16xf32>) -> tensor<1x4x32x16xf32>
  %e_r = tensor.empty() : tensor<1x4x32xf32>
  // forward
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>) outs(%f_s : tensor<1x4x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<1x4x32x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%x0: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r0 = arith.mulf %x0, %c : f32
    %r = arith.addf %r0, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  %p = linalg.softmax dimension(3) ins(%masked : tensor<1x4x32x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) -> tensor<1x4x32x32xf32>
  // expected-remark @+1 {{raised to fa.attention (bhsd, 4 query heads / 4 kv heads, scale 1.250000e-01; backward raised to fa.attention_grad)}}
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  // backward: dV = Pᵀ dO, dP = dO Vᵀ
  %dv = linalg.generic {indexing_maps = [#tp, #tdo, #tdv], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %do : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  %dp = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%do, %v : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>) outs(%f_s : tensor<1x4x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  // dS = P ∘ (dP - rowsum(P ∘ dP)) with the product fused into the sum
  %f_r = linalg.fill ins(%zero : f32) outs(%e_r : tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%dp, %p : tensor<1x4x32x32xf32>, tensor<1x4x32x32xf32>) outs(%f_r : tensor<1x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %b, %a : f32
    %r = arith.addf %m, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32xf32>
  %dss = linalg.generic {indexing_maps = [#id4, #id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %dp, %rs : tensor<1x4x32x32xf32>, tensor<1x4x32x32xf32>, tensor<1x4x32xf32>) outs(%e_s : tensor<1x4x32x32xf32>) {
  ^bb0(%x0: f32, %x1: f32, %x2: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %d = arith.subf %x1, %x2 : f32
    %g = arith.mulf %x0, %d : f32
    %r = arith.mulf %g, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x32xf32>
  // dQ = dS' K, dK = dS'ᵀ Q
  %dq = linalg.generic {indexing_maps = [#gs, #gk, #gq], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %k : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  %dk = linalg.generic {indexing_maps = [#hs, #hq, #hk], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %q : tensor<1x4x32x32xf32>, tensor<1x4x32x16xf32>) outs(%f_q : tensor<1x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x32x16xf32>
  return %o, %dq, %dk, %dv : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>
}
