#!/bin/bash
# Compiles the device round's numerics matrix (gen_attention_inputs.py all)
# with two fa-compile binaries and compares the cubins of every
# configuration both accept. Byte-identical cubins run at identical speed,
# so this answers "does the new compiler lose speed on what the old one
# could do?" without a GPU; the device round's A/B (PREV_FA_COMPILE) times
# the differing ones.
#   test/Device/compare_compilers.sh <old fa-compile> [new fa-compile]
# Prints one line per differing kernel and a summary; exit 0 either way.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
old=${1:?usage: compare_compilers.sh <old fa-compile> [new fa-compile]}
new=${2:-$here/../../build/bin/fa-compile}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 "$here/gen_attention_inputs.py" all --split "$work/fn" > /dev/null
mkdir -p "$work/old" "$work/new"
for f in "$work"/fn/*.mlir; do
  # Only what the old compiler accepts is compared.
  "$old" "$f" -o "$work/old" > /dev/null 2>&1 || continue
  "$new" "$f" -o "$work/new" > /dev/null 2>&1 || echo "new compiler rejects $(head -1 "$f")"
done
same=0 differ=0
for c in "$work"/old/*.cubin; do
  [[ -e $c ]] || continue
  n=$(basename "$c" .cubin)
  if cmp -s "$c" "$work/new/$n.cubin"; then
    same=$((same + 1))
  else
    differ=$((differ + 1)); echo "differs: $n"
  fi
done
echo "compare_compilers: $same of $((same + differ)) kernels the old compiler makes are byte-identical"
