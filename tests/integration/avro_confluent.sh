#!/usr/bin/env bash
# The Avro formats end to end: `cdcflow run` against the kafka mock cluster (real protocol
# over TCP) and the local Schema Registry (tests/integration/lib/schema_registry.py, the
# documented Confluent REST endpoints; Karapace is on PyPI only, which the build machines
# cannot reach):
#  1. JSON rows written to Kafka as avro-confluent (the table's schema registered under the
#     subject), read back by a print query and by a jdbc:sqlite sink, exact rows;
#  2. Debezium changes written as debezium-avro-confluent and materialised into SQLite by key;
#  3. plain avro written and read back;
#  4. a wrong magic byte and an unknown schema id stop the job with errors that say where
#     (topic, partition, offset, byte) and what (the registry URL and its HTTP status).
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
tmp=$(mktemp -d)
source "${CDC_SOURCE_DIR:?}/tests/servers/kafka.sh"
reg_pid=
trap 'mock_stop_all; [[ -n $reg_pid ]] && kill "$reg_pid"; [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

mock_start mock --partitions 1 --topic src --topic av --topic dsrc --topic dbz --topic plain \
  --topic bad --topic bad2
python3 "$CDC_SOURCE_DIR/tests/integration/lib/schema_registry.py" >reg.out 2>reg.err &
reg_pid=$!
wait_for reg.out '^http://' || {
  echo "FAIL the test registry did not start"
  cat reg.err
  exit 1
}
REG=$(head -1 reg.out)

B="'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'"
COLS="id INT NOT NULL, name STRING, price DECIMAL(10, 2), ts TIMESTAMP(3), tags ARRAY<STRING>"

run_ok() { # NAME SQL: runs it, expects exit 0
  printf '%s\n' "$2" >"$1.sql"
  if timeout 60 "$bin" run "$1.sql" >"$1.out" 2>"$1.err"; then ok; else
    bad "$1: exit status"
    grep -v '^%' "$1.err" | head -5
  fi
}

same() { # NAME EXPECTED ACTUAL
  if [[ "$2" == "$3" ]]; then ok; else
    bad "$1"
    diff <(echo "$2") <(echo "$3")
  fi
}

# ---- 1. avro-confluent: write, then read back ------------------------------------------------
printf '%s\n' '{"id":1,"name":"scooter","price":"3.14","ts":"2020-07-30 10:08:22.123","tags":["a","b"]}' \
  '{"id":2,"name":null,"price":"-0.50","ts":null,"tags":[]}' \
  '{"id":3,"name":"caf\u00e9","price":null,"ts":"1969-12-31 23:59:59.999","tags":null}' |
  kcat -P -b "$BS" -t src
run_ok write "CREATE TABLE src ($COLS) WITH ('connector' = 'kafka', 'topic' = 'src',
  'properties.bootstrap.servers' = '$BS', 'format' = 'json', $B);
CREATE TABLE av ($COLS) WITH ('connector' = 'kafka', 'topic' = 'av',
  'properties.bootstrap.servers' = '$BS', 'format' = 'avro-confluent',
  'avro-confluent.url' = '$REG', 'avro-confluent.subject' = 'av-value');
INSERT INTO av SELECT * FROM src;"
latest=$(curl -s "$REG/subjects/av-value/versions/latest")
[[ $latest == *'"id": 1'* && $latest == *'timestamp-millis'* ]] && ok || bad "registered: $latest"
# the messages carry magic 0 and schema id 1
first=$(kcat -C -b "$BS" -t av -o beginning -c 1 -e -q -f '%s' | head -c 5 | od -An -tx1 | tr -d ' \n')
same header "0000000001" "$first"

READ="CREATE TABLE av ($COLS) WITH ('connector' = 'kafka', 'topic' = 'av',
  'properties.bootstrap.servers' = '$BS', 'format' = 'avro-confluent',
  'avro-confluent.url' = '$REG', $B);"
run_ok print "$READ SELECT * FROM av;"
same print_rows "+I[1, scooter, 3.14, 2020-07-30T10:08:22.123, [a, b]]
+I[2, null, -0.50, null, []]
+I[3, café, null, 1969-12-31T23:59:59.999, null]" "$(sed 's/^[0-9]*> //' print.out)"

run_ok sqlite "$READ
CREATE TABLE t (id INT NOT NULL, name STRING, price DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:$tmp/t.db', 'table-name' = 't',
  'sink.auto-create-table' = 'true');
INSERT INTO t SELECT id, name, price FROM av;"
same sqlite_rows "1|scooter|3.14
2||-0.50
3|café|" "$(sqlite3 t.db 'SELECT id, name, price FROM t ORDER BY id')"

# ---- 2. debezium-avro-confluent: changes through Kafka into SQLite by key ---------------------
printf '%s\n' '{"before":null,"after":{"id":1,"v":10},"op":"c"}' \
  '{"before":null,"after":{"id":2,"v":20},"op":"c"}' \
  '{"before":{"id":1,"v":10},"after":{"id":1,"v":11},"op":"u"}' \
  '{"before":{"id":2,"v":20},"after":null,"op":"d"}' \
  '{"before":null,"after":{"id":3,"v":30},"op":"r"}' | kcat -P -b "$BS" -t dsrc
DCOLS="id INT NOT NULL, v BIGINT, PRIMARY KEY (id) NOT ENFORCED"
run_ok dbz_write "CREATE TABLE dsrc ($DCOLS) WITH ('connector' = 'kafka', 'topic' = 'dsrc',
  'properties.bootstrap.servers' = '$BS', 'format' = 'debezium-json', $B);
CREATE TABLE dbz ($DCOLS) WITH ('connector' = 'kafka', 'topic' = 'dbz',
  'properties.bootstrap.servers' = '$BS', 'format' = 'debezium-avro-confluent',
  'debezium-avro-confluent.url' = '$REG', 'debezium-avro-confluent.subject' = 'dbz-value');
INSERT INTO dbz SELECT * FROM dsrc;"
DREAD="CREATE TABLE dbz ($DCOLS) WITH ('connector' = 'kafka', 'topic' = 'dbz',
  'properties.bootstrap.servers' = '$BS', 'format' = 'debezium-avro-confluent',
  'debezium-avro-confluent.url' = '$REG', $B);"
run_ok dbz_print "$DREAD SELECT * FROM dbz;"
same dbz_rows "+I[1, 10]
+I[2, 20]
-D[1, 10]
+I[1, 11]
-D[2, 20]
+I[3, 30]" "$(sed 's/^[0-9]*> //' dbz_print.out)"
run_ok dbz_sqlite "$DREAD
CREATE TABLE d ($DCOLS) WITH ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:$tmp/d.db',
  'table-name' = 'd', 'sink.auto-create-table' = 'true');
INSERT INTO d SELECT * FROM dbz;"
same dbz_sqlite_rows "1|11
3|30" "$(sqlite3 d.db 'SELECT id, v FROM d ORDER BY id')"

# ---- 3. plain avro ---------------------------------------------------------------------------
run_ok plain_write "CREATE TABLE src ($COLS) WITH ('connector' = 'kafka', 'topic' = 'src',
  'properties.bootstrap.servers' = '$BS', 'format' = 'json', $B);
CREATE TABLE p ($COLS) WITH ('connector' = 'kafka', 'topic' = 'plain',
  'properties.bootstrap.servers' = '$BS', 'format' = 'avro');
INSERT INTO p SELECT * FROM src;"
run_ok plain_read "CREATE TABLE p ($COLS) WITH ('connector' = 'kafka', 'topic' = 'plain',
  'properties.bootstrap.servers' = '$BS', 'format' = 'avro', $B); SELECT * FROM p;"
same plain_rows "$(sed 's/^[0-9]*> //' print.out)" "$(sed 's/^[0-9]*> //' plain_read.out)"

# ---- 4. errors ---------------------------------------------------------------------------------
fails() { # NAME TOPIC REGEX...: reading TOPIC as avro-confluent fails with every REGEX in stderr
  local name=$1 topic=$2
  shift 2
  printf '%s\n' "CREATE TABLE x (id INT) WITH ('connector' = 'kafka', 'topic' = '$topic',
    'properties.bootstrap.servers' = '$BS', 'format' = 'avro-confluent',
    'avro-confluent.url' = '$REG', $B); SELECT * FROM x;" >"$name.sql"
  if timeout 60 "$bin" run "$name.sql" >"$name.out" 2>"$name.err"; then
    bad "$name: the job did not fail"
    return
  fi
  for re in "$@"; do
    grep -Eq "$re" "$name.err" && ok || bad "$name: no '$re' in: $(grep -v '^%' "$name.err" | head -5)"
  done
}
echo 'hello' | kcat -P -b "$BS" -t bad
fails magic bad 'at byte 0: unknown magic byte 0x68' 'topic "bad" partition 0 offset 0'
printf '\x00\x00\x00\x03\xe7\x02' >unknown.bin
kcat -P -b "$BS" -t bad2 unknown.bin
fails unknown_id bad2 "unknown schema id 999: GET $REG/schemas/ids/999 answered HTTP 404" \
  'topic "bad2" partition 0 offset 0'

echo "avro_confluent: $pass passed, $fail failed"
((fail == 0))
