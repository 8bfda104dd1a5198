#!/usr/bin/env bash
# Runs the example program on the built-in demo and on MPFB's data and checks its .glb files with
# the Khronos glTF-Validator.
set -euo pipefail
PROGRAM=$1 DATA=$2 SRC=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$PROGRAM" "$TMP/demo.glb"
"$PROGRAM" "$TMP/hero.glb" "$DATA" mixamo
node "$SRC/tools/gltf/validate.mjs" "$TMP/demo.glb" "$TMP/hero.glb"
