#!/usr/bin/env bash
# fmt_cli_test.sh: `ptxkit fmt` as CLI.md specifies it: canonical PTX on stdout and exit 0 for
# good input; `path:line:col: error: expected X, found Y`, the source line and a caret on stderr
# and exit 2 for bad input; exit 2 for an unreadable file; -o writes the same bytes atomically.
#
# Why a script: exit codes and stderr layout are the contract, so they are checked on the binary.
# Usage: fmt_cli_test.sh PTXKIT
set -uo pipefail
ptxkit=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

printf '.version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n' >"$tmp/good.ptx"
printf '.version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tmov.u32 %%r1, ;\n}\n' >"$tmp/bad.ptx"

"$ptxkit" fmt "$tmp/good.ptx" >"$tmp/out.ptx" 2>"$tmp/err" || fail "good input: exit $?"
grep -q '^\.visible \.entry k()$' "$tmp/out.ptx" || fail "good input: no entry in output"
[ ! -s "$tmp/err" ] || fail "good input: stderr not empty"
"$ptxkit" fmt "$tmp/out.ptx" | cmp -s - "$tmp/out.ptx" || fail "fmt is not idempotent"
"$ptxkit" fmt - <"$tmp/good.ptx" | cmp -s - "$tmp/out.ptx" || fail "stdin differs from file"
"$ptxkit" fmt "$tmp/good.ptx" -o "$tmp/o.ptx" || fail "-o: exit $?"
cmp -s "$tmp/o.ptx" "$tmp/out.ptx" || fail "-o wrote different bytes"

"$ptxkit" fmt "$tmp/bad.ptx" >"$tmp/out2" 2>"$tmp/err2"
rc=$?
[ "$rc" -eq 2 ] || fail "bad input: exit $rc, want 2"
[ ! -s "$tmp/out2" ] || fail "bad input: something printed on stdout"
expected="$tmp/bad.ptx:6:15: error: expected an operand, found ';'"
[ "$(sed -n 1p "$tmp/err2")" = "$expected" ] || fail "message: $(sed -n 1p "$tmp/err2")"
[ "$(sed -n 2p "$tmp/err2")" = "$(printf '\tmov.u32 %%r1, ;')" ] || fail "source line: $(sed -n 2p "$tmp/err2")"
[ "$(sed -n 3p "$tmp/err2")" = "$(printf '\t             ^')" ] || fail "caret: '$(sed -n 3p "$tmp/err2")'"

"$ptxkit" fmt "$tmp/missing.ptx" >/dev/null 2>"$tmp/err3"
rc=$?
[ "$rc" -eq 2 ] || fail "missing file: exit $rc, want 2"
grep -q '^ptxkit: error: ' "$tmp/err3" || fail "missing file message: $(cat "$tmp/err3")"
echo "fmt_cli_test: ok"
