// RUN: fa-opt %s --convert-fa-to-nvvm | FileCheck %s

// Softcap: the main kernel recomputes score = softcap * tanh(scale qk /
// softcap) with tanh.approx (as the forward does) and takes dS through
// 1 - (score / softcap)^2. The bundle's name carries the softcap.
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_cap{{[0-9a-fx]+}}_m64n128s2{{.*}}_main(
// CHECK: nvvm.setmaxregister increase 240
// CHECK: tanh.approx.f32
// CHECK: ex2.approx
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: llvm.func @fa_bwd_bf16_d64_bhsd_cap{{[0-9a-fx]+}}_m64n128s2{{.*}}_post(

func.func @grad(%do: tensor<?x?x?x64xbf16>, %q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %o: tensor<?x?x?x64xbf16>, %l: tensor<?x?x?xf32>) -> (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?xf32> {softcap = 30.0 : f32} -> tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>
  return %dq, %dk, %dv : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>
}
