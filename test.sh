#!/usr/bin/env bash
# Installs what is missing, builds ptxkit twice (release, and ASan+UBSan), and runs every test.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/install-deps.sh
. scripts/env.sh
start=$(date +%s)

echo "== format =="
./scripts/check-format.sh

echo "== release build =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$PTXKIT_JOBS"
echo "== tests (release) =="
ctest --test-dir build --output-on-failure -j "$PTXKIT_JOBS"

echo "== sanitizer build (ASan+UBSan) =="
# -g1: line tables only, enough for file:line in every sanitizer report, and much cheaper to
# compile and link than full debug info on the Spirit X3 parser.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPTXKIT_SANITIZE=ON \
      -DPTXKIT_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" >/dev/null
cmake --build build-asan -j "$PTXKIT_JOBS"
echo "== tests (ASan+UBSan) =="
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$PTXKIT_JOBS" -LE "no-sanitize"

echo "test.sh: all tests passed in $(( $(date +%s) - start ))s"
