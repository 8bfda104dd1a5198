#!/usr/bin/env bash
# Installs the built rigfit into a temporary prefix, builds a consumer project against it with
# find_package(rigfit), and runs its program as examples.fit_and_export does.
set -euo pipefail
BUILD=$1 SRC=$2 DATA=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cmake --install "$BUILD" --prefix "$TMP/prefix" >/dev/null
[ -f "$TMP/prefix/include/rigfit/version.hpp" ] || { echo "version.hpp not installed"; exit 1; }
[ -x "$TMP/prefix/bin/rigfit" ] || { echo "the rigfit command is not installed"; exit 1; }
cmake -S "$SRC/tests/consumer" -B "$TMP/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$TMP/prefix" -DEXAMPLES_DIR="$SRC/examples" >/dev/null
cmake --build "$TMP/build" >"$TMP/build.log" 2>&1 || { tail -n 30 "$TMP/build.log"; exit 1; }
bash "$SRC/tests/consumer/example_test.sh" "$TMP/build/fit_and_export" "$DATA" "$SRC"
