// RUN: fa-opt %s --pass-pipeline='builtin.module(fa-cpu-pipeline{block-rows=4 block-cols=16})' \
// RUN:   | mlir-translate --mlir-to-llvmir \
// RUN:   | clang -O2 -target x86_64-unknown-linux-gnu -march=znver3 -Wno-override-module -S -x ir - -o - \
// RUN:   | FileCheck %s --implicit-check-not=__truncsfbf2 --implicit-check-not=__extendbfsf2

// A bf16 forward on dynamic sequence lengths, for an AVX2 CPU without
// AVX-512 BF16: its key and value tiles are read by vector blocks (FMAs on
// ymm registers), and the masked reads at a tile's edge must not become
// compiler-rt calls, which the kernels do not link. clang -O2, as the
// package compiles kernels (llc alone, without the optimizer's folding of
// the bf16 <-> i16 bitcasts, would call them for unmasked reads too).

// CHECK-LABEL: attention:
// CHECK:         vfmadd{{.*}}%ymm
func.func @attention(%q: tensor<1x1x?x64xbf16>, %k: tensor<1x1x?x64xbf16>,
                     %v: tensor<1x1x?x64xbf16>) -> tensor<1x1x?x64xbf16> {
  %o, %lse = fa.attention %q, %k, %v
      : tensor<1x1x?x64xbf16>, tensor<1x1x?x64xbf16>, tensor<1x1x?x64xbf16>
      -> tensor<1x1x?x64xbf16>, tensor<1x1x?xf32>
  return %o : tensor<1x1x?x64xbf16>
}
