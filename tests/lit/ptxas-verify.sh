#!/usr/bin/env bash
# Reads PTX on stdin and assembles it with ptxas (which reads only files).
# Usage: ptxas-verify.sh PTXAS|none -arch=sm_XX [ptxas options]
# With "none" (no ptxas on this machine) it consumes the input and says the check was skipped.
set -euo pipefail
ptxas="$1"; shift
if [ "$ptxas" = none ]; then
  cat >/dev/null
  echo "ptxas-verify: SKIPPED (no ptxas on this machine) $*" >&2
  exit 0
fi
tmp=$(mktemp --suffix=.ptx)
trap 'rm -f "$tmp" "$tmp.cubin"' EXIT
cat >"$tmp"
"$ptxas" "$@" "$tmp" -o "$tmp.cubin"
