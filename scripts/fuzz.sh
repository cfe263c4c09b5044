#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses of tests/fuzz under AddressSanitizer and
# UndefinedBehaviorSanitizer. See --help.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  cat <<EOF
usage: scripts/fuzz.sh [-t SECONDS] [-j JOBS] [-b BUILD_DIR] [--no-build | --build-only] [--require] [HARNESS...]

Builds every harness with clang (libFuzzer, ASan, UBSan) in BUILD_DIR, makes the
seed corpora from synthetic models and ../shared, then runs each harness for
SECONDS on its corpus (BUILD_DIR/corpus/NAME, kept between runs) and prints
executions and coverage per harness. Exits 1 on any crash, hang (an input running
over 25 s), leak or sanitizer report; the input is kept in BUILD_DIR/artifacts/NAME/.

Harnesses (default: all nine):
  image           (a) any bytes as a model image: open, prompt, sample, step
  image_resigned  (b) the same, mutated by structure and every checksum signed again
  encode          (c) tessera_encode on 512-, 32000-, 10-piece and no-space vocabularies
  readers         (d) the packer's llama2.c checkpoint and tokenizer readers, and GGUF
  board           (e) board descriptions, from a file and from an image's BOARD section
  hf              (f) Hugging Face config.json (llama, gpt2, gpt_neo) and safetensors headers
  onnx            (g) the ONNX front end, structure-aware (a mutator that edits the parsed
                  model), lowered, planned and written (seeds: Deeploy's graphs in
                  TESSERA_SHARED_DIR/deeploy, read in place)
  npz             (h) the .npz test-vector reader, structure-aware (a mutator that edits the
                  archive's .npy entries and signs it again), within tessera-eval's limits
  bpe             (i) GPT-2's byte-level BPE files (vocab.json, merges.txt) into the device
                  tokenizer's table

Options:
  -t SECONDS    time per harness (default 300)
  -j JOBS       harnesses run at once (default 1; on a small machine, more is slower:
                the host board's engine threads want the cores)
  -b BUILD_DIR  default: build-fuzz beside the sources
  --no-build    run what BUILD_DIR holds (ctest's fuzz test: scripts/test.sh built it; a
                BUILD_DIR with no harnesses is built first all the same)
  --build-only  build the harnesses and the seed corpora, run nothing
  --require     fail, rather than skip, when clang cannot build fuzzers
Environment: TESSERA_SHARED_DIR (default ../shared beside the sources).
EOF
}

seconds=300 jobs=1 build=$root/build-fuzz do_build=1 build_only=0 require=0 harnesses=()
while (($#)); do
  case $1 in
    -t) seconds=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -b) build=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --build-only) build_only=1; shift ;;
    --require) require=1; shift ;;
    -h|--help) usage; exit 0 ;;
    image|image_resigned|encode|readers|board|hf|onnx|npz|bpe) harnesses+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
((${#harnesses[@]})) || harnesses=(image image_resigned encode readers board hf onnx npz bpe)
[[ $seconds =~ ^[0-9]+$ && $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: -t and -j take whole numbers" >&2; exit 2; }

skip() {
  if ((require)); then echo "fuzz.sh: $1" >&2; exit 1; fi
  echo "SKIPPED: $1"; exit 0
}

if ((!do_build)) && [[ ! -x $build/tests/fuzz/fuzz_image ]]; then
  do_build=1 # nothing built there yet
fi
if ((do_build)); then
  command -v clang++ >/dev/null || skip "clang++ not found (Debian: apt-get install clang libclang-rt-dev)"
  mkdir -p "$build/probe"
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }' >"$build/probe/p.cpp"
  clang++ -fsanitize=fuzzer,address,undefined "$build/probe/p.cpp" -o "$build/probe/p" 2>/dev/null ||
    skip "clang++ cannot link -fsanitize=fuzzer,address,undefined (Debian: apt-get install libclang-rt-dev)"
  rm -rf "$build/probe"
  shared=${TESSERA_SHARED_DIR:-$root/../shared}
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DTESSERA_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTESSERA_SHARED_DIR="$shared" >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
  rm -f "$build.configure.log"
  # CMAKE_BUILD_PARALLEL_LEVEL (ctest sets 1: the other tests keep a core) or every core.
  cmake --build "$build" -j"${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" >"$build/build.log" 2>&1 ||
    { tail -50 "$build/build.log"; exit 1; }
fi

if ((build_only)); then
  echo "fuzz.sh: harnesses built in $build/tests/fuzz"
  exit 0
fi

seeds_of() { case $1 in image|image_resigned) echo image ;; *) echo "$1" ;; esac; }
shared=${TESSERA_SHARED_DIR:-$root/../shared}
# Seed folders read in place besides BUILD_DIR/seeds/NAME (libFuzzer writes only to the first corpus).
extra_seeds() {
  [[ $1 == onnx || $1 == npz ]] || return 0
  local d
  for d in "$shared"/deeploy/microLlama/INT8/microLlama1 "$shared"/deeploy/microLlama/INT8/microLlama8_parallel; do
    [[ -d $d ]] && echo "$d"
  done
}

run_one() { # NAME: runs it, leaves its log in BUILD/logs/NAME.log and its exit status in .../NAME.status
  local name=$1 bin=$build/tests/fuzz/fuzz_$1
  mkdir -p "$build/corpus/$name" "$build/artifacts/$name" "$build/logs"
  [[ -x $bin ]] || { echo "fuzz.sh: $bin not built" >"$build/logs/$name.log"; echo 1 >"$build/logs/$name.status"; return; }
  local max_len=()
  [[ $name == npz ]] && max_len=(-max_len=131072) # the vectors, not the 2 MB graphs beside them
  "$bin" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 "${max_len[@]}" \
    -artifact_prefix="$build/artifacts/$name/" "$build/corpus/$name" "$build/seeds/$(seeds_of "$name")" $(extra_seeds "$name") \
    >"$build/logs/$name.log" 2>&1
  echo $? >"$build/logs/$name.status"
}

echo "fuzz.sh: ${#harnesses[@]} harnesses, ${seconds} s each, $jobs at a time (ASan + UBSan, libFuzzer)"
running=0
for h in "${harnesses[@]}"; do
  rm -f "$build/logs/$h.status"
  run_one "$h" &
  ((++running >= jobs)) && { wait -n; ((running--)); }
done
wait

failed=0 total=0
printf '%-15s %12s %8s %10s %10s %8s  %s\n' harness executions exec/s edges features corpus result
for h in "${harnesses[@]}"; do
  log=$build/logs/$h.log status=$(cat "$build/logs/$h.status" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1)
  edges=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last") feats=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corpus=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  artifacts=$(find "$build/artifacts/$h" -type f | wc -l)
  result=ok
  if [[ $status != 0 || $artifacts != 0 ]]; then
    result="FAILED (exit $status, $artifacts inputs in artifacts/$h/)"
    failed=1
  fi
  total=$((total + ${execs:-0}))
  printf '%-15s %12s %8s %10s %10s %8s  %s\n' "$h" "${execs:-?}" "${rate:-?}" "${edges:-?}" "${feats:-?}" "${corpus:-?}" "$result"
  if [[ $result != ok ]]; then
    grep -E 'ERROR|runtime error|SUMMARY|fuzz finding|Test unit written' "$log" | head -8 | sed 's/^/    /'
  fi
done
echo "total executions: $total"
exit $failed
