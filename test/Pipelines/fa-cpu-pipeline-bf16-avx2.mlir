// RUN: fa-opt %s --pass-pipeline='builtin.module(fa-cpu-pipeline{block-rows=4 block-cols=16})' \
// RUN:   | mlir-translate --mlir-to-llvmir > %t.ll
// RUN: clang -O2 -target x86_64-unknown-linux-gnu -march=znver3 -Wno-override-module -S %t.ll -o - \
// RUN:   | FileCheck %s --implicit-check-not=__truncsfbf2 --implicit-check-not=__extendbfsf2
// RUN: clang -O0 -target x86_64-unknown-linux-gnu -Wno-override-module -S %t.ll -o - \
// RUN:   | FileCheck %s --check-prefix=BASELINE --implicit-check-not=__truncsfbf2 --implicit-check-not=__extendbfsf2

// A bf16 forward on dynamic sequence lengths, for an AVX2 CPU without
// AVX-512 BF16 (FMAs on ymm registers) and for the x86-64 baseline at -O0
// (as test/Execution compiles): no bf16 vector may reach LLVM, whose x86
// back end would convert it lane by lane through compiler-rt calls that the
// kernels do not link (tiles are converted to f32 before the vector blocks).

// CHECK-LABEL: attention:
// CHECK:         vfmadd{{.*}}%ymm
// BASELINE-LABEL: attention:
func.func @attention(%q: tensor<1x1x?x64xbf16>, %k: tensor<1x1x?x64xbf16>,
                     %v: tensor<1x1x?x64xbf16>) -> tensor<1x1x?x64xbf16> {
  %o, %lse = fa.attention %q, %k, %v
      : tensor<1x1x?x64xbf16>, tensor<1x1x?x64xbf16>, tensor<1x1x?x64xbf16>
      -> tensor<1x1x?x64xbf16>, tensor<1x1x?xf32>
  return %o : tensor<1x1x?x64xbf16>
}
