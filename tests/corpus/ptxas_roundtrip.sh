#!/usr/bin/env bash
# ptxas_roundtrip.sh: `ptxkit fmt` every corpus file and assemble the printed form with ptxas
# (the arch from its .target), two at a time; also checks that fmt of fmt is the same bytes.
#
# Why a script: ptxas runs are independent and slow (-G files), so they run in parallel; a
# failure prints the file and ptxas's own message.
# Usage: ptxas_roundtrip.sh PTXKIT PTXAS CORPUS_DIR
set -euo pipefail
ptxkit=$1 ptxas=$2 dir=$3
jobs="${PTXKIT_JOBS:-2}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export ptxkit ptxas out
check() {
  f=$1
  b=$(basename "$f")
  "$ptxkit" fmt "$f" >"$out/$b" || { echo "FAIL fmt: $f"; return 1; }
  "$ptxkit" fmt "$out/$b" | cmp -s - "$out/$b" || { echo "FAIL idempotence: $f"; return 1; }
  arch=$(sed -n 's/^\.target \([a-z0-9_]*\).*/\1/p' "$out/$b" | head -1)
  if ! "$ptxas" -arch="$arch" "$out/$b" -o /dev/null 2>"$out/$b.log"; then
    echo "FAIL ptxas -arch=$arch on fmt of $f:"; cat "$out/$b.log"; return 1
  fi
  echo "ok $b ($arch)"
}
export -f check
n=$(ls "$dir"/*.ptx | wc -l)
if [ "$n" -lt 30 ]; then echo "corpus has only $n files in $dir"; exit 1; fi
ls -S "$dir"/*.ptx | xargs -P "$jobs" -I{} bash -c 'check "$@"' _ {}
echo "corpus_ptxas: $n files formatted and accepted by ptxas"
