#!/usr/bin/env bash
# Decode speed beside llama2.c: builds the unmodified reference run.c from the shared
# folder, then alternates runs of run.c and tessera-generate on an fp32 and an int8
# image of the same checkpoint (default threads, --threads 1 and 2; int8 also with
# --kernels portable) on the same machine, greedy, the same positions, and prints the
# medians of what each reports as "achieved tok/s" (the same measure: every position
# after the first, sampling and output included), the ratio to run.c, int8 against
# fp32, and whether the int8 ids of the board's tuned kernels (x86-avx2 on the host
# board, where the machine has it) equal the portable kernels' (exit 1 if not).
#   stories260K, and a TinyLlama-v0-shaped model with random weights (dim 64,
#   hidden 256, 8 layers, 16 heads, vocab 32000, seq_len 256, its own classifier) made here.
# With --busy, each model is measured a second time beside one busy-loop process,
# and the fall of each median is printed.
set -euo pipefail

usage() {
    cat <<EOF
Usage: bench/vs_llama2c.sh [--runs N] [--steps N] [--busy] [--model stories260K|tinyllama|all]
                           [--build DIR] [--shared DIR] [--cc COMPILER]
  --runs N     alternating runs of each program (default 7; medians are printed)
  --steps N    positions per run, -n (default 256)
  --busy       measure again beside one busy-loop process, and print the fall
  --model M    stories260K, tinyllama or all (default all)
  --build DIR  the Tessera build folder (default: build beside this script's project)
  --shared DIR the shared folder (default: ../shared from the project)
  --cc CC      the C compiler for run.c (default cc), flags -O3 -march=native
EOF
}

root=$(cd "$(dirname "$0")/.." && pwd)
status=0
runs=7 steps=256 busy=0 model=all build=$root/build shared=$root/../shared cc=cc
while [[ $# -gt 0 ]]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --busy) busy=1; shift ;;
    --model) model=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --shared) shared=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "vs_llama2c.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "vs_llama2c.sh: --runs wants a positive number, got '$runs'" >&2; exit 2; }
[[ $steps =~ ^[1-9][0-9]*$ ]] || { echo "vs_llama2c.sh: --steps wants a positive number, got '$steps'" >&2; exit 2; }
case $model in stories260K | tinyllama | all) ;; *) echo "vs_llama2c.sh: --model wants stories260K, tinyllama or all" >&2; exit 2 ;; esac
generate=$build/tessera-generate pack=$build/tessera-pack synth=$build/tests/tessera-synthetic-model
for tool in "$generate" "$pack" "$synth"; do
    [[ -x $tool ]] || { echo "vs_llama2c.sh: $tool not found; build the project first (cmake --build $build)" >&2; exit 1; }
done
run_c=$shared/reference/llama2.c/run.c
[[ -f $run_c ]] || { echo "vs_llama2c.sh: $run_c not found (--shared)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-vs-llama2c.XXXXXX")
busy_pid=
cleanup() {
    [[ -n $busy_pid ]] && kill "$busy_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

"$cc" -O3 -march=native -o "$work/run" "$run_c" -lm
echo "run.c: $("$cc" --version | head -1), -O3 -march=native; tessera: $build; $(nproc) hardware threads" \
     "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))"

# achieved tok/s of one run; the programs print it on stderr.
rate() { "$@" 2>&1 >/dev/null | sed -n 's/^achieved tok\/s: \([0-9.]*\).*/\1/p'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# measure NAME CHECKPOINT TOKENIZER FP32_IMAGE INT8_IMAGE LABEL: alternating runs of run.c
# and of tessera on both images, then a table (ratios to run.c, and int8 to fp32).
measure() {
    local name=$1 checkpoint=$2 tokenizer=$3 f32=$4 i8=$5 label=$6
    local -a programs=("run.c" "tessera fp32 (default threads)" "tessera fp32 --threads 1" "tessera fp32 --threads 2"
                       "tessera int8 (default threads)" "tessera int8 --threads 1" "tessera int8 --threads 2"
                       "tessera int8 --threads 1, portable")
    local -a commands=("$work/run $checkpoint -z $tokenizer"
                       "$generate $f32" "$generate $f32 --threads 1" "$generate $f32 --threads 2"
                       "$generate $i8" "$generate $i8 --threads 1" "$generate $i8 --threads 2"
                       "$generate $i8 --threads 1 --kernels portable")
    local count=${#programs[@]}
    for ((k = 0; k < count; ++k)); do : >"$work/r$k"; done
    for ((i = 0; i < runs; ++i)); do
        for ((k = 0; k < count; ++k)); do
            # shellcheck disable=SC2086 # the commands are words
            rate ${commands[$k]} -t 0 -n "$steps" >>"$work/r$k"
        done
    done
    local default_threads kernels
    default_threads=$("$generate" "$f32" -t 0 -n 2 2>&1 >/dev/null | sed -n 's/.*board [^|]* emulated on \([0-9]*\) threads.*/\1/p')
    kernels=$("$generate" "$i8" -t 0 -n 2 2>&1 >/dev/null | sed -n 's/.*kernels \([^ ,]*\).*/\1/p')
    local base
    base=$(median <"$work/r0")
    echo "$name, -t 0 -n $steps, $runs runs each$label: median achieved tok/s (min..max), ratio to run.c; int8 kernels: $kernels"
    for ((k = 0; k < count; ++k)); do
        local med lo hi
        med=$(median <"$work/r$k")
        lo=$(sort -g "$work/r$k" | head -1)
        hi=$(sort -g "$work/r$k" | tail -1)
        local what=${programs[$k]}
        [[ $k == 1 || $k == 4 ]] && what="${what/default threads/default: $default_threads threads}"
        printf '  %-40s %10.1f  (%.1f..%.1f)  %5.2fx\n' "$what" "$med" "$lo" "$hi" "$(echo "$med / $base" | bc -l)"
        echo "$med" >"$work/r$k.median"
    done
    printf '  int8 / fp32: default threads %.2fx, --threads 1 %.2fx, --threads 2 %.2fx; int8 %s / portable (--threads 1) %.2fx\n' \
        "$(echo "$(cat "$work/r4.median") / $(cat "$work/r1.median")" | bc -l)" \
        "$(echo "$(cat "$work/r5.median") / $(cat "$work/r2.median")" | bc -l)" \
        "$(echo "$(cat "$work/r6.median") / $(cat "$work/r3.median")" | bc -l)" "$kernels" \
        "$(echo "$(cat "$work/r5.median") / $(cat "$work/r7.median")" | bc -l)"
    # The tuned kernels' ids against the portable ones', greedy, the whole run.
    if cmp -s <("$generate" "$i8" -t 0 -n "$steps" --ids -q) <("$generate" "$i8" -t 0 -n "$steps" --ids -q --kernels portable); then
        echo "  int8 ids, $kernels kernels against portable: identical ($steps positions)"
    else
        echo "  int8 ids, $kernels kernels against portable: DIFFERENT" >&2
        status=1
    fi
}

models=()
[[ $model == stories260K || $model == all ]] && models+=(stories260K)
[[ $model == tinyllama || $model == all ]] && models+=(tinyllama)
for m in "${models[@]}"; do
    if [[ $m == stories260K ]]; then
        checkpoint=$shared/models/stories260K.bin tokenizer=$shared/models/tok512.bin
        name="stories260K"
    else
        checkpoint=$work/tinyllama.bin tokenizer=$work/tinyllama-tok.bin
        "$synth" "$checkpoint" "$tokenizer" --dim 64 --hidden 256 --layers 8 --heads 16 --kv-heads 16 --vocab 32000 \
            --seq-len 256 --seed 7 --unshared-classifier
        name="TinyLlama-v0 shape (random weights)"
    fi
    "$pack" "$checkpoint" --tokenizer "$tokenizer" -o "$work/$m.tess" -q
    "$pack" "$checkpoint" --tokenizer "$tokenizer" --precision int8 -o "$work/$m-int8.tess" -q
    measure "$name" "$checkpoint" "$tokenizer" "$work/$m.tess" "$work/$m-int8.tess" ""
    if [[ $busy == 1 ]]; then
        for ((k = 0; k < 8; ++k)); do mv "$work/r$k.median" "$work/quiet$k"; done
        bash -c 'while :; do :; done' &
        busy_pid=$!
        measure "$name" "$checkpoint" "$tokenizer" "$work/$m.tess" "$work/$m-int8.tess" ", beside one busy-loop process"
        kill "$busy_pid"; wait "$busy_pid" 2>/dev/null || true
        busy_pid=
        printf '  fall beside the busy loop: run.c %.2fx, fp32 default %.2fx, --threads 1 %.2fx, --threads 2 %.2fx\n' \
            "$(echo "$(cat "$work/quiet0") / $(cat "$work/r0.median")" | bc -l)" \
            "$(echo "$(cat "$work/quiet1") / $(cat "$work/r1.median")" | bc -l)" \
            "$(echo "$(cat "$work/quiet2") / $(cat "$work/r2.median")" | bc -l)" \
            "$(echo "$(cat "$work/quiet3") / $(cat "$work/r3.median")" | bc -l)"
    fi
done
exit "$status"
