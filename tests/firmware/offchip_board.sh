#!/usr/bin/env bash
# Weights in off-chip memory only the DMA hart reads, on QEMU: a description like
# qemu-virt-rv32's (8 cores, 256 KiB L1, 2 MiB L2, no NPU) with 32 MiB of HyperRAM
# ("cores_read": false) holds a stories15M-shaped model (random weights, a classifier of
# its own: tied random weights make every token predict itself, BOS at once) in int8 and
# in W4A8; the qemu-virt-rv32 board built to emulate it locks a PMP entry on every compute
# hart over the weights the image keeps off chip. The firmware runs with 1 and with 8
# compute harts beside the DMA hart and gives the host board's ids for the same image;
# the plugin counts the DMA hart's instructions per byte it moved. The HAL conformance
# suite passes, its DMA to and from the off-chip memory included. A probe firmware then
# loads from those weights on a compute hart: the load traps.
# usage: offchip_board.sh SOURCE_DIR TOOLCHAIN QEMU TESSERA_PACK TESSERA_GENERATE RUN_CMAKE SYNTHETIC_MODEL PLUGIN WORK_DIR
set -euo pipefail
source=$1 toolchain=$2 qemu=$3 pack=$4 generate=$5 run_cmake=$6 synthetic=$7 plugin=$8 work=$9
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cat >qemu-offchip.json <<'JSON'
{
  "name": "qemu-offchip",
  "description": "qemu-virt-rv32 with the weights beside the chip: 8 cores, L1 256 KiB, L2 2 MiB, 32 MiB of HyperRAM only the DMA engine reads",
  "cluster": { "cores": 8 },
  "regions": { "L1": 262144, "L2": 2097152 },
  "dma": { "queue_depth": 16 },
  "offchip": { "kind": "hyperram", "bytes": 33554432, "mb_per_s": 400, "latency_ns": 50, "cores_read": false,
               "sources": { "all": "as siracusa's (boards/siracusa/board.json), twice the size" } }
}
JSON
"$synthetic" --dim 288 --hidden 768 --layers 6 --heads 6 --kv-heads 6 --vocab 32000 --seq-len 256 --unshared-classifier \
  s15.bin s15.tok >/dev/null
printf 'Once upon a time there was a cat.\nThe dog ran to the park and played.\n' >calibration.txt
for image in int8 w4a8; do
  extra=()
  [ "$image" = w4a8 ] && extra=(--weight-type int4)
  "$pack" s15.bin --tokenizer s15.tok --precision int8 "${extra[@]}" --calibration calibration.txt --board qemu-offchip.json -q \
    -o "s15_$image.tess"
  "$pack" s15.bin --tokenizer s15.tok --precision int8 "${extra[@]}" --calibration calibration.txt --board qemu-offchip.json \
    --dry-run | grep "^weights"
done
cmake -S "$source" -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
  -DTESSERA_FREESTANDING_ONLY=ON -DTESSERA_QEMU_BOARD="$work/qemu-offchip.json" -DTESSERA_DEMO_STEPS=6 \
  "-DTESSERA_FIRMWARE_IMAGES=s15_int8=$work/s15_int8.tess;s15_w4a8=$work/s15_w4a8.tess" >configure.txt
grep "qemu-virt-rv32 emulates 'qemu-offchip': 8 cores, L1 262144, L2 2097152, NMS 0 bytes, NPU 0, off-chip 33554432 bytes (DMA only: 1)" configure.txt
cmake --build build -j2 --target tessera-firmware-s15_int8 tessera-firmware-s15_w4a8 tessera-offchip-probe-s15_int8 \
  tessera-hal-conformance >build.txt
dir=build/boards/qemu-virt-rv32
# The HAL conformance suite on this board, DMA to and from its off-chip memory included.
for smp in 2 9; do
  cmake -DQEMU="$qemu" -DELF="$dir/tessera-hal-conformance.elf" -DSMP=$smp \
    "-DEXPECT=  ok   DMA off chip 1D: .*  ok   DMA off chip 2D: .*conformance: [0-9]+ passed, 0 failed" -P "$run_cmake"
done
for image in int8 w4a8; do
  for smp in 2 9; do # 1 and 8 compute harts, and the DMA hart
    cmake -DQEMU="$qemu" -DELF="$dir/tessera-firmware-s15_$image.elf" -DSMP=$smp -DPLUGIN="$plugin" \
      -DHOST_GENERATE="$generate" -DIMAGE="$work/s15_$image.tess" -DSTEPS=6 \
      "-DEXPECT=tessera firmware demo on board 'qemu-offchip'" -P "$run_cmake"
  done
done
# A compute hart's load from the off-chip weights traps (status 4).
cmake -DQEMU="$qemu" -DELF="$dir/tessera-offchip-probe-s15_int8.elf" -DSMP=9 -DEXPECT_EXIT=4 \
  "-DEXPECT=trap: load access fault \\(mcause 5\\) at 0x[0-9a-f]+, pc 0x[0-9a-f]+, hart 0" -P "$run_cmake"
