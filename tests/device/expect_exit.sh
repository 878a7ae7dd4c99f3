#!/bin/sh
# expect_exit.sh: runs a command and passes only when it exits with the expected code and its
# stderr+stdout contains the expected text (used by the device_cli ctests).
# usage: expect_exit.sh CODE TEXT COMMAND [ARG]...
want_code=$1
want_text=$2
shift 2
out=$("$@" 2>&1)
code=$?
printf '%s\n' "$out"
if [ "$code" -ne "$want_code" ]; then
  echo "expect_exit: exit code $code, expected $want_code" >&2
  exit 1
fi
case "$out" in
*"$want_text"*) ;;
*)
  echo "expect_exit: output lacks '$want_text'" >&2
  exit 1
  ;;
esac
exit 0
