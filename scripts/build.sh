#!/usr/bin/env bash
# Builds cdcflow into build/ (optimised, with tests). Usage: scripts/build.sh [cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build -j"$(nproc)"
