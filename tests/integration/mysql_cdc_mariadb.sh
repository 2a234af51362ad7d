#!/usr/bin/env bash
# The mysql-cdc source against a real MariaDB 10.11 (tests/servers/mariadb.sh, log_bin with
# binlog_format=ROW and binlog_row_metadata=FULL): `cdcflow run` of a job mysql-cdc -> print.
# The rows present at the start come from the consistent snapshot (+I), then inserts, updates
# (-U/+U), deletes and a rolled-back transaction (nothing) from the binlog. The job is stopped
# (SIGTERM: flush and commit), a row is added while it is down, and the restarted job resumes
# from its position.file: the new row only, nothing lost, nothing doubled. A server that
# cannot start is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
# shellcheck source=../servers/mariadb.sh
source "$src/tests/servers/mariadb.sh"
MY_EXTRA_ARGS="--log-bin=mbin --binlog-format=ROW --binlog-row-metadata=FULL --server-id=1"
if ! my_start cdcflow; then
  bad "could not start MariaDB"
  my_stop
  rm -rf "$tmp"
  echo "mysql_cdc_mariadb: $pass passed, $fail failed"
  exit 1
fi
job_pid=
cleanup() {
  [[ -n $job_pid ]] && kill "$job_pid" 2>/dev/null && wait "$job_pid" 2>/dev/null
  my_stop
  rm -rf "$tmp"
}
trap cleanup EXIT

my_sql -e "GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'writer'@'%';
  CREATE TABLE src (id INT PRIMARY KEY, v VARCHAR(20), n DECIMAL(10,2), ts TIMESTAMP(3) NULL);
  INSERT INTO src VALUES (1, 'a', 1.50, '2024-01-31 13:45:06.5'), (2, 'b', NULL, NULL);" ||
  bad "setup"

cat >job.sql <<SQL
CREATE TABLE src (id INT NOT NULL, v STRING, n DECIMAL(10, 2), ts TIMESTAMP_LTZ(3),
                  PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = 'src', 'server-id' = '777', 'position.file' = '$tmp/pos');
CREATE TABLE out (id INT NOT NULL, v STRING, n DECIMAL(10, 2), ts TIMESTAMP_LTZ(3))
WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM src;
SQL

wait_lines() { # file count: waits (bounded) until the file has count lines
  local i
  for i in $(seq 1 300); do
    [[ $(wc -l <"$1") -ge $2 ]] && return 0
    kill -0 "$job_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
stop_job() {
  kill -TERM "$job_pid"
  wait "$job_pid"
  local code=$?
  job_pid=
  return $code
}

# 1. snapshot, then the stream
"$bin" run job.sql >out1.txt 2>err1.txt &
job_pid=$!
wait_lines out1.txt 2 || bad "no snapshot rows: $(cat err1.txt)"
my_sql -e "INSERT INTO src VALUES (3, 'c', 3.00, NULL);
  UPDATE src SET v = 'a2' WHERE id = 1;
  DELETE FROM src WHERE id = 2;
  BEGIN; INSERT INTO src VALUES (9, 'rolled back', 0, NULL); ROLLBACK;"
wait_lines out1.txt 6 || bad "the stream rows did not come: $(cat err1.txt)"
stop_job || bad "the job did not stop cleanly: $(cat err1.txt)"
printf '%s\n' '+I[1, a, 1.50, 2024-01-31T13:45:06.500Z]' '+I[2, b, null, null]' \
  '+I[3, c, 3.00, null]' '-U[1, a, 1.50, 2024-01-31T13:45:06.500Z]' \
  '+U[1, a2, 1.50, 2024-01-31T13:45:06.500Z]' '-D[2, b, null, null]' >want1.txt
if diff -u want1.txt out1.txt; then ok; else bad "rows of the first run"; fi
if grep -qP '^mbin\.[0-9]{6}\t[0-9]+$' pos; then ok; else bad "position file: $(cat pos)"; fi

# 2. a change while the job is down; the restarted job resumes from its position
my_sql -e "INSERT INTO src VALUES (4, 'd', 4.25, '1970-01-01 00:00:01')"
"$bin" run job.sql >out2.txt 2>err2.txt &
job_pid=$!
wait_lines out2.txt 1 || bad "no row after the restart: $(cat err2.txt)"
my_sql -e "UPDATE src SET n = 5 WHERE id = 4"
wait_lines out2.txt 3 || bad "the stream after the restart: $(cat err2.txt)"
stop_job || bad "the second job did not stop cleanly: $(cat err2.txt)"
printf '%s\n' '+I[4, d, 4.25, 1970-01-01T00:00:01.000Z]' '-U[4, d, 4.25, 1970-01-01T00:00:01.000Z]' \
  '+U[4, d, 5.00, 1970-01-01T00:00:01.000Z]' >want2.txt
if diff -u want2.txt out2.txt; then ok; else bad "rows after the restart"; fi

# 3. DDL mid-stream, then kill -9 under a stream of changes: the restarted job (at least once,
#    from the last committed position) brings an upserting jdbc sink to the source's state
my_sql -e "ALTER TABLE src ADD COLUMN extra INT AFTER id; UPDATE src SET extra = 1"
cat >job3.sql <<SQL
CREATE TABLE src (id INT NOT NULL, v STRING, n DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = 'src', 'server-id' = '778', 'position.file' = '$tmp/pos3');
CREATE TABLE out (id INT NOT NULL, v STRING, n DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:$tmp/out.db', 'table-name' = 'out');
INSERT INTO out SELECT * FROM src;
SQL
sqlite3 "$tmp/out.db" "CREATE TABLE out (id INTEGER PRIMARY KEY, v TEXT, n NUMERIC)" ||
  bad "sqlite3"
{
  for i in $(seq 100 399); do
    echo "BEGIN; INSERT INTO src VALUES ($i, 0, 'v$i', $i.5, NULL);"
    echo "UPDATE src SET v = 'u$i', n = n + 1 WHERE id = $((i - 50)); COMMIT;"
    ((i % 7 == 0)) && echo "DELETE FROM src WHERE id = $((i - 3));"
  done
} >load.sql
"$bin" run job3.sql >out3.txt 2>err3.txt &
job_pid=$!
my_sql <load.sql &
load_pid=$!
# kill once the job has committed a stream position (a job killed in its snapshot takes a
# new snapshot, and rows deleted in between would stay in the sink)
for i in $(seq 1 300); do
  [[ -s $tmp/pos3 ]] && break
  sleep 0.1
done
[[ -s $tmp/pos3 ]] || bad "the job never committed a position: $(cat err3.txt)"
kill -9 "$job_pid"
wait "$job_pid" 2>/dev/null
job_pid=
wait "$load_pid" || bad "the load"
"$bin" run job3.sql >>out3.txt 2>>err3.txt &
job_pid=$!
# a change after the restart: the sink matches only once the resumed job streams
my_sql -e "UPDATE src SET v = 'after restart' WHERE id = 1"
want=$(my_sql -N -e "SELECT id, v, coalesce(n, 'NULL') FROM src ORDER BY id" | tr '\t' '|')
for i in $(seq 1 300); do
  got=$(sqlite3 "$tmp/out.db" "SELECT id, v, coalesce(printf('%.2f', n), 'NULL') FROM out ORDER BY id" 2>/dev/null)
  [[ $got == "$want" ]] && break
  sleep 0.1
done
stop_job || bad "the third job did not stop cleanly: $(cat err3.txt)"
if [[ $got == "$want" && $(wc -l <<<"$want") -gt 250 ]]; then ok; else
  bad "after kill -9 and resume the sink differs: $(diff <(echo "$want") <(echo "$got") | head -5)"
fi

# 4. the snapshot (text protocol) and the stream (binlog) give the same values for every type
my_sql -e "SET sql_mode = '';
  CREATE TABLE ty (id INT PRIMARY KEY, ti TINYINT, iu INT UNSIGNED, bu BIGINT UNSIGNED,
    d DECIMAL(10,2), f FLOAT, db DOUBLE, dt DATE, dtm DATETIME(6), ts TIMESTAMP(3) NULL,
    tm TIME(3), v VARCHAR(20), bn BINARY(4), bl BLOB, e ENUM('x','y'), st SET('a','b','c'),
    j JSON, b1 BIT(1), b10 BIT(10), y YEAR);
  INSERT INTO ty VALUES
    (1, -128, 4294967295, 18446744073709551615, -12.5, 1.25, -2.5e-10, '2024-02-29',
     '2024-01-31 13:45:06.123456', '2024-01-31 13:45:06.5', '12:34:56.789', 'héllo 😀', x'0102',
     x'00ff', 'y', 'a,c', '{\"k\": [1, null]}', b'1', b'1010000001', 2024),
    (2, NULL, 0, 0, 0, 0, 0, '0000-00-00', '0000-00-00 00:00:00', NULL, '00:00:00', '', x'',
     x'', 'x', '', '[]', b'0', b'0', 1901);"
cat >job4.sql <<SQL
CREATE TABLE ty (id INT NOT NULL, ti TINYINT, iu BIGINT, bu DECIMAL(20, 0), d DECIMAL(10, 2),
  f FLOAT, db DOUBLE, dt DATE, dtm TIMESTAMP(6), ts TIMESTAMP_LTZ(3), tm TIME(3), v STRING,
  bn BINARY(4), bl BYTES, e STRING, st STRING, j STRING, b1 BOOLEAN, b10 BYTES, y INT)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = 'ty', 'server-id' = '779');
CREATE TABLE out (id INT NOT NULL, ti TINYINT, iu BIGINT, bu DECIMAL(20, 0), d DECIMAL(10, 2),
  f FLOAT, db DOUBLE, dt DATE, dtm TIMESTAMP(6), ts TIMESTAMP_LTZ(3), tm TIME(3), v STRING,
  bn BINARY(4), bl BYTES, e STRING, st STRING, j STRING, b1 BOOLEAN, b10 BYTES, y INT)
WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM ty;
SQL
"$bin" run job4.sql >out4.txt 2>err4.txt &
job_pid=$!
wait_lines out4.txt 2 || bad "no snapshot rows of ty: $(cat err4.txt)"
my_sql -e "SET sql_mode = ''; INSERT INTO ty SELECT id + 10, ti, iu, bu, d, f, db, dt, dtm, ts,
  tm, v, bn, bl, e, st, j, b1, b10, y FROM ty ORDER BY id"
wait_lines out4.txt 4 || bad "no stream rows of ty: $(cat err4.txt)"
stop_job || bad "the fourth job did not stop cleanly: $(cat err4.txt)"
snap=$(head -2 out4.txt | sed 's/^+I\[[0-9]*, //')
stream=$(sed -n 3,4p out4.txt | sed 's/^+I\[[0-9]*, //')
if [[ $snap == "$stream" ]] && grep -q "^+I\[1, -128, 4294967295, 18446744073709551615, -12.50, 1.25, -2.5E-10, 2024-02-29, 2024-01-31T13:45:06.123456, 2024-01-31T13:45:06.500Z, 12:34:56.789, héllo 😀, x'01020000', x'00ff', y, a,c, {\"k\": \[1, null\]}, true, x'0281', 2024\]" out4.txt; then
  ok
else
  bad "snapshot and stream differ: $(diff <(echo "$snap") <(echo "$stream"))"
  cat out4.txt
fi

echo "mysql_cdc_mariadb: $pass passed, $fail failed"
((fail == 0))
