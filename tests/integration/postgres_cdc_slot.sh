#!/usr/bin/env bash
# The postgres-cdc slot guard against a real PostgreSQL 15 (wal_level=logical, 1 MB WAL
# segments) started here: (a) with the captured table idle and another table busy, the slot's
# confirmed_flush_lsn stays put with 'heartbeat.interval.ms' = '0' and follows the server's WAL
# with 500 ms, whose 'heartbeat.action.query' runs; (b) the retained-WAL gauge on /metrics with
# a plausible value and the warning above a tiny 'slot.retained-wal.warn-size'; (c) a slot the
# server invalidated (max_slot_wal_keep_size) makes the next run fail at once with an error
# naming the slot, the missed changes and what to do. A server that cannot be started is a
# failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1

# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
PG_INITDB_ARGS=--wal-segsize=1
if ! pg_start shop; then
  bad "could not start PostgreSQL 15"
  pg_stop
  rm -rf "$tmp"
echo "postgres_cdc_slot: $pass passed, $fail failed"
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
CREATE TABLE b (x int, pad text);
CREATE TABLE hb (ts timestamptz);
SQL

# job FILE SLOT HEARTBEAT [EXTRA OPTIONS]: captures table a into the print sink
job() {
  cat >"$1" <<SQL
SET 'execution.checkpointing.interval' = '200ms';
CREATE TABLE a_src (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
  'username' = 'cdc', 'password' = 's3cret', 'database-name' = 'shop',
  'table-name' = 'a', 'slot.name' = '$2', 'scan.startup.mode' = 'latest-offset',
  'heartbeat.interval.ms' = '$3'${4:-});
CREATE TABLE out (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM a_src;
SQL
}
confirmed() { pg_psql -At -c "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '$1'"; }
lsn_ge() { pg_psql -At -c "SELECT '$1'::pg_lsn >= '$2'::pg_lsn" | grep -q t; }
busy_b() { pg_psql -c "INSERT INTO b SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g" || bad "DML on b"; }

# (a) heartbeat off: unrelated WAL does not move an idle table's slot
job hb0.sql a_slot 0
"$bin" run hb0.sql --log-level info >hb0.out 2>hb0.err &
pid=$!
wait_for hb0.err 'streaming changes from slot "a_slot"' || bad "no stream: $(cat hb0.err)"
before=$(confirmed a_slot)
busy_b
sleep 3
after=$(confirmed a_slot)
[[ -n $before && $after == "$before" ]] && ok || bad "heartbeat 0: the slot moved ($before -> $after)"
kill -TERM "$pid"
wait "$pid" || bad "heartbeat 0: exit status $?: $(tail -3 hb0.err)"

# (a) heartbeat 500 ms: the slot follows the server's WAL while a stays idle; the action
#     query runs; (b) the gauge and the warning (1 byte: always above)
job hb.sql a_slot 500 ", 'heartbeat.action.query' = 'INSERT INTO hb VALUES (now())', 'slot.retained-wal.warn-size' = '1'"
"$bin" run hb.sql --log-level info --metrics-port 0 --metrics-address 127.0.0.1 >hb.out 2>hb.err &
pid=$!
wait_for hb.err 'streaming changes from slot "a_slot"' || bad "no stream: $(cat hb.err)"
busy_b
target=$(pg_psql -At -c "SELECT pg_current_wal_lsn()")
moved=no
for _ in $(seq 1 100); do
  after=$(confirmed a_slot)
  if lsn_ge "$after" "$target"; then moved=yes; break; fi
  sleep 0.1
done
[[ $moved == yes ]] && ok || bad "heartbeat 500 ms: the slot did not reach $target ($before -> $after)"
for _ in $(seq 1 50); do
  n=$(pg_psql -At -c "SELECT count(*) FROM hb")
  [[ $n -ge 3 ]] && break
  sleep 0.1
done
[[ $n -ge 3 ]] && ok || bad "heartbeat.action.query ran $n time(s)"
[[ ! -s hb.out ]] && ok || bad "rows printed for the idle table: $(head -3 hb.out)"
grep -q 'replication slot "a_slot" retains [0-9.]* MiB of WAL' hb.err && ok || bad "no retained-WAL warning: $(cat hb.err)"
port=$(grep -Eo 'metrics on http://127.0.0.1:[0-9]+' hb.err | head -1 | sed 's/.*://')
sleep 1 # a gauge refresh of the idle source (every checkpoint interval)
curl -sf "http://127.0.0.1:$port/metrics" >m.txt || bad "curl /metrics (port '$port')"
gauge=$(awk '/^cdcflow_source_slot_retained_wal_bytes\{.*slot="a_slot"/ {print $2}' m.txt)
total=$(pg_psql -At -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")
if [[ $gauge =~ ^[0-9]+$ ]] && ((gauge > 0 && gauge < total)); then ok; else
  bad "retained WAL gauge '$gauge' (server WAL $total): $(grep slot m.txt)"; fi
# the normal connection dropped by the server: the guard warns, reconnects and goes on
pg_psql -At -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cdcflow' AND backend_type = 'client backend'" >/dev/null || bad "terminate"
n0=$(pg_psql -At -c "SELECT count(*) FROM hb")
for _ in $(seq 1 50); do
  n=$(pg_psql -At -c "SELECT count(*) FROM hb")
  ((n >= n0 + 2)) && break
  sleep 0.1
done
((n >= n0 + 2)) && kill -0 "$pid" && ok || bad "after the connection was dropped the heartbeat stopped ($n0 -> $n): $(tail -3 hb.err)"
grep -Eq "'heartbeat.action.query' failed|replication slot \"a_slot\": reading the replication slot's WAL failed" hb.err && ok || bad "no warning for the dropped connection: $(tail -3 hb.err)"
kill -TERM "$pid"
wait "$pid" || bad "heartbeat 500: exit status $?: $(tail -3 hb.err)"
pg_psql -c "SELECT pg_drop_replication_slot('a_slot')" >/dev/null || bad "drop a_slot"

# (c) a lost slot: the server invalidates it past max_slot_wal_keep_size while no job runs
pg_psql >/dev/null <<'SQL' || bad "WAL settings"
ALTER SYSTEM SET max_slot_wal_keep_size = '1MB';
ALTER SYSTEM SET min_wal_size = '2MB';
ALTER SYSTEM SET max_wal_size = '4MB';
SELECT pg_reload_conf();
SQL
job lost.sql lost_slot 500
"$bin" run lost.sql --log-level info >lost1.out 2>lost1.err &
pid=$!
wait_for lost1.err 'streaming changes from slot "lost_slot"' || bad "no stream: $(cat lost1.err)"
kill -TERM "$pid"
wait "$pid" || bad "lost slot, first run: exit status $?: $(tail -3 lost1.err)"
status=
for _ in $(seq 1 10); do
  busy_b
  pg_psql -At -c "SELECT pg_switch_wal(); CHECKPOINT;" >/dev/null || bad "switch/checkpoint"
  status=$(pg_psql -At -c "SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'lost_slot'")
  [[ $status == lost ]] && break
done
[[ $status == lost ]] && ok || bad "the slot did not become lost (wal_status '$status')"
start=$(date +%s)
timeout 60 "$bin" run lost.sql >lost2.out 2>lost2.err
rc=$?
took=$(($(date +%s) - start))
[[ $rc -ne 0 && $rc -ne 124 && $took -le 10 ]] && ok || bad "lost slot: exit $rc after $took s: $(cat lost2.err)"
grep -q 'replication slot "lost_slot" lost WAL this job still needed: changes of "public.a" were missed' lost2.err && ok || bad "lost slot message: $(cat lost2.err)"
grep -Eq 'replication slot "lost_slot" confirmed up to LSN [0-9A-F]+/[0-9A-F]+' lost2.err && ok || bad "lost slot position: $(cat lost2.err)"
grep -q "pg_drop_replication_slot('lost_slot')" lost2.err && grep -q "'scan.startup.mode' = 'initial'" lost2.err && ok || bad "lost slot hint: $(cat lost2.err)"

echo "postgres_cdc_slot: $pass passed, $fail failed"
((fail == 0))
