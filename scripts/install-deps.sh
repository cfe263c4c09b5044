#!/usr/bin/env bash
# Installs what Tessera needs on Debian (12 or later): compilers, CMake, test and
# benchmark libraries, the bare-metal RISC-V and Arm toolchains with picolibc, QEMU, and clang
# with its runtime libraries for the libFuzzer harnesses, and what GVSoC (the PULP virtual platform
# in ../shared/gvsoc, built by scripts/build-gvsoc.sh) needs: Debian's Python modules and xtensor; and
# python3-torch, with which tests write the independent references of the GPT-2 family.
set -euo pipefail
packages=(
  build-essential cmake pkg-config ca-certificates curl
  libgtest-dev libgmock-dev libbenchmark-dev libcmocka-dev
  nlohmann-json3-dev libcli11-dev libtinyxml2-dev libsentencepiece-dev librsvg2-bin
  libonnx-dev libprotobuf-dev protobuf-compiler libzip-dev zlib1g-dev libicu-dev
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc verilator python3
  gcc-arm-none-eabi picolibc-arm-none-eabi qemu-system-arm
  clang libclang-rt-dev
  python3-prettytable python3-pyelftools python3-pexpect python3-lz4 python3-pycryptodome
  python3-rich python3-yaml python3-mako python3-tabulate python3-six xtensor-dev xtl-dev libxsimd-dev
  python3-torch
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
