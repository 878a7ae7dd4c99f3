#!/usr/bin/env bash
# drift_test.sh PTXKIT: `golden check` must fail (exit 1) with a unified diff naming the changed
# line when a golden file is altered, preceded by the instance, keys, instruction and register
# changes, and report a missing and a stale file, ending with the command that accepts the drift
# (named after the program as run); `golden diff` must print the same and exit 0; `golden update`
# must restore a clean check. `--kernel` must limit all three to the selected kernels' files and
# leave the others alone. Works in a temporary directory filled by `golden update`, so it tests
# the mechanism whatever the state of golden/.
set -uo pipefail
ptxkit="$1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp" "$tmp.out" "$tmp.orig" "$tmp.orig80" "$tmp.bin" "$tmp.own"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$ptxkit" golden update --dir "$tmp" >/dev/null 2>&1 || fail "golden update into an empty dir failed"
"$ptxkit" golden check --dir "$tmp" >"$tmp.out" 2>&1 || fail "a fresh set does not check: $(cat "$tmp.out")"
rm -f "$tmp.out"
victim="$tmp/rmsnorm.qwen05b.sm_90.ptx"
victim80="$tmp/rmsnorm.qwen05b.sm_80.ptx"
[ -f "$victim" ] || fail "rmsnorm.qwen05b.sm_90.ptx was not generated"
cp "$victim" "$tmp.orig"
cp "$victim80" "$tmp.orig80"
head -1 "$victim" | grep -q '^// ptxkit golden: generator=.* kernel=rmsnorm config=qwen05b target=sm_90 key=rmsnorm-[0-9a-f]\{16\}$' \
  || fail "header line: $(head -1 "$victim")"
key90=$(head -1 "$victim" | sed 's/.* key=//')
key80=$(head -1 "$victim80" | sed 's/.* key=//')

# Alter one instruction line, as a generator change would: the eps immediate of Qwen (1e-6).
grep -q '0f358637BD' "$victim" || fail "the eps immediate 0f358637BD is not in $victim"
sed -i 's/0f358637BD/0f3727C5AC/' "$victim"
# In the sm_80 twin, an older key, one fma turned into a mul and fewer %f registers: the summary
# must show all three (the regenerated file has the real key, the fma and %f<47>).
grep -q '%f<47>' "$victim80" || fail "$victim80 no longer declares %f<47>"
grep -q 'mul.rn.f32' "$victim80" && fail "$victim80 already has a mul.rn.f32"
sed -i -e "1s/key=$key80/key=rmsnorm-0000000000000000/" -e 's/%f<47>/%f<43>/' \
  -e '0,/fma.rn.f32 /s//mul.rn.f32 /' "$victim80"
rm "$tmp"/batched_incremental_attention.qwen15b_coder.sm_80.ptx
echo "// stale" >"$tmp"/removed_kernel.cfg.sm_90.ptx

out=$("$ptxkit" golden check --dir "$tmp" 2>&1); code=$?
[ "$code" -eq 1 ] || fail "golden check exit $code on drift, expected 1"
grep -q -- "--- $victim" <<<"$out" || fail "no '--- FILE' header: $out"
grep -q -- "+++ $victim (regenerated)" <<<"$out" || fail "no '+++' header: $out"
grep -q '^@@ -[0-9]*,[0-9]* +[0-9]*,[0-9]* @@' <<<"$out" || fail "no hunk header: $out"
grep -q '^-.*0f3727C5AC' <<<"$out" || fail "the altered line is not shown as removed: $out"
grep -q '^+.*0f358637BD' <<<"$out" || fail "the regenerated line is not shown as added: $out"
grep -q 'missing .*batched_incremental_attention.qwen15b_coder.sm_80.ptx' <<<"$out" \
  || fail "the missing file is not reported: $out"
grep -q 'removed_kernel.cfg.sm_90.ptx is no longer generated' <<<"$out" \
  || fail "the stale file is not reported: $out"

# The summary above each changed file's diff: instance and keys, then instructions and registers.
grep -A3 -F -x "golden: changed $victim" <<<"$out" >"$tmp.out" || fail "no 'golden: changed' line: $out"
[ "$(sed -n 2p "$tmp.out")" = "  kernel=rmsnorm config=qwen05b target=sm_90 key=$key90 (unchanged)" ] \
  || fail "sm_90 instance line: $(cat "$tmp.out")"
[ "$(sed -n 3p "$tmp.out")" = "  instructions: unchanged; registers: unchanged" ] \
  || fail "sm_90 summary line (only an immediate changed): $(cat "$tmp.out")"
[ "$(sed -n 4p "$tmp.out")" = "--- $victim" ] || fail "the diff does not follow the summary: $(cat "$tmp.out")"
grep -A2 -F -x "golden: changed $victim80" <<<"$out" >"$tmp.out" || fail "no 'golden: changed' for sm_80: $out"
[ "$(sed -n 2p "$tmp.out")" = "  kernel=rmsnorm config=qwen05b target=sm_80 key=rmsnorm-0000000000000000 -> $key80" ] \
  || fail "sm_80 instance line: $(cat "$tmp.out")"
[ "$(sed -n 3p "$tmp.out")" = "  instructions: +1 fma.rn.f32, -1 mul.rn.f32; registers: %f 43 -> 47" ] \
  || fail "sm_80 summary line: $(cat "$tmp.out")"

# The last line is the command that accepts the drift, with the same --dir; run under another
# name (a consumer's tool embedding the CLI), it names that program.
[ "$(tail -1 <<<"$out")" = "to accept: ptxkit golden update --dir $tmp" ] \
  || fail "last line is not the accept command: $(tail -1 <<<"$out")"
mkdir -p "$tmp.bin" && ln -s "$(cd "$(dirname "$ptxkit")" && pwd)/$(basename "$ptxkit")" "$tmp.bin/mytool"
out=$("$tmp.bin/mytool" golden check --dir "$tmp" --kernel rmsnorm --kernel layernorm 2>&1); code=$?
[ "$code" -eq 1 ] || fail "check --kernel rmsnorm exit $code on drift, expected 1"
[ "$(tail -1 <<<"$out")" = "to accept: mytool golden update --dir $tmp --kernel rmsnorm --kernel layernorm" ] \
  || fail "accept command under another name: $(tail -1 <<<"$out")"

# --kernel: only the selected kernels' instances and files count.
out=$("$ptxkit" golden check --dir "$tmp" --kernel rmsnorm 2>&1); code=$?
[ "$code" -eq 1 ] || fail "check --kernel rmsnorm exit $code, expected 1"
grep -q "golden: changed $victim80" <<<"$out" || fail "--kernel rmsnorm misses the rmsnorm drift: $out"
grep -q 'batched_incremental_attention\|removed_kernel' <<<"$out" \
  && fail "--kernel rmsnorm reports other kernels' files: $out"
n_rmsnorm=$(ls "$tmp"/rmsnorm.*.ptx | wc -l)
grep -q "golden: $n_rmsnorm files checked, 2 drifted" <<<"$out" || fail "--kernel rmsnorm count: $out"
out=$("$ptxkit" golden check --dir "$tmp" --kernel layernorm 2>&1) \
  || fail "check --kernel layernorm must be clean (its files are untouched): $out"
out=$("$ptxkit" golden check --dir "$tmp" --kernel no_such_kernel 2>&1); code=$?
[ "$code" -eq 2 ] || fail "unknown --kernel exit $code, expected 2"
grep -q "unknown kernel 'no_such_kernel'; valid kernels: .*rmsnorm" <<<"$out" \
  || fail "unknown --kernel message: $out"
# A stale file belongs to the kernel its header names, whatever its file name says.
head -1 "$tmp.orig" >"$tmp/renamed.ptx"
out=$("$ptxkit" golden check --dir "$tmp" --kernel rmsnorm 2>&1)
grep -q 'renamed.ptx is no longer generated' <<<"$out" || fail "rmsnorm's renamed file is not stale: $out"
out=$("$ptxkit" golden check --dir "$tmp" --kernel layernorm 2>&1) \
  || fail "another kernel's stale file counts under --kernel layernorm: $out"
"$ptxkit" golden diff --dir "$tmp" --kernel rmsnorm >/dev/null 2>&1 || fail "golden diff --kernel must exit 0"
# update --kernel rewrites and removes only the selected kernels' files.
"$ptxkit" golden update --dir "$tmp" --kernel rmsnorm >/dev/null 2>&1 || fail "update --kernel failed"
cmp -s "$victim" "$tmp.orig" && cmp -s "$victim80" "$tmp.orig80" \
  || fail "update --kernel rmsnorm did not restore the rmsnorm files"
[ ! -e "$tmp/renamed.ptx" ] || fail "update --kernel rmsnorm kept rmsnorm's stale file"
[ -e "$tmp/removed_kernel.cfg.sm_90.ptx" ] || fail "update --kernel rmsnorm removed another kernel's file"
[ ! -e "$tmp/batched_incremental_attention.qwen15b_coder.sm_80.ptx" ] \
  || fail "update --kernel rmsnorm created another kernel's file"
"$ptxkit" golden check --dir "$tmp" --kernel rmsnorm >/dev/null 2>&1 || fail "rmsnorm not clean after update --kernel"
"$ptxkit" golden check --dir "$tmp" >/dev/null 2>&1 && fail "the other kernels' drift vanished"
# A consumer's directory holding only its own kernels' files is clean under --kernel.
"$ptxkit" golden update --dir "$tmp.own" --kernel rmsnorm >/dev/null 2>&1 || fail "update into a new dir"
[ "$(ls "$tmp.own" | grep -vc '^rmsnorm\.')" -eq 0 ] || fail "update --kernel rmsnorm wrote other kernels: $(ls "$tmp.own")"
"$ptxkit" golden check --dir "$tmp.own" --kernel rmsnorm >/dev/null 2>&1 || fail "own dir not clean"

"$ptxkit" golden diff --dir "$tmp" >/dev/null 2>&1 || fail "golden diff must exit 0 on drift"
"$ptxkit" golden update --dir "$tmp" >/dev/null 2>&1 || fail "golden update failed"
"$ptxkit" golden check --dir "$tmp" >/dev/null 2>&1 || fail "check after update is not clean"
[ ! -e "$tmp"/removed_kernel.cfg.sm_90.ptx ] || fail "update kept the stale file"
ls "$tmp" | grep -q 'tmp' && fail "update left a temporary file behind"
cmp -s "$victim" "$tmp.orig" || fail "update did not restore $victim"
rm -f "$tmp.orig"
echo "golden drift test: OK"
