// A host program with a causal GQA bf16 attention between two linalg ops,
// compiled for sm_90a and lowered for the CPU with the attention as a call
// of the runtime, runs (mlir-runner) until the runtime needs a GPU: the
// embedded bundle loaded from the program's own memory and the operands the
// compiled code described passed the runtime's checks. (test/Device/
// check_runtime_calls.sh runs it on a GPU against float64.)
// RUN: fa-opt %s --fa-nvvm-pipeline=format=isa --convert-fa-to-runtime-calls --fa-cpu-pipeline > %t.mlir
// RUN: env FA_RUNTIME_LIBCUDA=/nonexistent/libcuda.so.1 not --crash mlir-runner %t.mlir -e main --entry-point-result=void --shared-libs=%fa_libs/libfa_runtime%shlibext,%mlir_runner_libs 2>&1 | FileCheck %s
// CHECK: fa-mlir runtime: fa_fwd_bf16_d64_bhsd_causal_{{.+}}: operand 'query': cannot load the CUDA driver library '/nonexistent/libcuda.so.1'
// CHECK-NOT: attention ran

#id = affine_map<(b, h, s, d) -> (b, h, s, d)>
func.func @main() {
  %half = arith.constant 0.5 : bf16
  %eq = tensor.empty() : tensor<1x4x128x64xbf16>
  %ek = tensor.empty() : tensor<1x2x128x64xbf16>
  %x = linalg.fill ins(%half : bf16) outs(%eq : tensor<1x4x128x64xbf16>) -> tensor<1x4x128x64xbf16>
  %k = linalg.fill ins(%half : bf16) outs(%ek : tensor<1x2x128x64xbf16>) -> tensor<1x2x128x64xbf16>
  // A linalg op before: q = x * x.
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x128x64xbf16>) outs(%eq : tensor<1x4x128x64xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %m = arith.mulf %a, %a : bf16
    linalg.yield %m : bf16
  } -> tensor<1x4x128x64xbf16>
  %o = fa.attention %q, %k, %k : tensor<1x4x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> {causal} -> tensor<1x4x128x64xbf16>
  // A linalg op after: to f32.
  %ef = tensor.empty() : tensor<1x4x128x64xf32>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o : tensor<1x4x128x64xbf16>) outs(%ef : tensor<1x4x128x64xf32>) {
  ^bb0(%a: bf16, %b: f32):
    %e = arith.extf %a : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<1x4x128x64xf32>
  %c0 = arith.constant 0 : index
  %first = tensor.extract %f[%c0, %c0, %c0, %c0] : tensor<1x4x128x64xf32>
  vector.print %first : f32
  vector.print str "attention ran\n"
  return
}
