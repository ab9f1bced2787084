#!/usr/bin/env bash
# An MLIR program's attention on the GPU with no MLIR and no Python at run
# time (issue 38 item 3), in two halves. Here (the compiler machine, after
# scripts/build.sh):
#   bash test/Device/check_runtime_calls.sh build [OUT]   # OUT: .devbuild/runtime-calls
#     test/Device/runtime_calls_program.mlir (a causal GQA bf16 attention
#     between two linalg ops) through fa-nvvm-pipeline,
#     convert-fa-to-runtime-calls and fa-cpu-pipeline, mlir-translate and
#     clang into an executable (with runtime_calls_print.c) that links only
#     libfa_runtime.so; the kernel is inside the executable
# On the GPU machine (carry OUT):
#   bash test/Device/check_runtime_calls.sh test [OUT]
#     runs it and checks the output against float64 with FlashAttention's
#     criterion (check_runtime_calls.py), then examples/gpu-host's C program
#     (attention_host --launch: bundle from memory, device buffers through
#     the runtime). Each prints "... ok".
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${2:-$root/.devbuild/runtime-calls}"
llvm=/usr/lib/llvm-22
case "${1:-}" in
  build)
    rm -rf "$out" && mkdir -p "$out"
    "$root/build/bin/fa-opt" "$root/test/Device/runtime_calls_program.mlir" \
      --fa-nvvm-pipeline --convert-fa-to-runtime-calls --fa-cpu-pipeline |
      "$llvm/bin/mlir-translate" --mlir-to-llvmir > "$out/program.ll"
    cp "$root/build/lib/libfa_runtime.so" "$out/"
    clang-22 -O2 "$out/program.ll" "$root/test/Device/runtime_calls_print.c" \
      -o "$out/attention_program" -L"$out" -lfa_runtime -Wl,-rpath,'$ORIGIN'
    cp "$root/test/Device/check_runtime_calls.py" "$out/"
    # The hand-written host program of examples/gpu-host, for comparison.
    "$root/build/bin/fa-compile" "$root/examples/gpu-host/attention.mlir" \
      -o "$out/bundles"
    clang-22 -O2 -I"$root/include" "$root/examples/gpu-host/attention_host.c" \
      -o "$out/attention_host" -L"$out" -lfa_runtime -lm -Wl,-rpath,'$ORIGIN'
    ls -l "$out" ;;
  test)
    out="$(cd "$out" && pwd)"
    "$out/attention_program" > "$out/output.txt"
    python3 "$out/check_runtime_calls.py" "$out/output.txt"
    json=$(ls "$out"/bundles/*.json)
    "$out/attention_host" --launch "$json" "${json%.json}.cubin" ;;
  *)
    echo "usage: $0 build|test [OUT]" >&2; exit 2 ;;
esac
