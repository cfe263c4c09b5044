#!/usr/bin/env bash
# tessera-generate --timeline FILE.svg as a user looks at it: rendered headless to PNG by
# a real SVG renderer (rsvg-convert), with a lane per core, the DMA engine's and the NPU's,
# a time axis with its unit, operators labelled and a legend; in wall time and in the
# board's estimated cycles. A .json name still gives the Chrome trace.
# usage: timeline_svg_cli.sh TESSERA_PACK TESSERA_GENERATE SHARED_DIR WORK_DIR
set -euo pipefail
pack=$1 generate=$2 shared=$3 work=$4
mkdir -p "$work"
cd "$work"
fail=0
check() { if grep -q -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1 (no '$3' in $2)"; fail=1; fi; }
"$pack" "$shared/models/stories260K.bin" --tokenizer "$shared/models/tok512.bin" --board siracusa --precision int8 \
  --scenario npu-nms -q -o tl.tess
"$generate" tl.tess -n 24 -t 0 -q --threads 2 --timeline wall.svg >/dev/null
"$generate" tl.tess -n 24 -t 0 -q --timeline est.svg --timeline-clock estimated >/dev/null
"$generate" tl.tess -n 4 -t 0 -q --timeline trace.json >/dev/null
for f in wall.svg est.svg; do
  check "$f: an SVG" "$f" '<svg xmlns="http://www.w3.org/2000/svg"'
  check "$f: a lane per core" "$f" '>core 7</text>'
  check "$f: the DMA engine's lane" "$f" '>DMA</text>'
  check "$f: the NPU's lane" "$f" '>NPU</text>'
  check "$f: operators in the legend" "$f" '>matmul [0-9.]* %</text>'
  check "$f: a slice's operator, layer and token" "$f" '<title>[a-z_]*, layer [0-9]*, token [0-9]*: '
done
check "wall.svg: the axis in wall time" wall.svg '>time since the first run (host wall clock)</text>'
check "wall.svg: ticks with a unit" wall.svg '>[0-9.]* [mu]s</text>'
check "est.svg: the axis in cycles" est.svg '>estimated cycles since the first run</text>'
check "est.svg: the board's cost model named" est.svg "estimated cycles (the board's cost model)"
check "trace.json: still the Chrome trace" trace.json '"traceEvents"'
if ! command -v rsvg-convert >/dev/null; then echo "FAIL rsvg-convert not found (Debian: librsvg2-bin)"; exit 1; fi
for f in wall est; do
  rsvg-convert "$f.svg" -o "$f.png"
  if [[ $(head -c 8 "$f.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] && (($(stat -c %s "$f.png") > 20000)); then
    echo "ok   $f.svg rendered to PNG by rsvg-convert ($(stat -c %s "$f.png") bytes)"
  else
    echo "FAIL rsvg-convert made no PNG of $f.svg"; fail=1
  fi
done
exit $fail
