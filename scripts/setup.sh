#!/usr/bin/env bash
# A newcomer's first command: install dependencies, build, pack the default model
# and generate a story with it on the host emulation board.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$root/build" -j"$(nproc)"
"$root/scripts/fetch-models.sh" "$root/build/models" "${TESSERA_SHARED_DIR:-$root/../shared}"
"$root/build/tessera-pack" "$root/build/models/stories260K.bin" --tokenizer "$root/build/models/tok512.bin" \
  -o "$root/build/stories260K.tess"
"$root/build/tessera-generate" "$root/build/stories260K.tess" -t 0 -n 200
