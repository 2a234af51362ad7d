#!/usr/bin/env bash
# Benchmark of the debezium-avro-confluent deserializer (issue 18). Not a test: prints figures.
#
#   bench/avro_decode.sh [N]        (N records, default 1000000)
#
# Uses BUILD_DIR (default: build-bench, configured Release here if missing). N Debezium-shaped
# records (envelope with before/after of 8 columns, source, op, ts_ms; 50% c, 35% u, 15% d),
# written by Avro C's generic writer in the Confluent wire format, decoded in memory:
#   ceiling   Avro C's own generic reading: avro_value_read into one reused generic value,
#             every field touched (no rows built)
#   decode    our deserializer into row batches (the writer schema fetched once from the
#             local registry, tests/integration/lib/schema_registry.py, then cached by id)
# best of 3 each, records/s, and the ratio decode / ceiling (target >= 0.8).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000000}
build=${BUILD_DIR:-$here/build-bench}
bench=$build/bench/bench_avro_decode
if [[ ! -x $bench ]]; then
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCDC_TESTS=OFF -DCDC_WERROR=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target bench_avro_decode >/dev/null
fi
tmp=$(mktemp -d)
python3 "$here/tests/integration/lib/schema_registry.py" >"$tmp/reg.out" &
reg=$!
trap 'kill $reg; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do [[ -s $tmp/reg.out ]] && break; sleep 0.05; done
url=$(head -1 "$tmp/reg.out")
python3 - "$("$bench" schema)" >"$tmp/body.json" <<'PY'
import json, sys
print(json.dumps({"schema": sys.argv[1]}))
PY
id=$(curl -s -X POST -H 'Content-Type: application/vnd.schemaregistry.v1+json' \
  --data-binary @"$tmp/body.json" "$url/subjects/bench-value/versions" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
"$bench" run "$url" "$id" "$n"
