#!/usr/bin/env bash
# A user's own board under QEMU, the end of docs/porting.md's path: a 4-core
# description (no NPU, its own region sizes and flash) packs stories260K, the
# qemu-virt-rv32 board is built to emulate it (-DTESSERA_QEMU_BOARD=its JSON), and the
# firmware, run with its 4 cluster harts and a DMA hart, gives the ids the host board
# gives for the same image. A description the emulated machine cannot hold is refused
# at configure time, naming the key.
# usage: custom_board.sh SOURCE_DIR TOOLCHAIN QEMU TESSERA_PACK TESSERA_GENERATE RUN_CMAKE SHARED_DIR WORK_DIR
set -euo pipefail
source=$1 toolchain=$2 qemu=$3 pack=$4 generate=$5 run_cmake=$6 shared=$7 work=$8
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cat >mymcu4.json <<'JSON'
{
  "name": "mymcu4",
  "description": "a user's board: 4 cores, 128 KiB L1, 1.5 MiB L2, 4 MiB flash, no NPU",
  "cluster": { "cores": 4 },
  "regions": { "flash": 4194304, "L1": 131072, "L2": 1572864 },
  "dma": { "queue_depth": 8 }
}
JSON
"$pack" "$shared/models/stories260K.bin" --tokenizer "$shared/models/tok512.bin" --board mymcu4.json -q -o mymcu4.tess
cmake -S "$source" -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
  -DTESSERA_FREESTANDING_ONLY=ON -DTESSERA_QEMU_BOARD="$work/mymcu4.json" \
  "-DTESSERA_FIRMWARE_IMAGES=mymcu4=$work/mymcu4.tess" >configure.txt
grep "qemu-virt-rv32 emulates 'mymcu4': 4 cores, L1 131072, L2 1572864, NMS 0 bytes, NPU 0" configure.txt
cmake --build build -j2 --target tessera-firmware-mymcu4 >build.txt
elf=build/boards/qemu-virt-rv32/tessera-firmware-mymcu4.elf
# 4 cluster harts and the DMA hart; the host board's ids are compared by run.cmake.
cmake -DQEMU="$qemu" -DELF="$elf" -DSMP=5 -DHOST_GENERATE="$generate" -DIMAGE="$work/mymcu4.tess" \
  "-DEXPECT=tessera firmware demo on board 'mymcu4': 4 compute harts, DMA hart 4, NPU none" -P "$run_cmake"

# The emulated machine's limits, refused at configure time with the key's path.
sed 's/"cores": 4/"cores": 12/' mymcu4.json >too_many.json
if cmake -S "$source" -B build_bad -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DTESSERA_FREESTANDING_ONLY=ON \
     -DTESSERA_QEMU_BOARD="$work/too_many.json" >bad.txt 2>&1; then
  echo "FAIL: 12 cores were accepted"; exit 1
fi
# CMake wraps a message at 80 columns, so a long build path moves the words across lines: join them.
tr -s ' \n' '  ' <bad.txt | grep -q "cluster.cores is 12; the QEMU board takes an integer from 1 to 8" ||
  { echo "FAIL: $(grep -A3 'Error' bad.txt)"; exit 1; }
echo "ok   12 cores refused: cluster.cores is 12; the QEMU board takes an integer from 1 to 8"
