#!/usr/bin/env bash
# Installs rigfit's build and test dependencies from Debian's packages.
set -euo pipefail
PACKAGES=(cmake ninja-build g++ pkg-config python3 zstd parallel
          zlib1g-dev libsimdjson-dev libeigen3-dev libcli11-dev libzstd-dev libhwy-dev
          libgtest-dev libbenchmark-dev libtinygltf-dev libstb-dev libxxhash-dev)
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm run the Khronos glTF-Validator and the G4MF schema check; keep an existing
# installation (the machine may have its own Node.js build, which already bundles npm).
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
