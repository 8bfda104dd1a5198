#!/usr/bin/env bash
# Exports every shipped rig that has weights as .g4tf, .g4b and Zstd .g4b, checks each with
# `rigfit validate`, then with the official JSON schemas (ajv) and shared/g4mf/tools/g4tf_check.py.
set -euo pipefail
RIGFIT=$1 DATA=$2 SRC=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
files=()
for rig in cmu_mb game_engine game_engine_with_breast mixamo mixamo_unity openpose; do
  "$RIGFIT" export --data "$DATA" --rig "$rig" --out "$TMP/$rig.g4tf"
  "$RIGFIT" export --data "$DATA" --rig "$rig" --out "$TMP/$rig.g4b"
  "$RIGFIT" export --data "$DATA" --rig "$rig" --out "$TMP/$rig.z.g4b" --compress --macro gender=1,weight=0.9 --ground
  files+=("$TMP/$rig.g4tf" "$TMP/$rig.g4b" "$TMP/$rig.z.g4b")
done
# --deform-only (see gltf_validate.sh): fewer bones, re-parented, one root.
python3 "$SRC/tests/export/map_weights.py" "$DATA" default "$TMP/w.default.json"
python3 "$SRC/tests/export/map_weights.py" "$DATA" rigify "$TMP/w.rigify.json"
"$RIGFIT" export --data "$DATA" --rig openpose --deform-only --out "$TMP/openpose.deform.g4tf"
"$RIGFIT" export --data "$DATA" --rig default --weights "$TMP/w.default.json" --deform-only --out "$TMP/default.deform.g4b"
"$RIGFIT" export --data "$DATA" --rig rigify.human --weights "$TMP/w.rigify.json" --deform-only --out "$TMP/rigify.deform.g4tf"
# Blend shapes from MakeHuman expression targets.
"$RIGFIT" export --data "$DATA" --rig game_engine --out "$TMP/morphs.g4tf" \
  --morph expression/units/caucasian/mouth-open=jawOpen --morph expression/units/caucasian/eye-left-closure
"$RIGFIT" export --data "$DATA" --rig mixamo --out "$TMP/morphs.z.g4b" --compress --keep-helpers --morph nose/nose-base-up
files+=("$TMP/openpose.deform.g4tf" "$TMP/default.deform.g4b" "$TMP/rigify.deform.g4tf" "$TMP/morphs.g4tf" "$TMP/morphs.z.g4b")
# Bendy bones baked to joint chains (see gltf_validate.sh).
python3 "$SRC/tests/export/bendy_rig.py" "$DATA" "$SRC" "$TMP/rig.bendy.json"
"$RIGFIT" export --data "$DATA" --rig "$TMP/rig.bendy.json" --weights "$DATA/rigs/standard/weights.game_engine.json" --out "$TMP/bendy.g4b"
"$RIGFIT" export --data "$DATA" --rig "$TMP/rig.bendy.json" --weights "$DATA/rigs/standard/weights.game_engine.json" --out "$TMP/bendy.g4tf" --deform-only
files+=("$TMP/bendy.g4b" "$TMP/bendy.g4tf")
"$RIGFIT" validate --quiet "${files[@]}"
bash "$SRC/tools/g4mf/check.sh" "${files[@]}"
echo "${#files[@]} passed, 0 failed"
