// The stock mlir-opt loads fa-mlir as a dialect plugin and as a pass plugin.
// RUN: mlir-opt %s --load-dialect-plugin=%fa_libs/libFAPlugin%shlibext | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: mlir-opt %s --load-dialect-plugin=%fa_libs/libFAPlugin%shlibext -mlir-print-op-generic | mlir-opt --load-dialect-plugin=%fa_libs/libFAPlugin%shlibext | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: mlir-opt %s --load-pass-plugin=%fa_libs/libFAPlugin%shlibext --load-dialect-plugin=%fa_libs/libFAPlugin%shlibext --pass-pipeline="builtin.module(fa-decompose-attention)" | FileCheck %s --check-prefix=DECOMPOSED
// The sm_90a conversion is registered by the plugin too; f32 is refused with
// a diagnostic.
// RUN: not mlir-opt %s --load-pass-plugin=%fa_libs/libFAPlugin%shlibext --load-dialect-plugin=%fa_libs/libFAPlugin%shlibext --pass-pipeline="builtin.module(convert-fa-to-nvvm)" 2>&1 | FileCheck %s --check-prefix=NVVM
// NVVM: element type must be bf16, f16 or f8E4M3FN for the sm_90a kernel

// ROUNDTRIP-LABEL: func @attention
// ROUNDTRIP: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> {causal} -> tensor<1x4x16x8xf32>
// DECOMPOSED-LABEL: func @attention
// DECOMPOSED-NOT: fa.attention
// DECOMPOSED: linalg.generic
func.func @attention(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x4x16x8xf32> {
  %o = fa.attention %q, %k, %v : tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> {causal} -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}
