#!/usr/bin/env bash
# tessera-pack --dry-run: what fits a board, asked by a script. The figures it names
# are checked against real packs (not against itself): the largest context it names
# packs and one more position does not; the types it says fit at the requested
# context pack there. Nothing is written by a dry run.
# usage: dry_run_cli.sh TESSERA_PACK SHARED_DIR WORK_DIR
set -euo pipefail
pack=$1 shared=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
gguf=$shared/models/stories260K.gguf
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# The public GGUF at its full context (2048) does not fit siracusa's L2 arena in fp32.
set +e
"$pack" "$gguf" --board siracusa --dry-run >dry.txt 2>dry.err
rc=$?
set -e
cat dry.txt
[[ $rc == 1 ]] && ok "does not fit: exit 1" || bad "exit $rc (want 1): $(cat dry.err)"
grep -q "^dry run   does not fit at context 2048: the plan needs [0-9]* bytes .* of L2" dry.txt &&
  ok "says why: L2" || bad "no reason line"
largest=$(sed -n 's/^context   the largest that fits: \([0-9]*\) (--context \1)$/\1/p' dry.txt)
if [[ -n $largest ]] && (( largest > 1 && largest < 2048 )); then ok "names the largest context: $largest"
else bad "no largest context named"; fi
[[ -z $(ls -A | grep -v '^dry\.') ]] && ok "writes no file" || bad "files left: $(ls)"

# Independent check: packing for real at that context works, one more does not.
"$pack" "$gguf" --board siracusa --context "$largest" -q -o at.tess && ok "--context $largest packs" ||
  bad "--context $largest does not pack"
if "$pack" "$gguf" --board siracusa --context $((largest + 1)) -q -o over.tess 2>over.err; then
  bad "--context $((largest + 1)) packs too: $largest is not the largest"
elif grep -q "of L2" over.err && [[ ! -e over.tess ]]; then ok "--context $((largest + 1)) does not"
else bad "over: $(cat over.err)"; fi

# A type it says fits at a context packs there for real (int8 with its real calibration): at
# the first context past the largest that fits in fp32, where int8 and bf16 take less.
beyond=$((largest + 1))
set +e
"$pack" "$gguf" --board siracusa --context $beyond --dry-run >types.txt 2>types.err
set -e
grep -q "^type      --precision int8: fits at context $beyond (image [0-9]* bytes)$" types.txt &&
  ok "names int8 as fitting at $beyond" || bad "int8 line missing: $(cat types.txt)"
"$pack" "$gguf" --board siracusa --context $beyond --precision int8 -q -o int8.tess && ok "--precision int8 packs at $beyond" ||
  bad "--precision int8 does not pack at $beyond"
want=$(sed -n "s/^type      --precision bf16: fits at context $beyond (image \\([0-9]*\\) bytes)$/\\1/p" types.txt)
"$pack" "$gguf" --board siracusa --context $beyond --precision bf16 -q -o bf16.tess
[[ -n $want && $(stat -c %s bf16.tess) == "$want" ]] && ok "the bf16 image is the $want bytes it said" ||
  bad "bf16 image $(stat -c %s bf16.tess) bytes, dry run said '$want'"

# When it fits: the plan's summary, exit 0, nothing written.
rm -f ./*.tess
"$pack" "$gguf" --board siracusa --context 512 --dry-run >fits.txt
grep -q "^dry run   fits; no file written$" fits.txt && grep -q "^region    L2: arena" fits.txt &&
  ok "fits at 512: summary and exit 0" || bad "fits: $(cat fits.txt)"
[[ -z $(ls -A | grep -vE '^(dry|fits|over|types)\.') ]] && ok "writes no file when it fits" || bad "files left: $(ls)"

# Usage: --dry-run with an output, or neither, is a usage error (exit 2).
for args in "--dry-run -o x.tess" "" "--dry-run --report r.json"; do
  set +e
  # shellcheck disable=SC2086
  "$pack" "$gguf" --board siracusa $args >/dev/null 2>use.err
  rc=$?
  set -e
  [[ $rc == 2 ]] && ok "'$args' is a usage error" || bad "'$args': exit $rc: $(cat use.err)"
done
exit $fail
