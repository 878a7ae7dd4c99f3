#!/usr/bin/env bash
# The main job: install what is missing, build, then generate every kernel for every supported
# target, verify it, validate it with ptxas, and print a summary table.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/install-deps.sh
. scripts/env.sh

# The build's output goes to a log, shown only if it fails; the terminal gets its progress.
mkdir -p build
: >build/build.log
echo "run.sh: building ptxkit (release; log: build/build.log)"
tty=0
[ -t 1 ] && tty=1
progress() {
  awk -v tty="$tty" '
    /^\[[0-9]+\/[0-9]+\]/ {
      split(substr($1, 2), a, "/"); p = int(100 * a[1] / a[2])
      if (tty) printf "\r  %d%%", p
      else if (p >= last + 20) { print "  " p "%"; last = p }
    }
    END { if (tty) printf "\r" }'
}
build_failed() {
  tail -n 60 build/build.log >&2
  echo "run.sh: error: the build failed (whole log: build/build.log)" >&2
  exit 1
}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTXKIT_BUILD_TESTS=OFF \
  -DPTXKIT_BUILD_BENCHMARKS=OFF >>build/build.log 2>&1 || build_failed
# pipefail (set above): the pipeline fails when the build does.
cmake --build build -j "$PTXKIT_JOBS" 2>&1 | tee -a build/build.log | progress || build_failed

exec ./scripts/main-job.sh build/bin/ptxkit
