#!/usr/bin/env bash
# gpuverify-race-figures.sh: shared-race against GPUVerify's labels (docs/rules.md, shared-race).
#
# For each kernel of the unpacked GPUVerify corpus (build/tests/corpus/gpuverify-ptx, -O3 and
# -Xcicc -O0 files), runs `ptxkit verify --rules shared-race`, with `--block-dim` from the
# kernel's `//--blockDim=` annotation (labels.tsv's third column) when it is a shape a launch can
# have, and prints per folder and optimization level: race-labelled kernels flagged by an error /
# by any finding, and pass-labelled kernels with an error / with any finding.
#
# Usage: scripts/gpuverify-race-figures.sh [--no-block-dim] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
use_dim=1
if [ "${1:-}" = "--no-block-dim" ]; then use_dim=0; shift; fi
build=${1:-build}
dir=$build/tests/corpus/gpuverify-ptx
ptxkit=$build/bin/ptxkit
valid_dim() { # x[,y[,z]] within the PTX limits
  local x y z
  IFS=, read -r x y z <<<"$1"
  y=${y:-1} z=${z:-1}
  [ "$x" -le 1024 ] && [ "$y" -le 1024 ] && [ "$z" -le 64 ] && [ $((x * y * z)) -le 1024 ]
}
while IFS=$'\t' read -r file label dim sync; do
  [ "$label" = pass ] || [ "$label" = race ] || continue
  name=${file#gpuverify.}
  name=${name%.sm_80.ptx}
  level=O3
  case $name in *.O0) level=O0 name=${name%.O0} ;; esac
  folder=top-level
  case $name in *.*) folder=${name%%.*} ;; esac
  args=()
  shaped=no
  if [ "$use_dim" = 1 ] && [ "$dim" != - ] && valid_dim "$dim"; then
    args=(--block-dim "$dim")
    shaped=yes
  fi
  out=$("$ptxkit" verify --rules shared-race "${args[@]}" "$dir/$file" 2>/dev/null || true)
  e=$(grep -c 'error: .*\[shared-race\]' <<<"$out" || true)
  w=$(grep -c 'warning: .*\[shared-race\]' <<<"$out" || true)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$level" "$folder" "$label" "$shaped" "$e" "$w" "$file"
done <"$dir/labels.tsv" >"${TMPDIR:-/tmp}/gpuverify-race.tsv"
awk -F'\t' '
  { k = $1 "\t" $2; keys[k] = 1; n[k, $3]++; if ($5 > 0) err[k, $3]++; if ($5 + $6 > 0) any[k, $3]++
    if ($4 == "yes") shaped[$1]++; total[$1]++ }
  END {
    print "level\tfolder\trace: error/any/of\tpass: error/any/of"
    for (k in keys) printf "%s\t%d/%d/%d\t%d/%d/%d\n", k, err[k, "race"], any[k, "race"], n[k, "race"],
                           err[k, "pass"], any[k, "pass"], n[k, "pass"] | "sort"
    close("sort")
    for (l in total) printf "%s: %d of %d kernels checked with their annotated --block-dim\n", l, shaped[l], total[l]
  }' "${TMPDIR:-/tmp}/gpuverify-race.tsv"
echo "per kernel: ${TMPDIR:-/tmp}/gpuverify-race.tsv (level, folder, label, shaped, errors, warnings, file)"
