#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/*.c) with clang, ASan and UBSan, and runs
# each for a bounded time on a seed corpus made of the conformance messages.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
conf=${CDC_CONFORMANCE_DIR:-$PWD/tests/conformance}
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCDC_FUZZ=ON -DCDC_TESTS=OFF \
  -DCDC_WERROR=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)" >/dev/null
shopt -s nullglob
targets=(build-fuzz/fuzz_*)
if ((${#targets[@]} == 0)); then
  echo "fuzz: no targets"
  exit 0
fi
pass=0
fail=0
for t in "${targets[@]}"; do
  name=${t#build-fuzz/fuzz_}
  corpus=build-fuzz/corpus/$name
  mkdir -p "$corpus"
  i=0
  if [[ -d tests/data/seeds/$name ]]; then
    # binary formats: the committed seed files (tests/data/seeds/<name>/, see each README)
    for f in tests/data/seeds/"$name"/*; do
      cp "$f" "$corpus/seed_$i"
      i=$((i + 1))
    done
  else
    # seed: every line of every conformance file and the decode golden inputs, one file each
    while IFS= read -r line; do
      printf '%s' "$line" >"$corpus/seed_$i"
      i=$((i + 1))
    done < <(cat "$conf"/flink-json/*.txt "$conf"/debezium/*.jsonl tests/data/decode/*.txt 2>/dev/null)
  fi
  echo "== fuzz $name: ${secs}s on $i seeds"
  if LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp" \
    "$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=0 "$corpus" >build-fuzz/$name.log 2>&1; then
    pass=$((pass + 1))
    grep -E '^#[0-9]+.*DONE|Done [0-9]+ runs' build-fuzz/$name.log | tail -1 || true
  else
    fail=$((fail + 1))
    echo "FAIL fuzz $name (log: build-fuzz/$name.log)"
    grep -E 'ERROR|SUMMARY|crash-|leak-|timeout-' build-fuzz/$name.log | head -20
  fi
done
echo "fuzz: $pass passed, $fail failed"
((fail == 0))
