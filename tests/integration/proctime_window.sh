#!/usr/bin/env bash
# Windows on processing time (a column AS PROCTIME()) fire on the wall clock while the input is
# read: a datagen source throttled to 10 rows a second runs for about 2.5 s through 1-second
# TUMBLE and HOP group windows and a window table function. Their rows cannot be predicted: the
# checks are that windows fired, each row's counts are sane, and no row is counted twice; no
# timing is asserted. Windows still open when the input ends do not fire (as in Flink).
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

table="CREATE TABLE clicks (usr STRING, pt AS PROCTIME()) WITH ('connector' = 'datagen',
  'number-of-rows' = '25', 'rows-per-second' = '10', 'fields.usr.length' = '1');"

check() { # NAME QUERY MAX: runs it; the rows' last fields are counts of 1 row or more, MAX at most in all
  { echo "$table"; echo "$2;"; } >job.sql
  if ! "$bin" run job.sql >out.txt 2>err.txt; then
    bad "$1: cdcflow run failed"
    head -5 err.txt
    return
  fi
  local n total
  n=$(grep -c '^+I\[' out.txt)
  total=$(sed -n 's/^+I\[.*, \([0-9]*\)\]$/\1/p' out.txt | awk '{ s += $1; if ($1 < 1) bad = 1 } END { print bad ? -1 : s + 0 }')
  if [[ $n -lt 1 ]]; then
    bad "$1: no window fired"
    cat out.txt err.txt | head -10
  elif [[ $total -lt 1 || $total -gt $3 ]]; then
    bad "$1: counts out of range (total $total, at most $3)"
    cat out.txt | head -10
  elif grep -v '^+I\[' out.txt | grep -q .; then
    bad "$1: a window aggregation emits inserts only"
    head -10 out.txt
  elif grep -q . err.txt && ! grep -q "processing-time window(s) of table .* had not ended" err.txt; then
    bad "$1: unexpected messages"
    head -5 err.txt
  else
    ok
  fi
}

check tumble "SELECT TUMBLE_START(pt, INTERVAL '1' SECOND), TUMBLE_PROCTIME(pt, INTERVAL '1' SECOND), COUNT(*) FROM clicks GROUP BY TUMBLE(pt, INTERVAL '1' SECOND)" 25
check tvf "SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(pt), INTERVAL '1' SECOND)) GROUP BY window_start, window_end" 25
# each row is in two 1-second windows of a HOP with a 0.5-second slide
check hop "SELECT HOP_END(pt, INTERVAL '0.5' SECOND, INTERVAL '1' SECOND), COUNT(*) FROM clicks GROUP BY HOP(pt, INTERVAL '0.5' SECOND, INTERVAL '1' SECOND)" 50

echo "proctime_window: $pass passed, $fail failed"
((fail == 0))
