#!/usr/bin/env python3
"""Bytes of code (.text input sections) each library or object puts in a firmware, from
its GNU ld map file (the demos link with -Wl,-Map=<elf>.map).

usage: scripts/text-by-library.py FIRMWARE.map [GROUP=REGEX ...]
Prints a line per library (archive, or object file) and, for each GROUP, the sum of the
libraries whose name matches REGEX, e.g.
  scripts/text-by-library.py tessera-firmware-int8_slim.map 'runtime and kernels=libtessera_(runtime|kernels|format)\\.a'
"""
import collections
import re
import sys


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    lines = open(argv[1], encoding="utf-8", errors="replace").read().splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith("Linker script and memory map"))
    except StopIteration:
        print(f"{argv[1]}: not a GNU ld map file", file=sys.stderr)
        return 1
    sizes = collections.Counter()
    entry = re.compile(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$")
    pending = None  # an input section's name on a line of its own: its address, size and file follow
    for line in lines[start:]:
        m = re.match(r"^ (\.text\S*)\s*$", line)
        if m:
            pending = m.group(1)
            continue
        m = re.match(r"^ (\.text\S*)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        if m:
            sizes[library(m.group(3))] += int(m.group(2), 16)
            pending = None
            continue
        if pending:
            m = entry.match(line)
            if m:
                sizes[library(m.group(2))] += int(m.group(1), 16)
            pending = None
    total = sum(sizes.values())
    for name, n in sizes.most_common():
        print(f"{n:>9}  {name}")
    print(f"{total:>9}  all .text input sections")
    for group in argv[2:]:
        label, _, pattern = group.partition("=")
        n = sum(v for k, v in sizes.items() if re.search(pattern, k))
        print(f"{label}: {n} bytes ({n / 1024:.1f} KiB)")
    return 0


def library(path):
    """libfoo.a(member.o) -> libfoo.a; an object file -> its name."""
    path = path.strip()
    m = re.match(r"^(.*?)\((.*)\)$", path)
    name = m.group(1) if m else path
    return name.rsplit("/", 1)[-1]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
