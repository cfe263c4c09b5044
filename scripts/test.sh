#!/usr/bin/env bash
# The whole test suite: configure, build, run every test with ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTESSERA_REQUIRE_CROSS=ON \
  ${TESSERA_SHARED_DIR:+-DTESSERA_SHARED_DIR=$TESSERA_SHARED_DIR}
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" -j"$(nproc)" --output-on-failure
