#!/usr/bin/env bash
# The Kafka demo: starts the embedded broker (cdcflow kafka-mock), fills it with the
# Debezium events of the inventory example (schemas/demo/inventory.products.jsonl, key|value
# per line, produced with kcat), runs schemas/inventory_demo.sql (kafka/debezium-json ->
# SQLite upserts) and prints the materialised table.
# Usage: scripts/demo.sh [CDCFLOW_BINARY] [SQLITE_FILE]   (default build/cdcflow, a temp file)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/build/cdcflow}")
work=$(mktemp -d)
db=${2:-$work/demo.db}
mock_pid=
cleanup() {
  [[ -n $mock_pid ]] && kill "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
topic=dbserver1.inventory.products
"$bin" kafka-mock --partitions 2 --topic "$topic" </dev/null >"$work/mock.out" 2>"$work/mock.err" &
mock_pid=$!
for _ in $(seq 1 100); do
  [[ -s $work/mock.out ]] && break
  sleep 0.1
done
bootstrap=$(head -1 "$work/mock.out")
[[ -n $bootstrap ]] || { echo "demo: kafka-mock did not start: $(cat "$work/mock.err")" >&2; exit 1; }
echo "== kafka-mock serving at $bootstrap"
# keyed by the primary key, so every change of a product lands in the same partition, in order;
# -Z sends the empty values after deletes as tombstones (null), as Debezium does
kcat -P -b "$bootstrap" -t "$topic" -K '|' -Z -l "$root/schemas/demo/inventory.products.jsonl"
echo "== produced $(wc -l <"$root/schemas/demo/inventory.products.jsonl") Debezium events to $topic"
echo "== cdcflow run schemas/inventory_demo.sql"
KAFKA_BOOTSTRAP=$bootstrap DEMO_DB=$db "$bin" run "$root/schemas/inventory_demo.sql"
echo "== the products table in SQLite ($db)"
sqlite3 -header -column "$db" "SELECT id, name, description, weight FROM products ORDER BY id"
