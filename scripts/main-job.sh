#!/usr/bin/env bash
# main-job.sh PTXKIT: the main job of ./run.sh: generate every kernel at each of its reference
# configs for every supported target, verify each file with `ptxkit verify` (when that command
# exists), assemble each with ptxas (when ptxas exists), print a summary table and exit non-zero
# if anything failed.
#
# Why a script and not a subcommand: it glues three independent tools (the generator, the
# verifier, NVIDIA's ptxas) exactly as a user's CI would, so it also proves they compose.
# Output files stay in $PTXKIT_MAIN_JOB_DIR (default: build/main-job) for inspection.
set -uo pipefail

ptxkit="${1:-build/bin/ptxkit}"
if [ ! -x "$ptxkit" ]; then
  echo "main-job: error: '$ptxkit' is not an executable (build first, or pass its path)" >&2
  exit 2
fi
out="${PTXKIT_MAIN_JOB_DIR:-$(dirname "$(dirname "$ptxkit")")/main-job}"
rm -rf "$out" && mkdir -p "$out/ptx" "$out/log"

# 1. Generate: every kernel x reference config x supported target.
if ! "$ptxkit" gen --all --out-dir "$out/ptx" >"$out/log/gen.txt" 2>&1; then
  echo "main-job: FAILED: ptxkit gen --all" >&2
  cat "$out/log/gen.txt" >&2
  exit 1
fi
mapfile -t files < <(find "$out/ptx" -name '*.ptx' | sort -V)
if [ "${#files[@]}" -eq 0 ]; then
  echo "main-job: FAILED: gen --all wrote no files" >&2
  exit 1
fi

# 2. Which checks can run here.
have_verify=0
# (`verify --help` must print verify's own usage line: an unknown subcommand prints the main help.)
if "$ptxkit" verify --help 2>/dev/null | grep -q '^Usage: .*ptxkit verify'; then
  have_verify=1
else
  echo "main-job: NOTE: 'ptxkit verify' is not available in this build: the verify column is SKIPPED"
fi
ptxas="${PTXAS:-}"
[ -n "$ptxas" ] || ptxas="$(command -v ptxas 2>/dev/null || true)"
[ -n "$ptxas" ] || { [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas; }
# scripts/env.sh decided there is no ptxas (PTXKIT_HAVE_PTXAS=0): skip, as every other check does.
[ "${PTXKIT_HAVE_PTXAS:-1}" != 0 ] || ptxas=""
if [ -z "$ptxas" ]; then
  echo "main-job: NOTE: ptxas not found (PATH, \$PTXAS, /usr/local/cuda/bin): the ptxas and" \
       "registers columns are SKIPPED"
fi

# Instructions: body lines that end in ';' and are not directives (.reg, .shared, ...) or labels.
count_instructions() {
  awk '/^\t/ && /;[ \t]*$/ && !/^\t[ \t]*\./ { n++ } END { print n + 0 }' "$1"
}

failures=0
failed_logs=()
rows=()
echo "main-job: checking ${#files[@]} PTX files (verify, ptxas)"
done_count=0
for f in "${files[@]}"; do
  done_count=$((done_count + 1))
  if [ -t 1 ]; then
    printf '\r  [%d/%d] %-60s' "$done_count" "${#files[@]}" "$(basename "$f")"
  elif [ $((done_count % 100)) -eq 0 ]; then
    echo "  [$done_count/${#files[@]}]"
  fi
  base="$(basename "$f" .ptx)"           # KERNEL.CONFIGTAG.sm_XX
  kernel="${base%%.*}"
  rest="${base#*.}"
  config="${rest%%.*}"
  target="${rest#*.}"
  instructions="$(count_instructions "$f")"

  verify="skipped"
  if [ "$have_verify" -eq 1 ]; then
    if "$ptxkit" verify "$f" >"$out/log/$base.verify.txt" 2>&1; then
      verify="clean"
    else
      verify="FAILED"
      failures=$((failures + 1))
      failed_logs+=("$out/log/$base.verify.txt")
    fi
  fi

  regs="-"
  result="skipped"
  if [ -n "$ptxas" ]; then
    if "$ptxas" -v -arch="$target" "$f" -o "$out/log/$base.cubin" >"$out/log/$base.ptxas.txt" 2>&1; then
      result="ok"
      regs="$(grep -o 'Used [0-9]* registers' "$out/log/$base.ptxas.txt" | head -1 | awk '{print $2}')"
      [ -n "$regs" ] || regs="?"
    else
      result="FAILED"
      failures=$((failures + 1))
      failed_logs+=("$out/log/$base.ptxas.txt")
    fi
    rm -f "$out/log/$base.cubin"
  fi
  rows+=("$kernel|$config|$target|$instructions|$regs|$verify|$result")
done

[ -t 1 ] && printf '\r%-80s\r' ''
# 3. The full table to a file; on the terminal, one line per kernel.
table="$out/table.txt"
{
  printf '%-32s %-22s %-8s %12s %9s %-8s %-8s\n' kernel config target instructions registers \
    verify ptxas
  for row in "${rows[@]}"; do
    IFS='|' read -r kernel config target instructions regs verify result <<<"$row"
    printf '%-32s %-22s %-8s %12s %9s %-8s %-8s\n' "$kernel" "$config" "$target" "$instructions" \
      "$regs" "$verify" "$result"
  done
} >"$table"
printf '\n%-32s %6s %14s %11s %-14s %-14s\n' kernel files instructions registers verify ptxas
printf '%s\n' "${rows[@]}" | awk -F'|' '
  function range(lo, hi) { return lo == hi ? lo : lo "-" hi }
  {
    k = $1; n[k]++
    if (!(k in ilo) || $4 + 0 < ilo[k]) ilo[k] = $4 + 0
    if (!(k in ihi) || $4 + 0 > ihi[k]) ihi[k] = $4 + 0
    if ($5 ~ /^[0-9]+$/) {
      if (!(k in rlo) || $5 + 0 < rlo[k]) rlo[k] = $5 + 0
      if (!(k in rhi) || $5 + 0 > rhi[k]) rhi[k] = $5 + 0
    }
    if ($6 == "clean") vc[k]++; else if ($6 == "FAILED") vf[k]++
    if ($7 == "ok") pc[k]++; else if ($7 == "FAILED") pf[k]++
    order[k] = 1
  }
  END {
    for (k in order) {
      regs = (k in rlo) ? range(rlo[k], rhi[k]) : "-"
      v = (vf[k] ? vf[k] " FAILED" : (vc[k] ? vc[k] " clean" : "skipped"))
      p = (pf[k] ? pf[k] " FAILED" : (pc[k] ? pc[k] " ok" : "skipped"))
      printf "%-32s %6d %14s %11s %-14s %-14s\n", k, n[k], range(ilo[k], ihi[k]), regs, v, p
    }
  }' | sort
echo
echo "main-job: ${#files[@]} PTX files (every kernel x reference config x target) in $out/ptx"
echo "main-job: per-file table: $table; logs: $out/log"

if [ "$failures" -gt 0 ]; then
  echo "main-job: FAILED: $failures check(s) failed; see the logs above" >&2
  shown=0
  for f in "${failed_logs[@]}"; do
    [ "$shown" -lt 5 ] || { echo "(${#failed_logs[@]} failing logs in all; first 5 shown)" >&2; break; }
    echo "== $f" >&2
    head -12 "$f" >&2
    shown=$((shown + 1))
  done
  exit 1
fi
echo "main-job: all checks passed"
