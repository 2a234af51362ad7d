#!/usr/bin/env bash
# Lookup-join cases shared by tests/integration/lookup_{sqlite,postgres,mysql}.sh (sourced;
# not a test of its own). The caller defines:
#   ok / bad NAME         count a pass / a failure
#   db_sql "SQL"          runs statements against the database (dies loudly on error)
#   LK_URL                the jdbc url; LK_AUTH extra WITH options ("'username' = ..., ")
#   LK_TS                 the database's type for a TIMESTAMP(3) column
# and calls lookup_cases NAME. Every job reads a `values` or slow `datagen` stream and
# joins the dim table in the database; outputs are compared exactly. jdbc_scan_cases NAME
# reads a table of the database as a bounded scan source, whole and in scan.partition.*
# ranges over two splits.

# Waits (up to 20 s) until FILE has a line; returns 1 when it never came.
wait_line() {
  for _ in $(seq 200); do
    [[ -s $1 ]] && return 0
    sleep 0.1
  done
  return 1
}

# run_ok NAME FILE.sql: runs a script that must succeed; its stdout goes to FILE.out.
run_ok() {
  if "$bin" run "$2" >"$2.out" 2>"$2.err"; then ok; else
    bad "$1: exited non-zero"
    head -20 "$2.err"
  fi
}

expect_out() { # NAME FILE EXPECTED
  local actual
  actual=$(cat "$2")
  if [[ $actual == "$3" ]]; then ok; else
    bad "$1"
    diff <(echo "$3") <(echo "$actual") | head -20
  fi
}

dim_reset() {
  db_sql "DELETE FROM dim; INSERT INTO dim VALUES
    (1, 'a', 'one', 1.50, TRUE, '2020-07-30', '2020-07-30 10:08:22.123'),
    (1, 'b', 'uno', 2.00, FALSE, NULL, NULL),
    (2, 'a', 'two', 3.25, TRUE, '1999-12-31', '1999-12-31 23:59:59.999');
    DELETE FROM slow; INSERT INTO slow VALUES (0, 'old');"
}

lookup_cases() {
  local name=$1
  db_sql "CREATE TABLE dim (k INT, k2 VARCHAR(20), name VARCHAR(40), price DECIMAL(10, 2),
            ok BOOLEAN, d DATE, ts $LK_TS);
          CREATE TABLE slow (k INT, v VARCHAR(20))"
  dim_reset
  local ddl="CREATE TABLE dim (k INT, k2 STRING, name STRING, price DECIMAL(10, 2), ok BOOLEAN,
    d DATE, ts TIMESTAMP(3)) WITH ('connector' = 'jdbc', $LK_AUTH 'url' = '$LK_URL',
    'table-name' = 'dim', 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '2');"

  # 1. inner, left, two keys, an extra condition on the dim row; EXPLAIN shows the node
  cat >joins.sql <<SQL
$ddl
CREATE TABLE s (id INT NOT NULL, k INT, k2 STRING, pt AS PROCTIME()) WITH (
    'connector' = 'values', 'data' = '+I[1, 1, a]; +I[2, 1, b]; +I[3, 2, a]; +I[4, 3, a]; +I[5, 1, z]; +I[6, null, a]; +I[7, 1, a]');
EXPLAIN SELECT s.id, d.name FROM s JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.k;
SELECT s.id, d.name, d.price, d.ok, d.d, d.ts FROM s JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.k;
SELECT s.id, d.name FROM s LEFT JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.k AND d.k2 = s.k2;
SELECT s.id, name FROM s LEFT JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON d.k = s.k AND d.price > 1.75;
SQL
  run_ok "$name joins" joins.sql
  expect_out "$name joins: output" joins.sql.out "== Physical Plan ==
Sink(table=[*result*], fields=[id, name], changelogMode=[I], parallelism=1)
+- Calc(select=[id, name], changelogMode=[I])
   +- LookupJoin(table=[[default_catalog, default_database, dim]], joinType=[InnerJoin], lookup=[k=s.k], select=[id, k, k2, pt, k0, k20, name, price, ok, d, ts], cache=[PARTIAL, max-rows=2, cache-missing-key=true], changelogMode=[I])
      +- TableRow(columns=[id, k, k2, pt], changelogMode=[I])
         +- TableSourceScan(table=[[default_catalog, default_database, s]], fields=[id, k], changelogMode=[I], project=[id, k], rowCount=7)
+I[1, one, 1.50, true, 2020-07-30, 2020-07-30T10:08:22.123]
+I[1, uno, 2.00, false, null, null]
+I[2, one, 1.50, true, 2020-07-30, 2020-07-30T10:08:22.123]
+I[2, uno, 2.00, false, null, null]
+I[3, two, 3.25, true, 1999-12-31, 1999-12-31T23:59:59.999]
+I[5, one, 1.50, true, 2020-07-30, 2020-07-30T10:08:22.123]
+I[5, uno, 2.00, false, null, null]
+I[7, one, 1.50, true, 2020-07-30, 2020-07-30T10:08:22.123]
+I[7, uno, 2.00, false, null, null]
+I[1, one]
+I[2, uno]
+I[3, two]
+I[4, null]
+I[5, null]
+I[6, null]
+I[7, one]
+I[1, uno]
+I[2, uno]
+I[3, two]
+I[4, null]
+I[5, uno]
+I[6, null]
+I[7, uno]"

  # 2. a changelog probe: every row keeps its kind
  cat >kinds.sql <<SQL
$ddl
CREATE TABLE s (id INT NOT NULL, k INT, pt AS PROCTIME(), PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, 2]; -U[1, 2]; +U[1, 3]; +I[2, 2]; -D[2, 2]');
SELECT s.id, d.name FROM s LEFT JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.k;
SQL
  run_ok "$name kinds" kinds.sql
  expect_out "$name kinds: output" kinds.sql.out "+I[1, two]
-U[1, two]
+U[1, null]
+I[2, two]
-D[2, two]"

  # 3. the cache: the dim table changes while a slow stream is joined (40 rows, 5 per second;
  #    ids alternate between key 0, stored as 'old', and key 1, missing at first)
  local n=0
  for opts in "'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.expire-after-write' = '1 h'" \
    "'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100', 'lookup.partial-cache.cache-missing-key' = 'false'" \
    "'lookup.cache' = 'NONE'" \
    "'lookup.cache.max-rows' = '10', 'lookup.cache.ttl' = '1 s'"; do
    n=$((n + 1))
    dim_reset
    cat >cache$n.sql <<SQL
CREATE TABLE slow (k INT, v STRING) WITH ('connector' = 'jdbc', $LK_AUTH 'url' = '$LK_URL',
    'table-name' = 'slow', $opts);
CREATE TABLE gen (id INT NOT NULL, pt AS PROCTIME()) WITH ('connector' = 'datagen',
    'rows-per-second' = '5', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
    'fields.id.end' = '40');
SELECT g.id, d.v FROM gen AS g LEFT JOIN slow FOR SYSTEM_TIME AS OF g.pt AS d ON d.k = MOD(g.id, 2);
SQL
    local failed_before=$fail
    "$bin" run cache$n.sql >cache$n.out 2>cache$n.err &
    local job=$!
    if wait_line cache$n.out; then ok; else bad "$name cache$n: no row within 20 s"; fi
    db_sql "UPDATE slow SET v = 'new' WHERE k = 0; INSERT INTO slow VALUES (1, 'added')"
    if wait "$job"; then ok; else
      bad "$name cache$n: the job failed"
      head -20 cache$n.err
    fi
    local rows first0 last0 last1 new0 added
    rows=$(wc -l <cache$n.out)
    first0=$(grep -m1 -E '^\+I\[[0-9]*[02468], ' cache$n.out)
    last0=$(grep -E '^\+I\[[0-9]*[02468], ' cache$n.out | tail -1)
    last1=$(grep -E '^\+I\[[0-9]*[13579], ' cache$n.out | tail -1)
    new0=$(grep -c ', new\]' cache$n.out)
    added=$(grep -c ', added\]' cache$n.out)
    [[ $rows == 40 && $first0 == '+I[2, old]' ]] && ok || bad "$name cache$n: $rows rows, first '$first0'"
    case $n in
    1) # PARTIAL, missing keys cached: nothing of the change is seen within the TTL
      [[ $new0 == 0 && $added == 0 && $last0 == '+I[40, old]' && $last1 == '+I[39, null]' ]] &&
        ok || bad "$name cache$n: the change was seen through the cache ($last0, $last1)" ;;
    2) # PARTIAL without caching missing keys: the update is not seen, the new key is
      [[ $new0 == 0 && $last0 == '+I[40, old]' && $last1 == '+I[39, added]' ]] &&
        ok || bad "$name cache$n: expected old values and the added key ($last0, $last1)" ;;
    3) # NONE: every lookup reads the table
      [[ $last0 == '+I[40, new]' && $last1 == '+I[39, added]' ]] &&
        ok || bad "$name cache$n: the change was not seen without a cache ($last0, $last1)" ;;
    4) # legacy keys, a 1 s TTL: the change is seen once entries expire
      [[ $last0 == '+I[40, new]' && $last1 == '+I[39, added]' ]] &&
        ok || bad "$name cache$n: entries did not expire ($last0, $last1)" ;;
    esac
    if ((fail > failed_before)); then # what the job printed, for the record
      head -50 cache$n.out cache$n.err
    fi
  done

  # 4. a lookup that cannot reach the database fails after lookup.max-retries
  cat >fail.sql <<SQL
CREATE TABLE slow (k INT, v STRING) WITH ('connector' = 'jdbc', $LK_AUTH 'url' = '$LK_BAD_URL',
    'table-name' = 'slow', 'lookup.max-retries' = '1');
CREATE TABLE s (id INT NOT NULL, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[1]');
SELECT s.id, d.v FROM s JOIN slow FOR SYSTEM_TIME AS OF s.pt AS d ON d.k = s.id;
SQL
  if "$bin" run fail.sql >fail.out 2>fail.err; then bad "$name fail: an unreachable database joined"; else ok; fi
  if grep -q 'lookup failed after 2 attempts (lookup.max-retries = 1)' fail.err &&
    grep -q 'looking up table "default_catalog.default_database.slow"' fail.err; then ok; else
    bad "$name fail: the error does not say what failed"
    cat fail.err
  fi
}

# lookup_types NAME: BYTES, DOUBLE, TIME and TIMESTAMP_LTZ read back through a lookup
# (LK_TYPES_DDL creates table `typed` (k, b, f, t, tz) and inserts one row with k = 1:
# bytes 0a1b00ff, 2.5, 10:08:22.123, 2020-07-30 10:08:22.123 UTC)
lookup_types() {
  db_sql "$LK_TYPES_DDL"
  cat >types.sql <<SQL
CREATE TABLE typed (k INT, b BYTES, f DOUBLE, t TIME(3), tz TIMESTAMP(3) WITH LOCAL TIME ZONE)
WITH ('connector' = 'jdbc', $LK_AUTH 'url' = '$LK_URL', 'table-name' = 'typed');
CREATE TABLE s (id INT NOT NULL, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[1]; +I[2]');
SELECT s.id, d.b, d.f, d.t, d.tz FROM s LEFT JOIN typed FOR SYSTEM_TIME AS OF s.pt AS d ON d.k = s.id;
SQL
  run_ok "$1 types" types.sql
  expect_out "$1 types: output" types.sql.out "+I[1, x'0a1b00ff', 2.5, 10:08:22.123, 2020-07-30T10:08:22.123Z]
+I[2, null, null, null, null]"
}

# lookup_bad_value NAME: a stored value the declared type cannot hold fails at once (no retry)
lookup_bad_value() {
  dim_reset
  cat >badvalue.sql <<SQL
CREATE TABLE slow (k INT, v INT) WITH ('connector' = 'jdbc', $LK_AUTH 'url' = '$LK_URL',
    'table-name' = 'slow');
CREATE TABLE s (id INT NOT NULL, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[0]');
SELECT s.id, d.v FROM s JOIN slow FOR SYSTEM_TIME AS OF s.pt AS d ON d.k = s.id;
SQL
  if "$bin" run badvalue.sql >badvalue.out 2>badvalue.err; then bad "$1 bad value: joined"; else ok; fi
  if grep -q "a row of table \"slow\" cannot be read: column \"v\" holds 'old', not a value of type INT" \
    badvalue.err && grep -q 'lookup failed after 1 attempt (lookup.max-retries = 3)' badvalue.err &&
    ! grep -q retrying badvalue.err; then ok; else
    bad "$1 bad value: expected an immediate error naming the column"
    cat badvalue.err
  fi
}

# lookup_restart NAME RESTART_CMD: a slow stream joined without a cache while the server
# restarts; the lookups that fail are retried and every row is joined.
lookup_restart() {
  dim_reset
  db_sql "INSERT INTO slow VALUES (1, 'one')"
  cat >restart.sql <<SQL
CREATE TABLE slow (k INT, v STRING) WITH ('connector' = 'jdbc', $LK_AUTH 'url' = '$LK_URL',
    'table-name' = 'slow', 'lookup.max-retries' = '5');
CREATE TABLE gen (id INT NOT NULL, pt AS PROCTIME()) WITH ('connector' = 'datagen',
    'rows-per-second' = '5', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
    'fields.id.end' = '30');
SELECT g.id, d.v FROM gen AS g JOIN slow FOR SYSTEM_TIME AS OF g.pt AS d ON d.k = MOD(g.id, 2);
SQL
  "$bin" run restart.sql >restart.out 2>restart.err &
  local job=$!
  if wait_line restart.out; then ok; else bad "$1 restart: no row within 20 s"; fi
  if $2; then ok; else bad "$1 restart: the server did not restart"; fi
  if kill -0 "$job" 2>/dev/null; then ok; else bad "$1 restart: the job ended during the restart"; fi
  if wait "$job"; then ok; else
    bad "$1 restart: the job did not survive the restart"
    tail -20 restart.err
  fi
  if grep -q 'WARN  lookup failed (attempt 1 of 6), retrying in 1000 ms' restart.err; then ok; else
    bad "$1 restart: no lookup was retried (the restart went unnoticed)"
  fi
  local joined
  joined=$(grep -cE '^\+I\[[0-9]+, (old|one)\]$' restart.out)
  [[ $joined == 30 ]] && ok || bad "$1 restart: $joined of 30 rows joined"
}

# The jdbc connector as a bounded scan source (Flink's scan.partition.*).
jdbc_scan_cases() {
  local name=$1
  db_sql "CREATE TABLE sc (id INT, v VARCHAR(20), d DECIMAL(10, 2));
          INSERT INTO sc VALUES (1, 'a', 1.50), (2, 'b', NULL), (3, 'c', 3.00), (4, 'd', 4.00),
            (5, 'e', 5.00), (6, 'f', 6.00), (7, 'g', 7.00), (8, 'h', 8.00), (9, 'i', 9.00),
            (10, 'j', 10.00), (100, 'out', 0.00), (NULL, 'null', NULL)"
  local cols="id INT, v STRING, d DECIMAL(10, 2)"
  local with="'connector' = 'jdbc', $LK_AUTH 'url' = '$LK_URL', 'table-name' = 'sc'"
  # scan NAME EXTRA_OPTIONS: prints the table's rows, sorted, over two splits
  scan() {
    printf '%s\n' "SET 'parallelism.default' = '2';" "CREATE TABLE sc ($cols) WITH ($with $2);" \
      "SELECT * FROM sc;" >"scan_$1.sql"
    "$bin" run "scan_$1.sql" >"scan_$1.raw" 2>"scan_$1.err" || bad "$name scan $1: $(head -5 "scan_$1.err")"
    sed 's/^[0-9]*> //' "scan_$1.raw" | sort -t, -k1,1 -V >"scan_$1.out"
  }
  local rows
  rows=$(printf '+I[%s]\n' '1, a, 1.50' '2, b, null' '3, c, 3.00' '4, d, 4.00' '5, e, 5.00' \
    '6, f, 6.00' '7, g, 7.00' '8, h, 8.00' '9, i, 9.00' '10, j, 10.00')
  scan whole ""
  expect_out "$name scan: the whole table" "scan_whole.out" "$(printf '%s\n' "$rows" '+I[100, out, 0.00]' '+I[null, null, null]' | sort -t, -k1,1 -V)"
  scan parts ", 'scan.partition.column' = 'id', 'scan.partition.num' = '3',
    'scan.partition.lower-bound' = '1', 'scan.partition.upper-bound' = '10', 'scan.fetch-size' = '2'"
  expect_out "$name scan: 3 ranges of 1..10 (100 and NULL outside)" "scan_parts.out" "$rows"
  grep -c '^[12]> ' scan_parts.raw | grep -qx 10 && ok || bad "$name scan: not both splits: $(cat scan_parts.raw)"
  scan many ", 'scan.partition.column' = 'id', 'scan.partition.num' = '50',
    'scan.partition.lower-bound' = '4', 'scan.partition.upper-bound' = '6'"
  expect_out "$name scan: more ranges than values" "scan_many.out" "$(echo "$rows" | sed -n 4,6p)"
  printf '%s\n' "CREATE TABLE sc ($cols) WITH ($with, 'scan.partition.column' = 'v',
    'scan.partition.num' = '2', 'scan.partition.lower-bound' = '1', 'scan.partition.upper-bound' = '9');" \
    "SELECT * FROM sc;" >scan_bad.sql
  if "$bin" run scan_bad.sql >scan_bad.out 2>scan_bad.err; then bad "$name scan: a STRING partition column ran"
  else grep -q "option \"scan.partition.column\" = 'v': not an integer column" scan_bad.err && ok ||
    bad "$name scan: $(cat scan_bad.err)"; fi
  sed -i "s/'v'/'id'/; s/'1', 'scan.partition.upper-bound' = '9'/'9', 'scan.partition.upper-bound' = '1'/" scan_bad.sql
  if "$bin" run scan_bad.sql >scan_bad.out 2>scan_bad.err; then bad "$name scan: lower > upper ran"
  else grep -q "'scan.partition.lower-bound'='9' must not be larger than 'scan.partition.upper-bound'='1'" \
    scan_bad.err && ok || bad "$name scan: $(cat scan_bad.err)"; fi
}
