#!/usr/bin/env bash
# drift_test.sh PTXKIT: `golden check` must fail (exit 1) with a unified diff naming the changed
# line when a golden file is altered, and report a missing and a stale file; `golden diff` must
# print the same and exit 0; `golden update` must restore a clean check. Works in a temporary
# directory filled by `golden update`, so it tests the mechanism whatever the state of golden/.
set -uo pipefail
ptxkit="$1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp" "$tmp.out" "$tmp.orig"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$ptxkit" golden update --dir "$tmp" >/dev/null 2>&1 || fail "golden update into an empty dir failed"
"$ptxkit" golden check --dir "$tmp" >"$tmp.out" 2>&1 || fail "a fresh set does not check: $(cat "$tmp.out")"
rm -f "$tmp.out"
victim="$tmp/rmsnorm.qwen05b.sm_90.ptx"
[ -f "$victim" ] || fail "rmsnorm.qwen05b.sm_90.ptx was not generated"
cp "$victim" "$tmp.orig"
head -1 "$victim" | grep -q '^// ptxkit golden: generator=.* kernel=rmsnorm config=qwen05b target=sm_90 key=rmsnorm-[0-9a-f]\{16\}$' \
  || fail "header line: $(head -1 "$victim")"

# Alter one instruction line, as a generator change would: the eps immediate of Qwen (1e-6).
grep -q '0f358637BD' "$victim" || fail "the eps immediate 0f358637BD is not in $victim"
sed -i 's/0f358637BD/0f3727C5AC/' "$victim"
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

"$ptxkit" golden diff --dir "$tmp" >/dev/null 2>&1 || fail "golden diff must exit 0 on drift"
"$ptxkit" golden update --dir "$tmp" >/dev/null 2>&1 || fail "golden update failed"
"$ptxkit" golden check --dir "$tmp" >/dev/null 2>&1 || fail "check after update is not clean"
[ ! -e "$tmp"/removed_kernel.cfg.sm_90.ptx ] || fail "update kept the stale file"
ls "$tmp" | grep -q 'tmp' && fail "update left a temporary file behind"
cmp -s "$victim" "$tmp.orig" || fail "update did not restore $victim"
rm -f "$tmp.orig"
echo "golden drift test: OK"
