#!/usr/bin/env bash
# The filesystem source on a table laid out by hand the Hive way: typed
# partition columns from escaped directory names, the default partition as
# NULL, hidden files ignored; partition pruning proved by EXPLAIN and by
# corrupt files in the pruned partitions that must never be opened;
# projection, limit, parallel reading, row-count statistics, errors naming
# file:line.
set -uo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fail=$((fail + 1)); }

t=$tmp/t
mkdir -p "$t/dt=2024-01-01/hr=10" "$t/dt=2024-01-01/hr=11" "$t/dt=2024-01-02/hr=10" \
  "$t/dt=__HIVE_DEFAULT_PARTITION__/hr=10" "$t/dt=a%2Fb%3Dc/hr=9"
printf '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n' >"$t/dt=2024-01-01/hr=10/part-0"
printf '{"id":3,"name":"c"}\r\n\n{"id":4}' >"$t/dt=2024-01-01/hr=11/part-0" # CRLF, blank line, no final newline
printf '{"id":5,"name":"e"}\n' >"$t/dt=2024-01-02/hr=10/part-0"
printf '{"id":6,"name":"f"}\n' >"$t/dt=__HIVE_DEFAULT_PARTITION__/hr=10/part-0"
printf '{"id":7,"name":"g"}\n' >"$t/dt=a%2Fb%3Dc/hr=9/part-0"
# hidden files: in-progress files, markers, temporary directories
printf 'NOT JSON\n' >"$t/dt=2024-01-01/hr=10/.part-x.inprogress"
printf 'NOT JSON\n' >"$t/dt=2024-01-01/hr=10/_SUCCESS"
mkdir -p "$t/_temporary" && printf 'NOT JSON\n' >"$t/_temporary/x"

ddl="CREATE TABLE t (id BIGINT, name STRING, dt DATE, hr INT) PARTITIONED BY (dt, hr) WITH (
  'connector' = 'filesystem', 'path' = '$t', 'format' = 'json');"
# the directory value a%2Fb%3Dc is not a DATE: a STRING table reads it, a DATE table names it
cat >"$tmp/all.sql" <<SQL
CREATE TABLE t (id BIGINT, name STRING, dt STRING, hr INT) PARTITIONED BY (dt, hr) WITH (
  'connector' = 'filesystem', 'path' = '$t', 'format' = 'json');
SELECT * FROM t;
SQL
if "$bin" run "$tmp/all.sql" >"$tmp/all" 2>&1; then
  cat >"$tmp/want" <<'OUT'
+I[1, a, 2024-01-01, 10]
+I[2, b, 2024-01-01, 10]
+I[3, c, 2024-01-01, 11]
+I[4, null, 2024-01-01, 11]
+I[5, e, 2024-01-02, 10]
+I[6, f, null, 10]
+I[7, g, a/b=c, 9]
OUT
  diff <(sort "$tmp/all") "$tmp/want" >/dev/null && ok || ko "hand-made table: $(cat "$tmp/all")"
else
  ko "reading the hand-made table failed: $(cat "$tmp/all")"
fi
cat >"$tmp/bad_type.sql" <<SQL
$ddl
SELECT * FROM t;
SQL
if "$bin" run "$tmp/bad_type.sql" >"$tmp/bt" 2>&1; then ko "a non-DATE directory was accepted"; else
  grep -q 'dt=a%2Fb%3Dc' "$tmp/bt" && ok || ko "bad partition value message: $(cat "$tmp/bt")"
fi
rm -rf "$t/dt=a%2Fb%3Dc"

# pruning: corrupt files in every partition the WHERE excludes
printf 'CORRUPT {\n' >"$t/dt=2024-01-02/hr=10/part-1"
printf 'CORRUPT {\n' >"$t/dt=__HIVE_DEFAULT_PARTITION__/hr=10/part-1"
printf 'CORRUPT {\n' >"$t/dt=2024-01-01/hr=11/part-1"
cat >"$tmp/prune.sql" <<SQL
$ddl
EXPLAIN SELECT id, name FROM t WHERE dt = DATE '2024-01-01' AND hr = 10;
EXPLAIN SELECT name FROM t;
SELECT id, name FROM t WHERE dt = DATE '2024-01-01' AND hr = 10;
SQL
if "$bin" run "$tmp/prune.sql" >"$tmp/prune" 2>&1; then
  grep -q 'partitions=\[{dt=2024-01-01, hr=10}\]' "$tmp/prune" && ok || ko "EXPLAIN partitions: $(cat "$tmp/prune")"
  grep -q 'project=\[name\]' "$tmp/prune" && ok || ko "EXPLAIN project: $(cat "$tmp/prune")"
  grep -q 'rowCount=2' "$tmp/prune" && ok || ko "EXPLAIN rowCount: $(cat "$tmp/prune")"
  [[ $(grep -c '^+I' "$tmp/prune") -eq 2 ]] && grep -q '^+I\[2, b\]$' "$tmp/prune" && ok ||
    ko "pruned rows: $(cat "$tmp/prune")"
else
  ko "a pruned read opened a corrupt file: $(cat "$tmp/prune")"
fi
# the corrupt files are really there: reading them fails and names file:line
cat >"$tmp/corrupt.sql" <<SQL
$ddl
SELECT * FROM t WHERE hr = 11;
SQL
if "$bin" run "$tmp/corrupt.sql" >"$tmp/corrupt" 2>&1; then ko "a corrupt file was read"; else
  grep -q "dt=2024-01-01/hr=11/part-1:1: " "$tmp/corrupt" && ok || ko "corrupt file message: $(cat "$tmp/corrupt")"
fi
# IS NULL prunes to the default partition
cat >"$tmp/null.sql" <<SQL
$ddl
SELECT id FROM t WHERE dt IS NULL AND id > 0;
SQL
rm -f "$t/dt=__HIVE_DEFAULT_PARTITION__/hr=10/part-1"
if "$bin" run "$tmp/null.sql" >"$tmp/null" 2>&1; then
  [[ "$(cat "$tmp/null")" == "+I[6]" ]] && ok || ko "IS NULL partition: $(cat "$tmp/null")"
else
  ko "IS NULL read failed: $(cat "$tmp/null")"
fi
rm -f "$t/dt=2024-01-02/hr=10/part-1" "$t/dt=2024-01-01/hr=11/part-1"

# parallel reading: three splits read every row once
cat >"$tmp/par.sql" <<SQL
SET 'parallelism.default' = '3';
$ddl
CREATE TABLE o (id BIGINT, name STRING, dt DATE, hr INT) WITH ('connector' = 'print');
EXPLAIN INSERT INTO o SELECT * FROM t;
INSERT INTO o SELECT * FROM t;
SQL
if "$bin" run "$tmp/par.sql" >"$tmp/par" 2>&1; then
  grep -q 'parallelism=3' "$tmp/par" && ok || ko "parallelism: $(cat "$tmp/par")"
  [[ $(grep -c '+I\[' "$tmp/par") -eq 6 ]] && [[ $(grep '+I\[' "$tmp/par" | sed 's/^[0-9]*> //' | sort -u | wc -l) -eq 6 ]] &&
    ok || ko "parallel rows: $(cat "$tmp/par")"
else
  ko "parallel read failed: $(cat "$tmp/par")"
fi

# limit pushdown stops reading
cat >"$tmp/limit.sql" <<SQL
$ddl
EXPLAIN SELECT * FROM t LIMIT 3;
SELECT * FROM t LIMIT 3;
SQL
if "$bin" run "$tmp/limit.sql" >"$tmp/limit" 2>&1; then
  grep -q 'limit=3' "$tmp/limit" && ok || ko "EXPLAIN limit: $(cat "$tmp/limit")"
  [[ $(grep -c '^+I' "$tmp/limit") -eq 3 ]] && ok || ko "limit rows: $(cat "$tmp/limit")"
else
  ko "limit read failed: $(cat "$tmp/limit")"
fi

# a bad line names the file and the line
mkdir -p "$tmp/b"
printf '{"id":1}\n{"id":"x"}\n' >"$tmp/b/f.json"
cat >"$tmp/badline.sql" <<SQL
CREATE TABLE b (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '$tmp/b', 'format' = 'json');
SELECT * FROM b;
SQL
if "$bin" run "$tmp/badline.sql" >"$tmp/badline" 2>&1; then ko "a bad line was accepted"; else
  grep -q "$tmp/b/f.json:2: " "$tmp/badline" && ok || ko "bad line message: $(cat "$tmp/badline")"
fi
# ... and is skipped with ignore-parse-errors
sed -i "s/'format' = 'json')/'format' = 'json', 'json.ignore-parse-errors' = 'true')/" "$tmp/badline.sql"
if "$bin" run "$tmp/badline.sql" >"$tmp/skip" 2>&1; then
  grep -q '^+I\[1\]$' "$tmp/skip" && ok || ko "skipped bad line: $(cat "$tmp/skip")"
else
  ko "ignore-parse-errors: $(cat "$tmp/skip")"
fi
# a directory that is not a partition directory is an error naming it
mkdir -p "$t/stray"
cat >"$tmp/stray.sql" <<SQL
$ddl
SELECT * FROM t;
SQL
if "$bin" run "$tmp/stray.sql" >"$tmp/stray" 2>&1; then ko "a stray directory was accepted"; else
  grep -q '/stray" of table .* is not a partition directory "dt=..."' "$tmp/stray" && ok || ko "stray message: $(cat "$tmp/stray")"
fi
echo "filesystem_read: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
