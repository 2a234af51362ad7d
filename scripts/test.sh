#!/usr/bin/env bash
# Runs every test: installs what is missing, builds twice (optimised, and with
# AddressSanitizer + UndefinedBehaviorSanitizer), runs every fuzz target for a
# bounded time, and runs ctest on both builds.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

echo "== build (RelWithDebInfo, -Werror)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"

echo "== build (ASan + UBSan)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCDC_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"

status=0
echo "== fuzzing (libFuzzer + ASan + UBSan, bounded time per target)"
scripts/fuzz.sh "${CDC_FUZZ_SECONDS:-20}" || status=1

echo "== tests (RelWithDebInfo)"
(cd build && ctest --output-on-failure -j"$jobs") || status=1
echo "== tests (ASan + UBSan)"
(cd build-asan && ctest --output-on-failure -j"$jobs") || status=1
exit $status
