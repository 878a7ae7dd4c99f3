#!/usr/bin/env bash
# Installs, with apt-get, whatever ptxkit's build and tests need that this machine lacks.
# Idempotent: a package already installed is not touched, and nothing runs when all are present.
set -euo pipefail

# clang-format-14: scripts/check-format.sh (pinned: other versions lay some code out differently).
packages=(cmake ninja-build g++ clang-14 clang-format-14 libclang-rt-14-dev llvm-14-tools
          libcli11-dev libboost-dev nlohmann-json3-dev libfmt-dev ccache python3-jsonschema
          libgtest-dev libgmock-dev libbenchmark-dev python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  # apt's own output goes to a log, shown only when the install fails.
  log=$(mktemp /tmp/ptxkit-install-deps.XXXXXX.log)
  echo "install-deps: installing ${#missing[@]} Debian packages: ${missing[*]} (log: $log)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
    if ! { $sudo apt-get update -q && \
           $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; } >>"$log" 2>&1; then
      cat "$log" >&2
      echo "install-deps: error: apt-get could not install: ${missing[*]}" >&2
      exit 1
    fi
  fi
  echo "install-deps: done"
fi

# The CUDA toolkit is not a Debian package here: it is expected at /usr/local/cuda.
if ! command -v ptxas >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/ptxas ] && [ -z "${PTXAS:-}" ]; then
  echo "install-deps: WARNING: ptxas not found (PATH, \$PTXAS, /usr/local/cuda/bin): ptxas checks will be skipped"
fi
