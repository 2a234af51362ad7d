#!/usr/bin/env bash
# Benchmark of the keyed state store (issue 19). Not a test: prints figures.
#
#   bench/state_bench.sh [DIR]   (the RocksDB directory; a temporary one by default)
#
# Uses BUILD_DIR (default: build-bench, configured Release here if missing). Prints ops/s of
# get/put on hot keys (the overlay) with the ratio to a plain in-memory hash table measured in
# the same run, get on cold keys (RocksDB, 300,000 keys under a 4 MiB budget), put on new keys
# with their commits, and the time of a synced commit of 10,000 dirty keys. About 10 s.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$here/build-bench}
bench=$build/bench/bench_state_bench
if [[ ! -x $bench ]]; then
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCDC_TESTS=OFF -DCDC_WERROR=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target bench_state_bench >/dev/null
fi
"$bench" "$@"
