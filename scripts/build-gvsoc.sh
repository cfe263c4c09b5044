#!/usr/bin/env bash
# Builds GVSoC (the PULP virtual platform, ../shared/gvsoc/src, read in place) for its Siracusa
# target, out of tree, once: the installed simulator lands in a cache folder keyed by a hash of
# its sources, the build options and the compiler, outside any Tessera build folder, so a second
# build (or a second scripts/test.sh) on the same machine reuses it while the sources are unchanged.
#   scripts/build-gvsoc.sh [--shared DIR] [--cache DIR]     build unless cached; print the prefix
#   scripts/build-gvsoc.sh --path [--shared DIR]             print the prefix it builds to, only
#   scripts/build-gvsoc.sh --debug ...                       the debug build (BUILD_DEBUG=ON: --power,
#                                                            --trace; twice the build), cached apart
#   scripts/build-gvsoc.sh --help
# The simulator is then PREFIX/bin/gvsoc. The cache root is $TESSERA_GVSOC_CACHE, else
# $XDG_CACHE_HOME/tessera, else ~/.cache/tessera. Needs the packages scripts/install-deps.sh installs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${TESSERA_SHARED_DIR:-$root/../shared}
cache=${TESSERA_GVSOC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tessera}
path_only=0
debug=OFF
while (($#)); do
  case $1 in
  --path) path_only=1 ;;
  --debug) debug=ON ;;
  --shared) shared=$2; shift ;;
  --cache) cache=$2; shift ;;
  -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "build-gvsoc: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
src=$(cd "$shared/gvsoc/src" 2>/dev/null && pwd) || {
  echo "build-gvsoc: no GVSoC sources at $shared/gvsoc/src (set TESSERA_SHARED_DIR or --shared)" >&2
  exit 1
}
# What the build depends on: every source file's path and bytes, the options below, the compiler.
options="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGVSOC_TARGETS=siracusa -DBUILD_DEBUG=$debug"
key=$( {
  echo "$options"
  c++ --version | head -1
  cmake --version | head -1
  (cd "$src" && find . -type f -not -name '*.pyc' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
} | sha256sum | cut -c1-16)
prefix=$cache/gvsoc-$key
if ((path_only)); then
  echo "$prefix"
  exit 0
fi
if [[ -x $prefix/bin/gvsoc && -f $prefix/.complete ]]; then
  echo "build-gvsoc: cached at $prefix (sources unchanged)" >&2
  echo "$prefix"
  exit 0
fi
echo "build-gvsoc: building GVSoC's Siracusa target into $prefix (about 8 minutes on 2 cores)" >&2
mkdir -p "$cache"
work=$(mktemp -d "$cache/gvsoc-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
# GVSoC's generators run under Debian's Python with its own gapy on PATH.
export PATH=/usr/bin:$src/gapy/bin:$PATH
# shellcheck disable=SC2086
cmake -S "$src" -B "$work/build" $options -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DGVSOC_MODULES="$src/core/models;$src/pulp" -DCMAKE_SKIP_INSTALL_RPATH=false >"$work/configure.log" 2>&1 || {
  tail -30 "$work/configure.log" >&2
  echo "build-gvsoc: configuring GVSoC failed (above); are scripts/install-deps.sh's packages installed?" >&2
  exit 1
}
cmake --build "$work/build" -j"$(nproc)" >"$work/build.log" 2>&1 || {
  grep -m20 -B2 -A5 'error' "$work/build.log" >&2 || tail -40 "$work/build.log" >&2
  echo "build-gvsoc: building GVSoC failed (above)" >&2
  exit 1
}
# The install paths are compiled in (rpath, gapy's configuration), so it installs in place;
# .complete marks a whole install: an interrupted one is removed and never taken as cached.
rm -rf "$prefix"
trap 'rm -rf "$work"; [[ -f $prefix/.complete ]] || rm -rf "$prefix"' EXIT
cmake --install "$work/build" >"$work/install.log" 2>&1
touch "$prefix/.complete"
echo "build-gvsoc: built $prefix" >&2
echo "$prefix"
