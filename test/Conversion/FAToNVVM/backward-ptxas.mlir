// REQUIRES: ptxas
// RUN: rm -rf %t && fa-compile %s -o %t --format=isa
// RUN: %ptxas -arch=sm_90a -v %t/fa_bwd_bf16_d128_bhsd_m64n128s2.ptx -o /dev/null 2>&1 | FileCheck %s

// ptxas on the d128 backward (dV issued under dP^T, so dS's registers are
// written after dV's fence): the main kernel has its own wgmma.fence before
// the dQ and dK products, so ptxas injects none (warning C7519 in all 16
// d96/d128 main kernels before; the SASS is the same instruction for
// instruction, docs/HopperBackward.md), and nothing spills.

// CHECK-NOT: C7519
// CHECK: Compiling entry function 'fa_bwd_bf16_d128_bhsd_m64n128s2_main'
// CHECK-NOT: C7519
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C7519

func.func @g(%do: tensor<?x?x?x128xbf16>, %q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>, %o: tensor<?x?x?x128xbf16>, %l: tensor<?x?x?xf32>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?xf32> {layout = #fa<layout bhsd>} -> tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>
  return %dq, %dk, %dv : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>
}
