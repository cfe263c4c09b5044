#!/usr/bin/env bash
# A stories110M-shaped model (dim 768, hidden 2048, 12 layers, 12 heads, vocab 32,000;
# random weights written here) in W4A8, its embedding table stored once in 4-bit groups,
# for a microcontroller with 8 MiB of L2 and 64 MiB of octal SPI flash the cores read in
# place: it packs into the flash, the summary names the bound of a token (bandwidth or
# compute), and the host board generates a few tokens from the image.
# usage: stories110m_cli.sh TESSERA_PACK TESSERA_GENERATE SYNTHETIC_MODEL WORK_DIR
set -euo pipefail
pack=$1 generate=$2 synthetic=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work"
trap 'rm -f s110.bin' EXIT # 438 MB
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
cat >mcu-flash64.json <<'JSON'
{ "name": "mcu-flash64",
  "description": "a microcontroller: 8 cores at 400 MHz, 8 MiB of SRAM as L2, 64 MiB of octal SPI flash read in place",
  "cluster": { "cores": 8 }, "regions": { "L1": 262144, "L2": 8388608 }, "dma": { "queue_depth": 16 },
  "offchip": { "kind": "octospi-flash", "bytes": 67108864, "mb_per_s": 200, "latency_ns": 100, "cores_read": true,
               "sources": { "mb_per_s": "octal SPI, DTR at 100 MHz: 8 bits x 2 x 100 MHz = 200 MB/s peak" } },
  "cost": { "clock_mhz": 400, "cluster_macs_per_cycle_per_core": { "fp32": 0.5, "bf16": 0.5, "int8": 1 },
            "cluster_cycles_per_element": 10, "dma_bytes_per_cycle": 8,
            "setup_cycles": { "fork": 200, "barrier": 20, "dma_transfer": 30, "npu_job": 0 },
            "power_mw": { "cluster": 100, "npu": 0, "dma": 15, "idle": 40 },
            "sources": { "all": "assumptions of the shape of siracusa's analytic model (boards/siracusa/board.json)" } } }
JSON
"$synthetic" --dim 768 --hidden 2048 --layers 12 --heads 12 --kv-heads 12 --vocab 32000 --seq-len 1024 s110.bin s110.tok >/dev/null
printf 'Once upon a time there was a cat.\nThe dog ran to the park and played.\n' >calibration.txt
# The KV cache of 1,024 positions (18.9 MB in int8) would not fit the 8 MiB of L2: 256.
"$pack" s110.bin --tokenizer s110.tok --precision int8 --weight-type int4 --tied-embedding shared-int4 \
  --calibration calibration.txt --context 256 --board mcu-flash64.json -o s110.tess >pack.txt
rm -f s110.bin
grep -E "^(weights|image|estimate  token at position 128)" -A1 pack.txt | grep -v "^--"
if grep -qE "^image     [0-9]+ bytes of 67108864 bytes of off-chip octospi-flash" pack.txt; then ok "the image fits the 64 MiB of flash"
else bad "image: $(grep '^image' pack.txt)"; fi
if grep -qE "^          off-chip octospi-flash: [0-9]+ bytes a token at 200 MB/s, [0-9]+ cycles; bandwidth bound [0-9.]+ tok/s, compute bound [0-9.]+ tok/s: (bandwidth|compute) bounds it" pack.txt
then ok "the summary names the bound of a token"
else bad "bound: $(grep -A1 'estimate  token' pack.txt | head -2)"; fi
# Random tied weights make each token's logits favour the token itself (BOS at once, from
# BOS alone): a prompt, greedy; 4 more positions give 4 more ids.
short=$("$generate" s110.tess -i "Once upon a time" -n 8 -t 0 --ids -q)
long=$("$generate" s110.tess -i "Once upon a time" -n 12 -t 0 --ids -q)
if [[ $(( $(wc -w <<<"$long") - $(wc -w <<<"$short") )) -eq 4 && "$long" == "$short"* ]]; then
  ok "the host board generates: $long"
else bad "generated: '$short' then '$long'"; fi
exit $fail
