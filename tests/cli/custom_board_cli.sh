#!/usr/bin/env bash
# A board of the user's own, end to end: packed for a description file, the image
# generates and inspects with no --board (the image embeds the description), and an
# image larger than the board's flash is refused at pack time with both sizes.
# usage: custom_board_cli.sh TESSERA_PACK TESSERA_GENERATE TESSERA_INSPECT SHARED_DIR WORK_DIR
set -euo pipefail
pack=$1 generate=$2 inspect=$3 shared=$4 work=$5
mkdir -p "$work"
cd "$work"
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

cat >mymcu.json <<'JSON'
{
  "name": "mymcu",
  "description": "a board of the user's own: 4 cores, 64 KiB L1, 1 MiB L2, 2 MiB flash",
  "cluster": { "cores": 4 },
  "regions": { "flash": 2097152, "L1": 65536, "L2": 1048576 },
  "dma": { "queue_depth": 8 }
}
JSON
"$pack" "$shared/models/stories260K.bin" --tokenizer "$shared/models/tok512.bin" --board mymcu.json -o my.tess >pack.txt
grep -q "of 2097152 bytes of flash" pack.txt && ok "the summary gives the image's share of flash" || bad "flash in the summary: $(tail -1 pack.txt)"
awk '{print $2}' "$shared/golden/stories260K.greedy200.txt" | paste -sd' ' >want.txt
"$generate" my.tess -t 0 -n 200 --ids -q >got.txt
cmp -s want.txt got.txt && ok "generates the golden ids with no --board" || bad "ids on mymcu differ"
"$inspect" my.tess >inspect.txt
if grep -q "board     mymcu, from the description of board 'mymcu' embedded in the image" inspect.txt &&
   grep -q "plan      board mymcu" inspect.txt; then ok "inspects with no --board"; else bad "inspect: $(head -5 inspect.txt)"; fi

# The image is untrusted: a corrupted description, or one asking for more than the
# host board emulates from an image, is refused before anything is allocated.
cp my.tess my_bad.tess
at=$(grep -obUa '"mymcu"' my.tess | head -1 | cut -d: -f1)
printf 'X' | dd of=my_bad.tess bs=1 seek=$((at + 2)) conv=notrunc status=none
if "$generate" my_bad.tess -n 4 -q 2>bad.txt; then bad "a corrupted embedded description was used"
elif grep -q "board description (section [0-9]*) fails its CRC-32" bad.txt; then ok "a corrupted embedded description is refused"
else bad "corrupted description: $(cat bad.txt)"; fi
sed 's/"L2": 1048576/"L2": 4294967232/' mymcu.json >huge.json
"$pack" "$shared/models/stories260K.bin" --tokenizer "$shared/models/tok512.bin" --board huge.json -q -o huge.tess
if "$generate" huge.tess -n 4 -q 2>huge.txt; then bad "a 4 GiB embedded L2 was emulated"
elif grep -q "the host board emulates at most 1073741824 from an image" huge.txt; then ok "an embedded description asking for 4 GiB is refused"
else bad "huge description: $(cat huge.txt)"; fi

sed 's/"flash": 2097152/"flash": 500000/' mymcu.json >small_flash.json
if "$pack" "$shared/models/stories260K.bin" --tokenizer "$shared/models/tok512.bin" --board small_flash.json \
     -o big.tess 2>err.txt; then
  bad "an image larger than flash was accepted"
elif grep -qE "the image is [0-9]+ bytes; board 'mymcu' has 500000 bytes of flash" err.txt && [[ ! -e big.tess ]]; then
  ok "an image larger than flash is refused with both sizes, nothing written"
else
  bad "refusal: $(cat err.txt)"
fi
exit $fail
