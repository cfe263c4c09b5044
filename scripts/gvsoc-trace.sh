#!/usr/bin/env bash
# Where a firmware demo's cycles go on GVSoC's Siracusa (docs/gvsoc.md), outside the suite:
# runs ELF (a siracusa firmware demo, e.g. build/gvsoc/build/boards/siracusa/tessera-firmware-int8.elf)
# on CORES cluster cores (default 8) in GVSoC's debug build (scripts/build-gvsoc.sh --debug:
# BUILD_DEBUG=ON, cached apart), tracing the instructions of cluster core 0 and of CORE
# (default 0), and prints scripts/gvsoc-trace-profile.py's table for CORE over the last
# measured run. The traces (core 0's about 2 GB for stories260K's 8 tokens) stay in the
# work folder it names.
#   scripts/gvsoc-trace.sh ELF [CORES] [CORE] [--shared DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${TESSERA_SHARED_DIR:-$root/../shared}
args=()
while (($#)); do
  case $1 in
  --shared) shared=$(cd "$2" && pwd); shift ;;
  -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) args+=("$1") ;;
  esac
  shift
done
((${#args[@]} >= 1)) || { echo "gvsoc-trace: which firmware ELF? (see --help)" >&2; exit 2; }
elf=${args[0]} cores=${args[1]:-8} core=${args[2]:-0}
[[ -f $elf ]] || { echo "gvsoc-trace: no $elf" >&2; exit 1; }
[[ $cores =~ ^[1-8]$ && $core =~ ^[0-7]$ && $core -lt $cores ]] ||
  { echo "gvsoc-trace: CORES 1 to 8, CORE one of them (got $cores, $core)" >&2; exit 2; }
prefix=$(bash "$root/scripts/build-gvsoc.sh" --debug --shared "$shared")
work=$(mktemp -d /tmp/tessera-gvsoc-trace.XXXXXX)
printf "\\x0${cores}\\x00\\x00\\x00" >"$work/cores.bin" # the run's cores (.tessera_cores), as tests/rtl/run.cmake writes it
riscv64-unknown-elf-objcopy --update-section ".tessera_cores=$work/cores.bin" "$elf" "$work/run.elf"
bytes=$(python3 -c "import json; print(json.load(open('$root/boards/siracusa/board.json'))['offchip']['bytes'])")
traces=(--trace="pe0/insn:$work/pe0.txt")
((core == 0)) || traces+=(--trace="pe$core/insn:$work/pe$core.txt")
echo "gvsoc-trace: work folder $work"
PATH=/usr/bin:$PATH "$prefix/bin/gvsoc" --target=siracusa --binary "$work/run.elf" --work-dir="$work" \
  "--config-opt=**/ram/size=$bytes" "${traces[@]}" run >"$work/output.txt" 2>&1 ||
  { echo "gvsoc-trace: the run failed (its output: $work/output.txt)" >&2; exit 1; }
grep -E "^gvsoc: [0-9]+ measured" "$work/output.txt" || true
python3 "$root/scripts/gvsoc-trace-profile.py" "$work/pe$core.txt" --window "$work/pe0.txt"
