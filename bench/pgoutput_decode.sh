#!/usr/bin/env bash
# pgoutput decode speed: N changes (default 1,000,000: N/2 inserts into a narrow table, then an
# UPDATE of N/2 rows) on a throwaway PostgreSQL 15 (tests/servers/postgres.sh) with a pgoutput
# and a test_decoding slot made before them. The pgoutput messages are peeked hex-encoded into
# a file (not timed); then `cdcflow decode --format pgoutput` of that file to /dev/null
# (printing every row, and --count) against `pg_recvlogical` streaming the test_decoding slot
# to /dev/null up to the same LSN. Prints rows/s and the ratio. Not a test.
set -euo pipefail
n=${1:-1000000}
bin=${CDCFLOW_BIN:-$(cd "$(dirname "$0")/.." && pwd)/build/cdcflow}
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/servers/postgres.sh
source "$src/tests/servers/postgres.sh"
pg_start bench >/dev/null
work=$(mktemp -d)
trap 'pg_stop; rm -rf "$work"' EXIT
half=$((n / 2))
pg_psql -c "CREATE TABLE t (id int PRIMARY KEY, v int, s text)" \
  -c "CREATE PUBLICATION pub FOR TABLE t" \
  -c "SELECT 1 FROM pg_create_logical_replication_slot('po', 'pgoutput')" \
  -c "SELECT 1 FROM pg_create_logical_replication_slot('td', 'test_decoding')" >/dev/null
pg_psql -c "INSERT INTO t SELECT g, g * 7, 'row-' || g FROM generate_series(1, $half) g" \
  -c "UPDATE t SET v = v + 1" >/dev/null
end=$(pg_psql -At -c "SELECT pg_current_wal_lsn()")
pg_psql -At -c "SELECT encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes('po', NULL,
  NULL, 'proto_version', '1', 'publication_names', 'pub')" >"$work/changes.hex"
echo "pgoutput: $(wc -l <"$work/changes.hex") messages, $(stat -c %s "$work/changes.hex") hex bytes"
t() {
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
rows=$("$bin" decode --format pgoutput --count "$work/changes.hex" | cut -d' ' -f1)
[[ $rows -eq $n ]] || echo "warning: cdcflow decoded $rows rows, expected $n"
a=$(t "$bin" decode --format pgoutput "$work/changes.hex")
b=$(t "$bin" decode --format pgoutput --count "$work/changes.hex")
c=$(t "$PG_BIN/pg_recvlogical" -h "$PG_SOCK" -p "$PG_PORT" -U postgres -d bench --slot td \
  --start --endpos "$end" --no-loop -f /dev/null)
printf '%-44s %8.3f s %12.0f rows/s\n' "cdcflow decode (rows printed)" "$a" "$(echo "$n / $a" | bc -l)"
printf '%-44s %8.3f s %12.0f rows/s\n' "cdcflow decode --count (decoding only)" "$b" "$(echo "$n / $b" | bc -l)"
printf '%-44s %8.3f s %12.0f rows/s\n' "pg_recvlogical (test_decoding) to /dev/null" "$c" "$(echo "$n / $c" | bc -l)"
printf 'ratio: cdcflow (printing) is %.1fx pg_recvlogical+test_decoding; decoding only %.1fx\n' \
  "$(echo "$c / $a" | bc -l)" "$(echo "$c / $b" | bc -l)"
