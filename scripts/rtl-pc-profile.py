#!/usr/bin/env python3
"""Attributes a pulp-rtl simulator's --pc-profile to the firmware's functions.

    pulp-rtl-sim-1c --pc-profile FIRMWARE.elf > run.txt
    scripts/rtl-pc-profile.py FIRMWARE.elf run.txt [--top N] [--blocks]

The simulator counts, every cycle of the measured runs, core 0's instruction-fetch
address by 16-byte block. This sums the cycles by the function (from the ELF's symbols,
read with the toolchain's nm) that holds each block and prints them, most first, with
their share of the measured cycles. --blocks also prints each function's hottest blocks.
"""
import argparse
import bisect
import re
import shutil
import subprocess
import sys


def symbols(elf):
    nm = next((n for n in ("riscv64-unknown-elf-nm", "riscv32-unknown-elf-nm", "nm") if shutil.which(n)), None)
    if not nm:
        sys.exit("rtl-pc-profile: no nm found (install binutils-riscv64-unknown-elf)")
    out = subprocess.run([nm, "-C", "-n", "-S", elf], check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[2].lower() in ("t", "w"):
            syms.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    syms.sort()
    return syms


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("elf", help="the firmware the simulator ran")
    ap.add_argument("output", help="the simulator's output with --pc-profile ('-': standard input)")
    ap.add_argument("--top", type=int, default=25, help="functions to print (default 25)")
    ap.add_argument("--blocks", action="store_true", help="each function's three hottest 16-byte blocks too")
    a = ap.parse_args()
    text = sys.stdin.read() if a.output == "-" else open(a.output).read()
    if "rtl pc profile" not in text:
        sys.exit("rtl-pc-profile: %s has no 'rtl pc profile' (run the simulator with --pc-profile)" % a.output)
    blocks = [(int(m.group(1), 16), int(m.group(2))) for m in re.finditer(r"^  0x([0-9a-f]{8}) (\d+)$", text, re.M)]
    syms = symbols(a.elf)
    starts = [s[0] for s in syms]
    # Functions local to a file often share a name (each operator's run): those are told
    # apart by their address.
    count = {}
    for s in syms:
        count[s[2]] = count.get(s[2], 0) + 1
    names = [s[2] if count[s[2]] == 1 else "%s @0x%08x" % (s[2], s[0]) for s in syms]
    by_fn, hot = {}, {}
    for addr, n in blocks:
        # A block may straddle two functions; it counts for the one its first byte is in.
        i = bisect.bisect_right(starts, addr) - 1
        name = names[i] if i >= 0 and addr < syms[i][0] + max(syms[i][1], 16) else "?"
        by_fn[name] = by_fn.get(name, 0) + n
        hot.setdefault(name, []).append((n, addr))
    total = sum(by_fn.values()) or 1
    print("cycles of core 0 in the measured runs, by function (%d in all):" % total)
    for name, n in sorted(by_fn.items(), key=lambda x: -x[1])[: a.top]:
        print("  %10d  %5.1f %%  %s" % (n, 100.0 * n / total, name))
        if a.blocks:
            for c, addr in sorted(hot[name], reverse=True)[:3]:
                print("              0x%08x %d" % (addr, c))


if __name__ == "__main__":
    main()
