#!/usr/bin/env python3
"""Prints "N passed, N failed[, N skipped]" from meson's JUnit logs.

GoogleTest binaries run with protocol 'gtest', so each test case is a
<testcase>; other tests (the C host, the export check) count once each.
Several files are summed (./dev test: the plain, ASan+UBSan and TSan runs
and the fuzzers' JUnit file, one case per fuzzer); a missing or unreadable
file counts as one failure.

A GoogleTest binary can pass every case and still fail as a process (a
sanitizer's report at exit, e.g. LeakSanitizer, or an abort in a static
destructor): its JUnit cases then all say "passed".  So meson's own verdict
per test is read from testlog.json beside each JUnit file, and a test meson
failed whose cases show no failure counts as one more failure."""
import json
import os
import sys
import xml.etree.ElementTree as ET

BAD = {"FAIL", "ERROR", "TIMEOUT", "UNEXPECTEDPASS", "INTERRUPT"}

passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"count_results: cannot read {path}: {e}", file=sys.stderr)
        failed += 1
        continue
    failing_suites = set()
    for suite in root.iter("testsuite"):
        for case in suite.iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
                failing_suites.add(suite.get("name", ""))
                failing_suites.add(case.get("name", ""))
            elif case.find("skipped") is not None:
                skipped += 1
            else:
                passed += 1
    log = os.path.join(os.path.dirname(path), "testlog.json")
    if not os.path.exists(log):
        continue
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                t = json.loads(line)
            except ValueError:
                continue
            if t.get("result") not in BAD:
                continue
            short = t.get("name", "").split(" / ")[-1]
            # gtest suites are named "<project>.<test>.<suite>"; other tests
            # are one case named after the test.
            if short in failing_suites or any(s.split(".")[1:2] == [short] for s in failing_suites):
                continue
            print(f"count_results: {t.get('name')}: {t.get('result')} as a process "
                  f"(exit {t.get('returncode')}) though its cases passed", file=sys.stderr)
            failed += 1
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
