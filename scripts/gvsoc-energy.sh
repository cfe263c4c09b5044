#!/usr/bin/env bash
# Energy of a token on GVSoC's Siracusa power models (docs/gvsoc.md), outside the suite: it
# needs GVSoC's debug build (BUILD_DEBUG=ON, about twice the plain one; cached apart).
#   scripts/gvsoc-energy.sh [--build DIR] [--shared DIR] [--work DIR]
# Builds GVSoC with --debug, the launcher tools/gvsoc_energy/energy_launcher.cpp against its
# headers (read in place) and library, packs stories260K int8 and Deeploy's microLlama128
# (cluster, and npu-nms: N-EUREKA, its weights in the weight memory) for siracusa with DIR's
# tessera-pack and tessera-eval (default: build), builds their firmware with TESSERA_SIRACUSA_POWER_MARKS and runs each on 8 cores with --power
# through the launcher: "gvsoc energy: R runs: E uJ per run" for each.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
shared=${TESSERA_SHARED_DIR:-$root/../shared}
work=$(mktemp -d /tmp/tessera-gvsoc-energy.XXXXXX)
while (($#)); do
  case $1 in
  --build) build=$(cd "$2" && pwd); shift ;;
  --shared) shared=$(cd "$2" && pwd); shift ;;
  --work) work=$2; mkdir -p "$work"; shift ;;
  -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "gvsoc-energy: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
for tool in tessera-pack tessera-eval; do
  [[ -x $build/$tool ]] || { echo "gvsoc-energy: no $build/$tool (build the host tools first)" >&2; exit 1; }
done
prefix=$(bash "$root/scripts/build-gvsoc.sh" --debug --shared "$shared")
lib=$(find "$prefix/lib" -maxdepth 1 -name 'libpulpvp-debug.so' -print -quit)
[[ -n $lib ]] || { echo "gvsoc-energy: no libpulpvp-debug.so in $prefix/lib" >&2; exit 1; }
echo "gvsoc-energy: work folder $work"
c++ -std=c++17 -O2 -I"$shared/gvsoc/src/core/engine/include" "$root/tools/gvsoc_energy/energy_launcher.cpp" \
  -L"$prefix/lib" -l:libpulpvp-debug.so -Wl,-rpath,"$prefix/lib" -o "$work/tessera-gvsoc-energy"
printf '#!/bin/sh\nshift\nexec %s "$@"\n' "$work/tessera-gvsoc-energy" >"$work/stub.sh" # in place of GVSoC's launcher
chmod +x "$work/stub.sh"

models=$shared/models ml=$shared/deeploy/microLlama/INT8/microLlama128
"$build/tessera-pack" "$models/stories260K.bin" --tokenizer "$models/tok512.bin" --board siracusa --precision int8 -q \
  -o "$work/int8.tess"
"$build/tessera-pack" "$ml/network.onnx" --board siracusa --scenario cluster -q -o "$work/microLlama128.tess"
"$build/tessera-pack" "$ml/network.onnx" --board siracusa --scenario npu-nms -q -o "$work/microLlama128_npu_nms.tess"
for name in microLlama128 microLlama128_npu_nms; do
  "$build/tessera-eval" "$work/$name.tess" --npz-inputs "$ml/inputs.npz" --npz-expect "$ml/outputs.npz" \
    --emit-vectors "$work/$name.vectors" >/dev/null
done
cmake -S "$root" -B "$work/fw" -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$root/toolchain/riscv32-imfc-xpulpv2-ri5cy-elf.cmake" \
  -DTESSERA_FREESTANDING_ONLY=ON -DTESSERA_SIRACUSA_POWER_MARKS=ON -DTESSERA_DEMO_STEPS=8 \
  "-DTESSERA_FIRMWARE_IMAGES=int8=$work/int8.tess;microLlama128=$work/microLlama128.tess;microLlama128_npu_nms=$work/microLlama128_npu_nms.tess" \
  "-DTESSERA_FIRMWARE_VECTORS=microLlama128=$work/microLlama128.vectors;microLlama128_npu_nms=$work/microLlama128_npu_nms.vectors" \
  >"$work/configure.log"
cmake --build "$work/fw" -j"$(nproc)" --target tessera-firmware-int8 tessera-firmware-microLlama128 \
  tessera-firmware-microLlama128_npu_nms >"$work/build.log"
bytes=$(python3 -c "import json; print(json.load(open('$root/boards/siracusa/board.json'))['offchip']['bytes'])")
for name in int8 microLlama128 microLlama128_npu_nms; do
  echo "gvsoc-energy: $name on 8 cores"
  mkdir -p "$work/run-$name"
  PATH=/usr/bin:$PATH "$prefix/bin/gvsoc" --target=siracusa --binary "$work/fw/boards/siracusa/tessera-firmware-$name.elf" \
    --work-dir="$work/run-$name" "--config-opt=**/ram/size=$bytes" --power --stub "$work/stub.sh" run 2>&1 |
    tee "$work/run-$name/output.txt" | grep -E "^(gvsoc|ids|vectors)"
done
