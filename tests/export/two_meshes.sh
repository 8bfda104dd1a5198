#!/usr/bin/env bash
# A character of two skinned meshes (the demo body and a box with its own material, one skeleton),
# written by the test binary (TwoMeshes.WriteSamples; also as a two-mesh Character exported by the pipeline): the Khronos glTF-Validator on the .glb and
# .gltf files (any error or warning fails), `rigfit validate` and tools/g4mf/check.sh (the official
# schemas and the shared rule checker) on the .g4tf/.g4b files.
set -euo pipefail
TESTS=$1 RIGFIT=$2 SRC=$3
VALIDATOR=$SRC/tools/gltf/validate.mjs
[ -d "$SRC/tools/gltf/node_modules/gltf-validator" ] || { echo "gltf-validator missing: run (cd tools/gltf && npm install)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
RIGFIT_EXPORT_SAMPLES="$TMP" "$TESTS" --gtest_filter='TwoMeshes.WriteSamples' >"$TMP/samples.log" 2>&1 || { cat "$TMP/samples.log"; exit 1; }
gltf=("$TMP/two_meshes.glb" "$TMP/two_meshes.gltf" "$TMP/two_meshes.embedded.gltf" "$TMP/character.glb")
g4mf=("$TMP/two_meshes.g4tf" "$TMP/two_meshes.g4b" "$TMP/two_meshes.zstd.g4b" "$TMP/character.g4tf")
node "$VALIDATOR" "${gltf[@]}"
"$RIGFIT" validate --quiet "${g4mf[@]}"
bash "$SRC/tools/g4mf/check.sh" "${g4mf[@]}"
echo "$(( ${#gltf[@]} + ${#g4mf[@]} )) passed, 0 failed"
