#!/usr/bin/env bash
# The memory-map SVG as a user looks at it: rendered headless to PNG by a real SVG
# renderer (rsvg-convert), with its legend, byte ticks, capacity line, lower bound
# and the boundary between the schedules.
# usage: memory_map_cli.sh TESSERA_PACK SHARED_DIR WORK_DIR
set -euo pipefail
pack=$1 shared=$2 work=$3
mkdir -p "$work"
cd "$work"
fail=0
check() { if grep -q -- "$2" map.svg; then echo "ok   $1"; else echo "FAIL $1 (no '$2' in map.svg)"; fail=1; fi; }
"$pack" "$shared/models/stories260K.bin" --tokenizer "$shared/models/tok512.bin" --board siracusa --l1 65536 \
  -o map.tess --memory-map map.svg >report.txt
# The L1 lower bound the packer's report states (region L1: ..., lower bound N ...): the map draws it.
bound=$(sed -n 's/^region *L1: .*lower bound \([0-9]*\).*/\1/p' report.txt)
check "legend: KV cache" '<g id="legend">'
check "legend: a kind by colour" '>KV cache</text>'
check "byte ticks on the address axis" '>48 KiB</text>'
check "capacity line" '<title>capacity 65536 bytes</title>'
if [[ -z $bound ]] || ((bound > 65536 || bound < 32768)); then echo "FAIL the report's L1 lower bound ('$bound')"; fail=1; fi
check "lower bound" "<title>lower bound $bound bytes</title>"
check "the boundary between the schedules" '>token schedule</text>'
if ! command -v rsvg-convert >/dev/null; then echo "FAIL rsvg-convert not found (Debian: librsvg2-bin)"; exit 1; fi
rsvg-convert map.svg -o map.png
if [[ $(head -c 8 map.png | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] && (($(stat -c %s map.png) > 20000)); then
  echo "ok   rendered to PNG by rsvg-convert ($(stat -c %s map.png) bytes)"
else
  echo "FAIL rsvg-convert made no PNG"; fail=1
fi
exit $fail
