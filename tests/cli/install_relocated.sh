#!/usr/bin/env bash
# The installed SDK on its own: install to a prefix, move the prefix elsewhere, hide the
# source and build trees (and the configured prefix) behind empty folders in a mount
# namespace of its own, then pack for a built-in board by name, generate and inspect
# with the prefix's tools alone. Exit 77 (skipped) where mount namespaces are not
# permitted (not root).
# usage: install_relocated.sh SOURCE_DIR BUILD_DIR SHARED_DIR CONFIGURED_PREFIX
set -euo pipefail
src=$1 build=$2 shared=$3 configured=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-install.XXXXXX") # outside the trees it hides
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/empty"
if ! unshare -m true 2>/dev/null; then
  echo "SKIPPED: unshare -m is not permitted here (needs root)"
  exit 77
fi
cmake --install "$build" --prefix "$work/prefix" >/dev/null
mv "$work/prefix" "$work/moved"   # not where it was installed
[[ -d $work/moved/share/doc/tessera ]] || { echo "FAIL docs/ is not installed (share/doc/tessera)"; exit 1; }
cp "$shared/models/stories260K.bin" "$shared/models/tok512.bin" "$work/"
# The boards the sources describe (boards/NAME/board.json), as --list-boards names them.
known=$(cd "$src/boards" && ls -d */board.json | sed 's|/board.json||' | LC_ALL=C sort | paste -sd' ' -)
hide="mount --bind '$work/empty' '$build' && mount --bind '$work/empty' '$src'"
[[ -d $configured/share/tessera ]] && hide+=" && mount --bind '$work/empty' '$configured/share/tessera'"
unshare -m env -u TESSERA_BOARDS_DIR bash -c "set -euo pipefail; $hide
  cd '$work'
  [[ ! -e '$src/CMakeLists.txt' && ! -e '$build/CMakeCache.txt' ]]
  bin='$work/moved/bin'
  listed=\$(\"\$bin/tessera-pack\" --list-boards | grep -v '^searched:' | cut -d' ' -f1 | paste -sd' ' -)
  [[ \$listed == '$known' ]] || { echo \"FAIL --list-boards names '\$listed', the sources '$known'\"; exit 1; }
  \"\$bin/tessera-pack\" stories260K.bin --tokenizer tok512.bin --board siracusa -q -o s.tess
  \"\$bin/tessera-generate\" s.tess -n 40 -t 0 -q > story.txt
  \"\$bin/tessera-inspect\" s.tess > inspect.txt"
grep -q "Once upon a time" "$work/story.txt" || { echo "FAIL generate: $(cat "$work/story.txt")"; exit 1; }
grep -q "valid     yes, on board siracusa" "$work/inspect.txt" || { echo "FAIL inspect: $(cat "$work/inspect.txt")"; exit 1; }
echo "ok   packed for siracusa, generated and inspected from $work/moved alone: $(head -c 60 "$work/story.txt")"
