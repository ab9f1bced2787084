// RUN: rm -rf %t && fa-compile %s -o %t --format=isa
// RUN: FileCheck %s --check-prefix=LOOP --input-file=%t/fa_fwd_bf16_d128_bhsd_lse_m128n128s2o.ptx
// RUN: FileCheck %s --check-prefix=ONE --input-file=%t/fa_fwd_bf16_d256_bhsd_lse_m128n80s2o.ptx

// A persistent kernel's producer (24 registers after setmaxnreg.dec) loops
// over work tiles; Q's boxes land at the same shared addresses in every
// tile, so LLVM hoists their destinations out of the loop. Passed by value
// (sharedAsCluster) they stay base + offset, which ptxas folds into the
// copy; the addrspacecast's cvta.shared + cvta.to.shared::cluster held a
// register each across the loop, and 28 of the device round's 76 kernels
// spilled in the producer (spills-ptxas.mlir checks ptxas's count).
// A one-tile kernel (d256 is not persistent) keeps the cast.

// LOOP: setmaxnreg.dec.sync.aligned.u32 {{.*}}24;
// LOOP-NOT: cvta.to.shared::cluster
// LOOP: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}+{{[0-9]+}}]
// LOOP-NOT: cvta.to.shared::cluster
// LOOP: setmaxnreg.inc.sync.aligned.u32 {{.*}}240;

// ONE: setmaxnreg.dec.sync.aligned.u32 {{.*}}24;
// ONE: cvta.to.shared::cluster.u64 [[DST:%rd[0-9]+]]
// ONE: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [[[DST]]]

func.func @persistent(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> {layout = #fa<layout bhsd>} -> tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>
}

func.func @one_tile(%q: tensor<?x?x?x256xbf16>, %k: tensor<?x?x?x256xbf16>, %v: tensor<?x?x?x256xbf16>) -> (tensor<?x?x?x256xbf16>, tensor<?x?x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x?x?x256xbf16>, tensor<?x?x?x256xbf16>, tensor<?x?x?x256xbf16> {layout = #fa<layout bhsd>} -> tensor<?x?x?x256xbf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x256xbf16>, tensor<?x?x?xf32>
}
