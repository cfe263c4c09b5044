#!/usr/bin/env bash
# The README's "Use" commands, run as written, in the state scripts/setup.sh leaves:
# the tools in build/, the default model in build/models (fetch-models.sh, as
# setup.sh runs it). A folder of its own stands for the clone: build -> this build.
# usage: readme_use.sh SOURCE_DIR BUILD_DIR SHARED_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 shared=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
"$src/scripts/fetch-models.sh" "$build/models" "$shared" >/dev/null
ln -s "$build" "$work/build"
cd "$work"
commands=$(sed -n '/^## Use$/,/^```$/p' "$src/README.md" | sed -n '/^```sh$/,/^```$/p' | grep -v '^```' | grep -v '^#' | grep -v '^$')
[[ -n $commands ]] || { echo "FAIL no commands under '## Use' in the README"; exit 1; }
fail=0
while IFS= read -r cmd; do
  if out=$(bash -c "$cmd" 2>&1 </dev/null); then echo "ok   $cmd"
  else echo "FAIL $cmd"; echo "$out" | tail -5; fail=1; fi
done <<<"$commands"
exit $fail
