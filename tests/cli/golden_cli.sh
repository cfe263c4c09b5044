#!/usr/bin/env bash
# The acceptance commands, run as a user would: tessera-pack then tessera-generate,
# compared with llama2.c's run.c output in ../shared/golden.
# usage: golden_cli.sh TESSERA_PACK TESSERA_GENERATE SHARED_DIR WORK_DIR
set -euo pipefail
pack=$1 generate=$2 shared=$3 work=$4
mkdir -p "$work"
cd "$work"
fail=0
check() { # name expected-file actual-file
  if cmp -s "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1"; diff <(tr ' ' '\n' <"$2") <(tr ' ' '\n' <"$3") | head -n 10; fail=1; fi
}
ids_of() { awk '{print $2}' "$1" | paste -sd' '; }

"$pack" "$shared/models/stories260K.bin" --tokenizer "$shared/models/tok512.bin" -o s.tess

ids_of "$shared/golden/stories260K.greedy200.txt" >want_ids.txt
"$generate" s.tess -t 0 -n 200 --ids -q --check-l1 >got_ids.txt
check "greedy 200 ids" want_ids.txt got_ids.txt

# run.c ends its output with a newline; the golden text is stored without it.
{ cat "$shared/golden/stories260K.greedy200.text"; echo; } >want_text.txt
"$generate" s.tess -t 0 -n 200 -q >got_text.txt
check "greedy 200 text" want_text.txt got_text.txt

ids_of "$shared/golden/stories260K.prompt_lily.greedy120.txt" >want_lily.txt
"$generate" s.tess -t 0 -n 120 -i "Lily and Tom went to the" --ids -q >got_lily.txt
check "prompt continuation, 120 positions" want_lily.txt got_lily.txt

# Tiled into smaller L1s (issue: tiling), with the board checking every kernel operand is in L1.
for l1 in 262144 131072 65536 16384 8192; do
  "$pack" "$shared/models/stories260K.bin" --tokenizer "$shared/models/tok512.bin" --l1 "$l1" -q -o "s_$l1.tess"
  "$generate" "s_$l1.tess" -t 0 -n 200 --ids -q --check-l1 >"got_l1_$l1.txt"
  check "greedy 200 ids, L1 $l1 bytes" want_ids.txt "got_l1_$l1.txt"
done
"$generate" s_8192.tess -t 0 -n 120 -i "Lily and Tom went to the" --ids -q --check-l1 >got_lily_8k.txt
check "prompt continuation, L1 8192 bytes" want_lily.txt got_lily_8k.txt

for t in 1 2 8; do
  "$generate" s.tess -t 0 -n 200 --ids -q --threads "$t" >"got_t$t.txt"
  check "greedy ids with $t threads" want_ids.txt "got_t$t.txt"
done
# The engine timeline is valid JSON with cluster and DMA events.
"$generate" s.tess -t 0 -n 20 -q --timeline trace.json >/dev/null
if grep -q '"name":"fork"' trace.json && grep -q '"name":"copy"' trace.json; then
  echo "ok   timeline trace"
else
  echo "FAIL timeline trace"; fail=1
fi
exit $fail
