#!/usr/bin/env bash
# Writes the command-line reference (Markdown) from the tool's own --help texts, so the reference
# cannot drift from the tool: the build runs this into build/docs/cli-reference.md, and a test
# requires docs/cli-reference.md to be identical (`scripts/cli-reference.sh build/bin/ptxkit >
# docs/cli-reference.md` updates it).
# Usage: cli-reference.sh TOOL
set -euo pipefail
tool=$1
name=ptxkit

# The subcommand names listed under "Subcommands:" in a help text.
subcommands() {
  awk '/^Subcommands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on=0}'
}

section() { # $1: heading level, $2...: the command words
  local level=$1; shift
  local help
  help=$("$tool" "$@" --help)
  printf '%s `%s`\n\n```\n%s\n```\n\n' "$level" "$name $*" "$help"
  local sub
  for sub in $(printf '%s\n' "$help" | subcommands); do
    section "$level#" "$@" "$sub"
  done
}

printf '# `%s` command reference\n\n' "$name"
printf 'Generated from the `--help` texts by `scripts/cli-reference.sh`: do not edit. The contract\n'
printf 'behind these options (exit codes, error format, file names) is [cli.md](cli.md).\n\n'
printf '```\n%s\n```\n\n' "$("$tool" --help)"
for cmd in $("$tool" --help | subcommands); do
  section "##" "$cmd"
done
