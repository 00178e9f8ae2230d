#!/usr/bin/env python3
"""Prints "N passed, N failed[, N skipped]" from meson's JUnit log.

GoogleTest binaries run with protocol 'gtest', so each test case is a
<testcase>; other tests (the C host, the export check) count once each."""
import sys
import xml.etree.ElementTree as ET

passed = failed = skipped = 0
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError) as e:
    print(f"count_results: cannot read {sys.argv[1]}: {e}", file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)
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
