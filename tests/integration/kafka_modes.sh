#!/usr/bin/env bash
# The kafka connector against the mock cluster (real protocol over TCP): every startup and
# bounded mode, key and value formats with key.fields, metadata columns, messages written
# by kcat decoded and messages written by cdcflow read by kcat, the sink's partitioners,
# dead-letter routing, ignore-parse-errors, and the errors of bad tables and bad messages.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
tmp=$(mktemp -d)
source "${CDC_SOURCE_DIR:?}/tests/servers/kafka.sh"
trap 'mock_stop_all; [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

mock_start mock --partitions 1 --topic m --topic dl --topic kv --topic sinkj --topic dbz
mock_cmd "create p4 4" >/dev/null
mock_cmd "create rr 4" >/dev/null

# check NAME EXPECTED_STDOUT SQL...: runs the statements, compares the sorted printed rows
check() {
  local name=$1 expected=$2
  shift 2
  printf '%s\n' "$@" >"$name.sql"
  if ! timeout 60 "$bin" run "$name.sql" >"$name.out" 2>"$name.err"; then
    bad "$name: exit status"
    grep -v '^%' "$name.err" | head -5
    return
  fi
  sed -i 's/^[0-9]*> //' "$name.out" # the print sink's subtask prefix under parallelism
  if [[ "$(sort "$name.out")" == "$(printf '%s' "$expected" | sort)" ]]; then ok; else
    bad "$name: rows"
    diff <(printf '%s\n' "$expected" | sort) <(sort "$name.out")
  fi
}

# table NAME TOPIC EXTRA_OPTIONS [COLUMNS]: a json table over TOPIC
table() {
  echo "CREATE TABLE $1 (${4:-id INT, name STRING}) WITH ('connector' = 'kafka', 'topic' = '$2',
    'properties.bootstrap.servers' = '$BS', 'format' = 'json' $3);"
}

# ---- startup and bounded modes ----------------------------------------------------------------
for i in 1 2 3 4 5; do echo "{\"id\":$i,\"name\":\"n$i\"}"; done | kcat -P -b "$BS" -t m
sleep 1.1
ts=$(($(date +%s%N) / 1000000))
sleep 0.1
for i in 6 7 8 9 10; do echo "{\"id\":$i,\"name\":\"n$i\"}"; done | kcat -P -b "$BS" -t m
all=$(for i in $(seq 1 10); do echo "+I[$i, n$i]"; done)
rows() { for i in $(seq "$1" "$2"); do echo "+I[$i, n$i]"; done; }
B="'scan.bounded.mode' = 'latest-offset'"
check earliest "$all" "$(table m m ", 'scan.startup.mode' = 'earliest-offset', $B")" "SELECT * FROM m;"
check latest "" "$(table m m ", 'scan.startup.mode' = 'latest-offset', $B")" "SELECT * FROM m;"
check specific "$(rows 8 10)" "$(table m m ", 'scan.startup.mode' = 'specific-offsets',
  'scan.startup.specific-offsets' = 'partition:0,offset:7', $B")" "SELECT * FROM m;"
check start_ts "$(rows 6 10)" "$(table m m ", 'scan.startup.mode' = 'timestamp',
  'scan.startup.timestamp-millis' = '$ts', $B")" "SELECT * FROM m;"
check bound_ts "$(rows 1 5)" "$(table m m ", 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'timestamp', 'scan.bounded.timestamp-millis' = '$ts'")" "SELECT * FROM m;"
check bound_specific "$(rows 3 4)" "$(table m m ", 'scan.startup.mode' = 'specific-offsets',
  'scan.startup.specific-offsets' = 'partition:0,offset:2', 'scan.bounded.mode' = 'specific-offsets',
  'scan.bounded.specific-offsets' = 'partition:0,offset:4'")" "SELECT * FROM m;"
# group-offsets: a bounded run commits, the next run of the group starts after it
G=", 'properties.group.id' = 'gm', 'properties.auto.offset.reset' = 'earliest', $B"
check group_first "$all" "$(table m m "$G")" "SELECT * FROM m;"
check group_again "" "$(table m m "$G")" "SELECT * FROM m;"
echo '{"id":11,"name":"n11"}' | kcat -P -b "$BS" -t m
check group_more "+I[11, n11]" "$(table m m "$G")" "SELECT * FROM m;"
# several topics, a pattern, and parallelism over 4 partitions
for i in $(seq 1 40); do echo "$i|{\"id\":$i,\"name\":\"n$i\"}"; done |
  kcat -P -b "$BS" -t p4 -K'|'
check topics "$(rows 1 11; rows 1 40)" "$(table t 'm;p4' ", 'scan.startup.mode' = 'earliest-offset', $B")" \
  "SET 'parallelism.default' = '3';" "SELECT * FROM t;"
check pattern "$(rows 1 40)" "$(table t '' ", 'scan.startup.mode' = 'earliest-offset', $B" |
  sed "s/'topic' = ''/'topic-pattern' = 'p[0-9]'/")" "SELECT * FROM t;"
check parts "$(kcat -C -b "$BS" -t p4 -e -q -f '+I[%k, %p]\n')" \
  "$(table t p4 ", 'scan.startup.mode' = 'earliest-offset', $B" "id INT, name STRING, p INT METADATA FROM 'partition'")" \
  "SELECT id, p FROM t;"

# ---- key and value formats, metadata -----------------------------------------------------------
printf '%s\n' '{"id":1}|{"name":"a"}' '{"id":2}|{"name":"b"}' |
  kcat -P -b "$BS" -t kv -K'|' -H trace=t1 -H empty=
check keyvalue "+I[1, a, kv, 0, 0, {\"id\":1}, {trace=x'7431', empty=x''}]
+I[2, b, kv, 0, 1, {\"id\":2}, {trace=x'7431', empty=x''}]" \
  "CREATE TABLE kv (k_id INT, name STRING, tp STRING METADATA FROM 'topic' VIRTUAL,
    p INT METADATA FROM 'partition' VIRTUAL, o BIGINT METADATA FROM 'offset' VIRTUAL,
    k BYTES METADATA FROM 'key' VIRTUAL, h MAP<STRING, BYTES> METADATA FROM 'headers' VIRTUAL)
    WITH ('connector' = 'kafka', 'topic' = 'kv', 'properties.bootstrap.servers' = '$BS',
    'key.format' = 'json', 'key.fields' = 'k_id', 'key.fields-prefix' = 'k_',
    'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY',
    'scan.startup.mode' = 'earliest-offset', $B);" \
  "SELECT k_id, name, tp, p, o, CAST(k AS STRING), h FROM kv;"

# ---- the sink: cdcflow writes, kcat reads ------------------------------------------------------
check sink_json "" "CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'values',
    'data' = '+I[1, a]; +I[2, b]; +I[3, c]');" \
  "$(table sinkj sinkj ", 'key.format' = 'json', 'key.fields' = 'id'")" \
  "INSERT INTO sinkj SELECT * FROM src;"
got=$(kcat -C -b "$BS" -t sinkj -e -q -f '%k %s\n')
want='{"id":1} {"id":1,"name":"a"}
{"id":2} {"id":2,"name":"b"}
{"id":3} {"id":3,"name":"c"}'
[[ $got == "$want" ]] && ok || bad "sink_json: kcat read \"$got\""
check sink_rr "" "CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'values',
    'data' = '+I[1, a]; +I[2, b]; +I[3, c]; +I[4, d]; +I[5, e]; +I[6, f]; +I[7, g]; +I[8, h]');" \
  "$(table rr rr ", 'sink.partitioner' = 'round-robin'")" "INSERT INTO rr SELECT * FROM src;"
got=$(kcat -C -b "$BS" -t rr -e -q -f '%p\n' | sort | uniq -c | awk '{print $1}' | tr '\n' ' ')
[[ $got == "2 2 2 2 " ]] && ok || bad "sink_rr: per-partition counts \"$got\""
# a changelog round trip through debezium-json, read back by cdcflow
check sink_dbz "" "CREATE TABLE src (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)
    WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, a]; +I[2, b]; -U[1, a]; +U[1, aa]; -D[2, b]');" \
  "$(table dbz dbz ", 'key.format' = 'json', 'key.fields' = 'id'" "id INT NOT NULL, name STRING,
    PRIMARY KEY (id) NOT ENFORCED" | sed "s/'format' = 'json'/'value.format' = 'debezium-json'/")" \
  "INSERT INTO dbz SELECT * FROM src;"
[[ $(kcat -C -b "$BS" -t dbz -e -q -f '%s\n' | grep -c '"op"') -ge 4 ]] && ok || bad "sink_dbz: kcat sees no Debezium messages"
# (as Flink's debezium-json: -U is written as a delete, +U as a create)
check dbz_back "+I[1, a]
+I[2, b]
-D[1, a]
+I[1, aa]
-D[2, b]" "CREATE TABLE dbz (id INT NOT NULL, name STRING) WITH ('connector' = 'kafka', 'topic' = 'dbz',
    'properties.bootstrap.servers' = '$BS', 'format' = 'debezium-json',
    'scan.startup.mode' = 'earliest-offset', $B);" "SELECT * FROM dbz;"

# ---- upsert-kafka: a changelog in, tombstones on the topic, the table back out ----------------
U="'connector' = 'upsert-kafka', 'topic' = 'up', 'properties.bootstrap.servers' = '$BS',
    'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset'"
check upsert_sink "" "CREATE TABLE src (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)
    WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, a]; +I[2, b]; -U[1, a]; +U[1, aa]; -D[2, b]; +I[3, c]');" \
  "CREATE TABLE up (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ($U);" \
  "INSERT INTO up SELECT * FROM src;"
got=$(kcat -C -b "$BS" -t up -e -q -f '%k %S\n' | sort)
want='{"id":1} 19
{"id":1} 20
{"id":2} -1
{"id":2} 19
{"id":3} 19'
[[ $got == "$want" ]] && ok || bad "upsert_sink: kcat read \"$got\" (keys and value sizes; -1 = tombstone)"
sqlite3 up.db "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)"
check upsert_source "" "CREATE TABLE up (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ($U);" \
  "CREATE TABLE t (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = 'jdbc:sqlite:up.db', 'table-name' = 't');" \
  "INSERT INTO t SELECT * FROM up;"
got=$(sqlite3 up.db "SELECT id, name FROM t ORDER BY id")
[[ $got == $'1|aa\n3|c' ]] && ok || bad "upsert_source: table \"$got\""
# read for printing, the upsert changes are normalized into a full changelog (the -D carries
# the deleted row, restored from the key's last value)
check upsert_rows "+I[1, a]
+I[2, b]
-U[1, a]
+U[1, aa]
-D[2, b]
+I[3, c]" "CREATE TABLE up (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ($U);" \
  "SELECT * FROM up;"
# with sink.buffer-flush.*, only the last change of each key is produced (a burst is one message)
UB="'connector' = 'upsert-kafka', 'topic' = 'upbuf', 'properties.bootstrap.servers' = '$BS',
    'key.format' = 'json', 'value.format' = 'json', 'sink.buffer-flush.max-rows' = '1000',
    'sink.buffer-flush.interval' = '10s'"
check upsert_buffered "" "CREATE TABLE src (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)
    WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, a]; +I[2, b]; -U[1, a]; +U[1, aa]; -D[2, b]; +I[3, c]');" \
  "CREATE TABLE upbuf (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ($UB);" \
  "INSERT INTO upbuf SELECT * FROM src;"
got=$(kcat -C -b "$BS" -t upbuf -e -q -f '%k %S\n' | sort)
want='{"id":1} 20
{"id":2} -1
{"id":3} 19'
[[ $got == "$want" ]] && ok || bad "upsert_buffered: kcat read \"$got\" (one message per key expected)"

# ---- bad messages -------------------------------------------------------------------------------
printf '%s\n' '{"id":1,"name":"a"}' 'not json' '{"id":3,"name":"c"}' | kcat -P -b "$BS" -t dl
D=", 'scan.startup.mode' = 'earliest-offset', $B"
printf '%s\n' "$(table dl dl "$D")" "SELECT * FROM dl;" >stop.sql
if "$bin" run stop.sql >stop.out 2>stop.err; then bad "bad message: the job did not stop"; else ok; fi
grep -q 'CONTEXT: format "json", topic "dl" partition 0 offset 1' stop.err && ok ||
  bad "bad message: no topic/partition/offset in the error: $(grep -v '^%' stop.err | head -3)"
check deadletter "+I[1, a]
+I[3, c]" "$(table dl dl "$D, 'scan.dead-letter.topic' = 'dlq'")" "SELECT * FROM dl;"
got=$(kcat -C -b "$BS" -t dlq -e -q -f '%s|%h\n')
[[ $got == "not json|cdcflow.error="*"cdcflow.topic=dl,cdcflow.partition=0,cdcflow.offset=1" ]] && ok ||
  bad "deadletter: kcat read \"$got\""
printf '%s\n' '{"op":"c","after":{"id":1,"name":"a"}}' '{"op":' '{"op":"c","after":{"id":3,"name":"c"}}' |
  kcat -P -b "$BS" -t dlz
check ignore "+I[1, a]
+I[3, c]" "$(table dlz dlz "$D, 'debezium-json.ignore-parse-errors' = 'true'" |
  sed "s/'format' = 'json'/'format' = 'debezium-json'/")" "SELECT * FROM dlz;"
grep -q 'skipped 1 message' ignore.err && ok || bad "ignore: the skip was not counted"

fails() { # NAME PATTERN SQL...
  local name=$1 pattern=$2
  shift 2
  printf '%s\n' "$@" >"$name.sql"
  if "$bin" run "$name.sql" >"$name.out" 2>"$name.err"; then bad "$name: ran"; return; fi
  grep -q -- "$pattern" "$name.err" && ok || { bad "$name: no \"$pattern\" in"; cat "$name.err"; }
}
# ---- a delivery that fails fails the flush, with librdkafka's reason ---------------------------
answer=$(mock_cmd "down 1")
[[ $answer == ok ]] || bad "delivery: 'down 1' answered \"$answer\""
fails delivery "could not deliver 2 message(s) to topic \"sinkj\"" \
  "CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[7, x]; +I[8, y]');" \
  "$(table sinkj sinkj ", 'properties.message.timeout.ms' = '1500'")" "INSERT INTO sinkj SELECT * FROM src;"
grep -q "Message timed out" delivery.err && ok || bad "delivery: no librdkafka reason in the error"
answer=$(mock_cmd "up 1")
[[ $answer == ok ]] || bad "delivery: 'up 1' answered \"$answer\""

# ---- bad tables -----------------------------------------------------------------------------------
fails pk_json "cannot declare a PRIMARY KEY" \
  "$(table m m "$D" "id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED")" "SELECT * FROM m;"
fails bad_prop "No such configuration property" "$(table m m ", 'properties.no.such' = '1'")" "SELECT * FROM m;"
fails bad_value 'properties.fetch.wait.max.ms' "$(table m m ", 'properties.fetch.wait.max.ms' = 'abc'")" \
  "SELECT * FROM m;"
fails no_topic 'topic "nope" does not exist' "$(table m nope "$D")" "SELECT * FROM m;"
fails no_bootstrap 'properties.bootstrap.servers' \
  "CREATE TABLE m (id INT) WITH ('connector' = 'kafka', 'topic' = 'm', 'format' = 'json');" "SELECT * FROM m;"
fails key_needs_format 'needs option "key.format"' "$(table m m ", 'key.fields' = 'id'")" "SELECT * FROM m;"
fails bad_offsets "partition:N,offset:M" "$(table m m ", 'scan.startup.mode' = 'specific-offsets',
  'scan.startup.specific-offsets' = 'p0:1'")" "SELECT * FROM m;"
fails upsert_half_buffer "must both be greater than 0" \
  "CREATE TABLE src (id INT NOT NULL, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen', 'number-of-rows' = '1');" \
  "CREATE TABLE ub (id INT NOT NULL, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 'x', 'properties.bootstrap.servers' = '$BS', 'key.format' = 'json', 'value.format' = 'json', 'sink.buffer-flush.max-rows' = '10');" \
  "INSERT INTO ub SELECT * FROM src;"
fails upsert_no_pk "needs a PRIMARY KEY" \
  "CREATE TABLE up (id INT NOT NULL, name STRING) WITH ($U);" "SELECT * FROM up;"
fails upsert_cdc_format "needs insert-only formats" \
  "CREATE TABLE up (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    ${U/\'value.format\' = \'json\'/\'value.format\' = \'debezium-json\'});" "SELECT * FROM up;"
fails no_metadata 'offers no metadata key "nope"' \
  "$(table m m "$D" "id INT, x STRING METADATA FROM 'nope'")" "SELECT * FROM m;"

echo "kafka_modes: $pass passed, $fail failed"
((fail == 0))
