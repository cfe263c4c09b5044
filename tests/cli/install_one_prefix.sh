#!/usr/bin/env bash
# The host package and the bare-metal RV32 one installed into one prefix: neither
# overwrites a file of the other; examples/host and examples/firmware both build against
# it; pkg-config links the C example of docs/embedding.md (examples/host/main.c, as the
# page quotes it) and runs it; the firmware package records the board description it was
# built for.
# usage: install_one_prefix.sh SOURCE_DIR HOST_BUILD FIRMWARE_BUILD FIRMWARE_IMAGE HOST_IMAGE WORK_DIR
set -euo pipefail
src=$1 host_build=$2 fw_build=$3 fw_image=$4 host_image=$5 work=$6
rm -rf "$work"
mkdir -p "$work"
cd "$work"
prefix=$work/prefix fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

cmake --install "$host_build" --prefix "$prefix" >/dev/null
sort "$host_build/install_manifest.txt" >host.files
( cd "$prefix" && find . -type f -exec sha256sum {} + | sort ) >host.sums
cmake --install "$fw_build" --prefix "$prefix" >/dev/null
sort "$fw_build/install_manifest.txt" >fw.files
both=$(comm -12 host.files fw.files)
if [[ -z $both ]]; then ok "no file is in both packages ($(wc -l <host.files) host, $(wc -l <fw.files) RV32)"
else bad "files in both packages: $(echo "$both" | head -5)"; fi
if ( cd "$prefix" && sha256sum --quiet -c "$work/host.sums" ); then ok "the RV32 install changed no file of the host's"
else bad "the RV32 install changed the host's files"; fi
arch_dir=$(cd "$prefix" && ls -d tessera-rv32* | head -1)
[[ -n $arch_dir && -f $prefix/$arch_dir/lib/cmake/Tessera/TesseraConfig.cmake ]] && ok "the RV32 package lies in $arch_dir/" ||
  bad "no RV32 package folder in the prefix"
if [[ -f $prefix/$arch_dir/share/tessera/board.json ]] && grep -q '"name"' "$prefix/$arch_dir/share/tessera/board.json"; then
  ok "the RV32 package records its board description ($arch_dir/share/tessera/board.json)"
else bad "the RV32 package records no board description"; fi
[[ -f $prefix/share/doc/tessera/README.md ]] && ok "the README is installed with the docs" || bad "no README in share/doc/tessera"

# Both examples, by CMake, against the one prefix.
if cmake -S "$src/examples/host" -B host-example -DCMAKE_PREFIX_PATH="$prefix" >host-example.log 2>&1 &&
  cmake --build host-example >>host-example.log 2>&1 && ./host-example/generate "$host_image" "Once upon a time" >host-example.out 2>&1
then ok "examples/host builds against the prefix and runs: $(head -c 60 host-example.out)"
else bad "examples/host: $(tail -5 host-example.log host-example.out)"; fi
if cmake -S "$src/examples/firmware" -B fw-example -DCMAKE_TOOLCHAIN_FILE="$prefix/$arch_dir/share/tessera/toolchain/riscv32-imafc-elf.cmake" \
  -DCMAKE_PREFIX_PATH="$prefix" -DTESSERA_IMAGE="$fw_image" >fw-example.log 2>&1 && cmake --build fw-example >>fw-example.log 2>&1 &&
  [[ -f fw-example/story.elf ]]
then ok "examples/firmware builds against the prefix ($(grep -o 'Tessera_DIR[^ ]*' fw-example/CMakeCache.txt | head -1))"
else bad "examples/firmware: $(tail -5 fw-example.log)"; fi
if grep -q "Tessera_DIR:PATH=$prefix/$arch_dir/" fw-example/CMakeCache.txt && grep -q "Tessera_DIR:PATH=$prefix/lib/cmake/Tessera" host-example/CMakeCache.txt
then ok "find_package took the RV32 package for the firmware and the host's for the host program"
else bad "find_package took the wrong package: $(grep Tessera_DIR fw-example/CMakeCache.txt host-example/CMakeCache.txt)"; fi

# pkg-config: docs/embedding.md's C example, compiled and linked by hand.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
sed -n '/^This is \[`examples\/host\/main.c`\]/,/^```$/p' "$src/docs/embedding.md" | sed -n '/^```c$/,/^```$/p' | sed '1d;$d' >readme_example.c
if [[ -s readme_example.c ]] && cmp -s readme_example.c "$src/examples/host/main.c"; then ok "docs/embedding.md's C example is examples/host/main.c"
else bad "docs/embedding.md's C example is not examples/host/main.c"; fi
if cc -std=c11 -o readme_example readme_example.c $(pkg-config --cflags --libs tessera) 2>cc.log; then
  ok "cc readme_example.c \$(pkg-config --cflags --libs tessera) links: $(pkg-config --libs tessera | cut -c1-60)..."
else bad "the C example does not link with pkg-config's flags: $(head -5 cc.log)"; fi
if [[ -x readme_example ]] && ./readme_example "$host_image" "Once upon a time" >readme_example.out 2>&1 && cmp -s readme_example.out host-example.out
then ok "it runs and prints what the CMake-built example prints"
else bad "the pkg-config build runs differently: $(head -c 200 readme_example.out)"; fi
pc_arch=${arch_dir#tessera-}
if desc=$(pkg-config --variable=board_description "tessera-$pc_arch") && [[ -f $desc ]]; then
  ok "pkg-config tessera-$pc_arch names its board description: $(pkg-config --variable=board "tessera-$pc_arch")"
else bad "pkg-config tessera-$pc_arch has no board_description"; fi
exit $fail
