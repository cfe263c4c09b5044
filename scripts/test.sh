#!/usr/bin/env bash
# The whole test suite: configure, build, run every test with ctest, in a private
# temporary folder that must be empty again afterwards.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTESSERA_REQUIRE_CROSS=ON -DTESSERA_REQUIRE_FUZZ=ON \
  ${TESSERA_SHARED_DIR:+-DTESSERA_SHARED_DIR=$TESSERA_SHARED_DIR}
cmake --build "$build" -j"$(nproc)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-test-run.XXXXXX")
status=0
TMPDIR=$tmp TEST_TMPDIR=$tmp ctest --test-dir "$build" -j"$(nproc)" --output-on-failure || status=$?
left=$(find "$tmp" -mindepth 1 -maxdepth 1 | sed "s|^$tmp/||")
if [[ -n $left ]]; then
  echo "test.sh: the tests left files in their temporary folder $tmp:" >&2
  echo "$left" | head -20 >&2
  status=1
else
  rmdir "$tmp"
  echo "test.sh: the temporary folder is as the tests found it (empty)"
fi
exit $status
