#!/usr/bin/env bash
# The Quick start's Kafka demo (scripts/demo.sh) materialises the inventory example exactly:
# the embedded broker is filled with its Debezium events (snapshot reads, updates, an insert,
# a delete with its tombstone) and the SQLite table ends as the source table did.
set -uo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$src/scripts/demo.sh" "$bin" "$tmp/demo.db" >"$tmp/out" 2>"$tmp/err"; then
  echo "FAIL scripts/demo.sh exited non-zero"
  cat "$tmp/out" "$tmp/err"
  exit 1
fi
want="101|kick scooter|Small 2-wheel scooter|3.0
102|car battery|12V car battery|8.1
103|12-pack drill bits|12-pack of drill bits with sizes ranging from #40 to #3|0.8
104|hammer|12oz carpenter's hammer|0.75
105|hammer|14oz carpenter's hammer|0.875
106|hammer|18oz carpenter hammer|1.0
107|rocks|box of assorted rocks|5.1
108|jacket|water resistent black wind breaker|0.1
109|spare tire|24 inch spare tire|22.2
110|jacket|water resistent white wind breaker|5.1"
got=$(sqlite3 "$tmp/demo.db" "SELECT id, name, description, weight FROM products ORDER BY id")
if [[ $got != "$want" ]]; then
  echo "FAIL the demo table differs"
  diff <(echo "$want") <(echo "$got")
  exit 1
fi
grep -q "kick scooter" "$tmp/out" || { echo "FAIL the demo did not print the table"; exit 1; }
echo "quickstart_demo: ok"
