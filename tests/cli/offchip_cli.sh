#!/usr/bin/env bash
# Off-chip memory in a board description ("offchip"), end to end: a description with a
# bad one is refused by name; weights that do not fit in L2 are split, the most reused
# copied to L2 and the rest read from off-chip memory, and give the same ids; the
# summary says which memory holds what and which bound (bandwidth or compute) limits a
# token; an off-chip memory too small for the image is refused with the sizes, nothing
# written.
# usage: offchip_cli.sh TESSERA_PACK TESSERA_GENERATE SHARED_DIR WORK_DIR
set -euo pipefail
pack=$1 generate=$2 shared=$3 work=$4
mkdir -p "$work"
cd "$work"
rm -f ./*.tess
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
model=("$shared/models/stories260K.bin" --tokenizer "$shared/models/tok512.bin")

# L2 holds the KV cache and the buffers (768,576 bytes) and about 400 KB of the 1 MB of
# fp32 weights; the rest stays in PSRAM (57 MB/s: the ESP32-S3's measured PSRAM rate).
board() { # board NAME OFFCHIP_JSON
  cat >"$1.json" <<JSON
{ "name": "$1", "cluster": { "cores": 4 }, "regions": { "L1": 131072, "L2": 1200000 },
  "offchip": $2,
  "cost": { "clock_mhz": 240, "cluster_macs_per_cycle_per_core": { "fp32": 0.5, "bf16": 0.5, "int8": 1 },
            "cluster_cycles_per_element": 10, "dma_bytes_per_cycle": 4,
            "setup_cycles": { "fork": 100, "barrier": 20, "dma_transfer": 30, "npu_job": 0 },
            "power_mw": { "cluster": 50, "npu": 0, "dma": 10, "idle": 20 } } }
JSON
}
psram='{ "kind": "psram", "bytes": 8388608, "mb_per_s": 57, "latency_ns": 100, "cores_read": false }'

# Refused by name.
refused() { # refused WHAT JSON PATTERN
  board bad "$2"
  if "$pack" "${model[@]}" --board bad.json -q -o bad.tess 2>err.txt; then bad "$1 was accepted"
  elif grep -qE "$3" err.txt && [[ ! -e bad.tess ]]; then ok "$1 is refused by name"
  else bad "$1: $(cat err.txt)"; fi
}
refused "a bandwidth of 0" "${psram/\"mb_per_s\": 57/\"mb_per_s\": 0}" "offchip\.mb_per_s"
refused "a negative size" "${psram/\"bytes\": 8388608/\"bytes\": -1}" "offchip\.bytes"
refused "an unknown kind" "${psram/psram/core-memory}" "offchip\.kind.*names memory kind 'core-memory'; there are hyperram, psram"
refused "an unknown key" "${psram/\"cores_read\"/\"dram_refresh\": 1, \"cores_read\"}" "offchip.*unknown key"
board both "$psram"
sed -i 's/"regions": {/"regions": { "flash": 4194304,/' both.json
if "$pack" "${model[@]}" --board both.json -q -o both.tess 2>err.txt; then bad "flash and offchip together were accepted"
elif grep -q "regions.flash: and offchip both give the image's memory" err.txt; then ok "flash and offchip together are refused"
else bad "flash and offchip: $(cat err.txt)"; fi

# Split: the most reused weights in L2, the rest off chip; the golden ids.
board esp "$psram"
"$pack" "${model[@]}" --board esp.json -o split.tess >pack.txt
if grep -qE "^weights   [0-9]+ bytes, [0-9]+ copied to L2 at open \(the most reused\), [0-9]+ used in place from the image in off-chip psram \(57 MB/s, DMA only\)" pack.txt
then ok "weights that do not fit in L2 are split between L2 and off-chip memory"
else bad "split: $(grep weights pack.txt)"; fi
grep -q "image     [0-9]* bytes of 8388608 bytes of off-chip psram" pack.txt && ok "the image's share of off-chip memory" ||
  bad "image line: $(grep image pack.txt)"
if grep -qE "^          off-chip psram: [0-9]+ bytes a token at 57 MB/s, [0-9]+ cycles; bandwidth bound [0-9.]+ tok/s, compute bound [0-9.]+ tok/s: (bandwidth|compute) bounds it" pack.txt
then ok "the estimate names the off-chip bytes and the bound"
else bad "estimate: $(grep -A1 'estimate  token' pack.txt | head -2)"; fi
awk '{print $2}' "$shared/golden/stories260K.greedy200.txt" | paste -sd' ' >want.txt
"$generate" split.tess -t 0 -n 200 --ids -q >got.txt
cmp -s want.txt got.txt && ok "the split image generates the golden ids" || bad "ids of the split image differ"
"$pack" "${model[@]}" --board esp.json --weights-in image -q -o inplace.tess
"$generate" inplace.tess -t 0 -n 200 --ids -q >got_inplace.txt
cmp -s want.txt got_inplace.txt && ok "every weight in place gives them too" || bad "ids with every weight in place differ"

# Too small: refused with both sizes, nothing written.
board tiny "${psram/8388608/600000}"
if "$pack" "${model[@]}" --board tiny.json -o tiny.tess 2>err.txt; then bad "an image larger than off-chip memory was accepted"
elif grep -qE "the image is [0-9]+ bytes \(weights: [0-9]+ read from off-chip memory, [0-9]+ copied to L2 at open\); board 'tiny' has 600000 bytes of off-chip psram.*at least [0-9]+ bytes" err.txt &&
     [[ ! -e tiny.tess ]]; then ok "off-chip memory too small is refused with the sizes, nothing written"
else bad "too small: $(cat err.txt)"; fi

# int8 keeps stories260K's tied table twice (381,760 bytes at context 512, 372,864 at 16:
# its rotation table shrinks with the context); 360,000 bytes take it once (351,552 at
# 512): the refusal and the dry run say so.
board tight "${psram/8388608/360000}"
if "$pack" "${model[@]}" --precision int8 --board tight.json -q -o tight.tess 2>err.txt; then bad "the table twice was accepted in 360,000 bytes"
elif grep -q "int8 can store that once (--tied-embedding shared)" err.txt; then ok "the refusal names the shared table"
else bad "tight: $(cat err.txt)"; fi
"$pack" "${model[@]}" --precision int8 --board tight.json --dry-run >dry.txt || true
if grep -q "^context   no context helps: the image (the weights, not the KV cache) is what does not fit" dry.txt &&
   grep -qE "^type      --precision int8 --tied-embedding shared: fits at context 512 \(image [0-9]+ bytes\)" dry.txt
then ok "the dry run: no context helps, the shared table fits"
else bad "dry run: $(cat dry.txt)"; fi
"$pack" "${model[@]}" --precision int8 --tied-embedding shared --board tight.json -q -o tight.tess &&
  "$generate" tight.tess -t 0 -n 40 --ids -q >/dev/null && ok "with --tied-embedding shared it packs and generates" ||
  bad "--tied-embedding shared on the tight board"
exit $fail
