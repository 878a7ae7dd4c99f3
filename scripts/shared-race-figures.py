#!/usr/bin/env python3
"""shared-race-figures.py: how often shared-race leaves a kernel undecided, and why.

Runs `ptxkit verify --format json` over directories (or files) of PTX and prints:
  - files checked, files with any error finding (any rule), files with a shared-race warning,
    files with a shared-race error;
  - the shared-race warnings grouped by class: the message is split into its causes
    ("N because CAUSE (first: lines A and B, WHY)"), and each cause is normalized to a class
    (numbers, register and symbol names replaced), counted in files, warnings and pairs.

Usage: scripts/shared-race-figures.py [--ptxkit PATH] [--rule ID] [--top N] [--examples]
                                      [VERIFY-ARG ...] PATH...
Arguments starting with '--' that this script does not know (e.g. --block-dim 16,16) are passed
to `ptxkit verify`.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys


def normalize(text):
    """A message with the kernel's own names and numbers replaced, so that equal causes agree."""
    text = re.sub(r"`[^`]*`", "`K`", text)
    text = re.sub(r"%[A-Za-z_$][\w$]*(\.[xyz])?", "%R", text)
    text = re.sub(r"\b0x[0-9a-fA-F]+\b", "N", text)
    text = re.sub(r"-?\b\d+\b", "N", text)
    text = re.sub(r"\(N(, ?N)*\)", "(N)", text)
    text = re.sub(r"\b[A-Za-z_$][\w$]*(\+N)?\[", "A[", text)  # array names in index text
    return text


CAUSE = re.compile(r"(\d+) because (.*?) \(first: lines \d+ and \d+, (.*)\)$")


def split_causes(message):
    """[(pairs, cause, why)] of an undecided warning; [(1, class, '')] of any other message."""
    head, sep, rest = message.partition(" is not proven free of data races:")
    if not sep:
        return [(1, normalize(message), "")]
    out = []
    # Causes are separated by '; ' at parenthesis depth 0.
    depth, start, parts = 0, 0, []
    for i, ch in enumerate(rest):
        depth += ch == "("
        depth -= ch == ")"
        if ch == ";" and depth == 0:
            parts.append(rest[start:i])
            start = i + 1
    parts.append(rest[start:])
    for part in parts:
        part = part.strip()
        m = CAUSE.match(part)
        if m:
            out.append((int(m.group(1)), m.group(2), normalize(m.group(3))))
        elif part:
            out.append((1, normalize(part), ""))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxkit", default=None, help="ptxkit binary (default: build/bin/ptxkit)")
    ap.add_argument("--rule", default="shared-race", help="rule whose warnings are classed")
    ap.add_argument("--top", type=int, default=25, help="classes printed (default 25)")
    ap.add_argument("--examples", action="store_true", help="print one file per class")
    ap.add_argument("--files", action="store_true", help="list the files with a warning")
    args, rest = ap.parse_known_args()
    paths = [a for a in rest if not a.startswith("-")]
    extra = [a for a in rest if a not in paths]
    # Values of pass-through options (--block-dim 16,16) are not paths.
    for i, a in enumerate(rest):
        if a.startswith("--") and "=" not in a and i + 1 < len(rest) and a in (
                "--block-dim", "--contract", "--rules", "-j", "--jobs"):
            paths.remove(rest[i + 1])
            extra.insert(extra.index(a) + 1, rest[i + 1])
    if not paths:
        ap.error("no PATH given")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ptxkit = args.ptxkit or os.path.join(root, "build", "bin", "ptxkit")
    proc = subprocess.run([ptxkit, "verify", "--format", "json", *extra, *paths],
                          capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr)
        sys.exit(proc.returncode)
    report = json.loads(proc.stdout)
    files = report["files"]
    err_files, warn_files, rule_err_files = set(), set(), set()
    by_class = collections.defaultdict(lambda: [set(), 0, 0, None])  # files, warnings, pairs, eg
    by_cause = collections.defaultdict(lambda: [set(), 0])
    for f in files:
        for x in f.get("findings", []):
            if x.get("severity") == "error":
                err_files.add(f["path"])
                if x.get("rule") == args.rule:
                    rule_err_files.add(f["path"])
            if x.get("rule") != args.rule or x.get("severity") != "warning":
                continue
            warn_files.add(f["path"])
            for pairs, cause, why in split_causes(x["message"]):
                key = cause + (" :: " + why if why else "")
                c = by_class[key]
                c[0].add(f["path"])
                c[1] += 1
                c[2] += pairs
                c[3] = c[3] or "%s:%d" % (f["path"], x.get("line", 0))
                by_cause[cause][0].add(f["path"])
                by_cause[cause][1] += pairs
    n = len(files)
    pct = lambda k: "%.1f%%" % (100.0 * k / n) if n else "-"
    print("files: %d" % n)
    print("files with an error (any rule): %d (%s)" % (len(err_files), pct(len(err_files))))
    print("files with a %s error: %d (%s)" % (args.rule, len(rule_err_files), pct(len(rule_err_files))))
    print("files with a %s warning: %d (%s)" % (args.rule, len(warn_files), pct(len(warn_files))))
    print("\nby cause (files, pairs):")
    for cause, (fs, pairs) in sorted(by_cause.items(), key=lambda kv: -len(kv[1][0])):
        print("  %4d %5d  %s" % (len(fs), pairs, cause[:150]))
    print("\nby class (files, warnings, pairs):")
    ranked = sorted(by_class.items(), key=lambda kv: (-len(kv[1][0]), -kv[1][2]))
    for key, (fs, warns, pairs, eg) in ranked[:args.top]:
        print("  %4d %4d %5d  %s" % (len(fs), warns, pairs, key[:240]))
        if args.examples:
            print("              e.g. %s" % eg)
    if len(ranked) > args.top:
        print("  ... %d more classes" % (len(ranked) - args.top))
    if args.files:
        print("\nfiles with a warning:")
        for p in sorted(warn_files):
            print("  " + p)


if __name__ == "__main__":
    main()
