#!/usr/bin/env bash
# Schema change detection of the mysql-binlog format (the mysql-cdc source's decoder) against
# a real MariaDB (tests/servers/mariadb.sh; binlog_row_metadata=FULL): every kind of DDL in
# tests/data/mysql_binlog/schema_ddl.sql (ADD with and without DEFAULT, DROP, RENAME COLUMN,
# CHANGE, INT -> BIGINT, VARCHAR(10) -> VARCHAR(100) -> TEXT, NOT NULL -> NULL, FIRST/AFTER,
# TRUNCATE, CREATE, RENAME TABLE, DROP TABLE, a DDL not read and the TABLE_MAP after it) with
# rows between them. `cdcflow decode --format mysql-binlog --table` must print the rows and the
# '-- schema change:' lines in order, as schema_ddl.gold has them. Then the schema history:
# a DDL made "while stopped" (in the next binlog file) is reported against the columns the
# history file holds from the first file; without the history it cannot be read (OTHER).
# A server that cannot start is a failure.
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
  echo "mysql_cdc_schema_detect: $pass passed, $fail failed"
  exit 1
fi
trap 'my_stop; rm -rf "$tmp"' EXIT

# 1. every kind of DDL, in one binlog file
binlog=$(my_sql -N -e "SHOW MASTER STATUS" | cut -f1)
my_sql <"$data/schema_ddl.sql" || bad "schema_ddl.sql"
my_sql -e "FLUSH BINARY LOGS" || bad "flush"
cp "$MY_DIR/data/$binlog" mbin.000001 || bad "no binlog file $binlog"
"$bin" decode --format mysql-binlog --table mbin.000001 >out.txt 2>err.txt
code=$?
if [[ $code -eq 0 && ! -s err.txt ]] && diff -u "$data/schema_ddl.gold" out.txt; then ok; else
  bad "decode (exit $code): $(head -3 err.txt)"
fi

# 2. the history: file 1 seeds the lists, a DDL in file 2 is reported against them
binlog=$(my_sql -N -e "SHOW MASTER STATUS" | cut -f1)
my_sql -e "CREATE TABLE h (id INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO h VALUES (1, 'a');
  FLUSH BINARY LOGS;" || bad "history setup"
cp "$MY_DIR/data/$binlog" mbin.000002 || bad "no binlog file $binlog"
binlog=$(my_sql -N -e "SHOW MASTER STATUS" | cut -f1)
my_sql -e "ALTER TABLE h MODIFY v VARCHAR(20) NOT NULL; INSERT INTO h VALUES (2, 'b');
  FLUSH BINARY LOGS;" || bad "DDL while stopped"
cp "$MY_DIR/data/$binlog" mbin.000003 || bad "no binlog file $binlog"
"$bin" decode --format mysql-binlog -o schema-history="$tmp/hist" mbin.000002 >h1.txt 2>&1 ||
  bad "decode file 2: $(cat h1.txt)"
if grep -q '^cdcflow.h	mbin.000002	[0-9]*	ROW<id INT NOT NULL, v VARCHAR(10)>$' hist; then ok; else
  bad "history after file 2: $(cat hist)"
fi
"$bin" decode --format mysql-binlog -o schema-history="$tmp/hist" mbin.000003 >h2.txt 2>&1
want='-- schema change: cdcflow.h at binlog mbin.000003:[0-9]*: ALTER COLUMN TYPE v VARCHAR(10) -> VARCHAR(20) NOT NULL'
if grep -q "^$want\$" h2.txt && grep -q '^+I\[2, b\]$' h2.txt; then ok; else
  bad "resumed with the history: $(cat h2.txt)"
fi
"$bin" decode --format mysql-binlog mbin.000003 >h3.txt 2>&1
if grep -q '^-- schema change: cdcflow.h at binlog mbin.000003:[0-9]*: OTHER DDL' h3.txt; then ok; else
  bad "resumed without the history: $(cat h3.txt)"
fi

echo "mysql_cdc_schema_detect: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
