#!/usr/bin/env bash
# Per-hart, per-function instruction profile of a firmware ELF on QEMU, from the
# hart-counter plugin's blocks file: the whole run (start-up included), or with
# --regions only what ran between the firmware's measuring marks.
# usage: scripts/hart-profile.sh [--regions] ELF SMP [PLUGIN] [TOP]
set -euo pipefail
kind=blocks
if [[ ${1:-} == --regions ]]; then kind=region_blocks; shift; fi
if [[ $# -lt 2 || ${1:-} == -h || ${1:-} == --help ]]; then
  echo "usage: $0 [--regions] ELF SMP [PLUGIN] [TOP]" >&2
  exit 2
fi
elf=$1 smp=$2 plugin=${3:-$(dirname "$0")/../build/libtessera_hart_counter.so} top=${4:-15}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
qemu-system-riscv32 -M virt -smp "$smp" -bios none -icount shift=0 -display none -serial none -monitor none \
  -no-reboot -plugin "$plugin,out=$work/counts,$kind=$work/blocks" -kernel "$elf" </dev/null >/dev/null || true
riscv64-unknown-elf-nm -n -C "$elf" | awk '$2 ~ /[tTwW]/ {print $1, substr($0, index($0, $3))}' >"$work/syms"
python3 - "$work/syms" "$work/blocks" "$top" <<'PY'
import bisect, collections, sys
syms = [(int(a, 16), n) for a, n in (l.split(' ', 1) for l in open(sys.argv[1]).read().splitlines())]
addrs = [a for a, _ in syms]
per = collections.defaultdict(collections.Counter)
for line in open(sys.argv[2]):
    h, a, n = line.split()
    i = bisect.bisect_right(addrs, int(a, 16)) - 1
    per[int(h)][syms[i][1] if i >= 0 else '?'] += int(n)
for h in sorted(per):
    total = sum(per[h].values())
    print(f"hart {h}: {total} instructions")
    for name, n in per[h].most_common(int(sys.argv[3])):
        print(f"  {n:>12} {100.0 * n / total:5.1f}%  {name}")
PY
