#!/usr/bin/env python3
"""Which `quick` tests were not quick in the last run: reads the times ctest logged
(BUILD/Testing/Temporary/LastTest.log) for the tests labelled `quick` (ctest -N -L quick in
BUILD), prints the slowest, and each one over the limit (default 10 s), which belongs under
the label `slow` (where the test is declared: tests/CMakeLists.txt). Exit status 1 when any
is over. scripts/test.sh prints this report after the suite; a time depends on the machine
and on what ran beside the test, so the suite never fails on it.

    scripts/check-test-times.py BUILD [--limit SECONDS] [--top N]

Python's standard library only."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctest_list import test_names  # noqa: E402


def logged_times(build):
    path = os.path.join(build, "Testing", "Temporary", "LastTest.log")
    times, current = {}, None
    try:
        with open(path, errors="replace") as log:
            for line in log:
                m = re.match(r"^\d+/\d+ Test: (.+)$", line.rstrip("\n"))
                if m:
                    current = m.group(1)
                    continue
                m = re.match(r"^Test time = +([\d.]+) sec", line)
                if m and current:
                    times[current] = float(m.group(1))
                    current = None
    except FileNotFoundError:
        sys.exit(f"check-test-times: no {path}: run the suite first")
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", help="the build folder the suite ran in")
    ap.add_argument("--limit", type=float, default=10.0, help="seconds a quick test may take (default 10)")
    ap.add_argument("--top", type=int, default=3, help="how many of the slowest quick tests to name (default 3)")
    args = ap.parse_args()
    times = logged_times(args.build)
    quick = test_names(args.build, "-L", "^quick$")
    ran = sorted(((times[t], t) for t in quick if t in times), reverse=True)
    if not ran:
        print("check-test-times: the last run logged no quick test")
        return 0
    total = sum(s for s, _ in ran)
    slowest = ", ".join(f"{t} {s:.1f} s" for s, t in ran[: args.top])
    print(f"check-test-times: {len(ran)} quick tests ran, {total:.0f} s in all; slowest: {slowest}")
    over = [(s, t) for s, t in ran if s > args.limit]
    for s, t in over:
        print(f"check-test-times: {t} took {s:.1f} s, over the {args.limit:g} s a quick test may take: label it slow")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
