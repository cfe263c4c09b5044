#!/usr/bin/env bash
# Bad input gets a clear one-line error and a non-zero exit, and nothing half-written.
# usage: errors_cli.sh TESSERA_PACK TESSERA_GENERATE SHARED_DIR WORK_DIR TESSERA_SYNTHETIC_MODEL
set -uo pipefail
pack=$1 generate=$2 shared=$3 work=$4 synthetic=$5
mkdir -p "$work"
cd "$work"
rm -rf ./*.tess ./*.tmp.* ./*.json ./*.svg ./adir
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
expect "inspect --help" 0 "--list-steps" "$inspect" --help
# The conventions every tool keeps: --version, usage errors exit 2 with the tool's
# name, valid values in --help.
for tool in "$pack" "$generate" "$inspect" "$(dirname "$generate")/tessera-eval"; do
  name=$(basename "$tool")
  expect "$name --version" 0 "$name 0." "$tool" --version
  expect "$name unknown option" 2 "$name: error: " "$tool" --no-such-option x
done
expect "pack --help lists the precisions" 0 "--precision TEXT:{fp32,bf16,int8}" "$pack" --help
expect "generate --help lists the timeline clocks" 0 "{wall,estimated}" "$generate" --help
head -c 500000 "$ckpt" >cut.bin
expect "truncated checkpoint" 1 "(truncated)" "$pack" cut.bin --tokenizer "$tok" -o cut.tess
[[ ! -e cut.tess && -z $(ls ./*.tmp.* 2>/dev/null) ]] || { echo "FAIL truncated checkpoint left a file behind"; fail=1; }
expect "unknown board" 2 "known boards:" "$pack" "$ckpt" --tokenizer "$tok" --board esp32 -o b.tess
expect "tokenizer of another model" 1 "has 32000 tokens, the model's vocabulary is 512" \
  "$pack" "$ckpt" --tokenizer "$shared/models/tokenizer.bin" -o t.tess
expect "context above seq_len" 1 "exceeds the model's seq_len" "$pack" "$ckpt" --tokenizer "$tok" --context 4096 -o c.tess
expect "unknown precision" 2 "tessera-pack: error: --precision: int4 not in {fp32,bf16,int8}" "$pack" "$ckpt" --tokenizer "$tok" --precision int4 -o p.tess
expect "weight type with int8" 2 "--weight-type bf16 applies to --precision fp32" "$pack" "$ckpt" --tokenizer "$tok" \
  --precision int8 --weight-type bf16 -o p.tess
expect "int4 weights with fp32" 2 "--weight-type int4 (W4A8) applies to --precision int8" "$pack" "$ckpt" \
  --tokenizer "$tok" --weight-type int4 -o p.tess
expect "int4 weights on the NPU" 2 "the NPU's 4-bit weights are --npu-weight-bits 4" "$pack" "$ckpt" --tokenizer "$tok" \
  --board siracusa --precision int8 --weight-type int4 --scenario npu -o p.tess
expect "calibration text missing" 2 "does not exist" "$pack" "$ckpt" --tokenizer "$tok" --precision int8 \
  --calibration nothing.txt -o p.tess
expect "missing checkpoint" 2 "tessera-pack: error: checkpoint: Path does not exist: nothing.bin" "$pack" nothing.bin -o n.tess

"$pack" "$ckpt" --tokenizer "$tok" --context 8 -q -o small.tess
expect "prompt longer than the context" 1 "error: context full (status 30)" "$generate" small.tess -i "Lily and Tom went to the park"
cp small.tess bad.tess
printf 'X' | dd of=bad.tess bs=1 seek=0 conv=notrunc status=none
expect "not an image" 1 "tessera-generate: error: not a Tessera image (bad magic) (status 11): bad.tess: bad magic" "$generate" bad.tess
cp small.tess flip.tess
printf '\x55' | dd of=flip.tess bs=1 seek=$(( $(stat -c %s small.tess) - 9 )) conv=notrunc status=none
expect "corrupted weights" 1 "error: image checksum mismatch (status 13)" "$generate" flip.tess
head -c 4000 small.tess >short.tess
expect "truncated image" 1 "error: image truncated (status 10)" "$generate" short.tess
"$pack" "$ckpt" --tokenizer "$tok" --board siracusa -q -o sir.tess
expect "wrong board" 1 "planned for board 'siracusa'" "$generate" sir.tess --board host
expect "inspect a valid image" 0 "valid     yes, on board siracusa" "$inspect" sir.tess --list-steps
expect "inspect names tensors and steps" 0 "matmul     matmul.f32                 layer 0  cluster" "$inspect" sir.tess --list-steps --list-tensors
expect "inspect --steps renamed" 2 "--steps is now --list-steps" "$inspect" sir.tess --steps
expect "inspect names tensors" 0 "layer0.wqkv " "$inspect" sir.tess --list-tensors
expect "inspect on the wrong board" 1 "tessera-inspect: error: image planned for another board (status 20): sir.tess: tessera_open: image planned for board 'siracusa'" "$inspect" sir.tess --board host
expect "inspect a corrupted image" 1 "tessera-inspect: error: image checksum mismatch (status 13): flip.tess: tessera_open: section" "$inspect" flip.tess
expect "too many threads" 1 "cannot back it with 9 threads" "$generate" sir.tess --threads 9
expect "missing image" 1 "cannot open image" "$generate" none.tess
mkdir -p adir
expect "a directory as the image" 1 "cannot read image 'adir': it is a directory" "$generate" adir
expect "a directory as the output" 1 "cannot write 'adir': Is a directory" "$pack" "$ckpt" --tokenizer "$tok" -o adir

# The sampler's settings are checked before anything runs.
expect "top-p nan" 1 "error: invalid argument (status 1): -t 1.000000, -p nan" "$generate" small.tess -p nan -i "Once"
expect "temperature nan" 2 "error: --temperature: Value nan is not a finite number >= 0" "$generate" small.tess -t nan -i "Once"
expect "temperature inf" 2 "error: --temperature: Value inf is not a finite number >= 0" "$generate" small.tess -t inf
expect "temperature -1" 2 "error: --temperature: Value -1 is not a finite number >= 0" "$generate" small.tess -t -1

# Every output path is checked before the work starts; none or all of them appear.
expect "report to a bad path" 1 "cannot write '$work/no/such/dir/r.json'" \
  "$pack" "$ckpt" --tokenizer "$tok" -o rep.tess --report "$work/no/such/dir/r.json"
[[ ! -e rep.tess ]] || { echo "FAIL report to a bad path wrote the image anyway"; fail=1; }
expect "memory map to a bad path" 1 "cannot write '/proc/m.svg'" "$pack" "$ckpt" --tokenizer "$tok" -o rep.tess --memory-map /proc/m.svg
expect "-n beyond the context is said" 0 "note: -n 50 is more than the image's context; running 8 positions" \
  "$generate" small.tess -n 50 -t 0 -q --ids
expect "--depth at the context" 1 "error: invalid argument (status 1): --depth 8 leaves no position of the image's context of 8" \
  "$generate" small.tess --depth 8 -n 2 -t 0 -q --ids
# --depth reaches the model: the zero positions dilute its attention, so that sampled ids
# (the same seed) part from those at position 0, while --depth 0 is no depth at all.
d0=$("$generate" small.tess -n 8 -t 2 -s 42 -q --ids) dz=$("$generate" small.tess --depth 0 -n 8 -t 2 -s 42 -q --ids)
d3=$("$generate" small.tess --depth 3 -n 5 -t 2 -s 42 -q --ids)
if [[ -n $d0 && $d0 == "$dz" && ${d0:0:${#d3}} != "$d3" ]]; then echo "ok   --depth moves the start"
else echo "FAIL --depth: '$d0' / '$dz' / '$d3'"; fail=1; fi
expect "-n beyond the context after --depth" 0 "note: -n 8 is more than the image's context after --depth; running 3 positions" \
  "$generate" small.tess --depth 5 -n 8 -t 0 -q --ids
if "$generate" small.tess -n 8 -t 0 -q >/dev/full 2>full.txt; then
  echo "FAIL a full stdout went unnoticed"; fail=1
elif grep -q "tessera-generate: error: writing the output failed" full.txt; then echo "ok   a full stdout is an error (exit 1)"
else echo "FAIL full stdout: $(cat full.txt)"; fail=1; fi
expect "estimated timeline without a cost model" 1 "board 'host' has no cost model" \
  "$generate" small.tess -n 4 --timeline "$work/t.json" --timeline-clock estimated
[[ ! -e "$work/t.json" ]] || { echo "FAIL estimated timeline without a cost model wrote a trace"; fail=1; }
expect "timeline to a bad path" 1 "cannot write '$work/no/t.json'" "$generate" small.tess -n 4 --timeline "$work/no/t.json"
expect "two outputs, one file" 1 "--output and --report name the same file" \
  "$pack" "$ckpt" --tokenizer "$tok" -o same.json --report ./same.json
# A temporary a killed run left (its process is gone) is cleaned up; a live one is not.
touch small.tess.tmp.4194305 "small.tess.tmp.$$"
"$pack" "$ckpt" --tokenizer "$tok" --context 8 -q -o small.tess
if [[ -e small.tess.tmp.4194305 || ! -e "small.tess.tmp.$$" ]]; then echo "FAIL stale temporaries"; fail=1
else echo "ok   stale temporary of a dead process removed, a live one kept"; fi
rm -f "small.tess.tmp.$$"
[[ -z $(ls ./*.tmp.* 2>/dev/null) ]] || { echo "FAIL temporaries left: $(ls ./*.tmp.*)"; fail=1; }

# A 100 KB prompt is refused as too long for the context, from its length alone.
long=$(head -c 100000 /dev/zero | tr '\0' 'x')
expect "100 KB prompt" 1 "error: context full (status 30): prompt: tessera_encode: text too long for the context of 512 tokens" \
  "$generate" sir.tess --board siracusa -i "$long"

# Issue 7's first reproducer: a 10-piece vocabulary without byte pieces.
"$synthetic" tiny.bin tiny.tok --dim 16 --hidden 32 --layers 1 --heads 2 --kv-heads 1 --vocab 10 --seq-len 32 \
  --no-byte-pieces
"$pack" tiny.bin --tokenizer tiny.tok --board host -q -o tiny.tess
expect "text the vocabulary cannot spell" 1 \
  "error: text not encodable with this vocabulary (status 35): prompt: tessera_encode: text byte 0x7a at offset 0 has no piece" \
  "$generate" tiny.tess -i "zzz"
expect "what it can spell" 0 "" "$generate" tiny.tess -i "bad" -n 8 -q
# A tokenizer without " " runs from BOS and with a prompt.
"$synthetic" nospace.bin nospace.tok --no-space-piece
"$pack" nospace.bin --tokenizer nospace.tok -q -o nospace.tess
expect "no space piece, from BOS" 0 "" "$generate" nospace.tess -n 12 -q --ids
expect "no space piece, with a prompt" 0 "" "$generate" nospace.tess -i "the cat" -n 12 -q --ids
exit $fail
