#!/usr/bin/env python3
"""Checks that code blocks documents include from files are those files' text.

A Markdown document marks an included block with a comment line right before its fence:

    <!-- include: examples/consumer/kernels/row_center_bias.h -->
    ```cpp
    ...the file's whole text...
    ```

so the quickstart and the builder guide show code that is compiled and tested, never a copy that
drifted. Exit 1 naming each stale block (and how to refresh it: --update), 0 when all match, and 1
when no document includes anything (a check with nothing to check must not pass).
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r"^<!-- include: (\S+) -->\n```[a-z]*\n(.*?)^```\n", re.M | re.S)


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    update = "--update" in sys.argv[2:]
    checked, stale = 0, []
    for doc in sorted((root / "docs").glob("*.md")) + [root / "README.md"]:
        text = doc.read_text()

        def replace(m: re.Match) -> str:
            nonlocal checked
            checked += 1
            path = root / m.group(1)
            if not path.is_file():
                stale.append(f"{doc.relative_to(root)}: includes {m.group(1)}, which does not exist")
                return m.group(0)
            want = path.read_text()
            if m.group(2) != want:
                stale.append(f"{doc.relative_to(root)}: the block from {m.group(1)} differs from the file")
            fence = m.group(0).split("\n", 2)[1]
            return f"<!-- include: {m.group(1)} -->\n{fence}\n{want}```\n"

        new = INCLUDE.sub(replace, text)
        if update and new != text:
            doc.write_text(new)
    if checked == 0:
        print("check_doc_includes: no document includes a file: nothing was checked")
        return 1
    for s in stale:
        print("check_doc_includes: " + s)
    if stale and not update:
        print("refresh with: python3 tests/docs/check_doc_includes.py . --update")
        return 1
    if update:
        print(f"check_doc_includes: {len(stale)} of {checked} included blocks refreshed")
    else:
        print(f"check_doc_includes: {checked} included blocks match their files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
