#!/usr/bin/env bash
# docs/firmware.md's "Firmware: bare metal on QEMU" commands, run as written from a folder that
# stands for the clone (its sources linked in, build -> this build, the default model in
# build/models as setup.sh leaves it): the firmware builds, boots and prints a story.
# usage: readme_firmware.sh SOURCE_DIR BUILD_DIR SHARED_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 shared=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
"$src/scripts/fetch-models.sh" "$build/models" "$shared" >/dev/null
for entry in "$src"/* "$src"/.ci; do
  [[ $(basename "$entry") == build* ]] || ln -s "$entry" "$work/$(basename "$entry")"
done
ln -s "$build" "$work/build"
cd "$work"
commands=$(sed -n '/^## Firmware: bare metal on QEMU$/,/^## /p' "$src/docs/firmware.md" | sed -n '/^```sh$/,/^```$/p' | sed '/^```/d')
[[ -n $commands ]] || { echo "FAIL no commands under '## Firmware: bare metal on QEMU' in docs/firmware.md"; exit 1; }
# One command a line, continuation lines joined; qemu bounded in time.
script=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' <<<"$commands" | sed 's/^qemu-system-riscv32/timeout 300 qemu-system-riscv32/')
if out=$(bash -euo pipefail -c "$script" 2>&1 </dev/null); then
  if grep -q "Once upon a time" <<<"$out"; then echo "ok   docs/firmware.md's firmware commands build, boot and tell a story"
  else echo "FAIL the firmware ran but printed no story:"; tail -20 <<<"$out"; exit 1; fi
else
  echo "FAIL docs/firmware.md's firmware commands:"; tail -20 <<<"$out"; exit 1
fi
