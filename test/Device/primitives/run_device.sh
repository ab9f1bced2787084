#!/bin/bash
# On the GPU machine, from the repo root, after build.sh ran here and
# .devbuild was carried:  bash test/Device/primitives/run_device.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
CUBIN=.devbuild/primitives/primitives.cubin
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
cuobjdump --dump-sass "$CUBIN" > "$OUT/primitives.sass" 2>&1
echo "SASS: HGMMA=$(grep -c HGMMA "$OUT/primitives.sass") UTMALDG=$(grep -c UTMALDG "$OUT/primitives.sass") LDL/STL=$(grep -cE '\bLDL|\bSTL' "$OUT/primitives.sass") USETMAXREG=$(grep -c USETMAXREG "$OUT/primitives.sass")"
if ! timeout 120 python3 test/Device/primitives/check_primitives.py "$CUBIN" 2>&1 | tee "$OUT/primitives.log"; then
  echo "== rerunning each check in its own process"
  for c in tma_param tma_global ss_k16 ss_k128 mn_a mn_b mn_a64 rs_bf16 rs_f16 rs_bf16_64 ws; do
    timeout 30 python3 test/Device/primitives/check_primitives.py "$CUBIN" $c 2>&1 | grep -E "PASS|FAIL|ERROR" || echo "$c TIMEOUT/CRASH"
  done 2>&1 | tee -a "$OUT/primitives.log"
fi
