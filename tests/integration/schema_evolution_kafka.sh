#!/usr/bin/env bash
# Schema changes from Debezium messages with their Connect schema (debezium-json,
# schema-include) on Kafka (the local mock broker) into SQLite (jdbc), per
# schema.change.behavior (README "Schema changes"): a message whose schema adds a column
# adds it to the sink (lenient, 'schema.evolution.columns' = 'all'), the rows before and after
# land, a widened type is widened, and 'exception' stops at the change's topic, partition and
# offset.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
source "${CDC_SOURCE_DIR:?}/tests/servers/kafka.sh"
trap 'mock_stop_all; [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mock_start mock --partitions 1 --topic len --topic exc

# msg OP ID A [B]: a Debezium change event with its schema; B given: the schema has column b
msg() {
  local op=$1 id=$2 a=$3 b=${4-}
  local fields='{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"field":"a"}'
  local row="\"id\":$id,\"a\":\"$a\""
  if [[ -n $b ]]; then
    fields="$fields,{\"type\":\"$b\",\"optional\":true,\"field\":\"b\"}"
    row="$row,\"b\":$id$id"
  fi
  local before=null after="{$row}"
  [[ $op == d ]] && before="{$row}" && after=null
  [[ $op == u ]] && before="{$row}"
  printf '{"schema":{"type":"struct","fields":[{"type":"struct","fields":[%s],"optional":true,"field":"before"},{"type":"struct","fields":[%s],"optional":true,"field":"after"},{"type":"string","optional":false,"field":"op"}],"optional":false,"name":"x.Envelope"},"payload":{"before":%s,"after":%s,"op":"%s"}}\n' \
    "$fields" "$fields" "$before" "$after" "$op"
}

# shellcheck source=lib/kafka_sqlite_job.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kafka_sqlite_job.sh"
job() { kafka_sqlite_job "$1" "$2" "'debezium-json.schema-include' = 'true'"; } # TOPIC POLICY

# ---- lenient: columns added and widened by the messages' schemas ------------------------------
{
  msg c 1 one
  msg c 2 two
  msg c 3 three int32
  msg u 1 uno int32
  msg c 4 four int64
  msg d 2 two int64
} | kcat -P -b "$BS" -t len
job len ""
if timeout 60 "$bin" run len.sql --log-level info >len.out 2>len.err; then ok; else
  bad "lenient: exit status: $(grep -v DEBUG len.err | tail -3)"
fi
got=$(sqlite3 -separator ' ' "$tmp/len.db" "SELECT id, a, COALESCE(b, '-') FROM t ORDER BY id")
want=$'1 uno 11\n3 three 33\n4 four 44'
[[ $got == "$want" ]] && ok || bad "lenient: the sink has"$'\n'"$got"$'\n'"expected"$'\n'"$want"
sqlite3 "$tmp/len.db" "PRAGMA table_info(t)" | grep -q '|b|' && ok || bad "lenient: no column b"
grep -q "schema change of .* at topic len partition 0 offset 2: ADD COLUMN b INT" len.err && ok ||
  bad "lenient: the change is not logged with its offset: $(grep 'schema change' len.err | head -3)"
grep -q "ALTER COLUMN TYPE b INT -> BIGINT" len.err && ok || bad "lenient: the widening is not logged"

# ---- exception: stops at the message, which a restart with lenient reads --------------------
{
  msg c 1 one
  msg c 2 two int32
} | kcat -P -b "$BS" -t exc
job exc exception
if timeout 60 "$bin" run exc.sql >exc.out 2>exc.err; then bad "exception: exit status 0"; else ok; fi
grep -q "at topic exc partition 0 offset 1: ADD COLUMN b INT.*'schema.change.behavior' is 'exception'" exc.err &&
  ok || bad "exception: the error: $(grep -v DEBUG exc.err | head -3)"
sed -i "s/SET 'schema.change.behavior' = 'exception';//" exc.sql
if timeout 60 "$bin" run exc.sql >exc2.out 2>exc2.err; then ok; else bad "exception: the rerun failed"; fi
got=$(sqlite3 -separator ' ' "$tmp/exc.db" "SELECT id, a, COALESCE(b, '-') FROM t ORDER BY id")
[[ $got == $'1 one -\n2 two 22' ]] && ok || bad "exception: after the rerun the sink has $got"

echo "schema_evolution_kafka: $pass passed, $fail failed"
((fail == 0))
