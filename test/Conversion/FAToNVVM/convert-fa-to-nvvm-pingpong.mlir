// RUN: fa-opt %s --convert-fa-to-nvvm="pingpong=true" | FileCheck %s

// Ping-pong as FA3/FA4's scheduler barrier: consumer 1 arrives once on
// consumer 0's turn barrier (id 1, 256 threads) before any tile; in the main
// loop a consumer syncs on its own turn before issuing S_t and P_{t-1}
// V_{t-1} and arrives on the other's right after, before it waits for S_t.
// A tile's first S and last P V take no turn, so that neither consumer waits
// at a tile's edge for the other's epilogue, and the kernel is persistent
// (its turns run on across tiles; the per-tile protocol before it was
// neither).

// CHECK-LABEL: llvm.func @fa_fwd_bf16_d128_bhsd_m128n128s2op
// CHECK: nvvm.barrier0
// CHECK: nvvm.barrier.arrive id = %c1_i32{{[_0-9]*}} number_of_threads = %c256_i32
// The first S of a tile: no turn.
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.barrier
// CHECK: scf.for
// CHECK: nvvm.barrier id = {{%[0-9]+}} number_of_threads = %c256_i32
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.barrier.arrive id = {{%[0-9]+}} number_of_threads = %c256_i32
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The last P V of a tile: no turn.
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The tile loop of a persistent CTA: the same code again, no second start.
// CHECK-NOT: nvvm.barrier.arrive id = %c1_i32
// CHECK: scf.for {{.*}} iter_args
// CHECK: nvvm.barrier id
func.func @dense(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  %o = fa.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> {layout = #fa<layout bhsd>} -> tensor<?x?x?x128xbf16>
  return %o : tensor<?x?x?x128xbf16>
}
