#!/usr/bin/env bash
# device-check.sh: the whole GPU check (correctness fixtures and performance targets) in one run on the GPU machine, from the repo root.
#
# The GPU machine is lent for minutes, starts bare and has no network, so everything it needs is
# in one script: use (or build) ptxkit and the device tests, run the device tests plainly and
# under compute-sanitizer (memcheck, and racecheck on the kernels that use shared memory),
# `ptxkit run --all`, `ptxkit bench --json`, then scripts/compare-pytorch.py (PyTorch rms_norm and
# SDPA decode at the same shapes, same run), and write the logs and one results table under $OUT
# (at most 8 files come back, so a run writes at most 8: summary.md, tests.log, memcheck.log,
# racecheck.log, run_all.log, bench.json, bench.log, pytorch.log; ggml_perf.log replaces the
# tests' logs in a run that builds the ggml peer).
#
# A whole check no longer fits one 600 s call: split it by setting a step's limit to 0, e.g.
#   T_BENCH=0 scripts/device-check.sh                 (tests, run --all, memcheck, racecheck)
#   T_TESTS=0 T_RUN=0 T_MEMCHECK=0 T_RACECHECK=0 GGML_SRC=.peers/ggml scripts/device-check.sh
#                                                     (ggml built here, then bench and PyTorch)
#
# Binaries: $PTXKIT_PREBUILT (default .rt2dev) holds bin/ptxkit and bin/ptxkit_device_tests built
# elsewhere (static libstdc++; `scripts/device-check.sh --prepare` makes them on a developer
# machine), because the GPU image lacks the Debian headers (Boost, CLI11, GoogleTest) a build
# needs. Without them the script tries a CMake build and says why it cannot when it cannot.
#
# Every step has its own time limit so the whole run fits a 540 s call; a step that fails or
# times out is recorded and the next one still runs. Exit 0 when every step passed.
set -u

if [ "${1:-}" = "--prepare" ]; then
  # On a developer machine: a Release build with static libstdc++ into $PTXKIT_PREBUILT/bin.
  dir=${PTXKIT_PREBUILT:-.rt2dev}
  bdir=${PTXKIT_PREPARE_BUILD:-build-devcheck}
  cmake -S . -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPTXKIT_BUILD_BENCHMARKS=OFF \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" || exit 2
  # What the device run and the install below need (the install takes the libraries, the tool and
  # the generated CLI reference).
  cmake --build "$bdir" -j"${JOBS:-2}" --target ptxkit ptxkit_device_tests ptxkit_cli_main \
    ptxkit_cli_reference ptxkit_reference_decode || exit 2
  mkdir -p "$dir/bin"
  cp "$bdir"/bin/ptxkit "$bdir"/bin/ptxkit_device_tests "$bdir"/bin/ptxkit_reference_decode \
    "$dir/bin/"
  # examples/consumer against this build's installed package: its app and its kernel tool.
  rm -rf "$bdir/prefix" "$bdir/consumer"
  cmake --install "$bdir" --prefix "$bdir/prefix" >/dev/null || exit 2
  cmake -S examples/consumer -B "$bdir/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$PWD/$bdir/prefix" \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null || exit 2
  cmake --build "$bdir/consumer" || exit 2
  cp "$bdir/consumer/consumer-app" "$bdir/consumer/consumer-tool" "$dir/bin/"
  # The GPU machine gets a copy of the tree without .git: record what was built.
  echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- cli tests/device scripts || echo ' (+ uncommitted changes)')" >"$dir/COMMIT"
  grep -qx "/$dir/" .git/info/exclude 2>/dev/null || echo "/$dir/" >>.git/info/exclude
  echo "prepared $dir/bin (carry '$dir' to the GPU machine)"
  exit 0
fi

# --quick: for a nearly spent lease (about 70 s of command time): the device tests, the
# benchmarks, PyTorch, and memcheck on a subset only; no racecheck and no `run --all`.
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
if [ $QUICK = 1 ]; then
  # Each limit can be lowered further from the environment (T_TESTS=..., BENCH_CASES=...).
  T_TESTS=${T_TESTS:-18} T_RUN=0 T_BENCH=${T_BENCH:-24} T_TORCH=${T_TORCH:-14}
  T_MEMCHECK=${T_MEMCHECK:-10} T_RACECHECK=0
  MEMCHECK_FILTER='*rmsnorm_qwen05b*:*Q4kGemv*:*FlashDecodingChunkThenReduce*'
else
  # Each limit can be lowered from the environment to fit what is left of a lease.
  T_TESTS=${T_TESTS:-75} T_RUN=${T_RUN:-30} T_BENCH=${T_BENCH:-130} T_TORCH=${T_TORCH:-60}
  T_MEMCHECK=${T_MEMCHECK:-130} T_RACECHECK=${T_RACECHECK:-75}
  MEMCHECK_FILTER=${MEMCHECK_FILTER:-'*'}
fi

OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.md
PREBUILT=${PTXKIT_PREBUILT:-.rt2dev}
status=0

note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
# step NAME SECONDS LOGFILE CMD...: runs CMD with a time limit, logs it, records the result.
step() {
  local name=$1 limit=$2 logf=$3
  shift 3
  local t0=$SECONDS
  timeout --kill-after=5 "$limit" "$@" >>"$logf" 2>&1
  local rc=$?
  local verdict=ok
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && verdict="TIMED OUT after ${limit}s"
  [ $rc -ne 0 ] && [ "$verdict" = ok ] && verdict="FAILED (exit $rc)"
  [ $rc -ne 0 ] && status=1
  note "- $name: $verdict ($((SECONDS - t0)) s) -> $(basename "$logf")"
  return $rc
}

: >"$SUMMARY"
note "# ptxkit device check"
note ""
note "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
if [ -s "$PREBUILT/COMMIT" ]; then
  note "- commit (binaries built from): $(cat "$PREBUILT/COMMIT")"
else
  note "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
fi
note "- GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader 2>&1 | head -1)"
note "- host: $(uname -m), $(nproc) cores, $(g++ --version 2>/dev/null | head -1)"
note ""

# --- binaries ---------------------------------------------------------------------------------
BIN=""
if [ -x "$PREBUILT/bin/ptxkit" ] && [ -x "$PREBUILT/bin/ptxkit_device_tests" ] &&
  "$PREBUILT/bin/ptxkit" --help >/dev/null 2>&1; then
  BIN=$PREBUILT/bin
  note "- binaries: prebuilt in $PREBUILT/bin (built from this tree; static libstdc++)"
else
  note "- binaries: none prebuilt; building with CMake"
  if cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTXKIT_BUILD_BENCHMARKS=OFF \
    >"$OUT/tests.log" 2>&1 &&
    cmake --build build-device --target ptxkit ptxkit_device_tests -j"$(nproc)" >>"$OUT/tests.log" 2>&1; then
    BIN=build-device/bin
  else
    note "- build FAILED (see tests.log: the GPU image lacks the build's headers; run"
    note "  'scripts/device-check.sh --prepare' on a developer machine and carry $PREBUILT)"
    exit 1
  fi
fi
PTXKIT=$BIN/ptxkit
TESTS=$BIN/ptxkit_device_tests
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
note ""
note "## Steps"

# --- device tests, plain ---------------------------------------------------------------------
if [ "$T_TESTS" -gt 0 ]; then
  step "device tests" $T_TESTS "$OUT/tests.log" "$TESTS" --gtest_color=no
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests? ran|^\[  FAILED  \]' "$OUT/tests.log" | tail -15 | sed 's/^/    /' | tee -a "$SUMMARY"
else
  note "- device tests: not run (T_TESTS=0)"
fi

# --- ptxkit run --all ------------------------------------------------------------------------
if [ "$T_RUN" -gt 0 ]; then
  step "ptxkit run --all" $T_RUN "$OUT/run_all.log" "$PTXKIT" run --all
  tail -1 "$OUT/run_all.log" | sed 's/^/    /' | tee -a "$SUMMARY"
fi

# --- a project's own kernel: examples/consumer's app and kernel tool --------------------------
if [ -x "$BIN/consumer-app" ] && [ "$T_RUN" -gt 0 ]; then
  step "consumer-app (3 embedded kernels vs their CPU references)" 30 "$OUT/run_all.log" \
    "$BIN/consumer-app"
  grep -E '^consumer-app:' "$OUT/run_all.log" | tail -1 | sed 's/^/    /' | tee -a "$SUMMARY"
  step "consumer-tool run row_center_bias (defaults; 4096 x 256)" 30 "$OUT/run_all.log" sh -c \
    "'$BIN/consumer-tool' run row_center_bias && '$BIN/consumer-tool' run row_center_bias --set cols=4096 --set rows=256"
fi

# --- verify on every core: the corpus at -j 1 and -j $(nproc) ---------------------------------
if [ -f tests/corpus/corpus.tar.xz ] && [ "$T_RUN" -gt 0 ]; then
  mkdir -p /tmp/ptxkit-corpus && tar -xJf tests/corpus/corpus.tar.xz -C /tmp/ptxkit-corpus
  for j in 1 "$(nproc)" 1 "$(nproc)"; do
    step "verify -j $j corpus" 60 "$OUT/run_all.log" bash -c \
      "TIMEFORMAT='verify -j $j: %R s wall, %U s user'; time '$PTXKIT' verify -j $j /tmp/ptxkit-corpus >/dev/null"
  done
  grep -E '^verify -j' "$OUT/run_all.log" | sed 's/^/    /' | tee -a "$SUMMARY"
fi

# --- the decoder's CPU reference against transformers (installed only on the GPU machine) -------
if [ "${T_DECODER:-120}" -gt 0 ] && [ -x "$BIN/ptxkit_reference_decode" ]; then
  step "decoder reference vs transformers" "${T_DECODER:-120}" "$OUT/run_all.log" \
    env PYTHONUNBUFFERED=1 python3 scripts/check-decoder-reference.py "$BIN/ptxkit_reference_decode" \
    "$PTXKIT" "$OUT" ${DECODER_SPEED:+--speed} ${DECODER_FLAGS:-}
  sed 's/^/    /' "$OUT/decoder_reference.log" 2>/dev/null | tee -a "$SUMMARY"
  rm -f "$OUT/decoder_reference.log"
fi

# --- benchmarks and PyTorch ------------------------------------------------------------------
# The ggml peer: with GGML_SRC (ggml's source tree), scripts/ggml-peer.sh builds its
# test-backend-ops here and times the mat-vec shapes first, so both sides come from this run;
# otherwise GGML_LOG names a log from an earlier run (the table then says so).
GGML_LOG=${GGML_LOG:-.peers/ggml_perf.log}
if [ -n "${GGML_SRC:-}" ] && [ "${T_GGML:-420}" -gt 0 ]; then
  step "ggml test-backend-ops (built from $GGML_SRC)" "${T_GGML:-420}" "$OUT/bench.log" \
    scripts/ggml-peer.sh "$GGML_SRC" "$OUT" && GGML_LOG=$OUT/ggml_perf.log
  rm -f "$OUT/ggml_build.log"
fi
if [ "$T_BENCH" -gt 0 ]; then
  step "ptxkit bench --json ${BENCH_CASES:-}" $T_BENCH "$OUT/bench.log" \
    sh -c "'$PTXKIT' bench ${BENCH_CASES:-} --json >'$OUT/bench.json'"
  ggml_arg=()
  [ -s "$GGML_LOG" ] && ggml_arg=(--ggml "$GGML_LOG")
  step "compare-pytorch.py" $T_TORCH "$OUT/pytorch.log" env PYTHONUNBUFFERED=1 python3 \
    scripts/compare-pytorch.py "$OUT/bench.json" --out "$OUT/table.md.tmp" "${ggml_arg[@]}"
else
  note "- bench and PyTorch: not run (T_BENCH=0)"
fi

# --- compute-sanitizer -----------------------------------------------------------------------
# memcheck over the whole device suite; racecheck (much slower) on the kernels with shared memory.
if [ "$T_MEMCHECK" -gt 0 ]; then
  step "memcheck (device tests $MEMCHECK_FILTER)" $T_MEMCHECK "$OUT/memcheck.log" "$CS" \
    --tool memcheck --error-exitcode 1 --leak-check no "$TESTS" --gtest_color=no \
    "--gtest_filter=$MEMCHECK_FILTER"
  grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) ' "$OUT/memcheck.log" | tail -5 | sed 's/^/    /' | tee -a "$SUMMARY"
else
  note "- memcheck: not run (T_MEMCHECK=0)"
fi
RACE_FILTER=${RACE_FILTER:-'*rmsnorm*:*layernorm*:*softmax*:*argmax*:*flash_decode*:*FlashDecoding*:*incremental_attention_q*:*q4k_gemv*'}
if [ "$T_RACECHECK" -gt 0 ]; then
  step "racecheck ($RACE_FILTER)" $T_RACECHECK "$OUT/racecheck.log" "$CS" --tool racecheck \
    --error-exitcode 1 "$TESTS" --gtest_color=no "--gtest_filter=$RACE_FILTER"
  grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|^\[  (PASSED|FAILED) ' "$OUT/racecheck.log" | tail -5 | sed 's/^/    /' | tee -a "$SUMMARY"
else
  note "- racecheck: not run (T_RACECHECK=0)"
fi

# --- the table -------------------------------------------------------------------------------
note ""
note "## Results"
note ""
if [ -s "$OUT/table.md.tmp" ]; then
  cat "$OUT/table.md.tmp" >>"$SUMMARY"
  rm -f "$OUT/table.md.tmp"
else
  note "(no table: see pytorch.log and bench.log)"
fi
exit $status
