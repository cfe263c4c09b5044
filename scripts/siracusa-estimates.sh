#!/bin/sh
# Prints the siracusa cost model's estimates that the docs quote (docs/performance.md,
# "Estimates on siracusa"): Deeploy's microLlama graphs and the TinyLLama-v0 shape,
# planned for siracusa in each scenario, and `tessera-inspect IMAGE --predict RUN`'s
# cycles with the costs in boards/siracusa/board.json (cost.fitted: GVSoC's, refitted
# by scripts/fit-costs.py --gvsoc --write), and the stories15M shape's table with its weights in
# HyperRAM. Nothing is measured here.
#
#   scripts/siracusa-estimates.sh [BUILD]      (default build; needs its tools, and for
#                                               the TinyLLama-v0 shape its test tools)
set -eu
case "${1:-}" in -h | --help)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$(sed -n 's/^TESSERA_SHARED_DIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
shared=${shared:-$root/../shared}
graphs=$shared/deeploy/microLlama/INT8
for tool in tessera-pack tessera-inspect; do
    [ -x "$build/$tool" ] || { echo "siracusa-estimates: $build/$tool not built (cmake --build $build)" >&2; exit 1; }
done
[ -d "$graphs" ] || { echo "siracusa-estimates: no Deeploy graphs at $graphs" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# estimate NAME RUN PACK-ARGS...: packs for siracusa, prints the predicted cycles of RUN.
estimate() {
    name=$1 run=$2
    shift 2
    "$build/tessera-pack" "$@" --board siracusa -q -o "$work/$name.tess"
    cycles=$("$build/tessera-inspect" "$work/$name.tess" --predict "$run" |
        sed -n 's/^PREDICTED cycles per run: \([0-9]*\).*/\1/p')
    printf '%-44s %-12s %12s cycles  %6.1f runs/s at 360 MHz\n' "$name" "$run" "$cycles" \
        "$(echo "360000000 / $cycles" | bc -l)"
}

estimate microLlama128_cluster rows:1@128 "$graphs/microLlama128/network.onnx" --scenario cluster
estimate microLlama128_single_core rows:1@128 "$graphs/microLlama128/network.onnx" --scenario single-core
estimate microLlama128_npu_nms rows:1@128 "$graphs/microLlama128/network.onnx" --scenario npu-nms
estimate microLlama64_parallel_cluster_l1_64000 rows:64@0 "$graphs/microLlama64_parallel/network.onnx" \
    --scenario cluster --l1 64000
estimate microLlama64_parallel_npu_nms_l1_64000 rows:64@0 "$graphs/microLlama64_parallel/network.onnx" \
    --scenario npu-nms --l1 64000
synth=$build/tests/tessera-synthetic-model
if [ -x "$synth" ]; then
    "$synth" --dim 64 --hidden 256 --layers 8 --heads 16 --kv-heads 16 --vocab 32000 --seq-len 256 \
        "$work/tinyllama_v0.bin" "$work/tinyllama_v0.tok" >/dev/null
    for scenario in cluster npu-nms; do
        estimate "tinyllama_v0_int8_$scenario" token:128-128 "$work/tinyllama_v0.bin" --tokenizer "$work/tinyllama_v0.tok" \
            --precision int8 --scenario "$scenario"
    done
else
    echo "siracusa-estimates: no $synth (build the tests) for the TinyLLama-v0 shape" >&2
fi

# The stories15M shape (random weights; calibrated on two lines, as the tests do) with its
# weights in siracusa's 16 MiB of HyperRAM: each estimate of the pack summary, a row of
# docs/tools.md's table (cycles on the critical path, tok/s and uJ a token at 360 MHz, the
# bytes a token streams from HyperRAM and the bound that limits it).
if [ -x "$synth" ]; then
    "$synth" --dim 288 --hidden 768 --layers 6 --heads 6 --kv-heads 6 --vocab 32000 --seq-len 256 \
        "$work/s15.bin" "$work/s15.tok" >/dev/null
    printf 'Once upon a time there was a cat.\nThe dog ran to the park and played.\n' >"$work/calibration.txt"
    echo
    echo "| stories15M shape on siracusa | run | cycles a token | tok/s | uJ a token | off-chip bytes a token | bound |"
    echo "| --- | --- | ---: | ---: | ---: | ---: | --- |"
    for config in "int8:--tied-embedding shared" "W4A8:--weight-type int4 --tied-embedding shared" \
        "W4A8, 4-bit table:--weight-type int4 --tied-embedding shared-int4"; do
        name=${config%%:*} flags=${config#*:}
        # shellcheck disable=SC2086 # flags are words
        "$build/tessera-pack" "$work/s15.bin" --tokenizer "$work/s15.tok" --precision int8 $flags --scenario cluster --context 128 \
            --calibration "$work/calibration.txt" --board siracusa -o "$work/s15.tess" 2>&1 |
            awk -v name="$name" '
                /^estimate  (prompt chunk of 16|token at position)/ {
                    run = $0; sub(/^estimate  /, "", run); sub(/, per token:.*/, "", run)
                    match($0, /per token: [0-9]+ cycles/); cycles = substr($0, RSTART + 11, RLENGTH - 18)
                    match($0, /, [0-9.]+ tok\/s/); tps = substr($0, RSTART + 2, RLENGTH - 8)
                    match($0, /, [0-9.]+ uJ/); uj = substr($0, RSTART + 2, RLENGTH - 5)
                    pending = 1; next }
                pending && /^          off-chip/ {
                    match($0, /: [0-9]+ bytes a token/); bytes = substr($0, RSTART + 2, RLENGTH - 15)
                    bound = $0; sub(/.*: /, "", bound); sub(/ bounds it/, "", bound)
                    match($0, /bandwidth bound [0-9.]+ tok\/s, compute bound [0-9.]+ tok\/s/)
                    both = substr($0, RSTART, RLENGTH)
                    printf "| %s | %s | %s | %s | %s | %s | %s (%s) |\n", name, run, cycles, tps, uj, bytes, bound, both
                    pending = 0 }'
    done
fi
