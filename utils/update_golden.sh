#!/usr/bin/env bash
# update_golden.sh [PTXKIT]: regenerate golden/ (one file per kernel x reference config x golden
# target) after an intended generator change, then show what changed for review.
# Golden files are never edited by hand: this is the only way they change.
set -euo pipefail
cd "$(dirname "$0")/.."
ptxkit="${1:-build/bin/ptxkit}"
"$ptxkit" golden update --dir golden
git --no-pager diff --stat -- golden || true
