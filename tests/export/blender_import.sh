#!/usr/bin/env bash
# Blender 3.4 imports rigfit's .glb with the armature and the body where rigfit put them
# (tools/blender/gltf_import_check.py). The only test that may be skipped: exit 77 when Blender
# (or the numpy its glTF importer needs) is not installed; CI does not require Blender.
set -euo pipefail
RIGFIT=$1 DATA=$2 SRC=$3
BLENDER=${BLENDER:-blender}
command -v "$BLENDER" >/dev/null || { echo "blender not installed: skipped"; exit 77; }
"$BLENDER" -b --factory-startup --python-exit-code 1 --python-expr "import numpy" >/dev/null 2>&1 ||
  { echo "numpy missing for Blender's Python (apt-get install python3-numpy): skipped"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
check() {  # check NAME RIG [export options]
  local name=$1 rig=$2
  shift 2
  "$RIGFIT" fit --data "$DATA" --rig "$rig" --out "$TMP/$name.skeleton.json"
  "$RIGFIT" export --data "$DATA" --rig "$rig" "$@" --out "$TMP/$name.glb"
  "$BLENDER" -b --factory-startup --python-exit-code 1 --python "$SRC/tools/blender/gltf_import_check.py" -- \
    --glb "$TMP/$name.glb" --skeleton "$TMP/$name.skeleton.json" --obj "$DATA/3dobjs/base.obj" --out "$TMP/$name.report.json" >"$TMP/$name.log" 2>&1 ||
    { cat "$TMP/$name.log"; exit 1; }
  echo "$name: $(tr -d '\n' <"$TMP/$name.report.json" | tr -s ' ')"
}
check game_engine game_engine
check mixamo_unity mixamo_unity --influences 8 --quantize
check openpose.deform openpose --deform-only
check morphs game_engine --morph expression/units/caucasian/mouth-open=jawOpen --morph nose/nose-base-up
echo "passed"
