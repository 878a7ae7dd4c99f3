#!/usr/bin/env bash
# check-format.sh: every tracked C++ source and header (.cpp, .h) is formatted as .clang-format
# says, so formatting never shows up as noise in a review.
#
# Exit 0 when all are; 1 listing each file that is not (and the command that fixes it); 2 when
# the formatter is missing or fails on its own. The formatter is pinned to clang-format-14 (set
# CLANG_FORMAT to override): another major version lays some constructs out differently, and the
# check would then fail on files nobody touched.
set -euo pipefail
cd "$(dirname "$0")/.."

fmt="${CLANG_FORMAT:-clang-format-14}"
if ! command -v "$fmt" >/dev/null 2>&1; then
  echo "check-format: error: $fmt not found (scripts/install-deps.sh installs it)" >&2
  exit 2
fi

# Tracked files only (a build tree or a scratch file is not the project's), and only those that
# exist: a file deleted in the working tree but not yet in the index has nothing to check.
files=()
while IFS= read -r -d '' f; do
  [ -f "$f" ] && files+=("$f")
done < <(git ls-files -z -- '*.cpp' '*.h')
if [ ${#files[@]} -eq 0 ]; then
  echo "check-format: error: no tracked .cpp/.h files found (not a git checkout?)" >&2
  exit 2
fi

# One clang-format per batch of files, in parallel; it names each offending file in its
# "FILE:LINE:COL: error: code should be clang-formatted" diagnostics.
jobs="${PTXKIT_JOBS:-$(nproc)}"
status=0
out=$(printf '%s\0' "${files[@]}" |
      xargs -0 -n 25 -P "$jobs" "$fmt" --dry-run --Werror 2>&1) || status=$?
bad=$(printf '%s\n' "$out" |
      sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*$/\1/p' | sort -u)

if [ -n "$bad" ]; then
  count=$(printf '%s\n' "$bad" | wc -l)
  echo "check-format: $count of ${#files[@]} files are not formatted as .clang-format says:" >&2
  printf '%s\n' "$bad" | sed 's/^/  /' >&2
  echo "check-format: fix with: $fmt -i FILE..." >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  printf '%s\n' "$out" >&2
  echo "check-format: error: $fmt failed (exit $status) without naming a mis-formatted file" >&2
  exit 2
fi
echo "check-format: all ${#files[@]} tracked .cpp/.h files are formatted"
