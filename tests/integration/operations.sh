#!/usr/bin/env bash
# Running cdcflow as an operator does: the Prometheus endpoint (read with curl
# during a run), /healthz and `cdcflow health`, --log-format json, the live
# status line on a terminal (a tmux pane) and its absence elsewhere, SIGTERM
# flushing and committing within the stop timeout, SIGHUP ignored (logged),
# exit 3 when a stop hangs past --stop-timeout, and the documented exit codes.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
sess="cdcflow-ops-$$"
cleanup() {
  tmux kill-session -t "$sess" 2>/dev/null
  jobs -p | xargs -r kill -9 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1

# ---- metrics during a run -------------------------------------------------------------
cat >slow.sql <<'SQL'
SET 'pipeline.name' = 'ops-demo';
SET 'execution.checkpointing.interval' = '200ms';
CREATE TEMPORARY TABLE gen (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'datagen', 'number-of-rows' = '4000', 'rows-per-second' = '1000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '4000');
CREATE TEMPORARY TABLE out (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:sqlite:out.db', 'table-name' = 'out',
  'sink.auto-create-table' = 'true', 'password' = 'hunter2');
INSERT INTO out SELECT * FROM gen;
SQL
"$bin" run slow.sql --metrics-port 0 --metrics-address 127.0.0.1 --log-level info \
  >run.out 2>run.err &
pid=$!
if wait_for run.err 'metrics on http://127.0.0.1:[0-9]+/metrics'; then
  port=$(grep -Eo '127.0.0.1:[0-9]+' run.err | head -1 | cut -d: -f2)
  sleep 1.5
  curl -sf "http://127.0.0.1:$port/metrics" >m1.txt || bad "curl /metrics failed"
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")
  [[ $code == 200 ]] && ok || bad "/healthz answered $code"
  "$bin" health --port "$port" >health.out 2>&1 && ok || bad "cdcflow health: $(cat health.out)"
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nope")
  [[ $code == 404 ]] && ok || bad "unknown path answered $code"
  for name in cdcflow_info cdcflow_records_read_total cdcflow_records_written_total \
    cdcflow_records_skipped_total cdcflow_sink_flush_duration_seconds_bucket \
    cdcflow_sink_flush_duration_seconds_count cdcflow_sink_flush_rows_sum \
    cdcflow_last_commit_timestamp_seconds cdcflow_running_splits; do
    grep -q "^$name{" m1.txt && ok || bad "metric $name missing"
  done
  read_n=$(awk -F' ' '/^cdcflow_records_read_total\{job="ops-demo",table="default_catalog.default_database.gen"\}/ {print $2}' m1.txt)
  written_n=$(awk -F' ' '/^cdcflow_records_written_total\{job="ops-demo"/ {print $2}' m1.txt)
  flushes=$(awk -F' ' '/^cdcflow_sink_flush_duration_seconds_count/ {print $2}' m1.txt)
  commit=$(awk -F' ' '/^cdcflow_last_commit_timestamp_seconds/ {print $2}' m1.txt)
  now=$(date +%s)
  # plausible: some but not all rows after 1.5 s at 1000 rows/s, a flush done, a recent commit
  if [[ -n $read_n && $read_n -gt 0 && $read_n -lt 4000 && $written_n -le $read_n ]]; then ok; else
    bad "implausible counts read=$read_n written=$written_n"; fi
  [[ -n $flushes && $flushes -ge 1 ]] && ok || bad "no flush counted ($flushes)"
  if [[ -n $commit ]] && awk -v c="$commit" -v n="$now" 'BEGIN{exit !(c > n - 30 && c <= n + 1)}'; then
    ok; else bad "last commit time $commit is not recent (now $now)"; fi
  grep -q hunter2 m1.txt && bad "the password shows in /metrics" || ok
else
  bad "no metrics address logged: $(cat run.err)"
fi
wait "$pid"
rc=$?
[[ $rc -eq 0 ]] && ok || bad "metrics run exited $rc: $(cat run.err)"
[[ $(sqlite3 out.db 'select count(*) from out') == 4000 ]] && ok || bad "sqlite holds $(sqlite3 out.db 'select count(*) from out') rows"
grep -q $'\r' run.err && bad "a status line was drawn on a non-terminal" || ok
grep -q 'job finished: 4000 row(s) written' run.err && ok || bad "no finish line: $(cat run.err)"
grep -q hunter2 run.err && bad "the password shows in the log" || ok

# ---- JSON logs ------------------------------------------------------------------------
"$bin" run slow.sql --log-format json --log-level debug >/dev/null 2>json.err
python3 - json.err <<'PY' && ok || bad "json log lines: $(head -5 json.err)"
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
assert lines, "no log lines"
for l in lines:
    e = json.loads(l)
    assert {"ts", "level", "msg"} <= e.keys(), e
assert any(e for e in map(json.loads, lines) if json.loads(lines[0]) and "job started" in e["msg"] and e.get("job") == "ops-demo")
assert any("durable and committed" in json.loads(l)["msg"] for l in lines)
PY
printf 'CREATE TABLE t (a INT) WITH (%s);\nINSERT INTO t SELECT * FROM nope;\n' "'connector' = 'blackhole'" >bad.sql
"$bin" run bad.sql --log-format json >/dev/null 2>badjson.err
rc=$?
[[ $rc -eq 1 ]] && ok || bad "a planning error exited $rc, not 1"
python3 -c 'import json,sys; e=json.loads(open(sys.argv[1]).read()); assert e["level"]=="error" and "nope" in e["msg"], e' badjson.err && ok || bad "error as json: $(cat badjson.err)"

# ---- exit codes -----------------------------------------------------------------------
"$bin" run >/dev/null 2>&1; [[ $? -eq 2 ]] && ok || bad "missing file argument is not exit 2"
"$bin" run --log-level loud slow.sql >/dev/null 2>&1; [[ $? -eq 2 ]] && ok || bad "bad --log-level is not exit 2"
"$bin" run no-such-file.sql >/dev/null 2>&1; [[ $? -eq 2 ]] && ok || bad "unreadable file is not exit 2"

# ---- SIGTERM: flush, commit, exit 0; SIGHUP ignored -------------------------------------
cat >forever.sql <<'SQL'
CREATE TEMPORARY TABLE gen (id BIGINT NOT NULL, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'datagen', 'rows-per-second' = '2000', 'fields.id.kind' = 'sequence',
  'fields.id.start' = '1', 'fields.id.end' = '100000000');
CREATE TEMPORARY TABLE out (id BIGINT NOT NULL, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:sqlite:forever.db', 'table-name' = 'out',
  'sink.auto-create-table' = 'true');
INSERT INTO out SELECT * FROM gen;
SQL
"$bin" run forever.sql --log-level info >f.out 2>f.err &
pid=$!
wait_for f.err 'job started'
sleep 1
kill -HUP "$pid"
sleep 0.5
kill -0 "$pid" 2>/dev/null && ok || bad "SIGHUP ended the process"
wait_for f.err 'SIGHUP ignored' && ok || bad "SIGHUP not logged: $(cat f.err)"
kill -TERM "$pid"
wait "$pid"
rc=$?
[[ $rc -eq 0 ]] && ok || bad "SIGTERM exit status $rc: $(cat f.err)"
n=$(grep -Eo 'job stopped: [0-9]+' f.err | grep -Eo '[0-9]+')
got=$(sqlite3 forever.db 'select count(*) from out')
[[ -n $n && $n -gt 0 && $got == "$n" ]] && ok || bad "stopped after $n rows but the table holds $got"

# ---- a stop that hangs past --stop-timeout: exit 3 --------------------------------------
sed 's/forever.db/locked.db/' forever.sql | sed "s/'sink.auto-create-table' = 'true'/'sink.auto-create-table' = 'true', 'sink.max-retries' = '100'/" >locked.sql
sqlite3 locked.db 'CREATE TABLE out (id BIGINT NOT NULL PRIMARY KEY)'
"$bin" run locked.sql --stop-timeout 2 --log-level info --metrics-port 0 \
  --metrics-address 127.0.0.1 >l.out 2>l.err &
pid=$!
wait_for l.err 'job started'
# hold an exclusive lock so every flush fails with "database is locked" and is retried
python3 -c 'import sqlite3,time; c=sqlite3.connect("locked.db", isolation_level=None); c.execute("BEGIN EXCLUSIVE"); time.sleep(20)' &
lockpid=$!
sleep 1.5
lport=$(grep -Eo '127.0.0.1:[0-9]+' l.err | head -1 | cut -d: -f2)
retries=$(curl -s "http://127.0.0.1:$lport/metrics" | awk '/^cdcflow_sink_retries_total/ {print $2}')
[[ -n $retries && $retries -ge 1 ]] && ok || bad "a locked database shows no retries in /metrics ($retries)"
start=$(date +%s)
kill -TERM "$pid"
wait "$pid"
rc=$?
took=$(($(date +%s) - start))
kill "$lockpid" 2>/dev/null
[[ $rc -eq 3 ]] && ok || bad "a hung stop exited $rc, not 3: $(tail -5 l.err)"
[[ $took -le 10 ]] && ok || bad "a hung stop took $took s with --stop-timeout 2"
grep -q 'did not stop within 2 s' l.err && ok || bad "no stop-timeout message: $(tail -3 l.err)"

# ---- the live status line on a terminal -------------------------------------------------
sed "s/'pipeline.name' = 'ops-demo'/'pipeline.name' = 'tty'/; s/out.db/tty.db/" slow.sql >tty.sql
tmux new-session -d -s "$sess" -x 160 -y 12 "cd $tmp && '$bin' run tty.sql; echo exit=\$? >tty.done; sleep 30"
shown=""
for _ in $(seq 1 60); do
  pane=$(tmux capture-pane -p -t "$sess" 2>/dev/null)
  if grep -Eq 'cdcflow \[#*-*\] +[0-9]+% +[0-9,]+/4,000 rows +[0-9]+ rows/s +ETA [0-9:]+ +errors 0' <<<"$pane"; then
    shown=yes
    break
  fi
  sleep 0.1
done
[[ $shown == yes ]] && ok || bad "no progress bar with ETA in the pane: $pane"
for _ in $(seq 1 100); do [[ -f tty.done ]] && break; sleep 0.1; done
pane=$(tmux capture-pane -p -t "$sess" 2>/dev/null)
grep -q 'exit=0' tty.done 2>/dev/null && ok || bad "the terminal run did not exit 0"
grep -Eq '\[####################\] 100%  4,000/4,000 rows' <<<"$pane" && ok || bad "final status line missing: $pane"
tmux kill-session -t "$sess" 2>/dev/null
tmux new-session -d -s "$sess" -x 160 -y 12 "cd $tmp && '$bin' run tty.sql --quiet; echo exit=\$? >quiet.done; sleep 30"
for _ in $(seq 1 100); do [[ -f quiet.done ]] && break; sleep 0.1; done
pane=$(tmux capture-pane -p -t "$sess" 2>/dev/null)
grep -q 'rows/s' <<<"$pane" && bad "--quiet still drew a status line: $pane" || ok

echo "operations: $pass passed, $fail failed"
((fail == 0))
