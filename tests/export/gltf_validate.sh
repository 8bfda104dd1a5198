#!/usr/bin/env bash
# Exports every shipped rig that has weights (base body and a shaped, grounded body; 4 and 8
# influences, float and quantised weights, .glb and .gltf) and runs the Khronos glTF-Validator on
# each file: any error or warning fails the test.
set -euo pipefail
RIGFIT=$1 DATA=$2 SRC=$3
VALIDATOR=$SRC/tools/gltf/validate.mjs
[ -d "$SRC/tools/gltf/node_modules/gltf-validator" ] || { echo "gltf-validator missing: run (cd tools/gltf && npm install)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
files=()
for rig in cmu_mb game_engine game_engine_with_breast mixamo mixamo_unity openpose; do
  "$RIGFIT" export --data "$DATA" --rig "$rig" --out "$TMP/$rig.glb"
  "$RIGFIT" export --data "$DATA" --rig "$rig" --out "$TMP/$rig.shaped.glb" --macro gender=1,age=0.8,muscle=0.9,weight=0.2 --ground
  "$RIGFIT" export --data "$DATA" --rig "$rig" --out "$TMP/$rig.q8.glb" --influences 8 --quantize
  files+=("$TMP/$rig.glb" "$TMP/$rig.shaped.glb" "$TMP/$rig.q8.glb")
done
"$RIGFIT" export --data "$DATA" --rig game_engine --out "$TMP/separate.gltf" --quantize --weight-bits 16
"$RIGFIT" export --data "$DATA" --rig game_engine --out "$TMP/embedded.gltf" --embed
"$RIGFIT" export --out "$TMP/demo.glb"
"$RIGFIT" export --data "$DATA" --rig game_engine --out "$TMP/posed.glb" --pose game_engine_fk/t-pose.json --apply-pose-as-rest
# Morph targets (sparse POSITION deltas) on the body, with 16-bit and (helpers kept) 16-bit indices.
"$RIGFIT" export --data "$DATA" --rig game_engine --out "$TMP/morphs.glb" --macro gender=1 \
  --morph expression/units/caucasian/mouth-open=jawOpen --morph expression/units/caucasian/eye-left-closure
"$RIGFIT" export --data "$DATA" --rig mixamo --out "$TMP/morphs.gltf" --keep-helpers --influences 8 --quantize \
  --morph expression/units/african/mouth-open --morph nose/nose-base-up
"$RIGFIT" export --data "$DATA" --rig game_engine --out "$TMP/morphs.posed.glb" --pose game_engine_fk/t-pose.json --apply-pose-as-rest \
  --morph expression/units/asian/mouth-open --morph expression/units/asian/eye-left-closure
files+=("$TMP/separate.gltf" "$TMP/embedded.gltf" "$TMP/demo.glb" "$TMP/posed.glb" "$TMP/morphs.glb" "$TMP/morphs.gltf" "$TMP/morphs.posed.glb")
# --deform-only: rigs that lose bones (Root; openpose's small toes and its three root trees), and
# default / Rigify with game_engine's weights renamed to their bones (their own weights are not in
# the data folder), where many bones carry no weight. The report's joint count is checked too.
python3 "$SRC/tests/export/map_weights.py" "$DATA" default "$TMP/w.default.json"
python3 "$SRC/tests/export/map_weights.py" "$DATA" rigify "$TMP/w.rigify.json"
deform() {  # deform NAME JOINTS ARGS...
  local name=$1 joints=$2
  shift 2
  "$RIGFIT" export --data "$DATA" "$@" --deform-only --out "$TMP/$name.deform.glb" --report "$TMP/$name.report.json"
  grep -q "\"joints\": $joints," "$TMP/$name.report.json" || { echo "$name: expected $joints joints"; cat "$TMP/$name.report.json"; exit 1; }
  files+=("$TMP/$name.deform.glb")
}
deform game_engine 52 --rig game_engine --influences 8
deform openpose 22 --rig openpose --quantize
deform default 52 --rig default --weights "$TMP/w.default.json"
deform rigify 52 --rig rigify.human --weights "$TMP/w.rigify.json"
# Bendy bones baked to joint chains (game_engine with B-Bone settings on three bones: 15 joints
# more), also posed as the bind pose; and kept as single joints (--no-bake).
python3 "$SRC/tests/export/bendy_rig.py" "$DATA" "$SRC" "$TMP/rig.bendy.json"
bendy() {  # bendy NAME JOINTS ARGS...
  local name=$1 joints=$2
  shift 2
  "$RIGFIT" export --data "$DATA" --rig "$TMP/rig.bendy.json" --weights "$DATA/rigs/standard/weights.game_engine.json" "$@" --out "$TMP/$name.glb" --report "$TMP/$name.report.json"
  grep -q "\"joints\": $joints," "$TMP/$name.report.json" || { echo "$name: expected $joints joints"; cat "$TMP/$name.report.json"; exit 1; }
  files+=("$TMP/$name.glb")
}
bendy bendy 68
bendy bendy.posed 68 --rotate upperarm_l=0,30,40 --rotate spine_02=15,0,0 --apply-pose-as-rest --influences 8
bendy bendy.kept 53 --no-bake
node "$VALIDATOR" "${files[@]}"
echo "${#files[@]} passed, 0 failed"
