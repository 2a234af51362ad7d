#!/usr/bin/env bash
# UNION ALL run: one pipe per branch into one sink, so the branches' rows interleave; the rows
# are compared sorted. Inserts, updates and deletes pass as they are, no deduplication.
set -euo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/u.sql" <<'SQL'
CREATE TABLE a (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, a]; +I[2, b]; -U[1, a]; +U[1, aa]; -D[2, b]');
CREATE TABLE b (k BIGINT, label STRING) WITH ('connector' = 'values', 'data' = '+I[10, x]; +I[1, a]');
CREATE TABLE c (n SMALLINT, s STRING) WITH ('connector' = 'values', 'data' = '+I[7, z]');
CREATE TABLE out (id BIGINT, name STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, name FROM a WHERE id = 1 UNION ALL SELECT k, label FROM b
    UNION ALL SELECT n, s FROM c;
SQL
"$bin" run "$tmp/u.sql" | sort >"$tmp/got"
printf '%s\n' '+I[1, a]' '+I[1, a]' '+I[10, x]' '+I[7, z]' '+U[1, aa]' '-U[1, a]' | sort >"$tmp/want"
diff -u "$tmp/want" "$tmp/got"
# in a WITH query, filtered over the union
printf '%s\n' "WITH u AS (SELECT id, name FROM a UNION ALL SELECT k, label FROM b)" \
    "SELECT name FROM u WHERE id < 5;" >>"$tmp/u.sql"
sed -i '/^INSERT\|^    UNION/d' "$tmp/u.sql"
"$bin" run "$tmp/u.sql" | sort >"$tmp/got"
printf '%s\n' '+I[a]' '+I[a]' '+I[b]' '-U[a]' '+U[aa]' '-D[b]' | sort >"$tmp/want"
diff -u "$tmp/want" "$tmp/got"
# a bare query prints the branches' common type: DECIMAL(10, 3) for both
cat >"$tmp/d.sql" <<'SQL'
CREATE TABLE d1 (v DECIMAL(5, 2), n INT) WITH ('connector' = 'values', 'data' = '+I[1.50, 1]');
CREATE TABLE d2 (v DECIMAL(10, 3), n BIGINT) WITH ('connector' = 'values', 'data' = '+I[2.125, 2]');
SELECT v, n FROM d1 UNION ALL SELECT v, n FROM d2;
SQL
"$bin" run "$tmp/d.sql" | sort >"$tmp/got"
printf '%s\n' '+I[1.500, 1]' '+I[2.125, 2]' >"$tmp/want"
diff -u "$tmp/want" "$tmp/got"
# two branches into one filesystem table: each pipe's writer names its files with its own run
# id, so none collide and every row is there once
cat >"$tmp/fs.sql" <<SQL
CREATE TABLE a (id INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]; +I[2, b]');
CREATE TABLE b (id INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[3, c]');
CREATE TABLE out (id INT, name STRING) WITH (
    'connector' = 'filesystem', 'path' = '$tmp/fsout', 'format' = 'csv');
INSERT INTO out SELECT * FROM a UNION ALL SELECT * FROM b;
SQL
"$bin" run "$tmp/fs.sql"
[[ $(find "$tmp/fsout" -name 'part-*' -type f | wc -l) -eq 2 ]]
cat "$tmp"/fsout/part-* | sort >"$tmp/got"
printf '%s\n' '1,a' '2,b' '3,c' >"$tmp/want"
diff -u "$tmp/want" "$tmp/got"
echo "union_all: ok"
