#!/usr/bin/env bash
# Regenerates tests/golden/shape/: for each case rigfit computes the macro targets and weights
# (`rigfit shape` writes them into its OBJ header) and Blender mixes them as shape keys.
# usage: tools/blender/make_shape_goldens.sh RIGFIT DATA [GOLDEN_DIR]   (from the checkout root)
set -euo pipefail
RIGFIT=$1 DATA=$2 OUT=${3:-tests/golden/shape}
BLENDER=${BLENDER:-blender}
mkdir -p "$OUT"
# name and rigfit --macro: MPFB's new human and settings at the extremes.
cases=(
  "default default"
  "max gender=1,age=1,muscle=1,weight=1,height=1"
  "baby gender=0,age=0"
  "thin weight=0,muscle=0"
  "proportions_race gender=0.3,age=0.35,proportions=1,height=0,cupsize=1,firmness=0,african=1,asian=0.2,caucasian=0"
  "uncommon gender=0.8,age=0.75,muscle=0.2,weight=0.9,proportions=0,african=0,asian=0.6,caucasian=0.6"
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in "${cases[@]}"; do
  name=${c%% *} macro=${c#* }
  "$RIGFIT" shape --data "$DATA" --macro "$macro" --out "$tmp/$name.obj"
  args=()
  while read -r _ _ path weight; do args+=(--target "$path:$weight"); done < <(grep '^# target ' "$tmp/$name.obj")
  "$BLENDER" -b --factory-startup --python-exit-code 1 --python tools/blender/shape_reference.py -- \
      --data "$DATA" "${args[@]}" --case "$name" --macro "$macro" --golden "$OUT/$name.json" \
      --compare "$tmp/$name.obj"
done
