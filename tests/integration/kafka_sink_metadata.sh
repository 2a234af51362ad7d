#!/usr/bin/env bash
# Writable metadata columns of the kafka sink (Flink's R/W keys): a persisted `timestamp`
# and `headers` METADATA column becomes the message's timestamp and headers (read back by
# kcat, and by cdcflow's own source); a VIRTUAL one is not written; read-only keys and
# sinks without writable metadata are refused with Flink's text; upsert-kafka keeps the
# metadata of each key's last change when it buffers.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
tmp=$(mktemp -d)
source "${CDC_SOURCE_DIR:?}/tests/servers/kafka.sh"
trap 'mock_stop_all; [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

mock_start mock --partitions 1 --topic in --topic out --topic pass --topic virt --topic up

run() { # NAME SQL...: runs the statements, which must succeed
  local name=$1
  shift
  printf '%s\n' "$@" >"$name.sql"
  if timeout 60 "$bin" run "$name.sql" >"$name.out" 2>"$name.err"; then ok; else
    bad "$name: exit status"
    grep -v '^%' "$name.err" | head -5
  fi
}
fails() { # NAME PATTERN SQL...: the statements must fail with PATTERN in the error
  local name=$1 pattern=$2
  shift 2
  printf '%s\n' "$@" >"$name.sql"
  if "$bin" run "$name.sql" >"$name.out" 2>"$name.err"; then bad "$name: ran"; return; fi
  grep -qF -- "$pattern" "$name.err" && ok || { bad "$name: no \"$pattern\" in"; cat "$name.err"; }
}
K="'connector' = 'kafka', 'properties.bootstrap.servers' = '$BS'"
B="'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'"

# ---- json rows: a MAP column becomes the headers, a TIMESTAMP_LTZ the timestamp ----------------
printf '%s\n' '{"id":1,"ts":"2024-03-05 10:20:30.123Z","h":{"trace":"t1","k":"v"}}' \
  '{"id":2,"ts":null,"h":null}' | kcat -P -b "$BS" -t in
run json_in "CREATE TABLE src (id INT, ts TIMESTAMP_LTZ(3), h MAP<STRING, STRING>) WITH ($K,
    'topic' = 'in', 'format' = 'json', $B);" \
  "CREATE TABLE dst (id INT, h MAP<STRING, STRING> METADATA FROM 'headers',
    ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp') WITH ($K, 'topic' = 'out', 'format' = 'json');" \
  "INSERT INTO dst SELECT id, h, ts FROM src;"
got=$(kcat -C -b "$BS" -t out -e -q -f '%s %T %h\n' | head -1)
[[ $got == '{"id":1} 1709634030123 trace=t1,k=v' ]] && ok || bad "json_in: kcat read \"$got\""
# a NULL timestamp is the producer's clock, NULL headers are none
now=$(($(date +%s) * 1000))
read -r v t h < <(kcat -C -b "$BS" -t out -e -q -f '%s %T %h.\n' | sed -n 2p)
[[ $v == '{"id":2}' && $h == . ]] && ((t > now - 600000 && t < now + 600000)) && ok ||
  bad "json_in null: kcat read \"$v $t $h\""

# ---- Flink's pass-through: headers and timestamp read VIRTUAL, written persisted --------------
run pass "CREATE TABLE src (id INT, h MAP<STRING, BYTES> METADATA FROM 'headers' VIRTUAL,
    t TIMESTAMP(3) METADATA FROM 'timestamp' VIRTUAL) WITH ($K, 'topic' = 'out', 'format' = 'json', $B);" \
  "CREATE TABLE dst (t TIMESTAMP(3) METADATA FROM 'timestamp', id INT,
    headers MAP<STRING, BYTES> METADATA) WITH ($K, 'topic' = 'pass', 'format' = 'json');" \
  "INSERT INTO dst SELECT t, id, h FROM src WHERE id = 1;"
got=$(kcat -C -b "$BS" -t pass -e -q -f '%s %T %h\n')
[[ $got == '{"id":1} 1709634030123 trace=t1,k=v' ]] && ok || bad "pass: kcat read \"$got\""
# cdcflow's source reads them back as they were written
run read_back "CREATE TABLE p (id INT, h MAP<STRING, BYTES> METADATA FROM 'headers',
    t TIMESTAMP_LTZ(3) METADATA FROM 'timestamp') WITH ($K, 'topic' = 'pass', 'format' = 'json', $B);" \
  "SELECT id, CAST(t AS STRING), h FROM p;"
[[ $(cat read_back.out) == "+I[1, 2024-03-05 10:20:30.123, {trace=x'7431', k=x'76'}]" ]] && ok ||
  bad "read_back: $(cat read_back.out)"

# ---- a VIRTUAL metadata column of a sink is not written (nor expected from the query) ---------
run virtual "CREATE TABLE src (id INT, ts TIMESTAMP_LTZ(3), h MAP<STRING, STRING>) WITH ($K,
    'topic' = 'in', 'format' = 'json', $B);" \
  "CREATE TABLE dst (id INT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
    o BIGINT METADATA FROM 'offset' VIRTUAL) WITH ($K, 'topic' = 'virt', 'format' = 'json');" \
  "INSERT INTO dst SELECT id FROM src WHERE id = 1;"
read -r v t < <(kcat -C -b "$BS" -t virt -e -q -f '%s %T\n')
[[ $v == '{"id":1}' ]] && ((t > now - 600000)) && ok || bad "virtual: kcat read \"$v $t\""

# a computed column of a sink is not written either (Flink: not persisted)
run computed "CREATE TABLE src (id INT) WITH ('connector' = 'values', 'data' = '+I[1]');" \
  "CREATE TABLE dst (id INT, c AS id + 1) WITH ('connector' = 'print');" "INSERT INTO dst SELECT id FROM src;"
[[ $(cat computed.out) == "+I[1]" ]] && ok || bad "computed: printed $(cat computed.out)"

# ---- upsert-kafka buffering keeps the last change's metadata ------------------------------------
run upsert "CREATE TABLE src (id INT NOT NULL, n STRING, ts TIMESTAMP_LTZ(3), PRIMARY KEY (id) NOT ENFORCED)
    WITH ('connector' = 'values', 'changelog-mode' = 'I,UA',
    'data' = '+I[1, a, 2024-01-01 00:00:00.001]; +U[1, b, 2024-01-01 00:00:00.002]');" \
  "CREATE TABLE up (id INT NOT NULL, n STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
    PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 'up',
    'properties.bootstrap.servers' = '$BS', 'key.format' = 'json', 'value.format' = 'json',
    'sink.buffer-flush.max-rows' = '100', 'sink.buffer-flush.interval' = '10s');" \
  "INSERT INTO up SELECT * FROM src;"
got=$(kcat -C -b "$BS" -t up -e -q -f '%s %T\n')
[[ $got == '{"id":1,"n":"b"} 1704067200002' ]] && ok || bad "upsert: kcat read \"$got\""

# ---- errors: read-only keys, a wrong type, a sink that writes no metadata ----------------------
fails read_only "Invalid metadata key 'offset' in column 'o' of table 'default_catalog.default_database.dst'. The sink of connector 'kafka' supports the following metadata keys for writing: timestamp, headers" \
  "CREATE TABLE src (id INT) WITH ('connector' = 'values', 'data' = '+I[1]');" \
  "CREATE TABLE dst (id INT, o BIGINT METADATA FROM 'offset') WITH ($K, 'topic' = 'virt', 'format' = 'json');" \
  "INSERT INTO dst SELECT id, CAST(id AS BIGINT) FROM src;"
grep -q 'read_only.sql:3:13' read_only.err && ok || bad "read_only: no file:line:col in $(head -2 read_only.err)"
fails bad_type "The column cannot be declared as 'BIGINT' because the type must be castable to metadata type 'TIMESTAMP_LTZ(3)'" \
  "CREATE TABLE src (id INT) WITH ('connector' = 'values', 'data' = '+I[1]');" \
  "CREATE TABLE dst (id INT, t BIGINT METADATA FROM 'timestamp') WITH ($K, 'topic' = 'virt', 'format' = 'json');" \
  "INSERT INTO dst SELECT id, CAST(id AS BIGINT) FROM src;"
fails no_writer "declares persistable metadata columns, but the underlying sink of connector 'print'" \
  "CREATE TABLE src (id INT) WITH ('connector' = 'values', 'data' = '+I[1]');" \
  "CREATE TABLE dst (id INT, t TIMESTAMP_LTZ(3) METADATA FROM 'timestamp') WITH ('connector' = 'print');" \
  "INSERT INTO dst SELECT id, CAST(NULL AS TIMESTAMP_LTZ(3)) FROM src;"
fails count "the query produces 1 columns but table \"default_catalog.default_database.dst\" has 2" \
  "CREATE TABLE src (id INT) WITH ('connector' = 'values', 'data' = '+I[1]');" \
  "CREATE TABLE dst (id INT, t TIMESTAMP_LTZ(3) METADATA FROM 'timestamp') WITH ($K, 'topic' = 'virt', 'format' = 'json');" \
  "INSERT INTO dst SELECT id FROM src;"

echo "kafka_sink_metadata: $pass passed, $fail failed"
((fail == 0))
