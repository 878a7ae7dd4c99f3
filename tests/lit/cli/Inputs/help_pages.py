#!/usr/bin/env python3
"""Checks every --help page of a ptxkit tool against docs/cli.md:

- no value is named by its C++ type (TEXT, INT, UINT, ...): each names what it takes (FILE, N);
- every page ends with an "Exit codes:" paragraph, and each command's is its own: none is the
  tool's footer or another command's copy (each says what is true for that command).

Usage: help_pages.py TOOL. Walks the pages from `TOOL --help` through every "Subcommands:" list;
prints one line per problem and exits 1, or prints the number of pages checked.
"""
import re
import subprocess
import sys

CLI11_TYPE_NAMES = re.compile(r"\b(TEXT|INT|UINT|FLOAT|NUMBER|BOOLEAN|ENUM|CHAR|COMPLEX)\b")


def page(tool, words):
    return subprocess.run([tool, *words, "--help"], check=True, capture_output=True,
                          text=True).stdout


def subcommands(text):
    names, listing = [], False
    for line in text.splitlines():
        if line == "Subcommands:":
            listing = True
        elif listing and line.startswith("  ") and not line.startswith("   "):
            names.append(line.split()[0])
        elif listing and not line.strip():
            listing = False
    return names


def main():
    tool = sys.argv[1]
    problems, footers, todo = [], {}, [[]]
    while todo:
        words = todo.pop(0)
        name = " ".join(["TOOL", *words])
        text = page(tool, words)
        for line in text.splitlines():
            if CLI11_TYPE_NAMES.search(line):
                problems.append(f"{name} --help: a value named by its type: {line.strip()}")
        last = [p.strip() for p in text.strip().split("\n\n")][-1]
        if not last.startswith("Exit codes:"):
            problems.append(f"{name} --help: does not end with its exit codes: {last!r}")
        elif last in footers:
            problems.append(f"{name} --help: the exit codes of {footers[last]}: {last!r}")
        else:
            footers[last] = name
        todo += [[*words, sub] for sub in subcommands(text)]
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"help pages: {len(footers)} checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
