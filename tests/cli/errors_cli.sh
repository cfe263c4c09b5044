#!/usr/bin/env bash
# Bad input gets a clear one-line error and a non-zero exit, and nothing half-written.
# usage: errors_cli.sh TESSERA_PACK TESSERA_GENERATE SHARED_DIR WORK_DIR
set -uo pipefail
pack=$1 generate=$2 shared=$3 work=$4
mkdir -p "$work"
cd "$work"
rm -f ./*.tess ./*.tmp.*
fail=0
expect() { # name expected-exit pattern command...
  local name=$1 code=$2 pattern=$3; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -eq $code && $out == *"$pattern"* ]]; then echo "ok   $name"
  else echo "FAIL $name: exit $rc, output: $out"; fail=1; fi
}
ckpt=$shared/models/stories260K.bin tok=$shared/models/tok512.bin

expect "pack --help" 0 "--prompt-chunk" "$pack" --help
expect "generate --help" 0 "--threads" "$generate" --help
inspect=$(dirname "$generate")/tessera-inspect
expect "inspect --help" 0 "--steps" "$inspect" --help
head -c 500000 "$ckpt" >cut.bin
expect "truncated checkpoint" 1 "(truncated)" "$pack" cut.bin --tokenizer "$tok" -o cut.tess
[[ ! -e cut.tess && -z $(ls ./*.tmp.* 2>/dev/null) ]] || { echo "FAIL truncated checkpoint left a file behind"; fail=1; }
expect "unknown board" 1 "known boards:" "$pack" "$ckpt" --tokenizer "$tok" --board esp32 -o b.tess
expect "tokenizer of another model" 1 "has 32000 tokens, the model's vocabulary is 512" \
  "$pack" "$ckpt" --tokenizer "$shared/models/tokenizer.bin" -o t.tess
expect "context above seq_len" 1 "exceeds the model's seq_len" "$pack" "$ckpt" --tokenizer "$tok" --context 4096 -o c.tess
expect "unsupported precision" 1 "precision 'int8'" "$pack" "$ckpt" --tokenizer "$tok" --precision int8 -o p.tess
expect "missing checkpoint" 105 "does not exist" "$pack" nothing.bin -o n.tess

"$pack" "$ckpt" --tokenizer "$tok" --context 8 -q -o small.tess
expect "prompt longer than the context" 1 "error 30 (context full)" "$generate" small.tess -i "Lily and Tom went to the park"
cp small.tess bad.tess
printf 'X' | dd of=bad.tess bs=1 seek=0 conv=notrunc status=none
expect "not an image" 1 "error 11" "$generate" bad.tess
cp small.tess flip.tess
printf '\x55' | dd of=flip.tess bs=1 seek=$(( $(stat -c %s small.tess) - 9 )) conv=notrunc status=none
expect "corrupted weights" 1 "error 13 (image checksum mismatch)" "$generate" flip.tess
head -c 4000 small.tess >short.tess
expect "truncated image" 1 "error 10 (image truncated)" "$generate" short.tess
"$pack" "$ckpt" --tokenizer "$tok" --board siracusa -q -o sir.tess
expect "wrong board" 1 "planned for board 'siracusa'" "$generate" sir.tess --board host
expect "inspect a valid image" 0 "valid     yes, on board siracusa" "$inspect" sir.tess --steps
expect "inspect on the wrong board" 1 "valid     no, on board host: error 20" "$inspect" sir.tess --board host
expect "inspect a corrupted image" 1 "error 13" "$inspect" flip.tess
expect "too many threads" 1 "cannot back it with 9 threads" "$generate" sir.tess --threads 9
expect "missing image" 1 "cannot open image" "$generate" none.tess
exit $fail
