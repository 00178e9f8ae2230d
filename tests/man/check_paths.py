#!/usr/bin/env python3
"""The file paths the READMEs' and man pages' examples name exist in a clone.

  check_paths.py --src SRCDIR

Every command example (README code blocks, man page EXAMPLES and .nf blocks)
that names a data file of the project (samples/..., tests/data/..., a trace
.swf, a .jsonl/.json/.cfg/.conf under such a folder) must name one that is in
the source tree; a path reaching outside it ("../") is refused: a new admin
following the example in a clone would not find it.
"""
import argparse
import os
import re
import sys

PATH = re.compile(r"(?<![\w/.-])((?:\.\./|samples/|tests/data/)[\w./-]*\.(?:swf(?:\.gz)?|jsonl|json|cfg|conf|csv))")


def blocks(path):
    text = open(path, encoding="utf-8").read()
    if path.endswith(".md"):
        return re.findall(r"```[^\n]*\n(.*?)```", text, re.S)
    return re.findall(r"^\.nf\n(.*?)^\.fi", text, re.S | re.M) + re.findall(r"^\.SH EXAMPLES\n(.*?)(?=^\.SH |\Z)",
                                                                          text, re.S | re.M)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    a = ap.parse_args()
    docs = []
    for root, dirs, files in os.walk(a.src):
        dirs[:] = [d for d in dirs if not d.startswith(("build", ".")) and d != "fuzz"]
        for f in files:
            if f == "README.md" or (os.path.basename(root) == "man" and re.match(r".*\.[1-8]$", f)):
                docs.append(os.path.join(root, f))
    problems, checked = [], 0
    for doc in sorted(docs):
        rel = os.path.relpath(doc, a.src)
        for block in blocks(doc):
            for p in PATH.findall(block.replace("\\-", "-")):
                checked += 1
                if p.startswith("../"):
                    problems.append(f"{rel}: example names '{p}', outside the source tree (not in a clone)")
                elif not os.path.exists(os.path.join(a.src, p)):
                    problems.append(f"{rel}: example names '{p}', which does not exist")
    for p in problems:
        print("FAIL: " + p)
    print(f"{checked} example paths checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
