// An MLIR program with a causal GQA bf16 attention between two linalg ops
// (test/Device/check_runtime_calls.sh): inputs from integer formulas (exact
// on both sides: test/Device/check_runtime_calls.py recomputes them), the
// attention on the GPU through libfa_runtime (convert-fa-to-runtime-calls),
// the output widened to f32 and printed.
#id = affine_map<(b, h, s, d) -> (b, h, s, d)>

// Defined in runtime_calls_print.c.
func.func private @printF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() -> i32 {
  %c256 = arith.constant 256 : index
  %c64 = arith.constant 64 : index
  %c1009 = arith.constant 1009 : i64
  %den = arith.constant 504.5 : f32
  %one = arith.constant 1.0 : f32
  // q: ((flat index * 7919 + 13) mod 1009) / 504.5 - 1, to bf16.
  %qm = arith.constant 7919 : i64
  %qa = arith.constant 13 : i64
  %qe = tensor.empty() : tensor<1x4x256x64xbf16>
  %q = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%qe : tensor<1x4x256x64xbf16>) {
  ^bb0(%o: bf16):
    %h = linalg.index 1 : index
    %s = linalg.index 2 : index
    %d = linalg.index 3 : index
    %hs = arith.muli %h, %c256 : index
    %hss = arith.addi %hs, %s : index
    %row = arith.muli %hss, %c64 : index
    %flat = arith.addi %row, %d : index
    %i = arith.index_cast %flat : index to i64
    %m = arith.muli %i, %qm : i64
    %a = arith.addi %m, %qa : i64
    %rem = arith.remui %a, %c1009 : i64
    %f = arith.uitofp %rem : i64 to f32
    %x = arith.divf %f, %den : f32
    %y = arith.subf %x, %one : f32
    %b = arith.truncf %y : f32 to bf16
    linalg.yield %b : bf16
  } -> tensor<1x4x256x64xbf16>
  // k: ((flat index * 104729 + 7) mod 1009) / 504.5 - 1, to bf16.
  %km = arith.constant 104729 : i64
  %ka = arith.constant 7 : i64
  %ke = tensor.empty() : tensor<1x2x256x64xbf16>
  %k = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%ke : tensor<1x2x256x64xbf16>) {
  ^bb0(%o: bf16):
    %h = linalg.index 1 : index
    %s = linalg.index 2 : index
    %d = linalg.index 3 : index
    %hs = arith.muli %h, %c256 : index
    %hss = arith.addi %hs, %s : index
    %row = arith.muli %hss, %c64 : index
    %flat = arith.addi %row, %d : index
    %i = arith.index_cast %flat : index to i64
    %m = arith.muli %i, %km : i64
    %a = arith.addi %m, %ka : i64
    %rem = arith.remui %a, %c1009 : i64
    %f = arith.uitofp %rem : i64 to f32
    %x = arith.divf %f, %den : f32
    %y = arith.subf %x, %one : f32
    %b = arith.truncf %y : f32 to bf16
    linalg.yield %b : bf16
  } -> tensor<1x2x256x64xbf16>
  // v: ((flat index * 1299709 + 3) mod 1009) / 504.5 - 1, to bf16.
  %vm = arith.constant 1299709 : i64
  %va = arith.constant 3 : i64
  %ve = tensor.empty() : tensor<1x2x256x64xbf16>
  %v = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%ve : tensor<1x2x256x64xbf16>) {
  ^bb0(%o: bf16):
    %h = linalg.index 1 : index
    %s = linalg.index 2 : index
    %d = linalg.index 3 : index
    %hs = arith.muli %h, %c256 : index
    %hss = arith.addi %hs, %s : index
    %row = arith.muli %hss, %c64 : index
    %flat = arith.addi %row, %d : index
    %i = arith.index_cast %flat : index to i64
    %m = arith.muli %i, %vm : i64
    %a = arith.addi %m, %va : i64
    %rem = arith.remui %a, %c1009 : i64
    %f = arith.uitofp %rem : i64 to f32
    %x = arith.divf %f, %den : f32
    %y = arith.subf %x, %one : f32
    %b = arith.truncf %y : f32 to bf16
    linalg.yield %b : bf16
  } -> tensor<1x2x256x64xbf16>
  %o = fa.attention %q, %k, %v : tensor<1x4x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> {causal} -> tensor<1x4x256x64xbf16>
  %ef = tensor.empty() : tensor<1x4x256x64xf32>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o : tensor<1x4x256x64xbf16>) outs(%ef : tensor<1x4x256x64xf32>) {
  ^bb0(%a: bf16, %b: f32):
    %e = arith.extf %a : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<1x4x256x64xf32>
  %fm = bufferization.to_buffer %f read_only : tensor<1x4x256x64xf32> to memref<1x4x256x64xf32>
  %u = memref.cast %fm : memref<1x4x256x64xf32> to memref<*xf32>
  func.call @printF32(%u) : (memref<*xf32>) -> ()
  %zero = arith.constant 0 : i32
  return %zero : i32
}
