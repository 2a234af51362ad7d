#!/usr/bin/env bash
# The jdbc sink with the SQLite dialect through the cdcflow binary: a full
# changelog with a primary key lands in an auto-created table (checked with the
# sqlite3 command-line tool), EXPLAIN shows DropUpdateBefore, and an updating
# query into a table without a primary key is refused with the planner's hint.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

cat >upsert.sql <<'SQL'
CREATE TABLE src (id INT NOT NULL, name STRING, price DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, a, 1.50]; +I[2, b, 2.00]; -U[1, a, 1.50]; +U[1, aa, 1.75]; -D[2, b, 2.00]; +I[3, ''it''''s; "x"'', null]; +I[2, bb, 20.00]');
CREATE TABLE out (id INT NOT NULL, name STRING, price DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = 'jdbc:sqlite:out.db', 'table-name' = 'out',
    'sink.auto-create-table' = 'true', 'password' = 'hunter2');
EXPLAIN INSERT INTO out SELECT * FROM src;
INSERT INTO out SELECT * FROM src;
SQL

if "$bin" run upsert.sql >out.txt 2>err.txt; then ok; else
  bad "upsert pipeline exited non-zero"
  cat err.txt
fi
if grep -q 'DropUpdateBefore(changelogMode=\[I,UA,D\])' out.txt; then ok; else
  bad "EXPLAIN does not show DropUpdateBefore"
  cat out.txt
fi
if grep -q hunter2 out.txt err.txt; then bad "the password was printed"; else ok; fi
expected='1|aa|1.75
2|bb|20.00
3|it'"'"'s; "x"|NULL'
actual=$(sqlite3 out.db "SELECT id, name, coalesce(price, 'NULL') FROM out ORDER BY id" 2>&1)
if [[ $actual == "$expected" ]]; then ok; else
  bad "table contents"
  diff <(echo "$expected") <(echo "$actual")
fi
# running the same changes again leaves the same table (idempotent upserts)
"$bin" run upsert.sql >/dev/null 2>&1
actual=$(sqlite3 out.db "SELECT id, name, coalesce(price, 'NULL') FROM out ORDER BY id" 2>&1)
if [[ $actual == "$expected" ]]; then ok; else bad "second run changed the table"; fi

cat >nokey.sql <<'SQL'
CREATE TABLE src (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'data' = '+I[1, a]; -U[1, a]; +U[1, b]');
CREATE TABLE out (id INT NOT NULL, name STRING) WITH (
    'connector' = 'jdbc', 'url' = 'jdbc:sqlite:nokey.db', 'table-name' = 'out');
INSERT INTO out SELECT * FROM src;
SQL
if "$bin" run nokey.sql >out.txt 2>err.txt; then bad "an updating query into a table without a key ran"; else ok; fi
if grep -q "doesn't support consuming update and delete changes" err.txt &&
  grep -q 'HINT: declare a PRIMARY KEY on "default_catalog.default_database.out"' err.txt; then ok; else
  bad "the planner's message lacks the primary key hint"
  cat err.txt
fi

# an insert-only query into a table without a key appends
cat >append.sql <<'SQL'
CREATE TABLE src (id INT NOT NULL, name STRING) WITH (
    'connector' = 'values', 'data' = '+I[1, a]; +I[1, a]; +I[2, b]');
CREATE TABLE out (id INT NOT NULL, name STRING) WITH (
    'connector' = 'jdbc', 'url' = 'jdbc:sqlite:append.db', 'table-name' = 'out',
    'sink.auto-create-table' = 'true');
INSERT INTO out SELECT * FROM src;
SQL
"$bin" run append.sql >/dev/null 2>err.txt || cat err.txt
actual=$(sqlite3 append.db "SELECT id, name FROM out ORDER BY rowid" 2>&1)
if [[ $actual == $'1|a\n1|a\n2|b' ]]; then ok; else
  bad "append table contents"
  echo "$actual"
fi

echo "jdbc_sqlite: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
