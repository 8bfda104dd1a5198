#!/usr/bin/env bash
# Blender 3.4 imports a complete character (body, eyes, eyebrows, eyelashes, teeth, tongue, hair,
# suit, shoes) from rigfit's .glb with every mesh on the one armature, skinned, with the vertex
# counts of rigfit's report and the skeleton's bones (tools/blender/gltf_character_check.py).
# Skipped (exit 77) only when Blender, or the numpy its glTF importer needs, is not installed.
set -euo pipefail
RIGFIT=$1 DATA=$2 SRC=$3
BLENDER=${BLENDER:-blender}
command -v "$BLENDER" >/dev/null || { echo "blender not installed: skipped"; exit 77; }
"$BLENDER" -b --factory-startup --python-exit-code 1 --python-expr "import numpy" >/dev/null 2>&1 ||
  { echo "numpy missing for Blender's Python (apt-get install python3-numpy): skipped"; exit 77; }
ASSETS=$DATA/../assets
[ -d "$ASSETS" ] || { echo "assets missing: $ASSETS"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The ponytail's sub-rig joins the skeleton: `fit` with the same assets lists its bones too. On
# mixamo no bone spans the joints its parent reference names (MPFB fails there as well), so that
# character wears the short hair.
common=(--asset high-poly --asset eyebrow001 --asset eyelashes01 --asset teeth_base --asset tongue01
        --asset female_casualsuit01 --asset shoes01)
check() {  # check NAME RIG HAIR [export options]
  local name=$1 rig=$2
  assets=("${common[@]}" --asset "$3")
  shift 3
  "$RIGFIT" fit --data "$DATA" --rig "$rig" --assets "$ASSETS" "${assets[@]}" --out "$TMP/$name.skeleton.json" 2>/dev/null
  "$RIGFIT" export --data "$DATA" --rig "$rig" --assets "$ASSETS" "${assets[@]}" "$@" --out "$TMP/$name.glb" \
    --report "$TMP/$name.report.json" 2>"$TMP/$name.warnings" || { cat "$TMP/$name.warnings"; exit 1; }
  "$BLENDER" -b --factory-startup --python-exit-code 1 --python "$SRC/tools/blender/gltf_character_check.py" -- \
    --glb "$TMP/$name.glb" --report "$TMP/$name.report.json" --skeleton "$TMP/$name.skeleton.json" \
    --out "$TMP/$name.check.json" >"$TMP/$name.log" 2>&1 || { cat "$TMP/$name.log"; exit 1; }
  python3 - "$TMP/$name.check.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
hair = "ponytail01" if sys.argv[2] == "game_engine" else "short02"
want = ["Body", "HighPolyEyes", "eyebrow001", "Eyelashes01", "Teeth_Base", "tongue01", hair, "female_casualsuit01", "shoes01"]
assert sorted(r["meshes"]) == sorted(want), sorted(r["meshes"])
assert not r["problems"], r["problems"]
print(f"{sys.argv[2]}: {r['bones']} bones, " + ", ".join(f"{k} {v['vertices']}" for k, v in r["meshes"].items()))
PY
}
check game_engine game_engine ponytail01
check mixamo mixamo short02 --influences 8 --quantize
echo "passed"
