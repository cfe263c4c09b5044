#!/usr/bin/env bash
# The whole test suite: configure, build everything (tests, benchmarks and, with clang,
# the fuzzers: outside the timed tests), then run every test with ctest in a private
# temporary folder that must be empty again afterwards. Each phase says how long it took.
#   scripts/test.sh             every test (ctest labels: quick, slow, firmware, fuzz, rtl, gvsoc) but
#                               the long RTL and GVSoC measurements (labels rtl_long, gvsoc_long);
#                               GVSoC (the Siracusa simulator) is built first, once:
#                               scripts/build-gvsoc.sh keeps it in a cache outside build/ while
#                               its sources are unchanged
#   scripts/test.sh --long      those too (about 9 more minutes of simulation)
#   scripts/test.sh -L quick    only those labelled quick (any ctest arguments pass through)
#   scripts/test.sh --sanitize  the host half built with ASan + UBSan in build-sanitize/ and
#                               every host test (labels quick and slow) run under them,
#                               stopping at the first report (halt_on_error)
# After the run it names the quick tests that took over 10 s (scripts/check-test-times.py):
# a report, since a time depends on the machine; they belong under the label slow.
set -euo pipefail
case "${1:-}" in -h | --help)
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
sanitize=0
long=0
if [[ ${1:-} == --long ]]; then
  long=1
  shift
fi
if [[ ${1:-} == --sanitize ]]; then
  sanitize=1
  shift
  build=${TESSERA_SANITIZE_BUILD_DIR:-$root/build-sanitize}
fi
start=$SECONDS phase_start=$SECONDS
phase() {
  printf 'test.sh: %-40s %4d s\n' "$1" $((SECONDS - phase_start))
  phase_start=$SECONDS
}
if ((sanitize)); then
  # -O1 keeps the sanitized tests fast enough; no benchmarks, no cross builds, no fuzzers.
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DTESSERA_SANITIZE=ON -DTESSERA_BUILD_BENCH=OFF -DTESSERA_TEST_TIMEOUT=1500 \
    ${TESSERA_SHARED_DIR:+-DTESSERA_SHARED_DIR=$TESSERA_SHARED_DIR} >/dev/null
  cmake --build "$build" -j"$(nproc)"
  phase "build with ASan + UBSan"
  export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  set -- -L "quick|slow" "$@"
else
  "$root/scripts/build-gvsoc.sh" ${TESSERA_SHARED_DIR:+--shared "$TESSERA_SHARED_DIR"} >/dev/null
  phase "GVSoC (built once, then cached)"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTESSERA_REQUIRE_CROSS=ON -DTESSERA_REQUIRE_FUZZ=ON -DTESSERA_REQUIRE_RTL=ON \
    -DTESSERA_REQUIRE_GVSOC=ON \
    ${TESSERA_SHARED_DIR:+-DTESSERA_SHARED_DIR=$TESSERA_SHARED_DIR} >/dev/null
  cmake --build "$build" -j"$(nproc)"
  phase "build (tools, tests, benchmarks)"
  # The fuzzers' clang build (ASan + UBSan), on every core, before ctest times anything.
  TESSERA_SHARED_DIR=${TESSERA_SHARED_DIR:-$root/../shared} "$root/scripts/fuzz.sh" --build-only --require -b "$build/fuzz"
  phase "build the fuzzers (clang, ASan + UBSan)"
fi
((long)) || set -- -LE "rtl_long|gvsoc_long" "$@"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-test-run.XXXXXX")
status=0
TMPDIR=$tmp TEST_TMPDIR=$tmp ctest --test-dir "$build" -j"$(nproc)" --output-on-failure "$@" || status=$?
phase "ctest"
((sanitize)) || python3 "$root/scripts/check-test-times.py" "$build" || true
# A test killed for its time leaves its process folder (tessera-tests-<pid>-*): removed
# once its process is gone, and named, since the kill already failed the run.
for d in "$tmp"/tessera-tests-*-*; do
  [[ -d $d ]] || continue
  pid=${d#"$tmp"/tessera-tests-}
  pid=${pid%%-*}
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "test.sh: removed $(basename "$d"), left by a test process that was killed ($pid)" >&2
    rm -rf "$d"
  fi
done
left=$(find "$tmp" -mindepth 1 -maxdepth 1 | sed "s|^$tmp/||")
if [[ -n $left ]]; then
  echo "test.sh: the tests left files in their temporary folder $tmp:" >&2
  echo "$left" | head -20 >&2
  status=1
else
  rmdir "$tmp"
  echo "test.sh: the temporary folder is as the tests found it (empty)"
fi
printf 'test.sh: %-40s %4d s\n' "all" $((SECONDS - start))
exit $status
