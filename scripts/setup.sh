#!/usr/bin/env bash
# A newcomer's first command: install the dependencies, build the tools and the runtime
# (not the tests: scripts/test.sh builds those in the same build/ later), pack the
# default model and generate a story with it on the host emulation board. Each phase
# says how long it took.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
start=$SECONDS phase_start=$SECONDS
phase() { # NAME: the time since the last phase
  printf 'setup: %-44s %4d s\n' "$1" $((SECONDS - phase_start)) >&2
  phase_start=$SECONDS
}
"$root/scripts/install-deps.sh"
phase "dependencies (apt-get)"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${TESSERA_SHARED_DIR:+-DTESSERA_SHARED_DIR=$TESSERA_SHARED_DIR} >/dev/null
phase "configure (cmake)"
cmake --build "$build" -j"$(nproc)" --target tessera-pack tessera-generate tessera-inspect tessera-eval
phase "build the tools and the runtime"
"$root/scripts/fetch-models.sh" "$build/models" "${TESSERA_SHARED_DIR:-$root/../shared}"
"$build/tessera-pack" "$build/models/stories260K.bin" --tokenizer "$build/models/tok512.bin" -o "$build/stories260K.tess"
phase "pack stories260K"
"$build/tessera-generate" "$build/stories260K.tess" -t 0 -n 200
phase "generate 200 tokens"
printf 'setup: %-44s %4d s\n' "all" $((SECONDS - start)) >&2
echo "setup: next, scripts/test.sh builds and runs every test (ctest), or see README.md, Use" >&2
