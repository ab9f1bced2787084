// A training graph as frameworks emit it (a joint forward + backward, bf16,
// linalg) raised to fa.attention + fa.attention_grad compiles end to end
// into sm_90a bundles: the forward's and the backward's kernel sequence.
// RUN: rm -rf %t && fa-opt %s --fa-raise-attention | fa-compile - -o %t --format=isa
// RUN: ls %t | FileCheck %s
// CHECK: fa_bwd_bf16_d64_bhsd_m128n128s2.json
// CHECK-NEXT: fa_bwd_bf16_d64_bhsd_m128n128s2.ptx
// CHECK-NEXT: fa_bwd_bf16_d64_bhsd_m128n128s2_main.json
// CHECK-NEXT: fa_bwd_bf16_d64_bhsd_m128n128s2_post.json
// CHECK-NEXT: fa_bwd_bf16_d64_bhsd_m128n128s2_pre.json
// CHECK-NEXT: fa_fwd_bf16_d64_bhsd_lse_m192n128s2o.json
// CHECK-NEXT: fa_fwd_bf16_d64_bhsd_lse_m192n128s2o.ptx
// RUN: FileCheck %s --check-prefix=SEQ --input-file=%t/fa_bwd_bf16_d64_bhsd_m128n128s2.json
// SEQ: "scale": 0.125
// SEQ: "format": "fa-kernel-sequence"

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
func.func @bert_fwd_bwd(%q: tensor<2x12x128x64xbf16>, %k: tensor<2x12x128x64xbf16>, %v: tensor<2x12x128x64xbf16>, %do: tensor<2x12x128x64xbf16>) -> (tensor<2x12x128x64xbf16>, tensor<2x12x128x64xbf16>, tensor<2x12x128x64xbf16>, tensor<2x12x128x64xbf16>) {
  %zero = arith.constant 0.0 : bf16
  %e_s = tensor.empty() : tensor<2x12x128x128xbf16>
  %f_s = linalg.fill ins(%zero : bf16) outs(%e_s : tensor<2x12x128x128xbf16>) -> tensor<2x12x128x128xbf16>
  %e_q = tensor.empty() : tensor<2x12x128x64xbf16>
  %f_q = linalg.fill ins(%zero : bf16) outs(%e_q : tensor<2x12x128x64xbf16>) -> tensor<2x12x128x64xbf16>
  %e_r = tensor.empty() : tensor<2x12x128xbf16>
  // forward
  %qk = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x12x128x64xbf16>, tensor<2x12x128x64xbf16>) outs(%f_s : tensor<2x12x128x128xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %m = arith.mulf %a, %b : bf16
    %r = arith.addf %c, %m : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x128xbf16>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk : tensor<2x12x128x128xbf16>) outs(%e_s : tensor<2x12x128x128xbf16>) {
  ^bb0(%x0: bf16, %out: bf16):
    %c = arith.constant 0.125 : bf16
    %r0 = arith.mulf %x0, %c : bf16
    %r = arith.addf %r0, %zero : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x128xbf16>
  %ninf = arith.constant 0xFF80 : bf16
  %f_m = linalg.fill ins(%ninf : bf16) outs(%e_r : tensor<2x12x128xbf16>) -> tensor<2x12x128xbf16>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x12x128x128xbf16>) outs(%f_m : tensor<2x12x128xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %r = arith.maximumf %in, %out : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128xbf16>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x12x128x128xbf16>, tensor<2x12x128xbf16>) outs(%e_s : tensor<2x12x128x128xbf16>) {
  ^bb0(%in: bf16, %m: bf16, %out: bf16):
    %d = arith.subf %in, %m : bf16
    %r = math.exp %d : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x128xbf16>
  %f_l = linalg.fill ins(%zero : bf16) outs(%e_r : tensor<2x12x128xbf16>) -> tensor<2x12x128xbf16>
  %l = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x12x128x128xbf16>) outs(%f_l : tensor<2x12x128xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %r = arith.addf %in, %out : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128xbf16>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %l : tensor<2x12x128x128xbf16>, tensor<2x12x128xbf16>) outs(%e_s : tensor<2x12x128x128xbf16>) {
  ^bb0(%in: bf16, %s: bf16, %out: bf16):
    %r = arith.divf %in, %s : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x128xbf16>
  %o = linalg.generic {indexing_maps = [#mp, #mv, #mo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x12x128x128xbf16>, tensor<2x12x128x64xbf16>) outs(%f_q : tensor<2x12x128x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %m = arith.mulf %a, %b : bf16
    %r = arith.addf %c, %m : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x64xbf16>
  // backward: dV = Pᵀ dO, dP = dO Vᵀ
  %dv = linalg.generic {indexing_maps = [#tp, #tdo, #tdv], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %do : tensor<2x12x128x128xbf16>, tensor<2x12x128x64xbf16>) outs(%f_q : tensor<2x12x128x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %m = arith.mulf %a, %b : bf16
    %r = arith.addf %c, %m : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x64xbf16>
  %dp = linalg.generic {indexing_maps = [#mq, #mk, #ms], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%do, %v : tensor<2x12x128x64xbf16>, tensor<2x12x128x64xbf16>) outs(%f_s : tensor<2x12x128x128xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %m = arith.mulf %a, %b : bf16
    %r = arith.addf %c, %m : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x128xbf16>
  // torch-mlir's _softmax_backward_data: P∘dP - P∘rowsum(P∘dP)
  %t = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %dp : tensor<2x12x128x128xbf16>, tensor<2x12x128x128xbf16>) outs(%e_s : tensor<2x12x128x128xbf16>) {
  ^bb0(%x0: bf16, %x1: bf16, %out: bf16):
    %r = arith.mulf %x0, %x1 : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x128xbf16>
  %f_r = linalg.fill ins(%zero : bf16) outs(%e_r : tensor<2x12x128xbf16>) -> tensor<2x12x128xbf16>
  %rs = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%t : tensor<2x12x128x128xbf16>) outs(%f_r : tensor<2x12x128xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %r = arith.addf %in, %acc : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128xbf16>
  %ds = linalg.generic {indexing_maps = [#id4, #id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %p, %rs : tensor<2x12x128x128xbf16>, tensor<2x12x128x128xbf16>, tensor<2x12x128xbf16>) outs(%e_s : tensor<2x12x128x128xbf16>) {
  ^bb0(%x0: bf16, %x1: bf16, %x2: bf16, %out: bf16):
    %pr = arith.mulf %x1, %x2 : bf16
    %r = arith.subf %x0, %pr : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x128xbf16>
  %dss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ds : tensor<2x12x128x128xbf16>) outs(%e_s : tensor<2x12x128x128xbf16>) {
  ^bb0(%x0: bf16, %out: bf16):
    %c = arith.constant 0.125 : bf16
    %r = arith.mulf %x0, %c : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x128xbf16>
  // dQ = dS' K, dK = dS'ᵀ Q
  %dq = linalg.generic {indexing_maps = [#gs, #gk, #gq], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %k : tensor<2x12x128x128xbf16>, tensor<2x12x128x64xbf16>) outs(%f_q : tensor<2x12x128x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %m = arith.mulf %a, %b : bf16
    %r = arith.addf %c, %m : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x64xbf16>
  %dk = linalg.generic {indexing_maps = [#hs, #hq, #hk], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%dss, %q : tensor<2x12x128x128xbf16>, tensor<2x12x128x64xbf16>) outs(%f_q : tensor<2x12x128x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %m = arith.mulf %a, %b : bf16
    %r = arith.addf %c, %m : bf16
    linalg.yield %r : bf16
  } -> tensor<2x12x128x64xbf16>
  return %o, %dq, %dk, %dv : tensor<2x12x128x64xbf16>, tensor<2x12x128x64xbf16>, tensor<2x12x128x64xbf16>, tensor<2x12x128x64xbf16>
}
