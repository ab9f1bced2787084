#!/usr/bin/env bash
# The device round (issue 6) as one project command, in two halves:
#
#   bash scripts/device-round.sh prepare    # here, on the compiler machine
#       builds fa-compile, fa-opt and libfa_runtime in build/ (scripts/setup.sh
#       and scripts/build.sh the first time), compiles the kernel bundles of
#       the supported matrix and stages everything the GPU side needs in
#       .devbuild/ (ignored; carried to the GPU machine)
#   bash scripts/device-round.sh run        # on the GPU machine (device tool,
#       carry [".devbuild"]); no MLIR there. Stages, each time-boxed:
#       1 SASS: HGMMA present, no local-memory spills (cuobjdump), plus the
#         ptxas report made by prepare and where the spills are, producer
#         or consumer warps (test/Device/spill_sites.py -> $OUT/spill_sites.txt,
#         the backward sequences' -> $OUT/spill_sites_backward.txt)
#       2 correctness over the matrix through libfa_runtime against SDPA and
#         float64 (test/Device/check_attention.py), and, at the same time,
#         compute-sanitizer memcheck on small shapes and racecheck on tiny
#         ones (our kernels only)
#       3 benchmark next to FA4 (when .anchors/ was carried), FA2, cuDNN,
#         FlexAttention, standard attention (test/Device/bench_attention.py)
#         -> $OUT/bench.csv with ratio_to_best_peer; with
#         .devbuild/kernels-prev (PREV_FA_COMPILE at prepare) the previous
#         compiler's kernels run beside ours in the same process (and its
#         backward sequences, .devbuild/backward-prev, in stage 6, and its
#         ragged-batch kernels, .devbuild/varlen-prev, in stage 8)
#         and the --pingpong=true matrix (.devbuild/kernels-pingpong): its
#         numerics -> $OUT/check_pingpong.csv and an A/B against the default
#         kernels in both orders (test/Device/bench_forward_ab.py) ->
#         $OUT/pingpong_ab.csv,
#         and ncu's stall reasons of ours and FA4's forward at two shapes
#         (test/Device/profile_forward.py) -> $OUT/profile_forward_stalls.md,
#         and per SASS instruction at d128 8k (test/Device/sass_stalls.py) ->
#         $OUT/sass_stalls.md
#       3b variant benchmark (test/Device/bench_variants.py: sliding window,
#         softcap, d256, D192/Dv128, ALiBi bias) next to FA4, cuDNN (SDPA and
#         frontend), FA2, Flex -> $OUT/variants.csv; FA4 and cudnn-frontend
#         come from .anchors/ over two device calls (docs/DeviceRound.md)
#       4 GPT-2 medium (the FlashAttention paper's table): time and ncu HBM
#         bytes (test/Device/gpt2_fig2.py)
#       5 the Python package's GPU tests (python/tests/gpu: fa_mlir.torch on
#         CUDA from AOT bundles, no compiler present)
#       6 the backward (issue 11): dQ/dK/dV of the kernel sequences
#         (test/Device/check_backward.py, .devbuild/backward) against
#         float64, deterministic runs bitwise equal, memcheck on small
#         shapes, a small GPT trained with our op and with SDPA
#         (test/Device/train_gpt.py, AOT bundles of .devbuild/gpu-tests) and
#         its tokens/s next to SDPA's at the issue's size
#         (test/Device/bench_train_gpt.py) -> $OUT/bench_train_gpt.csv,
#         with the host ms per step on an idle GPU and fa_mlir's share
#         (HOST_SPLIT) -> $OUT/bench_train_gpt.csv.host,
#         then the backward benchmark next to FA4, cuDNN, FA2
#         (test/Device/bench_backward.py) -> $OUT/bench_backward.csv (and
#         with .devbuild/backward-prev the A/B's other order ->
#         $OUT/bench_backward_swapped.csv), the 80-query tile at d128
#         (.devbuild/backward-80, --bwd-query-tile=80) checked and timed
#         against the default in both orders -> $OUT/check_backward_80.csv,
#         $OUT/bench_backward_80_*.csv, the
#         backward with a bias next to SDPA's cuDNN and memory-efficient
#         backends, our plain backward and ours_prev (bench_backward_bias.py)
#         -> $OUT/bench_backward_bias.csv, and
#         an ncu profile per kernel of four shapes (profile_backward.py)
#         -> $OUT/profile_backward.md, and ours and FA4's at d128 with the
#         stall reasons -> $OUT/profile_backward_stalls.md
#       7 decode (issue 14): the split-KV sequences of fa.attention_kvcache
#         (contiguous and paged caches, with and without append)
#         and fa.attention num_splits (test/Device/check_decode.py, .devbuild/
#         decode) against float64 with NaN past every cache length, memcheck
#         on them, then decode next to SDPA (FA2) and FA4
#         (test/Device/bench_decode.py) -> $OUT/bench_decode.csv, and
#         chunked prefill next to FA4 (test/Device/bench_chunked.py) ->
#         $OUT/bench_chunked.csv
#         (with DYNAMIC_TILES=1 at prepare: the benchmark's kernels
#         compiled with --dynamic-tiles beside ours, as ours_dyn)
#       8 ragged batches (issue 14): the fa.attention_varlen kernels
#         (test/Device/check_varlen.py, .devbuild/varlen) against float64
#         per sequence, memcheck on them, then varlen prefill next to our
#         dense kernel, FA4 and FA2 (test/Device/bench_varlen.py) ->
#         $OUT/bench_varlen.csv; the ragged-batch backward
#         (fa.attention_varlen_grad, .devbuild/varlen-bwd) against float64
#         per sequence (test/Device/check_varlen_backward.py), memcheck,
#         and 8 documents in 16k tokens next to our dense backward and FA4
#         (test/Device/bench_varlen_backward.py) -> $OUT/bench_varlen_backward.csv
#       9 the FP8 forward (sm_90a, float8_e4m3fn): every FP8 kernel family
#         through libfa_runtime against float64 (test/Device/
#         check_fp8_sequences.py, .devbuild/fp8-check), the Python GPU tests of
#         FP8 (python/tests/gpu/test_gpu_fp8.py; only when stage 5 is not
#         run, which has them), memcheck on its small cases, then the FP8
#         benchmark next to cuDNN FP8, our bf16 and FA4 bf16, each shape
#         checked against float64 first, and issue 12's RMSE table on FA3's
#         outlier distribution (test/Device/bench_fp8.py, .devbuild/fp8)
#         -> $OUT/bench_fp8.csv, $OUT/fp8_rmse.csv
#      10 ring attention (issue 17; a machine of 2 or more GPUs, e.g. the
#         device tool's nvidia-h200-x2/-x4, else skipped): NCCL, bf16,
#         output and dQ/dK/dV against float64 and one GPU
#         (test/Device/check_ring.py, AOT bundles of .devbuild/gpu-tests),
#         then scaling from 1 to 2/4 GPUs next to PyTorch's
#         context_parallel (test/Device/bench_ring.py) -> $OUT/bench_ring.csv
#      11 the Python API's own cost (issue 37 item 5): paged decode, varlen
#         and the FP8 forward through fa_mlir.torch next to the same kernels
#         launched alone, eager and captured in CUDA graphs, after checking
#         the results against float64, that the calls never sync the host
#         and that a graph replays them bit for bit; and issue 37's serving
#         floors: decode and varlen next to FA4's paged and varlen calls on
#         the same operands (when .anchors/ was carried; FA4's output
#         checked first), decode over its bandwidth floor (the bytes it
#         must move over a device copy's bandwidth measured in the process)
#         (test/Device/bench_api_overhead.py, AOT bundles of .devbuild/
#         gpu-tests and .devbuild/fp8) -> $OUT/bench_api_overhead.csv
#      12 score_mod/mask_mod (issue 35): the forward kernels of
#         test/Device/gen_modifier_inputs.py (.devbuild/modifiers, one folder
#         per configuration) against float64 (test/Device/check_modifiers.py;
#         the block-sparse ones' _block_map pre-kernel also alone against the
#         map PyTorch's mask gives), memcheck on them, then next to
#         FlexAttention and FA4's
#         score_mod/mask_mod path, and causal as a mask_mod next to the causal
#         attribute (test/Device/bench_modifiers.py) -> $OUT/bench_modifiers.csv
#      13 attention sinks (issue 35 item 5): the forward and backward kernels
#         of test/Device/gen_sinks_inputs.py (.devbuild/sinks) against float64
#         (test/Device/check_sinks.py: O, LSE, dQ, dK, dV, dSinks; GQA,
#         causal, a window, rows without keys, deterministic), memcheck on
#         them (forward and backward kernels), then next to FA4's
#         learnable_sink and our kernel without sinks
#         (test/Device/bench_sinks.py) -> $OUT/bench_sinks.csv
#     12s score_mod/mask_mod on the ragged-batch and KV-cache forwards
#         (issue 35, the inference ops): fa.attention_varlen and
#         fa.attention_kvcache (paged, appends) with stage 12's modifiers
#         (.devbuild/seqmods, one folder per configuration) against float64
#         per sequence (test/Device/check_sequence_modifiers.py), memcheck
#       Logs and CSVs go to $OUT; short tables are printed last.
#       STAGES=3,3b: only those stages (e.g. a second benchmark run);
#         8b is stage 8's ragged-batch backward alone.
#       ROUND_SMOKE=1: a quick pass over every stage (few cases, one
#       benchmark shape, no memcheck or racecheck), to try the round before a
#       full one.
# docs/DeviceRound.md describes the stages and holds the results.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dev=$root/.devbuild
BUILD_DIR=${BUILD_DIR:-build}

prepare() {
  set -e
  if [[ ! -f $BUILD_DIR/build.ninja ]]; then
    bash scripts/setup.sh
    bash scripts/build.sh
  fi
  ninja -C "$BUILD_DIR" -j"${JOBS:-2}" fa-compile fa-opt fa_runtime
  grep -qx '/.devbuild/' .gitignore || echo '/.devbuild/' >> .gitignore
  rm -rf "$dev/kernels" "$dev/lib" "$dev/gpu-tests"; mkdir -p "$dev/lib"   # .devbuild/primitives stays
  bash test/Device/build_kernels.sh "$root/$BUILD_DIR/bin/fa-compile" "$dev/kernels"
  bash test/Device/build_backward.sh "$root/$BUILD_DIR/bin/fa-compile" "$dev/backward"
  # The 80-query tile (--bwd-query-tile=80, opt-in until measured) of the
  # configurations it applies to: stage 6 checks it and times it against
  # the default in both orders.
  ONLY='^bf16_d128_b(hsd|shd)$' FA_COMPILE_FLAGS=--bwd-query-tile=80 \
    bash test/Device/build_backward.sh "$root/$BUILD_DIR/bin/fa-compile" "$dev/backward-80"
  # The split-KV decode sequences (stage 7).
  rm -rf "$dev/decode"; mkdir -p "$dev/decode"
  python3 test/Device/gen_decode_inputs.py > "$dev/decode/decode.mlir"
  "$BUILD_DIR/bin/fa-compile" "$dev/decode/decode.mlir" -o "$dev/decode"
  # The ragged-batch kernels and their dense references (stage 8).
  rm -rf "$dev/varlen"; mkdir -p "$dev/varlen"
  python3 test/Device/gen_varlen_inputs.py > "$dev/varlen/varlen.mlir"
  "$BUILD_DIR/bin/fa-compile" "$dev/varlen/varlen.mlir" -o "$dev/varlen"
  # The ragged-batch backward sequences (issue 37 item 4), deterministic
  # ones with --deterministic, and their dense references (stage 8).
  rm -rf "$dev/varlen-bwd"; mkdir -p "$dev/varlen-bwd"
  python3 test/Device/gen_varlen_backward_inputs.py > "$dev/varlen-bwd/varlen_bwd.mlir"
  python3 test/Device/gen_varlen_backward_inputs.py det > "$dev/varlen-bwd/varlen_bwd_det.mlir"
  "$BUILD_DIR/bin/fa-compile" "$dev/varlen-bwd/varlen_bwd.mlir" -o "$dev/varlen-bwd"
  "$BUILD_DIR/bin/fa-compile" --deterministic "$dev/varlen-bwd/varlen_bwd_det.mlir" -o "$dev/varlen-bwd"
  prepare_modifiers
  prepare_sequence_modifiers
  prepare_sinks
  # fa_mlir reads bundles through jsonschema (python/fa_mlir/manifest.py);
  # the GPU machine has none and no network: carry its wheels, unpacked,
  # for the machine's Python (DEVICE_PYTHON; typing_extensions comes with
  # torch there).
  rm -rf "$dev/pylib" "$dev/wheels"; mkdir -p "$dev/pylib"
  "$root/.venv/bin/pip" download --quiet --only-binary=:all: --python-version "${DEVICE_PYTHON:-3.12}" \
    --platform manylinux_2_17_x86_64 jsonschema -d "$dev/wheels"
  for w in "$dev"/wheels/*.whl; do
    [[ $(basename "$w") == typing_extensions-* ]] || python3 -m zipfile -e "$w" "$dev/pylib"
  done
  rm -rf "$dev/wheels"
  # The benchmark's configurations from an earlier fa-compile, for an A/B in
  # one process (PREV_FA_COMPILE=path/to/old/fa-compile).
  rm -rf "$dev/kernels-prev"
  if [[ -n ${PREV_FA_COMPILE:-} ]]; then
    mkdir -p "$dev/kernels-prev"
    python3 test/Device/gen_attention_inputs.py bench > "$dev/kernels-prev/bench.mlir"
    "$PREV_FA_COMPILE" "$dev/kernels-prev/bench.mlir" -o "$dev/kernels-prev"
    SKIP_REJECTED=1 bash test/Device/build_backward.sh "$PREV_FA_COMPILE" "$dev/backward-prev"
    rm -rf "$dev/varlen-prev"; mkdir -p "$dev/varlen-prev"
    "$PREV_FA_COMPILE" "$dev/varlen/varlen.mlir" -o "$dev/varlen-prev"
  else
    rm -rf "$dev/backward-prev" "$dev/varlen-prev"
  fi
  # BWD_PREV_FLAGS (e.g. --bwd-query-tile=64): the backward sequences again
  # from this compiler with these options, as stage 6's "ours_prev" (an A/B
  # of one compiler option in one process; replaces PREV_FA_COMPILE's).
  if [[ -n ${BWD_PREV_FLAGS:-} ]]; then
    FA_COMPILE_FLAGS=$BWD_PREV_FLAGS bash test/Device/build_backward.sh \
      "$root/$BUILD_DIR/bin/fa-compile" "$dev/backward-prev"
  fi
  # The dynamic tile scheduler (opt-in, DYNAMIC_TILES=1): the benchmark's
  # configurations and the ragged-batch kernels compiled with
  # --dynamic-tiles, which stages 3 and 8 check and time beside the static
  # ones (ours_dyn, ours_varlen_dyn).
  rm -rf "$dev/kernels-dyn" "$dev/varlen-dyn"
  if [[ -n ${DYNAMIC_TILES:-} ]]; then
    mkdir -p "$dev/kernels-dyn" "$dev/varlen-dyn"
    python3 test/Device/gen_attention_inputs.py bench > "$dev/kernels-dyn/bench.mlir"
    "$BUILD_DIR/bin/fa-compile" --dynamic-tiles "$dev/kernels-dyn/bench.mlir" -o "$dev/kernels-dyn"
    "$BUILD_DIR/bin/fa-compile" --dynamic-tiles "$dev/varlen/varlen.mlir" -o "$dev/varlen-dyn"
  fi
  # Ping-pong (FA4's scheduler barrier, opt-in until measured): the whole
  # matrix and the benchmark's configurations compiled with --pingpong=true;
  # stage 3 checks them and times them against the default in both orders.
  rm -rf "$dev/kernels-pingpong"; mkdir -p "$dev/kernels-pingpong"
  python3 test/Device/gen_attention_inputs.py all > "$dev/kernels-pingpong/all.mlir"
  "$BUILD_DIR/bin/fa-compile" --pingpong=true "$dev/kernels-pingpong/all.mlir" -o "$dev/kernels-pingpong"
  # FA4 and cudnn-frontend for stage 3b, packed once into .anchors/ (ignored)
  grep -qx '/.anchors/' .gitignore || echo '/.anchors/' >> .gitignore
  if [[ -f ../shared/peers/anchor-wheels.sh ]]; then
    mkdir -p .anchors && cp ../shared/peers/anchor-wheels.sh .anchors/
    [[ -f .anchors/a/part.aa && -f .anchors/b/part.ab ]] ||
      bash .anchors/anchor-wheels.sh pack .anchors || echo "prepare: FA4 wheels not packed: stage 3b reports FA4 unavailable" >&2
  fi
  # The FP8 benchmark's bundles (stage 9): the FP8 forward at the bench's
  # head counts and our bf16 kernels beside it, as fa_mlir AOT bundles
  # (fa_mlir.torch.attention finds them; a configuration fa-compile
  # rejects is listed in fp8/failed.txt and reported by the bench).
  rm -rf "$dev/fp8"
  FA_BUILD_DIR="$root/$BUILD_DIR" PYTHONPATH=python "$root/.venv/bin/python" -m fa_mlir.aot \
    --configs test/Device/fp8_configs.json --out "$dev/fp8" --target sm_90a --keep-going
  # The FP8 sequences' own check (stage 9): every kernel family through
  # libfa_runtime, without the Python package's route.
  rm -rf "$dev/fp8-check"; mkdir -p "$dev/fp8-check"
  python3 test/Device/check_fp8_sequences.py gen > "$dev/fp8-check/fp8.mlir"
  "$BUILD_DIR/bin/fa-compile" "$dev/fp8-check/fp8.mlir" -o "$dev/fp8-check"
  # The same kernels from the previous compiler, for stage 9's A/B (the
  # kernels it refuses are left out).
  rm -rf "$dev/fp8-check-prev"
  if [[ -n ${PREV_FA_COMPILE:-} ]]; then
    mkdir -p "$dev/fp8-check-prev"
    "$PREV_FA_COMPILE" "$dev/fp8-check/fp8.mlir" -o "$dev/fp8-check-prev" ||
      echo "prepare: the previous fa-compile refused some FP8 check kernels" >&2
  fi
  cp "$BUILD_DIR/lib/libfa_runtime.so" "$dev/lib/"
  FA_BUILD_DIR="$root/$BUILD_DIR" GPU_TEST_BUNDLES="$dev/gpu-tests" \
    bash python/tests/gpu/run_device.sh build
  { echo "prepared $(date -u '+%Y-%m-%d %H:%M UTC') from $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- lib include tools || echo ' (with local changes)')"
    echo "fa-compile sha256 $(sha256sum "$BUILD_DIR/bin/fa-compile" | cut -c1-16)"
    echo "libfa_runtime sha256 $(sha256sum "$dev/lib/libfa_runtime.so" | cut -c1-16)"
    echo "bundles $(ls "$dev"/kernels/*.json | wc -l); configurations fa-compile rejected: $(wc -l < "$dev/kernels/rejected.txt")"
    echo "FP8 bench bundles $(grep -c '"path"' "$dev/fp8/index.json" 2>/dev/null || echo 0); rejected: $(cat "$dev/fp8/failed.txt" 2>/dev/null | wc -l)"
    echo "variant bundles $(ls "$dev"/kernels/variants/*/*.json 2>/dev/null | wc -l); previous compiler's bundles $(ls "$dev"/kernels-prev/*.json 2>/dev/null | wc -l); FA4 wheels $([[ -f .anchors/b/part.ab ]] && echo packed || echo absent)"
  } > "$dev/MANIFEST.txt"
  local kib; kib=$(du -sk "$dev" | cut -f1)
  if (( kib > 60 * 1024 )); then echo "prepare: .devbuild is $kib KiB, over 60 MiB" >&2; exit 1; fi
  cat "$dev/MANIFEST.txt"
  echo "prepare: .devbuild ready ($kib KiB). On the GPU, two device calls back to back: 1) carry [\".anchors/a\", \".anchors/anchor-wheels.sh\"], command: bash .anchors/anchor-wheels.sh stage .anchors; 2) at once, carry [\".devbuild\", \".anchors/b\", \".anchors/anchor-wheels.sh\"], command: bash scripts/device-round.sh run"
}

# The score_mod/mask_mod kernels of stage 12, one folder per configuration
# (a configuration fa-compile rejects fails prepare: the check would report
# it as "no bundle" anyway).
prepare_modifiers() {
  local c
  rm -rf "$dev/modifiers"
  for c in $(python3 test/Device/gen_modifier_inputs.py list); do
    mkdir -p "$dev/modifiers/$c"
    python3 test/Device/gen_modifier_inputs.py "$c" > "$dev/modifiers/$c/$c.mlir"
    "$BUILD_DIR/bin/fa-compile" "$dev/modifiers/$c/$c.mlir" -o "$dev/modifiers/$c"
    # Its backward (a kernel sequence); check_modifiers.py reads cfg.json's
    # folder as check_backward.py does.
    mkdir -p "$dev/modifiers/${c}_bwd"
    python3 test/Device/gen_modifier_inputs.py backward "$c" > "$dev/modifiers/${c}_bwd/$c.mlir"
    echo '{}' > "$dev/modifiers/${c}_bwd/cfg.json"
    "$BUILD_DIR/bin/fa-compile" "$dev/modifiers/${c}_bwd/$c.mlir" -o "$dev/modifiers/${c}_bwd"
  done
}

# The varlen and KV-cache kernels with regions of stage 12s, one folder per
# configuration.
prepare_sequence_modifiers() {
  local c
  rm -rf "$dev/seqmods"
  for c in $(python3 test/Device/check_sequence_modifiers.py list); do
    mkdir -p "$dev/seqmods/$c"
    python3 test/Device/check_sequence_modifiers.py gen "$c" > "$dev/seqmods/$c/$c.mlir"
    "$BUILD_DIR/bin/fa-compile" "$dev/seqmods/$c/$c.mlir" -o "$dev/seqmods/$c"
  done
}

# The attention-sinks kernels of stage 13, one folder per configuration
# (forward bundle and backward sequence); `_det` ones with --deterministic.
prepare_sinks() {
  local c det
  rm -rf "$dev/sinks"
  for c in $(python3 test/Device/gen_sinks_inputs.py list); do
    mkdir -p "$dev/sinks/$c"
    python3 test/Device/gen_sinks_inputs.py "$c" > "$dev/sinks/$c/$c.mlir"
    det=()
    [[ $c == *_det ]] && det=(--deterministic)
    "$BUILD_DIR/bin/fa-compile" "${det[@]}" "$dev/sinks/$c/$c.mlir" -o "$dev/sinks/$c"
  done
}

sass_summary() {  # one line per kernel: HGMMA, UTMALDG, USETMAXREG, LDL/STL counts
  local k s
  for k in "$dev"/kernels/*.cubin "$dev"/kernels/variants/*/*.cubin; do [[ -e $k ]] || continue
    s=$(cuobjdump --dump-sass "$k" 2>&1)
    printf '%-64s HGMMA=%s UTMALDG=%s USETMAXREG=%s MUFU.EX2=%s LDL/STL=%s\n' "$(basename "$k" .cubin)" \
      "$(grep -c HGMMA <<<"$s")" "$(grep -c UTMALDG <<<"$s")" "$(grep -c USETMAXREG <<<"$s")" \
      "$(grep -c 'MUFU.EX2' <<<"$s")" "$(grep -cE '\b(LDL|STL)\b' <<<"$s")"
  done
}

representatives() {  # kernel names of a few configurations, from the bundles' JSON
  python3 - "$1" <<'PY'
import glob, json, os, sys
d = sys.argv[1]
def opts(name):  # the default schedule: index.tsv's empty options column
    for line in open(os.path.join(d, "index.tsv")) if os.path.exists(os.path.join(d, "index.tsv")) else []:
        f = line.rstrip("\n").split("\t")
        if f[0] == name:
            return f[1] if len(f) > 1 else ""
    return ""
want = [  # (dtype, head_dim, head_dim_v, layout, causal, window?, softcap?, bias?)
    ("bf16", 128, 128, "bhsd", False, False, False, False),
    ("bf16", 64, 64, "bhsd", True, False, False, False),
    ("bf16", 256, 256, "bshd", False, False, False, False),
    ("bf16", 192, 128, "bshd", False, False, False, False),
    ("bf16", 128, 128, "bshd", True, True, False, False),
    ("bf16", 128, 128, "bshd", False, False, True, False),
    ("bf16", 128, 128, "bshd", False, False, False, True),
    ("bf16", 128, 128, "bshd", True, True, True, True),
]
found = {}
for p in sorted(glob.glob(os.path.join(d, "*.json"))):
    j = json.load(open(p)); c = j["config"]
    key = (c["dtype"], c["head_dim"], c.get("head_dim_v", c["head_dim"]), c["layout"], bool(c.get("causal")),
           c.get("window") is not None, c.get("softcap") is not None, bool(c.get("bias")))
    name = os.path.splitext(os.path.basename(p))[0]
    if key in want and c.get("return_lse") and key not in found and opts(name) == "":
        found[key] = os.path.splitext(os.path.basename(j["cubin"]))[0]
for k in want:
    if k in found:
        print(found[k])
PY
}

racecheck() {  # FA_CHECK_QUICK=racecheck under compute-sanitizer --tool racecheck -> $OUT/racecheck.log
  local t=$SECONDS rc
  FA_CHECK_QUICK=racecheck timeout "${RACECHECK_TIMEOUT:-150}" compute-sanitizer --tool racecheck \
    --racecheck-report analysis --report-api-errors no --print-limit 20 --kernel-name kns=fa_fwd \
    python3 test/Device/check_attention.py "$K" > "$OUT/racecheck.log" 2>&1
  rc=$?
  # a sanitizer that does not take the kernel filter fails at once: run unfiltered
  if (( rc != 0 && rc != 124 && SECONDS - t < 20 )) && ! grep -q 'check_attention:' "$OUT/racecheck.log"; then
    mv "$OUT/racecheck.log" "$OUT/racecheck-filtered.log"
    echo "racecheck: --kernel-name kns=fa_fwd refused (racecheck-filtered.log), running unfiltered" > "$OUT/racecheck.log"
    FA_CHECK_QUICK=racecheck timeout "${RACECHECK_TIMEOUT:-150}" compute-sanitizer --tool racecheck \
      --racecheck-report analysis --report-api-errors no --print-limit 20 \
      python3 test/Device/check_attention.py "$K" >> "$OUT/racecheck.log" 2>&1
    rc=$?
  fi
  return $rc
}

# STAGES (e.g. "3,3b"): run only those stages (a second benchmark run on a
# machine that just ran the whole round). Default: all.
stage_on() { [[ -z ${STAGES:-} || ",$STAGES," == *",$1,"* ]]; }

# FA4's (and cudnn-frontend's) wheels on PYTHONPATH, in the calling
# (sub)shell, when both halves were carried; else says who is unavailable.
fa4_env() {
  if [[ -f $root/.anchors/anchor-wheels.sh && -f $root/.anchors/b/part.ab ]]; then  # both halves here, or none unpacked
    eval "$(bash "$root/.anchors/anchor-wheels.sh" env "$root/.anchors")" ||
      echo "# no FA4 wheels on this machine (make the stage call first): ${1:-FA4} unavailable"
  fi
}

# ncu's per-SASS-instruction stall samples of one profiling script's NVTX range "measure"
# (test/Device/sass_stalls.py summarises them) -> $OUT/sass_stalls.md; NAME, then the script and
# its arguments (PEER=... in the environment for a peer's kernel).
sass_profile() {
  local name=$1; shift
  rm -f "$tmp/rep.ncu-rep"
  timeout "${NCU_TIMEOUT:-90}" ncu --nvtx --nvtx-include measure/ --clock-control none \
    --section WarpStateStats --section SourceCounters --import-source no -o "$tmp/rep" \
    python3 "$@" > "$tmp/rep.log" 2>&1
  echo "sass stalls, $name rc=$?"
  ncu -i "$tmp/rep.ncu-rep" --page source --csv --print-source sass > "$tmp/src.csv" 2> "$tmp/src.err" &&
    { echo "## $name"; python3 test/Device/sass_stalls.py "$tmp/src.csv" 30; } | tee -a "$OUT/sass_stalls.md"
}

# Stage 7/8's checks: test/Device/check_NAME.py over DIR into $OUT, then
# again under memcheck (our kernels only; not with ROUND_SMOKE) with the
# extra environment words given after DIR. Time limits:
# CHECK_<NAME>_TIMEOUT, MEMCHECK_<NAME>_TIMEOUT. CHECK_TAG (e.g. _dyn)
# tells the outputs of a second folder apart.
check_with_memcheck() {
  local name=$1 dir=$2; shift 2
  local up=${name^^} t out=$name${CHECK_TAG:-}
  t=CHECK_${up}_TIMEOUT
  timeout "${!t:-240}" python3 "test/Device/check_$name.py" "$dir" "$OUT/check_$out.csv" \
    > "$OUT/check_$out.log" 2>&1
  echo "check_$out rc=$?: $(tail -1 "$OUT/check_$out.log")"; grep FAIL "$OUT/check_$out.log" | head -8
  [[ -n ${ROUND_SMOKE:-} ]] && return
  t=MEMCHECK_${up}_TIMEOUT
  env "$@" timeout "${!t:-300}" compute-sanitizer --tool memcheck --report-api-errors no --print-limit 20 \
    --kernel-name "kns=${MEMCHECK_KERNELS:-fa_fwd}" python3 "test/Device/check_$name.py" "$dir" > "$OUT/memcheck_$out.log" 2>&1
  echo "memcheck $out rc=$?: $(grep -E "ERROR SUMMARY|$name check" "$OUT/memcheck_$out.log" | tr '\n' ' ')"
}

run() {
  export PYTHONUNBUFFERED=1 FA_RUNTIME_LIB=$dev/lib/libfa_runtime.so FA_BUILD_DIR=/nonexistent
  export PYTHONPATH=$dev/pylib${PYTHONPATH:+:$PYTHONPATH}  # jsonschema, from prepare
  local K=$dev/kernels T0=$SECONDS tmp
  tmp=$(mktemp -d)
  [[ -f $FA_RUNTIME_LIB ]] || { echo "no $FA_RUNTIME_LIB: run 'bash scripts/device-round.sh prepare' here and carry .devbuild"; exit 2; }
  echo "== device round $(date -u '+%Y-%m-%d %H:%M UTC'); $(cat "$dev/MANIFEST.txt" | head -1)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
  python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "triton", triton.__version__)'

  if stage_on 1; then
  echo "== 1 SASS ($(ls "$K"/*.cubin | wc -l) kernels)"
  sass_summary > "$OUT/sass.txt"
  # a few representative kernels, picked by their JSON config (names change)
  representatives "$K" | awk 'NR == FNR {want[$1]; next} ($1 in want)' - "$OUT/sass.txt"
  awk '{split($2,h,"="); split($6,l,"="); if (h[2]==0) nh++; sp+=l[2]} END {printf "SASS: %d kernels, %d without HGMMA, %d LDL/STL in all\n", NR, nh, sp}' "$OUT/sass.txt"
  awk '{n++; if ($4 != "spill=0/0" || $3 != "stack=0") bad++} END {printf "ptxas (from prepare): %d kernels, %d with stack or spills; registers: ", n, bad}' "$K/ptxas-summary.txt"
  awk '{print $2}' "$K/ptxas-summary.txt" | sort | uniq -c | tr '\n' ' '; echo
  # which warps spill: the producer (after setmaxnreg.dec) or the consumers
  python3 test/Device/spill_sites.py cuobjdump "$K"/*.cubin > "$OUT/spill_sites.txt" 2>&1
  tail -1 "$OUT/spill_sites.txt"
  # the backward sequences' kernels (pre, main, post of each cubin apart)
  python3 test/Device/spill_sites.py cuobjdump "$dev"/backward/*/*.cubin \
    > "$OUT/spill_sites_backward.txt" 2>&1
  echo "backward $(tail -1 "$OUT/spill_sites_backward.txt")"

  fi
  if stage_on 2; then
  echo "== 2 correctness (through libfa_runtime), memcheck and racecheck, side by side"
  local mc="" rc_pid=""
  if [[ -n ${ROUND_SMOKE:-} ]]; then
    export FA_CHECK_QUICK=1 SEQLENS=${SEQLENS:-4096} HDIMS=${HDIMS:-128} FLEX_SEQLENS=${FLEX_SEQLENS:-4096}
    echo "memcheck: skipped (ROUND_SMOKE)" > "$OUT/memcheck.log"
    echo "racecheck: skipped (ROUND_SMOKE)" > "$OUT/racecheck.log"
  else
    FA_CHECK_QUICK=1 timeout "${MEMCHECK_TIMEOUT:-150}" compute-sanitizer --tool memcheck --report-api-errors no \
      --print-limit 20 python3 test/Device/check_attention.py "$K" > "$OUT/memcheck.log" 2>&1 &
    mc=$!
    # racecheck (shared-memory hazards) on 3 tiny cases, our kernels only
    # (--kernel-name kns=fa_fwd: torch's kernels run uninstrumented)
    racecheck &
    rc_pid=$!
  fi
  timeout 120 python3 test/Device/check_attention.py "$K" "$OUT/check.csv" > "$tmp/check.log" 2>&1
  local check_rc=$?
  cat "$tmp/check.log"
  local mc_rc=skipped rk_rc=skipped
  [[ -n $mc ]] && { wait "$mc"; mc_rc=$?; }
  [[ -n $rc_pid ]] && { wait "$rc_pid"; rk_rc=$?; }
  echo "check rc=$check_rc: $(tail -1 "$tmp/check.log")"
  echo "memcheck rc=$mc_rc: $(grep -E 'ERROR SUMMARY|check_attention:' "$OUT/memcheck.log" | tr '\n' ' ')"
  echo "racecheck rc=$rk_rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|check_attention:|racecheck:' "$OUT/racecheck.log" | tr '\n' ' ')"
  [[ $check_rc == 124 ]] && echo "check timed out (hang?)"
  [[ $rk_rc == 124 ]] && echo "racecheck timed out (RACECHECK_TIMEOUT=${RACECHECK_TIMEOUT:-150} s)"

  fi
  if stage_on 3; then
  echo "== 3 benchmark ($((SECONDS - T0)) s so far)"
  [[ -d $dev/kernels-prev ]] && export PREV_KERNELS=$dev/kernels-prev
  [[ -d $dev/kernels-dyn ]] && export DYN_KERNELS=$dev/kernels-dyn
  ( fa4_env "FA4"
    BENCH_COMMAND="bash scripts/device-round.sh run" timeout "${BENCH_TIMEOUT:-180}" \
      python3 test/Device/bench_attention.py "$K" "$OUT/bench.csv" ) > "$tmp/bench.log" 2>&1
  echo "bench rc=$?"; cat "$tmp/bench.log"
  # Ping-pong: numerics of the matrix, then against the default kernels in both orders.
  if [[ -d $dev/kernels-pingpong ]]; then
    FA_CHECK_BUDGET=${PINGPONG_CHECK_BUDGET:-90} timeout 120 python3 test/Device/check_attention.py \
      "$dev/kernels-pingpong" "$OUT/check_pingpong.csv" > "$tmp/pp.log" 2>&1
    echo "ping-pong check rc=$?: $(tail -1 "$tmp/pp.log")"
    for pair in "$K $dev/kernels-pingpong" "$dev/kernels-pingpong $K"; do
      timeout 90 python3 test/Device/bench_forward_ab.py $pair "$tmp/pp_ab.csv" > "$tmp/pp_ab.log" 2>&1
      echo "ping-pong A/B ($pair) rc=$?"; grep -v "^#" "$tmp/pp_ab.log" | cut -d, -f1-4,9-10
      cat "$tmp/pp_ab.csv" >> "$OUT/pingpong_ab.csv"
    done
  fi
  # Ours and FA4's forward side by side (instructions, stall reasons) where the gap is widest.
  local metrics; metrics=$(python3 test/Device/profile_backward.py metrics stalls)
  for shape in "0 128 8192" "0 64 1024"; do
    for peer in "" fa4; do
      ( fa4_env "FA4"
        PEER=$peer timeout "${NCU_TIMEOUT:-90}" ncu --nvtx --nvtx-include measure/ --clock-control none \
          --csv --metrics "$metrics" python3 test/Device/profile_forward.py "$K" $shape ) \
        > "$tmp/profile.csv" 2> "$tmp/profile.err"
      echo "forward stalls, ${peer:-ours} $shape rc=$?"
      python3 test/Device/profile_backward.py summary "$tmp/profile.csv" | tee -a "$OUT/profile_forward_stalls.md"
    done
  done
  # The same per SASS instruction at d128 8k (where ours waited on its P V: docs/HopperKernel.md).
  sass_profile "forward d128 8k, ours" test/Device/profile_forward.py "$K" 0 128 8192
  ( fa4_env "FA4"; export PEER=fa4; sass_profile "forward d128 8k, FA4" test/Device/profile_forward.py "$K" 0 128 8192 )

  fi
  if stage_on 3b; then
  echo "== 3b variant benchmark ($((SECONDS - T0)) s so far)"
  ( fa4_env "FA4 and cudnn_fe"
    [[ -n ${ROUND_SMOKE:-} ]] && export VARIANTS_QUICK=1
    BENCH_COMMAND="bash scripts/device-round.sh run" timeout "${VARIANTS_TIMEOUT:-150}" \
      python3 test/Device/bench_variants.py "$K/variants" "$OUT/variants.csv" ) > "$tmp/variants.log" 2>&1
  echo "variants rc=$?"; cat "$tmp/variants.log"

  fi
  if stage_on 4; then
  echo "== 4 GPT-2 medium, paper's table ($((SECONDS - T0)) s so far)"
  timeout 45 python3 test/Device/gpt2_fig2.py time "$K" > "$OUT/fig2.txt" 2>&1; echo "fig2 time rc=$?"
  timeout "${NCU_TIMEOUT:-60}" ncu --profile-from-start off --clock-control none \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv \
    python3 test/Device/gpt2_fig2.py once "$K" > "$OUT/ncu_fig2.csv" 2> "$tmp/ncu_fig2.err"; echo "ncu rc=$?"
  python3 test/Device/gpt2_fig2.py bytes "$OUT/ncu_fig2.csv" >> "$OUT/fig2.txt" 2>&1
  tail -3 "$tmp/ncu_fig2.err"; cat "$OUT/fig2.txt"

  fi
  if stage_on 5; then
  echo "== 5 Python GPU tests ($((SECONDS - T0)) s so far)"
  GPU_TEST_BUNDLES="$dev/gpu-tests" timeout 120 bash python/tests/gpu/run_device.sh test \
    > "$OUT/pytest-gpu.log" 2>&1
  echo "pytest gpu rc=$?: $(tail -1 "$OUT/pytest-gpu.log")"

  fi
  if stage_on 6; then
  echo "== 6 backward ($((SECONDS - T0)) s so far)"
  timeout "${BWD_CHECK_TIMEOUT:-150}" python3 test/Device/check_backward.py "$dev/backward" \
    --csv "$OUT/check_backward.csv" > "$OUT/check_backward.log" 2>&1
  echo "check_backward rc=$?: $(tail -1 "$OUT/check_backward.log")"; grep FAIL "$OUT/check_backward.log" | head -5
  if [[ -z ${ROUND_SMOKE:-} ]]; then
    CHECK_SMALL=1 timeout "${MEMCHECK_DECODE_TIMEOUT:-300}" compute-sanitizer --tool memcheck --report-api-errors no --print-limit 20 \
      --kernel-name kns=fa_bwd python3 test/Device/check_backward.py "$dev/backward" --quick \
      > "$OUT/memcheck_backward.log" 2>&1
    echo "memcheck backward rc=$?: $(grep -E 'ERROR SUMMARY|cases pass' "$OUT/memcheck_backward.log" | tr '\n' ' ')"
  fi
  FA_MLIR_BUNDLE_PATH="$dev/gpu-tests" timeout "${TRAIN_TIMEOUT:-240}" python3 test/Device/train_gpt.py \
    "$OUT/train_gpt.csv" > "$OUT/train_gpt.log" 2>&1
  echo "train_gpt rc=$?:"; tail -4 "$OUT/train_gpt.log"
  # Training throughput next to SDPA (issue 37's floor: tokens/s >= SDPA's).
  ( [[ -n ${ROUND_SMOKE:-} ]] && export STEPS=5 ROUNDS=1
    FA_MLIR_BUNDLE_PATH="$dev/gpu-tests" FA_PROFILE=1 HOST_SPLIT=1 timeout "${TRAIN_BENCH_TIMEOUT:-240}" \
      python3 test/Device/bench_train_gpt.py "$OUT/bench_train_gpt.csv" ) > "$OUT/bench_train_gpt.log" 2>&1
  echo "bench_train_gpt rc=$?:"; grep -A3 "^impl," "$OUT/bench_train_gpt.log"
  ( fa4_env
    [[ -n ${ROUND_SMOKE:-} ]] && export SEQLENS=4096 HDIMS=128
    [[ -d $dev/backward-prev ]] && export PREV_BACKWARD=$dev/backward-prev
    timeout "${BWD_BENCH_TIMEOUT:-240}" python3 test/Device/bench_backward.py "$dev/backward" \
      "$OUT/bench_backward.csv" ) > "$tmp/bench_backward.log" 2>&1
  echo "bench backward rc=$?"; cat "$tmp/bench_backward.log"
  # An A/B holds only in both orders (the build timed second gains up to ~7 %,
  # docs/HopperBackward.md): the same with the roles swapped, peers not again.
  if [[ -d $dev/backward-prev ]]; then
    ( [[ -n ${ROUND_SMOKE:-} ]] && export SEQLENS=4096 HDIMS=128
      PEERS= PREV_BACKWARD=$dev/backward timeout "${BWD_BENCH_TIMEOUT:-240}" \
        python3 test/Device/bench_backward.py "$dev/backward-prev" "$OUT/bench_backward_swapped.csv" ) \
      > "$tmp/bench_backward.log" 2>&1
    echo "bench backward, roles swapped (ours = backward-prev) rc=$?"; cat "$tmp/bench_backward.log"
  fi
  # The 80-query tile against the default 64 (d128 without a mask): its
  # check, then an A/B in both orders.
  if [[ -d $dev/backward-80 ]]; then
    timeout 60 python3 test/Device/check_backward.py "$dev/backward-80" \
      --csv "$OUT/check_backward_80.csv" > "$OUT/check_backward_80.log" 2>&1
    echo "check_backward 80-query tile rc=$?: $(tail -1 "$OUT/check_backward_80.log")"
    grep FAIL "$OUT/check_backward_80.log" | head -5
    for order in "backward-80 backward" "backward backward-80"; do
      read -r ours prev <<< "$order"
      CAUSAL=0 HDIMS=128 PEERS= PREV_BACKWARD=$dev/$prev timeout "${BWD_BENCH_TIMEOUT:-240}" \
        python3 test/Device/bench_backward.py "$dev/$ours" "$OUT/bench_backward_80_${ours}.csv" \
        > "$tmp/bench_backward.log" 2>&1
      echo "bench backward 80-query tile (ours = $ours) rc=$?"; cat "$tmp/bench_backward.log"
    done
  fi
  # With a bias and dBias, next to SDPA's cuDNN and memory-efficient backends,
  # our plain backward (ratio_to_nobias) and the previous compiler's bias
  # sequences (ours_prev) where prepare built .devbuild/backward-prev.
  ( [[ -n ${ROUND_SMOKE:-} ]] && export HDIMS=128
    [[ -d $dev/backward-prev ]] && export PREV_BACKWARD=$dev/backward-prev
    timeout "${BWD_BIAS_BENCH_TIMEOUT:-180}" python3 test/Device/bench_backward_bias.py "$dev/backward" \
      "$OUT/bench_backward_bias.csv" ) > "$OUT/bench_backward_bias.log" 2>&1
  echo "bench backward bias rc=$?"; grep -v "^#" "$OUT/bench_backward_bias.log"
  # Where the time goes, kernel by kernel (zeroing, pre, main, post).
  local metrics; metrics=$(python3 test/Device/profile_backward.py metrics)
  for shape in "0 128 4096" "1 128 4096" "0 64 4096" "1 64 1024 64 16"; do
    timeout "${NCU_TIMEOUT:-60}" ncu --nvtx --nvtx-include measure/ --clock-control none --csv \
      --metrics "$metrics" \
      python3 test/Device/profile_backward.py "$dev/backward" $shape > "$tmp/profile.csv" 2> "$tmp/profile.err"
    echo "profile (causal hdim seqlen [batch heads]) $shape rc=$?"
    python3 test/Device/profile_backward.py summary "$tmp/profile.csv" | tee -a "$OUT/profile_backward.md"
  done
  # Ours and FA4's main kernels side by side at d128 (instructions, stall reasons): FA4's
  # kernels by name, since autograd launches them outside the NVTX range.
  metrics=$(python3 test/Device/profile_backward.py metrics stalls)
  for shape in "1 128 4096" "0 128 8192"; do
    timeout "${NCU_TIMEOUT:-90}" ncu --nvtx --nvtx-include measure/ --clock-control none --csv \
      --metrics "$metrics" python3 test/Device/profile_backward.py "$dev/backward" $shape \
      > "$tmp/profile.csv" 2> "$tmp/profile.err"
    echo "stalls, ours $shape rc=$?"
    python3 test/Device/profile_backward.py summary "$tmp/profile.csv" | tee -a "$OUT/profile_backward_stalls.md"
    ( fa4_env
      PEER=fa4 timeout "${NCU_TIMEOUT:-90}" ncu --kernel-name 'regex:(?i)(bwd|backward)' --launch-count 6 \
        --clock-control none --csv --metrics "$metrics" \
        python3 test/Device/profile_backward.py "$dev/backward" $shape ) > "$tmp/profile.csv" 2> "$tmp/profile.err"
    echo "stalls, FA4 $shape rc=$?"
    python3 test/Device/profile_backward.py summary "$tmp/profile.csv" | tee -a "$OUT/profile_backward_stalls.md"
  done

  fi
  if stage_on 7; then
  echo "== 7 decode ($((SECONDS - T0)) s so far)"
  check_with_memcheck decode "$dev/decode" CHECK_SMALL=1
  ( fa4_env
    [[ -n ${ROUND_SMOKE:-} ]] && export BATCHES=8 CACHES=4096
    timeout "${DECODE_BENCH_TIMEOUT:-420}" python3 test/Device/bench_decode.py "$dev/decode" \
      "$OUT/bench_decode.csv"
    echo "bench decode rc=$?"
    [[ -n ${ROUND_SMOKE:-} ]] && export BATCHES=1 CHUNKS=512 CACHED=8192
    timeout "${CHUNKED_BENCH_TIMEOUT:-240}" python3 test/Device/bench_chunked.py "$dev/decode" \
      "$OUT/bench_chunked.csv"
    echo "bench chunked prefill rc=$?" ) > "$OUT/bench_decode.log" 2>&1
  grep -vE "Warning|exe_args" "$OUT/bench_decode.log"  # the rc lines included

  fi
  if stage_on 8; then
  echo "== 8 varlen ($((SECONDS - T0)) s so far)"
  check_with_memcheck varlen "$dev/varlen" CHECK_SMALL=1
  # DYNAMIC_TILES=1 at prepare: the same kernels with the dynamic scheduler.
  [[ -d $dev/varlen-dyn ]] && CHECK_TAG=_dyn check_with_memcheck varlen "$dev/varlen-dyn" CHECK_SMALL=1
  ( fa4_env
    [[ -n ${ROUND_SMOKE:-} ]] && export HDIMS=128 SEQLENS=4096
    [[ -d $dev/varlen-prev ]] && export PREV_VARLEN=$dev/varlen-prev
    [[ -d $dev/varlen-dyn ]] && export DYN_VARLEN=$dev/varlen-dyn
    timeout "${VARLEN_BENCH_TIMEOUT:-420}" python3 test/Device/bench_varlen.py "$dev/varlen" \
      "$OUT/bench_varlen.csv" ) > "$OUT/bench_varlen.log" 2>&1
  echo "bench varlen rc=$?"; cat "$OUT/bench_varlen.log"

  fi
  if stage_on 8 || stage_on 8b; then
  echo "== 8b varlen backward ($((SECONDS - T0)) s so far)"
  # The ragged-batch backward: float64 per sequence, memcheck on the small
  # cases, then 8 documents in 16k tokens against our dense backward and FA4.
  timeout "${CHECK_VARLEN_BWD_TIMEOUT:-300}" python3 test/Device/check_varlen_backward.py \
    "$dev/varlen-bwd" "$OUT/check_varlen_backward.csv" > "$OUT/check_varlen_backward.log" 2>&1
  echo "check_varlen_backward rc=$?: $(tail -1 "$OUT/check_varlen_backward.log")"
  grep FAIL "$OUT/check_varlen_backward.log" | head -8
  if [[ -z ${ROUND_SMOKE:-} ]]; then
    CHECK_SMALL=1 timeout "${MEMCHECK_VARLEN_BWD_TIMEOUT:-300}" compute-sanitizer --tool memcheck \
      --report-api-errors no --print-limit 20 --kernel-name kns=fa_bwd \
      python3 test/Device/check_varlen_backward.py "$dev/varlen-bwd" > "$OUT/memcheck_varlen_backward.log" 2>&1
    echo "memcheck varlen backward rc=$?: $(grep -E "ERROR SUMMARY|backward check" "$OUT/memcheck_varlen_backward.log" | tr '\n' ' ')"
  fi
  ( fa4_env
    [[ -n ${ROUND_SMOKE:-} ]] && export HDIMS=128
    timeout "${VARLEN_BWD_BENCH_TIMEOUT:-300}" python3 test/Device/bench_varlen_backward.py \
      "$dev/varlen-bwd" "$OUT/bench_varlen_backward.csv" ) > "$OUT/bench_varlen_backward.log" 2>&1
  echo "bench varlen backward rc=$?"; cat "$OUT/bench_varlen_backward.log"

  fi
  if stage_on 9; then
  echo "== 9 FP8 forward ($((SECONDS - T0)) s so far)"
  [[ -s $dev/fp8/failed.txt ]] && { echo "FP8 bench kernels fa-compile rejected:"; cat "$dev/fp8/failed.txt"; }
  timeout "${FP8_CHECK_TIMEOUT:-240}" python3 test/Device/check_fp8_sequences.py run "$dev/fp8-check" \
    > "$OUT/check_fp8.log" 2>&1
  echo "check fp8 sequences rc=$?: $(tail -1 "$OUT/check_fp8.log")"
  grep MISS "$OUT/check_fp8.log" || true
  if ! stage_on 5; then  # stage 5 runs the whole folder, FP8 included
    GPU_TEST_BUNDLES="$dev/gpu-tests" timeout "${FP8_PYTEST_TIMEOUT:-180}" bash python/tests/gpu/run_device.sh test \
      python/tests/gpu/test_gpu_fp8.py > "$OUT/pytest-gpu-fp8.log" 2>&1
    echo "pytest gpu fp8 rc=$?: $(tail -1 "$OUT/pytest-gpu-fp8.log")"
  fi
  if [[ -z ${ROUND_SMOKE:-} && ${FP8_MEMCHECK:-1} != 0 ]]; then  # FP8_MEMCHECK=0: not this time
    GPU_TEST_BUNDLES="$dev/gpu-tests" timeout "${MEMCHECK_FP8_TIMEOUT:-300}" compute-sanitizer --tool memcheck \
      --report-api-errors no --print-limit 20 bash python/tests/gpu/run_device.sh test \
      python/tests/gpu/test_gpu_fp8.py -k "77 or 300x100 or 333x100" > "$OUT/memcheck_fp8.log" 2>&1
    echo "memcheck fp8 rc=$?: $(grep -E 'ERROR SUMMARY|passed|failed' "$OUT/memcheck_fp8.log" | tr '\n' ' ')"
  fi
  # The A/B at d128: per-block against per-tensor kernels, and the same
  # kernels from other compilers (FP8_AB_DIR, folders separated by spaces;
  # default the previous compiler's, .devbuild/fp8-check-prev, when prepare
  # made it).
  fp8_b=()
  for d in ${FP8_AB_DIR:-$dev/fp8-check-prev}; do [[ -d $d ]] && fp8_b+=("$d"); done
  ( fa4_env "cudnn_fe"
    [[ -n ${ROUND_SMOKE:-} ]] && export SEQLENS=4096
    BENCH_COMMAND="bash scripts/device-round.sh run" timeout "${FP8_AB_TIMEOUT:-240}" \
      python3 test/Device/bench_fp8_ab.py "$dev/fp8-check" "${fp8_b[@]}" "$OUT/bench_fp8_ab.csv" ) \
    > "$OUT/bench_fp8_ab.log" 2>&1
  echo "bench fp8 A/B rc=$? (B..: ${fp8_b[*]:-none})"; grep -vE "Warning|exe_args" "$OUT/bench_fp8_ab.log"
  ( fa4_env "FA4 and cudnn_fe"
    [[ -n ${ROUND_SMOKE:-} ]] && export SEQLENS=4096 HDIMS=128 RMSE_SHAPE=2,16,1024,128
    BENCH_COMMAND="bash scripts/device-round.sh run" timeout "${FP8_BENCH_TIMEOUT:-480}" \
      python3 test/Device/bench_fp8.py "$dev/fp8" "$OUT/bench_fp8.csv" "$OUT/fp8_rmse.csv" ) \
    > "$OUT/bench_fp8.log" 2>&1
  echo "bench fp8 rc=$?"; grep -vE "Warning|exe_args" "$OUT/bench_fp8.log"

  fi
  if stage_on 10; then
  echo "== 10 ring attention ($((SECONDS - T0)) s so far)"
  if (( $(nvidia-smi -L | wc -l) < 2 )); then
    echo "ring attention: one GPU here; stage 10 needs 2 or more (skipped)"
  else
    export FA_MLIR_BUNDLE_PATH="$dev/gpu-tests" FA_BUILD_DIR=/nonexistent
    timeout "${RING_CHECK_TIMEOUT:-300}" python3 test/Device/check_ring.py "$OUT/check_ring.csv" \
      > "$OUT/check_ring.log" 2>&1
    echo "check ring rc=$?: $(tail -1 "$OUT/check_ring.log")"; grep MISS "$OUT/check_ring.log" || true
    [[ -n ${ROUND_SMOKE:-} ]] && export RING_TOKENS=131072 RING_CAUSAL=1 RING_REPS=2
    timeout "${RING_BENCH_TIMEOUT:-480}" python3 test/Device/bench_ring.py "$OUT/bench_ring.csv" \
      > "$OUT/bench_ring.log" 2>&1
    echo "bench ring rc=$?"; cat "$OUT/bench_ring.log"
    unset FA_MLIR_BUNDLE_PATH FA_BUILD_DIR
  fi

  fi
  if stage_on 11; then
  echo "== 11 API overhead ($((SECONDS - T0)) s so far)"
  # FA4 (fa4_over_api) from the carried wheels, else its columns say
  # "unavailable"; its JIT compiles (two kernels) count in the time limit.
  ( fa4_env "FA4"
    [[ -n ${ROUND_SMOKE:-} ]] && export REPS=10 ROUNDS=2
    FA_MLIR_BUNDLE_PATH="$dev/gpu-tests:$dev/fp8" timeout "${API_BENCH_TIMEOUT:-420}" \
      python3 test/Device/bench_api_overhead.py "$OUT/bench_api_overhead.csv" ) \
    > "$OUT/bench_api_overhead.log" 2>&1
  echo "bench api overhead rc=$?"; grep -v "^#" "$OUT/bench_api_overhead.log" | tail -12

  fi
  if stage_on 12; then
  echo "== 12 score_mod/mask_mod ($((SECONDS - T0)) s so far)"
  # Forward and backward (fa_bwd kernels under memcheck too).
  CHECK_MODIFIERS_TIMEOUT=${CHECK_MODIFIERS_TIMEOUT:-600} \
    MEMCHECK_MODIFIERS_TIMEOUT=${MEMCHECK_MODIFIERS_TIMEOUT:-900} MEMCHECK_KERNELS=fa_ \
    check_with_memcheck modifiers "$dev/modifiers" CHECK_SMALL=1
  ( fa4_env
    [[ -n ${ROUND_SMOKE:-} ]] && export MODS_QUICK=1
    timeout "${MODIFIERS_BENCH_TIMEOUT:-420}" python3 test/Device/bench_modifiers.py \
      "$dev/modifiers" "$OUT/bench_modifiers.csv" ) > "$OUT/bench_modifiers.log" 2>&1
  echo "bench modifiers rc=$?"; grep -vE "Warning|exe_args" "$OUT/bench_modifiers.log"

  fi
  if stage_on 12s; then
  echo "== 12s score_mod/mask_mod on varlen and KV caches ($((SECONDS - T0)) s so far)"
  MEMCHECK_KERNELS=fa_ check_with_memcheck sequence_modifiers "$dev/seqmods" CHECK_SMALL=1

  fi
  if stage_on 13; then
  echo "== 13 attention sinks ($((SECONDS - T0)) s so far)"
  # memcheck on the forward's and the backward's kernels (fa_fwd_*, fa_bwd_*)
  MEMCHECK_KERNELS=fa_ check_with_memcheck sinks "$dev/sinks" CHECK_SMALL=1
  ( fa4_env
    [[ -n ${ROUND_SMOKE:-} ]] && export SINKS_QUICK=1
    timeout "${SINKS_BENCH_TIMEOUT:-300}" python3 test/Device/bench_sinks.py \
      "$dev/sinks" "$OUT/bench_sinks.csv" ) > "$OUT/bench_sinks.log" 2>&1
  echo "bench sinks rc=$?"; grep -vE "Warning|exe_args" "$OUT/bench_sinks.log"

  fi
  echo "== summary ($((SECONDS - T0)) s)"
  [[ -f $tmp/bench.log ]] && sed -n '/^TFLOP\/s/,$p' "$tmp/bench.log"
  [[ -f $tmp/bench_backward.log ]] && sed -n '/^TFLOP\/s/,$p' "$tmp/bench_backward.log"
  [[ -f $tmp/variants.log ]] && sed -n '/^Variants/,$p' "$tmp/variants.log"
  [[ -f $OUT/bench_fp8.log ]] && sed -n '/^TFLOP\/s, FP8/,$p' "$OUT/bench_fp8.log"
  [[ -f $OUT/fig2.txt ]] && grep -vE '^(fig2,|$)' "$OUT/fig2.txt" | head -5
  [[ -f $OUT/fig2.txt ]] && python3 - "$OUT/fig2.txt" <<'PY'
import sys
t, b = {}, {}
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if f[0] != "fig2" or len(f) < 5: continue
    if f[3] == "ms": t[(f[1], f[2])] = float(f[4])
    elif f[3] == "hbm_read_GB": b[(f[1], f[2])] = (float(f[4]), float(f[6]))
print("GPT-2 medium attention (B64 H16 N1024 D64 causal bf16); HBM by ncu dram__bytes_{read,write}.sum")
print("| impl | pass | ms | HBM read GB | HBM write GB |\n|---|---|---|---|---|")
for key in sorted(set(t) | set(b), key=lambda k: (k[1], ["standard", "fa2", "cudnn", "ours"].index(k[0]))):
    ms = f"{t[key]:.3f}" if key in t else "-"
    rd, wr = (f"{x:.3f}" for x in b[key]) if key in b else ("-", "-")
    print(f"| {key[0]} | {key[1]} | {ms} | {rd} | {wr} |")
PY
  stage_on 2 || return 0
  tail -2 "$tmp/check.log"
  echo "memcheck: $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log")"
  echo "racecheck: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|racecheck:' "$OUT/racecheck.log" | tr '\n' ' ')"
}

case "${1:-}" in
  prepare) prepare ;;
  # Stage 12's kernels and the runtime alone, into an existing .devbuild:
  # STAGES=12 bash scripts/device-round.sh run after it.
  prepare-modifiers) set -e; ninja -C "$BUILD_DIR" -j"${JOBS:-2}" fa-compile fa_runtime
    mkdir -p "$dev/lib"; cp "$BUILD_DIR/lib/libfa_runtime.so" "$dev/lib/"; prepare_modifiers ;;
  # Stage 12s's kernels and the runtime alone, into an existing .devbuild:
  # STAGES=12s bash scripts/device-round.sh run after it.
  prepare-sequence-modifiers) set -e; ninja -C "$BUILD_DIR" -j"${JOBS:-2}" fa-compile fa_runtime
    mkdir -p "$dev/lib"; cp "$BUILD_DIR/lib/libfa_runtime.so" "$dev/lib/"; prepare_sequence_modifiers ;;
  # Stage 13's kernels and the runtime alone, into an existing .devbuild:
  # STAGES=13 bash scripts/device-round.sh run after it.
  prepare-sinks) set -e; ninja -C "$BUILD_DIR" -j"${JOBS:-2}" fa-compile fa_runtime
    mkdir -p "$dev/lib"; cp "$BUILD_DIR/lib/libfa_runtime.so" "$dev/lib/"; prepare_sinks ;;
  run) OUT=${OUT:-/tmp/device-round-out}; mkdir -p "$OUT"; run 2>&1 | tee "$OUT/round.log" ;;
  *) echo "usage: bash scripts/device-round.sh prepare|prepare-modifiers|prepare-sequence-modifiers|prepare-sinks|run (docs/DeviceRound.md)" >&2; exit 2 ;;
esac
