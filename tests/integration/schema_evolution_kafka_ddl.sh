#!/usr/bin/env bash
# Debezium's own schema change events (debezium-json 'schema-changes') on Kafka (the local
# mock broker) into SQLite (jdbc): one topic holds the row events of inventory.products and
# the schema change events (the connector's schema change topic routed into it). An ALTER
# TABLE ... ADD COLUMN event adds the column to the sink (lenient,
# 'schema.evolution.columns' = 'all') and the rows after it carry it; a RENAME COLUMN event is
# a rename; another table's events are skipped; 'exception' stops at the event's topic,
# partition and offset.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
source "${CDC_SOURCE_DIR:?}/tests/servers/kafka.sh"
trap 'mock_stop_all; [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mock_start mock --partitions 1 --topic len --topic exc

src() { # TABLE: a MySQL connector's source block
  printf '{"version":"2.5.0.Final","connector":"mysql","name":"dbserver1","ts_ms":1700000000000,"snapshot":"false","db":"inventory","table":"%s","server_id":1,"file":"mysql-bin.000003","pos":4711,"row":0}' "$1"
}
row() { # OP ID A [B]: a row event of inventory.products
  local op=$1 id=$2 a=$3 b=${4-}
  local img="{\"id\":$id,\"a\":\"$a\"${b:+,\"b\":$b}}" before=null after
  after=$img
  [[ $op == u ]] && before=$img
  printf '{"before":%s,"after":%s,"source":%s,"op":"%s","ts_ms":1700000000001}\n' \
    "$before" "$after" "$(src products)" "$op"
}
col() { # NAME JDBC TYPE LENGTH OPTIONAL
  printf '{"name":"%s","jdbcType":%s,"nativeType":null,"typeName":"%s","typeExpression":"%s","charsetName":null,"length":%s,"scale":null,"position":1,"optional":%s,"autoIncremented":false,"generated":false,"comment":null,"defaultValueExpression":null,"enumValues":null}' \
    "$1" "$2" "$3" "$3" "$4" "$5"
}
ddl() { # TABLE DDL COLUMNS...: a schema change event (ALTER)
  local table=$1 sql=$2
  shift 2
  local cols
  cols=$(IFS=,; echo "$*")
  printf '{"source":%s,"ts_ms":1700000000002,"databaseName":"inventory","schemaName":null,"ddl":"%s","tableChanges":[{"type":"ALTER","id":"\\"inventory\\".\\"%s\\"","table":{"defaultCharsetName":"utf8mb4","primaryKeyColumnNames":["id"],"columns":[%s],"attributes":[]},"comment":null}]}\n' \
    "$(src "$table")" "$sql" "$table" "$cols"
}
ID=$(col id 4 INT 11 false)
A=$(col a 12 VARCHAR 255 true)
B=$(col b 4 INT null true)
C=$(col c 4 INT null true)

# shellcheck source=lib/kafka_sqlite_job.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kafka_sqlite_job.sh"
job() { kafka_sqlite_job "$1" "$2" "'debezium-json.schema-changes' = 'true'"; } # TOPIC POLICY

# ---- lenient: the ADD COLUMN event adds b, the rows after it fill it -------------------------
{
  row c 1 one
  row c 2 two
  ddl customers "ALTER TABLE customers ADD COLUMN z INT" "$ID" "$(col z 4 INT null true)"
  ddl products "ALTER TABLE products ADD COLUMN b INT" "$ID" "$A" "$B"
  row c 3 three 33
  row u 1 uno 11
  ddl products "ALTER TABLE products RENAME COLUMN b TO c" "$ID" "$A" "$C"
} | kcat -P -b "$BS" -t len
job len ""
if timeout 60 "$bin" run len.sql --log-level info >len.out 2>len.err; then ok; else
  bad "lenient: exit status: $(grep -v DEBUG len.err | tail -3)"
fi
got=$(sqlite3 -separator ' ' "$tmp/len.db" "SELECT id, a, COALESCE(b, '-') FROM t ORDER BY id")
want=$'1 uno 11\n2 two -\n3 three 33'
[[ $got == "$want" ]] && ok || bad "lenient: the sink has"$'\n'"$got"$'\n'"expected"$'\n'"$want"
sqlite3 "$tmp/len.db" "PRAGMA table_info(t)" | grep -q '|b|' && ok || bad "lenient: no column b"
grep -q "schema change of inventory.products at topic len partition 0 offset 3: ADD COLUMN b INT" len.err &&
  ok || bad "lenient: the change is not logged with its offset: $(grep 'schema change' len.err | head -3)"
grep -q "schema change of inventory.products at topic len partition 0 offset 6: RENAME COLUMN b TO c" len.err &&
  ok || bad "lenient: the rename is not logged: $(grep 'schema change' len.err | head -5)"
grep -q "schema change of inventory.customers" len.err && bad "lenient: another table's event counted" || ok

# ---- exception: stops at the event, which a restart with lenient applies --------------------
{
  row c 1 one
  ddl products "ALTER TABLE products ADD COLUMN b INT" "$ID" "$A" "$B"
  row c 2 two 22
} | kcat -P -b "$BS" -t exc
job exc exception
if timeout 60 "$bin" run exc.sql >exc.out 2>exc.err; then bad "exception: exit status 0"; else ok; fi
grep -q "at topic exc partition 0 offset 1: ADD COLUMN b INT.*'schema.change.behavior' is 'exception'" exc.err &&
  ok || bad "exception: the error: $(grep -v DEBUG exc.err | head -3)"
sed -i "s/SET 'schema.change.behavior' = 'exception';//" exc.sql
if timeout 60 "$bin" run exc.sql >exc2.out 2>exc2.err; then ok; else bad "exception: the rerun failed"; fi
got=$(sqlite3 -separator ' ' "$tmp/exc.db" "SELECT id, a, COALESCE(b, '-') FROM t ORDER BY id")
[[ $got == $'1 one -\n2 two 22' ]] && ok || bad "exception: after the rerun the sink has $got"

echo "schema_evolution_kafka_ddl: $pass passed, $fail failed"
((fail == 0))
