#!/usr/bin/env bash
# postgres-cdc's Flink CDC options that act, against a real PostgreSQL started here:
# (a) 'scan.incremental.snapshot.enabled' = 'false' reads a keyed table in one transaction
#     (ctid ranges, not chunks), then streams; the default reads it in chunks;
# (b) 'scan.startup.mode' = 'committed-offset' on a new slot: no snapshot, changes from now on;
# (c) 'connect.max-retries' = '2' tries a dead port 3 times, then fails naming the option;
# (d) 'scan.startup.mode' = 'snapshot': the table's rows, then the job ends; no slot.
# (e) 'debezium.snapshot.mode' = 'initial_only' is 'snapshot' (the job ends);
#     'debezium.binary.handling.mode' hex / base64-url-safe: bytea declared STRING as that text.
# A server that cannot be started is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1

# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
if ! pg_start shop; then
  bad "could not start PostgreSQL"
  pg_stop
  rm -rf "$tmp"
echo "postgres_cdc_options: $pass passed, $fail failed"
  exit 1
fi
cleanup() {
  jobs -p | xargs -r kill -9 2>/dev/null
  pg_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
pg_psql -c "CREATE ROLE cdc LOGIN REPLICATION SUPERUSER PASSWORD 's3cret'" || bad "CREATE ROLE"
pg_psql <<'SQL' || bad "source schema"
CREATE TABLE a (id int PRIMARY KEY, v text);
ALTER TABLE a REPLICA IDENTITY FULL;
INSERT INTO a SELECT g, 'v' || g FROM generate_series(1, 50) g;
SQL

# job FILE SLOT PORT [EXTRA OPTIONS]: captures table a into the print sink
job() {
  cat >"$1" <<SQL
SET 'execution.checkpointing.interval' = '200ms';
CREATE TABLE a_src (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$3',
  'username' = 'cdc', 'password' = 's3cret', 'database-name' = 'shop',
  'table-name' = 'a', 'slot.name' = '$2', 'scan.incremental.snapshot.chunk.size' = '10'${4:-});
CREATE TABLE out (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM a_src;
SQL
}

# run NAME SLOT PORT ROWS [EXTRA]: runs until ROWS +I rows are printed after one insert (id 1000+)
run() {
  local name=$1
  job "$name.sql" "$2" "$3" "${5:-}"
  "$bin" run "$name.sql" --log-level info >"$name.out" 2>"$name.err" &
  local pid=$!
  wait_for "$name.err" "streaming changes from slot \"$2\"" 20 || bad "$name: no stream: $(tail -3 "$name.err")"
  pg_psql -c "INSERT INTO a VALUES (1000 + (SELECT count(*) FROM a), 'live')" >/dev/null || bad "insert"
  wait_for "$name.out" 'live' 20 || bad "$name: the streamed insert did not arrive: $(tail -3 "$name.err")"
  kill -TERM "$pid"
  wait "$pid" || bad "$name: exit status $?: $(tail -3 "$name.err")"
  local got
  got=$(grep -c '^+I\[' "$name.out")
  [[ $got == "$4" ]] && ok || bad "$name: $got +I rows, expected $4"
}

# (a) one transaction when incremental snapshots are off; chunks by default
run whole whole_slot "$PG_PORT" 51 ", 'scan.incremental.snapshot.enabled' = 'false'"
grep -q "'scan.incremental.snapshot.enabled' is false, so the snapshot holds one transaction" whole.err \
  && ok || bad "incremental off: no one-transaction snapshot: $(grep -i snapshot whole.err)"
run chunked chunked_slot "$PG_PORT" 52
grep -q 'holds one transaction' chunked.err && bad "default: read in one transaction" || ok

# (b) committed-offset on a new slot: changes from now on, no snapshot
run committed committed_slot "$PG_PORT" 1 ", 'scan.startup.mode' = 'committed-offset'"

# (c) connect.max-retries against a port nobody listens on
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
job dead.sql dead_slot "$dead" ", 'connect.max-retries' = '2', 'connect.timeout' = '2s'"
start=$(date +%s)
timeout 60 "$bin" run dead.sql >dead.out 2>dead.err
code=$?
[[ $code == 1 ]] && ok || bad "dead port: exit status $code"
grep -q "could not connect to PostgreSQL at 127.0.0.1:$dead (3 attempts, 'connect.max-retries')" dead.err \
  && ok || bad "dead port: error does not count 3 attempts: $(cat dead.err)"
[[ $(grep -c 'retrying in 1 s' dead.err) == 2 ]] && ok || bad "dead port: not 2 retries: $(cat dead.err)"
(($(date +%s) - start >= 2)) && ok || bad "dead port: retries did not wait 1 s each"

# (d) snapshot only (also with a second split, which must end too)
for par in 1 2; do
  job snap$par.sql snap_slot "$PG_PORT" ", 'scan.startup.mode' = 'snapshot', 'scan.parallelism' = '$par'"
  timeout 60 "$bin" run snap$par.sql --log-level info >snap$par.out 2>snap$par.err
  code=$?
  [[ $code == 0 ]] && ok || bad "snapshot mode (parallelism $par): exit status $code: $(tail -3 snap$par.err)"
  want=$(pg_psql -At -c "SELECT count(*) FROM a")
  got=$(grep -cE '^([0-9]+> )?\+I\[' snap$par.out) # (with 2 splits the sink prints "1> ")
  [[ $got == "$want" ]] && ok || bad "snapshot mode (parallelism $par): $got rows, expected $want"
  grep -qE '^([0-9]+> )?([-+]U|-D)' snap$par.out && bad "snapshot mode: changes printed" || ok
done
[[ -z $(pg_psql -At -c "SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE 'snap_slot%'") ]] \
  && ok || bad "snapshot mode created a slot"

# (e) Debezium's snapshot.mode and binary.handling.mode
pg_psql -c "CREATE TABLE bin (id int PRIMARY KEY, b bytea); ALTER TABLE bin REPLICA IDENTITY FULL; INSERT INTO bin VALUES (1, '\\xfbff00'), (2, NULL)" \
  >/dev/null || bad "bytea table"
for mode in hex base64-url-safe; do
  cat >bin_$mode.sql <<SQL
CREATE TABLE bin_src (id INT NOT NULL, b STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
  'username' = 'cdc', 'password' = 's3cret', 'database-name' = 'shop', 'table-name' = 'bin',
  'slot.name' = 'bin_slot', 'debezium.snapshot.mode' = 'initial_only',
  'debezium.binary.handling.mode' = '$mode');
CREATE TABLE out (id INT, b STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM bin_src;
SQL
  timeout 60 "$bin" run bin_$mode.sql >bin_$mode.out 2>bin_$mode.err ||
    bad "binary.handling.mode $mode: the job did not end by itself: $(tail -3 bin_$mode.err)"
done
[[ $(sort bin_hex.out) == $'+I[1, fbff00]\n+I[2, null]' ]] && ok || bad "bytea as hex: $(cat bin_hex.out)"
[[ $(sort bin_base64-url-safe.out) == $'+I[1, -_8A]\n+I[2, null]' ]] && ok ||
  bad "bytea as base64-url-safe: $(cat bin_base64-url-safe.out)"

echo "postgres_cdc_options: $pass passed, $fail failed"
((fail == 0))
