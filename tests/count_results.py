#!/usr/bin/env python3
"""Prints "N passed, N failed[, N skipped]" from meson's JUnit logs.

GoogleTest binaries run with protocol 'gtest', so each test case is a
<testcase>; other tests (the C host, the export check) count once each.
Several files are summed (./dev test: the plain, ASan+UBSan and TSan runs
and the fuzzers' JUnit file, one case per fuzzer); a missing or unreadable
file counts as one failure."""
import sys
import xml.etree.ElementTree as ET

passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"count_results: cannot read {path}: {e}", file=sys.stderr)
        failed += 1
        continue
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
