#!/usr/bin/env bash
# Configures, builds and runs every test (unit, data-driven and command-line).
# The data-driven tests read ../shared/data/mpfb beside the checkout (or -DRIGFIT_SHARED_DATA=...)
# and fail if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
# The Khronos glTF-Validator for the export tests (npm; node_modules is not committed).
(cd tools/gltf && npm install --no-audit --no-fund --silent)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRIGFIT_WERROR=ON "$@"
cmake --build "$BUILD"
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)"
