#!/usr/bin/env bash
# Complete characters: every asset of ../shared/data/assets worn (eyes, eyebrows, eyelashes, teeth,
# tongue, both hairstyles, both outfits, shoes) and the body proxy, on the base body, MPFB's new
# human and an extreme macro body, with a pose as the bind pose, morphs and --keep-hidden; as .glb,
# .gltf (the eye image written beside it) and G4MF. The Khronos glTF-Validator (any error or
# warning fails), `rigfit validate`, the G4MF schemas and the shared rule checker check every file.
set -euo pipefail
RIGFIT=$1 DATA=$2 SRC=$3
ASSETS=$DATA/../assets
VALIDATOR=$SRC/tools/gltf/validate.mjs
[ -d "$ASSETS" ] || { echo "assets missing: $ASSETS"; exit 1; }
[ -d "$SRC/tools/gltf/node_modules/gltf-validator" ] || { echo "gltf-validator missing: run (cd tools/gltf && npm install)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
head=(--asset high-poly --asset eyebrow001 --asset eyelashes01 --asset teeth_base --asset tongue01)
run() { "$RIGFIT" export --data "$DATA" --rig game_engine --assets "$ASSETS" "$@" 2>>"$TMP/warnings"; }
run "${head[@]}" --asset ponytail01 --asset female_casualsuit01 --asset shoes01 --out "$TMP/base.glb" --report "$TMP/base.json" \
  --morph expression/units/caucasian/mouth-open=jawOpen --morph expression/units/caucasian/eye-left-closure=blinkL
run "${head[@]}" --asset short02 --asset male_casualsuit01 --asset shoes01 --macro default --ground --out "$TMP/default.glb"
run "${head[@]}" --asset ponytail01 --asset male_casualsuit01 --macro gender=1,age=1,muscle=1,weight=1,height=1,proportions=1 --ground \
  --out "$TMP/max.gltf"
run "${head[@]}" --asset female_casualsuit01 --proxy female_generic --out "$TMP/proxy.glb" \
  --pose game_engine_fk/t-pose.json --apply-pose-as-rest --morph expression/units/caucasian/mouth-open=jawOpen
run --asset low-poly --asset short02 --asset shoes01 --pose game_engine_fk/t-pose.json --apply-pose-as-rest --keep-hidden \
  --influences 8 --quantize --out "$TMP/posed.glb"
run "${head[@]}" --asset ponytail01 --asset female_casualsuit01 --out "$TMP/base.g4tf"
run "${head[@]}" --asset male_casualsuit01 --proxy female_generic --compress --out "$TMP/proxy.g4b"
[ -s "$TMP/brown_eye.png" ] || { echo "FAIL: the eye image was not written beside max.gltf"; exit 1; }
# The report lists every mesh; the body under the suit and shoes lost faces.
python3 - "$TMP/base.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
names = [m["name"] for m in r["meshes"]]
want = ["Body", "HighPolyEyes", "eyebrow001", "Eyelashes01", "Teeth_Base", "tongue01", "ponytail01", "female_casualsuit01", "shoes01"]
assert names == want, names
assert r["meshes"][0]["triangles"] < 26000, r["meshes"][0]
assert any("texture file" in w for w in r["warnings"]), r["warnings"]
# The morphs reach the meshes bound to the face: the teeth and tongue open with the jaw.
assert [m["name"] for m in r["morphs"]] == ["jawOpen", "blinkL"], r["morphs"]
PY
node "$VALIDATOR" "$TMP/base.glb" "$TMP/default.glb" "$TMP/max.gltf" "$TMP/proxy.glb" "$TMP/posed.glb"
"$RIGFIT" validate --quiet "$TMP/base.g4tf" "$TMP/proxy.g4b"
bash "$SRC/tools/g4mf/check.sh" "$TMP/base.g4tf" "$TMP/proxy.g4b"
echo "7 passed, 0 failed"
