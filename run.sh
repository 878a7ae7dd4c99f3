#!/usr/bin/env bash
# The main job: install what is missing, build, then generate every kernel for every supported
# target, verify it, validate it with ptxas, and print a summary table.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/install-deps.sh
. scripts/env.sh

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTXKIT_BUILD_TESTS=OFF \
      -DPTXKIT_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build -j "$PTXKIT_JOBS"

exec ./scripts/main-job.sh build/bin/ptxkit
