#!/bin/bash
# On the GPU machine, from the repo root, with .devbuild carried:
#   bash test/Device/run_device.sh [check|bench|all]
# Writes logs under $OUT; prints the tables last.
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
what=${1:-all}
export PYTHONUNBUFFERED=1
K=.devbuild/kernels
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
main=$K/fa_fwd_bf16_d128_bhsd_lse_m128n128s2o.cubin
cuobjdump --dump-sass "$main" > "$OUT/fa_fwd_bf16_d128.sass" 2>&1
echo "SASS $main: HGMMA=$(grep -c HGMMA "$OUT/fa_fwd_bf16_d128.sass") UTMALDG=$(grep -c UTMALDG "$OUT/fa_fwd_bf16_d128.sass") LDL/STL=$(grep -cE '\bLDL|\bSTL' "$OUT/fa_fwd_bf16_d128.sass") USETMAXREG=$(grep -c USETMAXREG "$OUT/fa_fwd_bf16_d128.sass") MUFU.EX2=$(grep -c 'MUFU.EX2' "$OUT/fa_fwd_bf16_d128.sass")"
rc=0
if [ "$what" = check ] || [ "$what" = all ]; then
  timeout 120 python3 test/Device/check_attention.py $K 2>&1 | tee "$OUT/check.log"; rc=${PIPESTATUS[0]}
  [ $rc = 124 ] && { echo "check timed out (hang?): skipping bench"; exit 124; }
fi
if [ "$what" = sanitize ] || [ "$what" = all ]; then
  FA_CHECK_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --print-limit 5 \
    python3 test/Device/check_attention.py $K > "$OUT/memcheck.log" 2>&1
  echo "memcheck rc=$? : $(grep -E 'ERROR SUMMARY|check_attention:' "$OUT/memcheck.log" | tr '\n' ' ')"
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  timeout 300 python3 test/Device/bench_attention.py $K 2>&1 | tee "$OUT/bench.log"
fi
exit $rc
