#!/usr/bin/env bash
# Idempotent set-up of a fresh Debian 12 machine for infer-opt:
#   1. Debian packages (LLVM/MLIR 22, ONNX, protobuf, CLI11, json, GoogleTest, ccache, Ninja);
#   2. the Python venv .venv with the pinned tools of scripts/requirements.txt;
#   3. configure (first time) and build into build/ (tools land in build/bin/).
# Each step is skipped when already done. Environment: BUILD_DIR (default build),
# CMAKE_ARGS (extra configure flags, e.g. -DINFER_ENABLE_SANITIZERS=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
# Cache hits across clones at different paths (CI builds a fresh clone).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}

packages=(
  cmake ninja-build ccache g++ bc python3-venv libomp-dev
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libonnx-dev libprotobuf-dev protobuf-compiler
  libcli11-dev nlohmann-json3-dev googletest libgtest-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python venv for tests and tools, re-synced when requirements change.
stamp=.venv/.requirements.sha256
want=$(sha256sum scripts/requirements.txt | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: preparing .venv"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r scripts/requirements.txt
  echo "$want" > "$stamp"
fi

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  # shellcheck disable=SC2086
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
fi
cmake --build "$BUILD_DIR"
