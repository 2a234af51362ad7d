#!/usr/bin/env bash
# More of the mysql-cdc source against a real MariaDB 10.11 (tests/servers/mariadb.sh):
#  1. table-name as a regular expression: orders_1 and orders_2 (not orders_x, not other)
#     captured by 'orders_[0-9]+' into one table, with the metadata columns database_name,
#     table_name, op_ts (0 for snapshot rows, the binlog event time for stream rows) and
#     row_kind (between two others: the format's slots stay in place); snapshot then stream.
#  2. scan.startup.mode 'specific-offset' with a MariaDB GTID position (only the transactions
#     after it), 'timestamp' (events written with SET timestamp before and after the start time,
#     across a FLUSH BINARY LOGS: only the later ones; reading across a rotation also covers
#     regress_rotate: libmariadb 3.3 failed on the file after a real ROTATE), and server-time-zone '+08:00' (a
#     DATETIME declared TIMESTAMP_LTZ read as +08:00 wall time, a TIMESTAMP as the instant; the
#     snapshot and the stream agree); 'earliest-offset' (every change from the oldest binlog
#     file, no snapshot) and 'snapshot' (the snapshot only, then the job ends) with a
#     server-id range over 2 splits, and a range shorter than scan.parallelism refused.
#  3. mysql-cdc -> kafka (librdkafka's mock cluster, `cdcflow kafka-mock`) with debezium-json
#     and 'debezium-json.source.connector' = 'mysql': the source block, filled from the
#     source's metadata columns, read back with kcat and checked with python3 (connector, db,
#     table, snapshot, ts_ms, file/pos pointing at the Write_rows event SHOW BINLOG EVENTS
#     lists, the MariaDB GTID, server_id).
#  4. the debezium.* and jdbc.properties.* options:
#     a. 'debezium.binary.handling.mode' hex / base64 / base64-url-safe: BINARY(4) (its trailing
#        0x00 kept), VARBINARY and BLOB columns declared STRING as that text, the snapshot and
#        the binlog alike; 'bytes' (the default) refuses such a declaration naming the option.
#     b. 'debezium.snapshot.mode' 'initial_only' is scan.startup.mode 'snapshot' (the job ends),
#        'never' is 'earliest-offset'; one contradicting scan.startup.mode and an unknown value
#        are refused; a key the source has its own option for is refused naming it; any other
#        key is accepted with a warning naming it ignored.
#     c. jdbc.properties.*: connectTimeout/socketTimeout act (a job runs with them), useSSL=true
#        requires TLS (the test server has none: the connection fails saying so), a bad value
#        is refused, an unknown property is warned about.
# A server that cannot start is a failure.
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
  echo "mysql_cdc_more: $pass passed, $fail failed"
  exit 1
fi
job_pid=
cleanup() {
  [[ -n $job_pid ]] && kill "$job_pid" 2>/dev/null && wait "$job_pid" 2>/dev/null
  my_stop
  rm -rf "$tmp"
}
trap cleanup EXIT

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

my_sql -e "GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'writer'@'%';
  CREATE TABLE orders_1 (id INT PRIMARY KEY, v VARCHAR(20));
  CREATE TABLE orders_2 (v VARCHAR(20), id INT PRIMARY KEY);
  CREATE TABLE orders_x (id INT PRIMARY KEY, v VARCHAR(20));
  CREATE TABLE other (id INT PRIMARY KEY, v VARCHAR(20));
  INSERT INTO orders_1 VALUES (1, 'one-a');
  INSERT INTO orders_2 VALUES ('two-a', 1), ('two-b', 2);
  INSERT INTO orders_x VALUES (1, 'not matched');
  INSERT INTO other VALUES (1, 'not matched');" || bad "setup"

# ---- 1. table-name as a regular expression, with metadata ----------------------------------
cat >job1.sql <<SQL
CREATE TABLE orders (id INT NOT NULL, v STRING,
                     db STRING METADATA FROM 'database_name' VIRTUAL,
                     tab STRING METADATA FROM 'table_name' VIRTUAL,
                     rk STRING METADATA FROM 'row_kind' VIRTUAL,
                     ts TIMESTAMP_LTZ(3) METADATA FROM 'op_ts' VIRTUAL)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdc.*',
      'table-name' = 'orders_[0-9]+', 'server-id' = '801');
CREATE TABLE out (tab STRING, id INT, v STRING, db STRING, rk STRING, ts TIMESTAMP_LTZ(3))
WITH ('connector' = 'print');
INSERT INTO out SELECT tab, id, v, db, rk, ts FROM orders;
SQL
"$bin" run job1.sql >out1.txt 2>err1.txt &
job_pid=$!
wait_lines out1.txt 3 || bad "no snapshot rows: $(cat err1.txt)"
my_sql -e "INSERT INTO orders_2 VALUES ('two-c', 3);
  INSERT INTO orders_x VALUES (2, 'not matched');
  INSERT INTO other VALUES (2, 'not matched');
  UPDATE orders_1 SET v = 'one-b' WHERE id = 1;
  DELETE FROM orders_2 WHERE id = 1;"
wait_lines out1.txt 7 || bad "the stream rows did not come: $(cat err1.txt)"
sleep 0.5 # rows of unmatched tables would come after (they must not)
stop_job || bad "job 1 did not stop cleanly: $(cat err1.txt)"
# op_ts: 0 in the snapshot, today's date (the binlog event's time) in the stream
today=$(date -u +%Y-%m-%d)
sed -e 's/1970-01-01T00:00:00.000Z]$/true]/' -e "s/${today}T[0-9:.]*Z]\$/false]/" out1.txt >got1.txt
printf '%s\n' '+I[orders_1, 1, one-a, cdcflow, +I, true]' '+I[orders_2, 1, two-a, cdcflow, +I, true]' \
  '+I[orders_2, 2, two-b, cdcflow, +I, true]' '+I[orders_2, 3, two-c, cdcflow, +I, false]' \
  '-U[orders_1, 1, one-a, cdcflow, -U, false]' '+U[orders_1, 1, one-b, cdcflow, +U, false]' \
  '-D[orders_2, 1, two-a, cdcflow, -D, false]' >want1.txt
if diff -u want1.txt got1.txt; then ok; else bad "regex tables with metadata"; fi

# ---- 2a. specific-offset with a GTID position -----------------------------------------------
job() { # name server-id extra-options columns: a mysql-cdc -> print job on table $1
  cat >"$1.sql" <<SQL
CREATE TABLE src ($4)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = '$1', 'server-id' = '$2' $3);
CREATE TABLE out ($4) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM src;
SQL
}
my_sql -e "CREATE TABLE g (id INT PRIMARY KEY, v VARCHAR(20));
  INSERT INTO g VALUES (1, 'before');
  INSERT INTO g VALUES (2, 'before too');"
gtid=$(my_sql -N -e "SELECT @@gtid_binlog_pos")
my_sql -e "INSERT INTO g VALUES (3, 'after'); UPDATE g SET v = 'changed' WHERE id = 1;"
job g 802 ", 'scan.startup.mode' = 'specific-offset',
      'scan.startup.specific-offset.gtid-set' = '$gtid'" "id INT, v STRING"
"$bin" run g.sql >out2a.txt 2>err2a.txt &
job_pid=$!
wait_lines out2a.txt 3 || bad "no rows after the GTID $gtid: $(cat err2a.txt)"
my_sql -e "DELETE FROM g WHERE id = 2"
wait_lines out2a.txt 4 || bad "GTID start: the stream did not go on: $(cat err2a.txt)"
stop_job || bad "job 2a did not stop cleanly: $(cat err2a.txt)"
printf '%s\n' '+I[3, after]' '-U[1, before]' '+U[1, changed]' '-D[2, before too]' >want2a.txt
if [[ $gtid =~ ^0-1-[0-9]+$ ]] && diff -u want2a.txt out2a.txt; then ok; else
  bad "specific-offset from GTID \"$gtid\""
fi

# ---- 2b. timestamp: events before the start time (SET timestamp) are skipped ----------------
my_sql -e "CREATE TABLE tsm (id INT PRIMARY KEY, v VARCHAR(20));
  SET timestamp = 1000000000; INSERT INTO tsm VALUES (1, 'old');
  SET timestamp = 1700000000; INSERT INTO tsm VALUES (2, 'new');
  FLUSH BINARY LOGS;
  SET timestamp = 1000000001; INSERT INTO tsm VALUES (3, 'old again');
  SET timestamp = 1700000001; UPDATE tsm SET v = 'new 1' WHERE id = 1;"
job tsm 803 ", 'scan.startup.mode' = 'timestamp',
      'scan.startup.timestamp-millis' = '1500000000000'" "id INT, v STRING"
"$bin" run tsm.sql >out2b.txt 2>err2b.txt &
job_pid=$!
wait_lines out2b.txt 3 || bad "timestamp start: no rows: $(cat err2b.txt)"
my_sql -e "INSERT INTO tsm VALUES (4, 'now')"
wait_lines out2b.txt 4 || bad "timestamp start: the stream did not go on: $(cat err2b.txt)"
stop_job || bad "job 2b did not stop cleanly: $(cat err2b.txt)"
printf '%s\n' '+I[2, new]' '-U[1, old]' '+U[1, new 1]' '+I[4, now]' >want2b.txt
if diff -u want2b.txt out2b.txt; then ok; else bad "timestamp start"; fi

# ---- 2c. server-time-zone: DATETIME as TIMESTAMP_LTZ in the server's zone -------------------
my_sql -e "CREATE TABLE tz (id INT PRIMARY KEY, dt DATETIME(3), ts TIMESTAMP(3) NULL);
  SET time_zone = '+08:00';
  INSERT INTO tz VALUES (1, '2024-01-01 08:00:00.250', '2024-01-01 08:00:00.250');"
job tz 804 ", 'server-time-zone' = '+08:00'" "id INT, dt TIMESTAMP_LTZ(3), ts TIMESTAMP_LTZ(3)"
"$bin" run tz.sql >out2c.txt 2>err2c.txt &
job_pid=$!
wait_lines out2c.txt 1 || bad "server-time-zone: no snapshot row: $(cat err2c.txt)"
my_sql -e "SET time_zone = '+08:00';
  INSERT INTO tz VALUES (2, '2024-01-01 08:00:00.250', '2024-01-01 08:00:00.250');"
wait_lines out2c.txt 2 || bad "server-time-zone: no stream row: $(cat err2c.txt)"
stop_job || bad "job 2c did not stop cleanly: $(cat err2c.txt)"
printf '%s\n' '+I[1, 2024-01-01T00:00:00.250Z, 2024-01-01T00:00:00.250Z]' \
  '+I[2, 2024-01-01T00:00:00.250Z, 2024-01-01T00:00:00.250Z]' >want2c.txt
if diff -u want2c.txt out2c.txt; then ok; else bad "server-time-zone"; fi

# ---- 2d. earliest-offset: every change from the oldest binlog file, no snapshot -------------
my_sql -e "CREATE TABLE eo (id INT PRIMARY KEY, v VARCHAR(20));
  INSERT INTO eo VALUES (1, 'a'), (2, 'b'); UPDATE eo SET v = 'a2' WHERE id = 1;
  FLUSH BINARY LOGS; DELETE FROM eo WHERE id = 2;"
job eo 806 ", 'scan.startup.mode' = 'earliest-offset'" "id INT, v STRING"
"$bin" run eo.sql >out2d.txt 2>err2d.txt &
job_pid=$!
wait_lines out2d.txt 5 || bad "earliest-offset: no rows: $(cat err2d.txt)"
my_sql -e "INSERT INTO eo VALUES (3, 'c')"
wait_lines out2d.txt 6 || bad "earliest-offset: the stream did not go on: $(cat err2d.txt)"
stop_job || bad "job 2d did not stop cleanly: $(cat err2d.txt)"
printf '%s\n' '+I[1, a]' '+I[2, b]' '-U[1, a]' '+U[1, a2]' '-D[2, b]' '+I[3, c]' >want2d.txt
if diff -u want2d.txt out2d.txt; then ok; else bad "earliest-offset start"; fi

# ---- 2e. snapshot: the snapshot only, then the job ends; a server-id range, 2 splits --------
my_sql -e "CREATE TABLE sn (id INT PRIMARY KEY, v VARCHAR(20));
  INSERT INTO sn VALUES (1, 'x'), (2, 'y'), (3, 'z');"
job sn "810-811" ", 'scan.startup.mode' = 'snapshot', 'scan.parallelism' = '2',
      'scan.incremental.snapshot.chunk.size' = '1'" "id INT, v STRING"
if timeout 60 "$bin" run sn.sql >out2e.txt 2>err2e.txt; then
  my_sql -e "INSERT INTO sn VALUES (4, 'after')" # (the job has ended: not read)
  sed "s/^[0-9]*> //" out2e.txt | sort >got2e.txt # (print names its subtask)
  printf '%s\n' '+I[1, x]' '+I[2, y]' '+I[3, z]' >want2e.txt
  if diff -u want2e.txt got2e.txt; then ok; else bad "snapshot mode"; fi
else
  bad "snapshot mode: the job did not end by itself: $(cat err2e.txt)"
fi
# a range with fewer ids than splits: refused before connecting
job sn2 "810-811" ", 'scan.startup.mode' = 'snapshot', 'scan.parallelism' = '3'" "id INT, v STRING"
if ! "$bin" run sn2.sql >/dev/null 2>err2f.txt && grep -q "has 2 ids for 'scan.parallelism' = 3" err2f.txt; then
  ok
else
  bad "server-id range shorter than scan.parallelism: $(cat err2f.txt)"
fi

# ---- 3. Debezium source block: mysql-cdc -> kafka debezium-json ----------------------------
# shellcheck source=../servers/kafka.sh
source "$src/tests/servers/kafka.sh"
trap 'mock_stop_all; cleanup' EXIT
mock_start mock --partitions 1 --topic dz
my_sql -e "CREATE TABLE dz (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO dz VALUES (1, 'snap');"
cat >dz.sql <<SQL
CREATE TABLE src (id INT NOT NULL, v STRING,
  db STRING METADATA FROM 'database_name' VIRTUAL, tb STRING METADATA FROM 'table_name' VIRTUAL,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'op_ts' VIRTUAL, f STRING METADATA FROM 'source.file' VIRTUAL,
  p BIGINT METADATA FROM 'source.pos' VIRTUAL, g STRING METADATA FROM 'source.gtid' VIRTUAL,
  sid BIGINT METADATA FROM 'source.server_id' VIRTUAL,
  snap BOOLEAN METADATA FROM 'source.snapshot' VIRTUAL)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = 'dz', 'server-id' = '805');
CREATE TABLE k (id INT NOT NULL, v STRING, source_db STRING, source_table STRING,
  source_ts_ms TIMESTAMP_LTZ(3), source_file STRING, source_pos BIGINT, source_gtid STRING,
  source_server_id BIGINT, source_snapshot BOOLEAN)
WITH ('connector' = 'kafka', 'topic' = 'dz', 'properties.bootstrap.servers' = '$BS',
      'format' = 'debezium-json', 'debezium-json.source.connector' = 'mysql',
      'debezium-json.source.name' = 'shop');
INSERT INTO k SELECT id, v, db, tb, ts, f, p, g, sid, snap FROM src;
SQL
"$bin" run dz.sql >out3.txt 2>err3.txt &
job_pid=$!
for i in $(seq 1 300); do # the snapshot row on the topic
  [[ $(kcat -C -b "$BS" -t dz -e -q 2>/dev/null | wc -l) -ge 1 ]] && break
  kill -0 "$job_pid" 2>/dev/null || break
  sleep 0.1
done
my_sql -e "INSERT INTO dz VALUES (2, 'stream'); UPDATE dz SET v = 'snap2' WHERE id = 1;"
for i in $(seq 1 300); do
  [[ $(kcat -C -b "$BS" -t dz -e -q 2>/dev/null | wc -l) -ge 4 ]] && break
  kill -0 "$job_pid" 2>/dev/null || break
  sleep 0.1
done
stop_job || bad "job 3 did not stop cleanly: $(cat err3.txt)"
kcat -C -b "$BS" -t dz -e -q >dz.json
# the binlog event each stream message points at, as the server lists it
while read -r f p; do
  my_sql -N -e "SHOW BINLOG EVENTS IN '$f' FROM $p LIMIT 1" | cut -f2,3
done < <(python3 -c '
import json, sys
for line in open("dz.json"):
    s = json.loads(line)["source"]
    if s["snapshot"] == "false":
        print(s["file"], s["pos"])') >events.txt
if python3 - dz.json events.txt <<'PY'; then ok; else bad "Debezium source block: $(cat dz.json)"; fi
import json, re, sys
msgs = [json.loads(l) for l in open(sys.argv[1])]
events = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()]
assert [m["op"] for m in msgs] == ["c", "c", "d", "c"], [m["op"] for m in msgs]
assert msgs[0]["after"] == {"id": 1, "v": "snap"} and msgs[1]["after"] == {"id": 2, "v": "stream"}
assert msgs[2]["before"] == {"id": 1, "v": "snap"} and msgs[3]["after"] == {"id": 1, "v": "snap2"}
for i, m in enumerate(msgs):
    s = m["source"]
    assert s["connector"] == "mysql" and s["name"] == "shop" and s["version"], s
    assert s["db"] == "cdcflow" and s["table"] == "dz", s
    assert re.fullmatch(r"mbin\.[0-9]{6}", s["file"]), s
    for k in ("sequence", "row", "thread", "query"):
        assert k in s, (k, s)
    if i == 0:
        assert s["snapshot"] == "true" and s["ts_ms"] == 0 and s["gtid"] is None, s
        assert s["server_id"] == 0 and s["pos"] >= 4, s
    else:
        assert s["snapshot"] == "false" and s["ts_ms"] > 1600000000000, s
        assert s["ts_ms"] % 1000 == 0 and s["server_id"] == 1, s
        assert re.fullmatch(r"0-1-[0-9]+", s["gtid"]), s
assert msgs[2]["source"]["pos"] == msgs[3]["source"]["pos"]  # one Update_rows event
assert msgs[1]["source"]["gtid"] != msgs[2]["source"]["gtid"]
stream = [str(m["source"]["pos"]) for m in msgs[1:]]
assert [e[0] for e in events] == stream, (events, stream)  # SHOW BINLOG EVENTS: Pos, Event_type
assert [e[1] for e in events] == ["Write_rows_v1", "Update_rows_v1", "Update_rows_v1"], events
PY

# ---- 4a. debezium.binary.handling.mode: snapshot row 1, binlog row 2 ---------------------------
fails() { # name pattern: the job $name.sql must fail with pattern in its error
  if "$bin" run "$1.sql" >"$1.out" 2>"$1.err"; then bad "$1: ran"; return; fi
  grep -qF -- "$2" "$1.err" && ok || { bad "$1: no \"$2\" in"; cat "$1.err"; }
}
my_sql -e "CREATE TABLE bin (id INT PRIMARY KEY, b4 BINARY(4), vb VARBINARY(8), bl BLOB);
  INSERT INTO bin VALUES (1, 0x0102, 0xfbff, 0x00);"
COLS="id INT, b4 STRING, vb STRING, bl STRING"
for mode in hex base64 base64-url-safe; do
  job bin 900 ", 'debezium.binary.handling.mode' = '$mode'" "$COLS"
  "$bin" run bin.sql >"out_$mode.txt" 2>"err_$mode.txt" &
  job_pid=$!
  wait_lines "out_$mode.txt" 1 || bad "$mode: no snapshot row: $(cat "err_$mode.txt")"
  [[ $mode == hex ]] && my_sql -e "INSERT INTO bin VALUES (2, 0x41, 0x3e3f, 0xfbefbe)"
  wait_lines "out_$mode.txt" 2 || bad "$mode: no binlog row: $(cat "err_$mode.txt")"
  stop_job || bad "$mode: the job did not stop cleanly: $(cat "err_$mode.txt")"
done
printf '%s\n' '+I[1, 01020000, fbff, 00]' '+I[2, 41000000, 3e3f, fbefbe]' >want_hex.txt
printf '%s\n' '+I[1, AQIAAA==, +/8=, AA==]' '+I[2, QQAAAA==, Pj8=, ++++]' >want_base64.txt
printf '%s\n' '+I[1, AQIAAA==, -_8=, AA==]' '+I[2, QQAAAA==, Pj8=, ----]' >want_base64-url-safe.txt
for mode in hex base64 base64-url-safe; do
  if diff -u "want_$mode.txt" "out_$mode.txt"; then ok; else bad "binary.handling.mode $mode"; fi
done
job bin 901 ", 'scan.startup.mode' = 'snapshot'" "$COLS"
fails bin "declare it BYTES, or set 'debezium.binary.handling.mode' to base64, base64-url-safe or hex"
job bin 901 ", 'debezium.binary.handling.mode' = 'octal'" "$COLS"
fails bin "option \"debezium.binary.handling.mode\": expected bytes, base64, base64-url-safe or hex, found 'octal'"

# ---- 4b. debezium.snapshot.mode and the other debezium.* keys -----------------------------------
job bin 902 ", 'debezium.snapshot.mode' = 'initial_only', 'debezium.binary.handling.mode' = 'hex',
  'debezium.tombstones.on.delete' = 'false'" "$COLS"
if timeout 60 "$bin" run bin.sql >only.out 2>only.err; then
  [[ $(wc -l <only.out) == 2 ]] && ok || bad "initial_only: rows $(cat only.out)"
  grep -q 'option "debezium.tombstones.on.delete" is ignored' only.err && ok ||
    bad "initial_only: no warning for the ignored key: $(cat only.err)"
else
  bad "initial_only: the job did not end by itself (scan.startup.mode snapshot): $(cat only.err)"
fi
my_sql -e "CREATE TABLE nv (id INT PRIMARY KEY); INSERT INTO nv VALUES (1); DELETE FROM nv;"
job nv 903 ", 'debezium.snapshot.mode' = 'never'" "id INT"
"$bin" run nv.sql >nv.out 2>nv.err &
job_pid=$!
wait_lines nv.out 2 || bad "never: no binlog rows: $(cat nv.err)"
stop_job || bad "never: the job did not stop cleanly"
[[ $(cat nv.out) == $'+I[1]\n-D[1]' ]] && ok || bad "never (earliest-offset): $(cat nv.out)"
job nv 904 ", 'debezium.snapshot.mode' = 'never', 'scan.startup.mode' = 'initial'" "id INT"
fails nv "option \"debezium.snapshot.mode\" = 'never' means scan.startup.mode 'earliest-offset', but 'scan.startup.mode' = 'initial' is given too"
job nv 904 ", 'debezium.snapshot.mode' = 'when_needed'" "id INT"
fails nv "option \"debezium.snapshot.mode\": 'when_needed' has no equivalent here"
job nv 904 ", 'debezium.database.server.id' = '5'" "id INT"
fails nv "option \"debezium.database.server.id\": mysql-cdc is not Debezium and has its own option for this: use 'server-id' instead"
job nv 904 ", 'debezium.column.exclude.list' = 'cdcflow.nv.id'" "id INT"
fails nv "option \"debezium.column.exclude.list\": it changes which rows or values Debezium reads"

# ---- 4c. jdbc.properties.* ----------------------------------------------------------------------
job bin 905 ", 'scan.startup.mode' = 'snapshot', 'debezium.binary.handling.mode' = 'hex',
  'jdbc.properties.connectTimeout' = '2500', 'jdbc.properties.socketTimeout' = '30000',
  'jdbc.properties.characterEncoding' = 'UTF-8', 'jdbc.properties.useSSL' = 'false',
  'jdbc.properties.zeroDateTimeBehavior' = 'convertToNull'" "$COLS"
if timeout 60 "$bin" run bin.sql >jp.out 2>jp.err; then ok; else bad "jdbc.properties: $(cat jp.err)"; fi
grep -q 'option "jdbc.properties.zeroDateTimeBehavior" is ignored' jp.err && ok ||
  bad "jdbc.properties: no warning for an unknown property: $(cat jp.err)"
job bin 906 ", 'scan.startup.mode' = 'snapshot', 'jdbc.properties.useSSL' = 'true'" "$COLS"
fails bin "did not start TLS (SSL), which jdbc.properties useSSL/requireSSL/sslMode require"
job bin 906 ", 'jdbc.properties.connectTimeout' = 'soon'" "$COLS"
fails bin "option \"jdbc.properties.connectTimeout\": expected milliseconds (0 to 86400000), found 'soon'"
job bin 906 ", 'jdbc.properties.characterEncoding' = 'ISO-8859-1'" "$COLS"
fails bin "the source reads text as utf8mb4 (UTF-8) only"

echo "mysql_cdc_more: $pass passed, $fail failed"
((fail == 0))
