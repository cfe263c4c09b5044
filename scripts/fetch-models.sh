#!/usr/bin/env bash
# Puts the default model (stories260K + its 512-token tokenizer) in DEST, taken
# from ../shared/models when present, else downloaded from karpathy/tinyllamas on
# Hugging Face; either way the sha256 sums must match.
# usage: fetch-models.sh DEST [SHARED_DIR]
set -euo pipefail
dest=$1
shared=${2:-$(dirname "$0")/../../shared}
mkdir -p "$dest"
declare -A sha=(
  [stories260K.bin]=b0a507e7ad0f626624f17112325e66691f9076d622e1d3274d103d00299f2696
  [tok512.bin]=037cb335abb25d1fa9e8ecae30ed2a3a8ace9302862ebcdc05d51a6bbb10c312
)
base_url=https://huggingface.co/karpathy/tinyllamas/resolve/main/stories260K
for f in stories260K.bin tok512.bin; do
  if [[ -f $dest/$f ]] && echo "${sha[$f]}  $dest/$f" | sha256sum -c --quiet 2>/dev/null; then
    continue
  fi
  if [[ -f $shared/models/$f ]]; then
    cp "$shared/models/$f" "$dest/$f.part"
  else
    echo "fetch-models: downloading $f"
    curl -fsSL --retry 3 -o "$dest/$f.part" "$base_url/$f"
  fi
  if ! echo "${sha[$f]}  $dest/$f.part" | sha256sum -c --quiet; then
    rm -f "$dest/$f.part"
    echo "fetch-models: $f does not have the expected sha256 ${sha[$f]}" >&2
    exit 1
  fi
  mv "$dest/$f.part" "$dest/$f"
done
echo "fetch-models: stories260K.bin and tok512.bin verified in $dest"
