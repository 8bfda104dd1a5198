#!/usr/bin/env bash
# Regenerates tests/golden/assets/ and tests/golden/subrig/: MPFB 2.0.4 itself (run in Blender 3.4) fits, masks and weights
# the assets of ../shared/data/assets on three bodies; asset_reference.py records the result.
# usage: tools/blender/make_asset_goldens.sh SCRATCH [GOLDEN_DIR]        (from the checkout root)
#   SCRATCH  a folder outside the checkout. If SCRATCH/src/mpfb is missing, MPFB_GIT must name a git
#            directory of makehumancommunity/mpfb2 holding commit $MPFB_COMMIT; its src/ is extracted.
#   env: DATA (default ../shared/data/mpfb), ASSETS (default ../shared/data/assets), BLENDER.
# Neither DATA nor ASSETS is modified: copies go into SCRATCH/src/mpfb/data.
set -euo pipefail
SCRATCH=$(realpath -m "$1") OUT=${2:-tests/golden/assets}
DATA=${DATA:-../shared/data/mpfb} ASSETS=${ASSETS:-../shared/data/assets}
BLENDER=${BLENDER:-blender}
MPFB_COMMIT=${MPFB_COMMIT:-0f8817e1836028d5ccdccba3d7cb77edb561f38e}   # branch last_blender3_version
HERE=$(cd "$(dirname "$0")" && pwd)
M=$SCRATCH/src/mpfb

if [ ! -f "$M/__init__.py" ]; then
  : "${MPFB_GIT:?SCRATCH/src/mpfb is missing: set MPFB_GIT to a git directory of makehumancommunity/mpfb2}"
  echo "extracting src/ of $MPFB_COMMIT into $SCRATCH"
  git --git-dir="$MPFB_GIT" ls-tree -r "$MPFB_COMMIT" -- src | while read -r _ type sha path; do
    [ "$type" = blob ] || continue
    mkdir -p "$SCRATCH/$(dirname "$path")"
    # A snapshot may lack its largest blobs (weights.default.json, weights.human_toes.json): not needed here.
    git --git-dir="$MPFB_GIT" cat-file blob "$sha" > "$SCRATCH/$path" 2>/dev/null \
      || { echo "  missing blob, skipped: $path"; rm -f "$SCRATCH/$path"; }
  done
fi

# The newer rig and pose files replace MPFB's 2024 ones (mpfb-in-blender.md, step 3); MPFB finds
# the assets in its data folder (AssetService searches it first).
cp -r "$DATA/rigs/." "$M/data/rigs/"
cp -r "$DATA/poses/." "$M/data/poses/"
for d in clothes eyebrows eyelashes eyes hair proxymeshes teeth tongue; do
  rm -rf "${M:?}/data/$d"
  cp -r "$ASSETS/$d" "$M/data/$d"
done
mkdir -p "$SCRATCH/bl_user/addons" "$SCRATCH/bl_res" "$OUT"
ln -sfn "$M" "$SCRATCH/bl_user/addons/mpfb"

run() {  # GOLDEN ARGS...
  local golden=$1; shift
  BLENDER_USER_SCRIPTS=$SCRATCH/bl_user BLENDER_USER_RESOURCES=$SCRATCH/bl_res \
    "$BLENDER" -b --factory-startup --python-exit-code 1 --python "$HERE/asset_reference.py" -- \
    "$@" --golden "$OUT/$golden" > "$SCRATCH/${golden%.json}.log" 2>&1 \
    || { tail -30 "$SCRATCH/${golden%.json}.log"; exit 1; }
  grep '^\[asset_reference\] wrote' "$SCRATCH/${golden%.json}.log"
}
for body in base default max; do
  run "$body.game_engine.json" --body "$body" --rig game_engine
done
# shoes01.mhw names the default rig's bones: only on that rig do its custom weights apply.
run base.default.shoes01.json --body base --rig default --asset shoes01

# The ponytail's sub-rig (tests/golden/subrig): two main rigs, three bodies, posed in Blender.
mkdir -p tests/golden/subrig
for case in "base game_engine" "default game_engine" "base cmu_mb" "max cmu_mb"; do
  set -- $case
  BLENDER_USER_SCRIPTS=$SCRATCH/bl_user BLENDER_USER_RESOURCES=$SCRATCH/bl_res \
    "$BLENDER" -b --factory-startup --python-exit-code 1 --python "$HERE/subrig_reference.py" -- \
    --body "$1" --rig "$2" --golden "tests/golden/subrig/$1.$2.json" > "$SCRATCH/subrig.$1.$2.log" 2>&1 \
    || { tail -30 "$SCRATCH/subrig.$1.$2.log"; exit 1; }
  grep '^\[asset_reference\] wrote' "$SCRATCH/subrig.$1.$2.log"
done
