#!/usr/bin/env bash
# The mysql-binlog format against a real MariaDB 10.11 (tests/servers/mariadb.sh) with
# log_bin, binlog_format=ROW and binlog_row_metadata=FULL: every column type with edge values,
# multi-row statements, a transaction and a rollback, DDL mid-stream and a partial image
# (binlog_row_image=MINIMAL), from tests/data/mysql_binlog/dml.sql. The binlog file is read
# from the datadir; `cdcflow decode --format mysql-binlog --table` must print
# tests/data/mysql_binlog/changes.gold (expected rows written by hand from dml.sql), agree
# with `mariadb-binlog --verbose` on the row changes, and name file:pos and the event type in
# its errors. A server that cannot start is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
data=$src/tests/data/mysql_binlog
tmp=$(mktemp -d)
cd "$tmp" || exit 1

# shellcheck source=../servers/mariadb.sh
source "$src/tests/servers/mariadb.sh"
MY_EXTRA_ARGS="--log-bin=mbin --binlog-format=ROW --binlog-row-metadata=FULL --server-id=1"
if ! my_start cdcflow; then
  bad "could not start MariaDB"
  my_stop
  rm -rf "$tmp"
  echo "binlog_mariadb: $pass passed, $fail failed"
  exit 1
fi
trap 'my_stop; rm -rf "$tmp"' EXIT

my_sql <"$data/dml.sql" || bad "dml.sql"
# the file the changes went to (a launch retried on another port has begun a new one)
binlog=$(my_sql -N -e "SHOW MASTER STATUS" | cut -f1)
my_sql -e "FLUSH BINARY LOGS" || bad "flush"
cp "$MY_DIR/data/$binlog" mbin.000001 || bad "no binlog file $binlog"

# 1. the rows
"$bin" decode --format mysql-binlog --table mbin.000001 >out.txt 2>err.txt
code=$?
sed -i 's/é\{300\}/<300 é>/' out.txt
# (the DDL's '-- schema change:' lines are mysql_cdc_schema_detect.sh's subject)
sed -i '/^-- schema change: /d' out.txt
if [[ $code -eq 0 && ! -s err.txt ]] && diff -u "$data/changes.gold" out.txt; then ok; else
  bad "decode (exit $code): $(head -3 err.txt)"
fi

# 2. mariadb-binlog --verbose sees the same row changes
mariadb-binlog --no-defaults --verbose mbin.000001 >mb.txt 2>/dev/null
for pair in "INSERT +I" "UPDATE +U" "DELETE -D"; do
  set -- $pair
  theirs=$(grep -ac "^### $1 \(INTO \|FROM \)\?\`" mb.txt)
  ours=$(grep -c "	$2\[" out.txt)
  if [[ $theirs -eq $ours && $ours -gt 0 ]]; then ok; else
    bad "$1: mariadb-binlog has $theirs, cdcflow $ours"
  fi
done

# 3. a declared schema: columns by name, one table, and a type that does not fit
"$bin" decode --format mysql-binlog --schema 'bu DECIMAL(20, 0), id BIGINT, iu BIGINT' \
  -o table-name=ints mbin.000001 >named.txt 2>&1
sed -i '/^-- schema change: /d' named.txt
printf '%s\n' '+I[0, 1, 0]' '+I[18446744073709551615, 2, 4294967295]' '+I[null, 3, null]' \
  '-U[0, 1, 0]' '+U[0, 1, 0]' '-U[18446744073709551615, 2, 4294967295]' \
  '+U[18446744073709551615, 2, 4294967295]' '-D[null, 3, null]' >named.want
if diff -u named.want named.txt; then ok; else bad "decode with a declared schema"; fi
"$bin" decode --format mysql-binlog --schema 'iu INT' -o table-name=cdcflow.ints mbin.000001 \
  >narrow.txt 2>&1
# (a narrower declared integer is checked value by value: a widened source column keeps
# working while its values fit; 4294967295 does not)
if grep -q 'event WRITE_ROWS_V1 at mbin.000001:[0-9]*: row 2 of "cdcflow.ints", column "iu": 4294967295 does not fit the declared INT (the source column is INT UNSIGNED, read as BIGINT)' narrow.txt; then
  ok
else
  bad "narrowing a column: $(cat narrow.txt)"
fi

# 4. errors: a corrupt byte fails the checksum of its event, a cut file ends inside an event
pos=$(grep -a '^# at ' mb.txt | sed -n 5p | cut -d' ' -f3)
cp mbin.000001 corrupt.000001
printf '\x55' | dd of=corrupt.000001 bs=1 seek=$((pos + 20)) conv=notrunc status=none
"$bin" decode --format mysql-binlog corrupt.000001 >corrupt.txt 2>&1
if grep -q "cannot decode corrupt.000001: event [A-Z_]* at corrupt.000001:$pos: checksum mismatch" corrupt.txt; then
  ok
else
  bad "corrupt byte at $((pos + 20)): $(cat corrupt.txt)"
fi
head -c -7 mbin.000001 >cut.000001
"$bin" decode --format mysql-binlog --count cut.000001 >cut.txt 2>&1
if grep -q "the input ends inside an event" cut.txt && grep -q '^22 rows' cut.txt; then ok; else
  bad "a cut file: $(cat cut.txt)"
fi
printf 'not a binlog' >junk.bin
"$bin" decode --format mysql-binlog junk.bin >junk.txt 2>&1
if grep -q 'junk.bin is not a binlog file: byte 0 is 0x6e' junk.txt; then ok; else
  bad "junk input: $(cat junk.txt)"
fi

echo "binlog_mariadb: $pass passed, $fail failed"
((fail == 0))
