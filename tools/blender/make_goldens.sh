#!/usr/bin/env bash
# Regenerate rigfit's Blender golden files (tests/golden/blender/<rig>.<body>.json).
#
#   tools/blender/make_goldens.sh DATA_DIR [GOLDEN_DIR]
#
# For every rig.*.json in DATA_DIR/rigs/standard and DATA_DIR/rigs/rigify and for the bodies
# "base" (DATA_DIR/3dobjs/base.obj as is) and "lean" (the same mesh with fit_reference.py's
# --warp lean), it runs
#
#   blender -b --factory-startup --python tools/blender/fit_reference.py -- \
#       --data DATA_DIR --rig RIG_FILE [--warp lean] \
#       --golden GOLDEN_DIR/<rig>.<body>.json --out $OUT/<rig>.<body>.reference.json
#
# GOLDEN_DIR defaults to tests/golden/blender next to this script's repository.  The full
# reference JSON and the Blender log of each run are kept in $OUT (default
# /tmp/rigfit-goldens).  Environment: BLENDER (default: blender), OUT,
# GOLDEN_DIGITS (passed as --golden-digits; default 0 = full repr of the float32 values).
# Exit status 1 if any run fails.  The goldens in the repository were made with Blender 3.4.1;
# the script warns if another version is used.
set -u

if [ $# -lt 1 ]; then
    echo "usage: $0 DATA_DIR [GOLDEN_DIR]" >&2
    exit 2
fi
DATA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN=${2:-$HERE/../../tests/golden/blender}
BLENDER=${BLENDER:-blender}
OUT=${OUT:-/tmp/rigfit-goldens}
GOLDEN_DIGITS=${GOLDEN_DIGITS:-0}
mkdir -p "$GOLDEN" "$OUT"
GOLDEN=$(cd "$GOLDEN" && pwd)

ver=$("$BLENDER" -b --factory-startup --python-expr 'import bpy; print("VERSION=" + bpy.app.version_string)' 2>/dev/null \
      | sed -n 's/^VERSION=//p')
if [ "$ver" != "3.4.1" ]; then
    echo "warning: Blender version '$ver'; the committed goldens were made with 3.4.1" >&2
fi

status=0
n=0
shopt -s nullglob
for rig in "$DATA"/rigs/standard/rig.*.json "$DATA"/rigs/rigify/rig.*.json; do
    base=$(basename "$rig" .json)
    name=${base#rig.}
    case "$rig" in */rigs/rigify/*) name="rigify.$name" ;; esac
    for body in base lean; do
        warp=()
        [ "$body" = base ] || warp=(--warp "$body")
        golden="$GOLDEN/$name.$body.json"
        ref="$OUT/$name.$body.reference.json"
        rm -f "$golden.tmp" "$ref"
        if "$BLENDER" -b --factory-startup --python "$HERE/fit_reference.py" -- \
                --data "$DATA" --rig "$rig" "${warp[@]}" \
                --golden "$golden.tmp" --golden-rig "$name" --golden-body "$body" \
                --golden-digits "$GOLDEN_DIGITS" --out "$ref" >"$OUT/$name.$body.blender.log" 2>&1 \
                && [ -s "$golden.tmp" ]; then
            mv -f "$golden.tmp" "$golden"
            n=$((n + 1))
            echo "[$name.$body] $(wc -c <"$golden") bytes" >&2
        else
            rm -f "$golden.tmp"
            echo "[$name.$body] FAILED, see $OUT/$name.$body.blender.log" >&2
            status=1
        fi
    done
done
echo "$n golden files in $GOLDEN, $(du -cb "$GOLDEN"/*.json | tail -n 1 | cut -f1) bytes" >&2
exit $status
