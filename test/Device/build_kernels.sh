#!/bin/bash
# Compiles the attention kernels of the device round into bundles under
# <out> (default .devbuild/kernels), plus a ptxas resource report.
#   test/Device/build_kernels.sh [fa-compile] [out]
# Normally run by `bash scripts/device-round.sh prepare`.
#
# Each function of `gen_attention_inputs.py all` (the numerics matrix, the
# default schedule) and of `bench` (compiled again with --overlap=false) is
# compiled on its own, JOBS at a time (default 2), so that a configuration
# fa-compile rejects does not take the others down: the rejected ones are
# listed in <out>/rejected.txt with fa-compile's message (check_attention.py
# prints that list; their cases fail with "no bundle"). STRICT=1 makes any
# rejection an error. <out>/index.tsv maps each bundle to the fa-compile
# options and the function it came from (fa_rt.find tells the default
# schedule from the benchmark's variant by it). Two different
# configurations that get the same kernel name are an error. The variant
# benchmark's configurations (gen_bench_inputs.py) go to
# <out>/variants/<name>/, one folder each (bench_variants.py BUNDLE_DIR =
# <out>/variants).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
FC=${1:-$root/build/bin/fa-compile}
[[ $FC == /* ]] || FC=$PWD/$FC
out=${2:-$root/.devbuild/kernels}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
JOBS=${JOBS:-2}
rm -rf "$out"; mkdir -p "$out"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 "$here/gen_attention_inputs.py" all > "$out/all.mlir"
python3 "$here/gen_attention_inputs.py" bench > "$out/bench.mlir"
python3 "$here/gen_attention_inputs.py" all --split "$work/fn"
python3 "$here/gen_attention_inputs.py" bench --split "$work/fn"

# One job: <function file> <fa-compile options...>; bundles into
# $work/out/<function>/, status and log beside it.
compile_one() {
  local f=$1; shift
  local b; b=$(basename "$f" .mlir)
  mkdir -p "$work/out/$b"
  if "$FC" "$f" -o "$work/out/$b" "$@" > "$work/out/$b.log" 2>&1; then
    echo ok > "$work/out/$b.status"
  else
    echo rejected > "$work/out/$b.status"
  fi
}
export -f compile_one; export FC work
{ for f in "$work"/fn/all_*.mlir; do printf '%s\n' "$f"; done; } |
  xargs -P "$JOBS" -I{} bash -c 'compile_one "$1"' _ {}
{ for f in "$work"/fn/bench_*.mlir; do printf '%s\n' "$f"; done; } |
  xargs -P "$JOBS" -I{} bash -c 'compile_one "$1" --overlap=false' _ {}

: > "$out/rejected.txt"
printf '# bundle\tfa-compile options\tfunction (gen_attention_inputs.py)\n' > "$out/index.tsv"
collisions=0
for f in "$work"/fn/*.mlir; do
  b=$(basename "$f" .mlir)
  opts=""; [[ $b == bench_* ]] && opts="--overlap=false"
  what=$(head -1 "$f" | sed 's|^// ||')
  if [[ $(cat "$work/out/$b.status") != ok ]]; then
    msg=$(grep -m1 -E 'error:' "$work/out/$b.log" | sed 's/^[^:]*:[0-9]*:[0-9]*: //' || true)
    printf '%s (%s): %s\n' "$b" "$what" "${msg:-$(tail -1 "$work/out/$b.log")}" >> "$out/rejected.txt"
    continue
  fi
  for j in "$work/out/$b"/*.json; do
    [[ -e $j ]] || continue
    n=$(basename "$j" .json)
    if [[ -e $out/$n.json ]]; then
      if ! cmp -s "$j" "$out/$n.json"; then
        echo "build_kernels: kernel name $n is produced by two different configurations ($b and an earlier one)" >&2
        collisions=$((collisions + 1))
      fi
      continue
    fi
    mv "$j" "$work/out/$b/$n.cubin" "$out/"
    printf '%s\t%s\t%s: %s\n' "$n" "$opts" "$b" "$what" >> "$out/index.tsv"
  done
done
nrej=$(wc -l < "$out/rejected.txt")
if (( nrej )); then
  echo "build_kernels: fa-compile rejected $nrej configuration(s), listed in $out/rejected.txt:" >&2
  sed 's/^/  /' "$out/rejected.txt" >&2
fi
(( collisions == 0 )) || { echo "build_kernels: $collisions kernel name collision(s)" >&2; exit 1; }
if [[ -n ${STRICT:-} ]] && (( nrej )); then exit 1; fi

# The variant benchmark's configurations (gen_bench_inputs.py, read by
# bench_variants.py): one folder per configuration, <out>/variants/<name>/,
# so that bundles whose kernel names do not tell variants apart stay apart.
if [[ -f $here/gen_bench_inputs.py ]]; then
  python3 "$here/gen_bench_inputs.py" split "$work/var"
  for f in "$work"/var/*.mlir; do printf '%s\n' "$f"; done |
    xargs -P "$JOBS" -I{} bash -c 'compile_one "$1"' _ {}
  : > "$out/variants-rejected.txt"
  for f in "$work"/var/*.mlir; do
    b=$(basename "$f" .mlir)
    if [[ $(cat "$work/out/$b.status") == ok ]]; then
      mkdir -p "$out/variants/$b"; mv "$work/out/$b"/*.json "$work/out/$b"/*.cubin "$out/variants/$b/"
    else
      printf '%s: %s\n' "$b" "$(grep -m1 -E 'error:' "$work/out/$b.log" | sed 's/^[^:]*:[0-9]*:[0-9]*: //')" \
        >> "$out/variants-rejected.txt"
    fi
  done
  echo "build_kernels: $(ls -d "$out"/variants/*/ 2>/dev/null | wc -l) variant configurations in $out/variants" \
       "($(wc -l < "$out/variants-rejected.txt") rejected)"
fi

# Resource report (registers, stack, spills) from ptxas on the same PTX,
# for the functions that compiled.
if [ -x "$PTXAS" ]; then
  mkdir -p "$work/ptx"
  ok_all=() ok_bench=()
  for f in "$work"/fn/*.mlir; do
    b=$(basename "$f" .mlir)
    [[ $(cat "$work/out/$b.status") == ok ]] || continue
    if [[ $b == bench_* ]]; then ok_bench+=("$f"); else ok_all+=("$f"); fi
  done
  if (( ${#ok_all[@]} )); then
    cat "${ok_all[@]}" > "$work/ok_all.mlir"
    "$FC" "$work/ok_all.mlir" -o "$work/ptx" --format=isa
  fi
  if (( ${#ok_bench[@]} )); then
    cat "${ok_bench[@]}" > "$work/ok_bench.mlir"
    "$FC" "$work/ok_bench.mlir" -o "$work/ptx" --format=isa --overlap=false
  fi
  : > "$out/ptxas.log"
  for p in "$work"/ptx/*.ptx; do
    [[ -e $p ]] || continue
    "$PTXAS" -arch=sm_90a -v "$p" -o /dev/null >> "$out/ptxas.log" 2>&1
  done
  python3 "$here/ptxas_summary.py" "$out/ptxas.log" > "$out/ptxas-summary.txt"
else
  echo "no ptxas at $PTXAS: no resource report" > "$out/ptxas-summary.txt"
fi
echo "build_kernels: $(ls "$out"/*.cubin 2>/dev/null | wc -l) kernels in $out ($nrej configurations rejected)"
