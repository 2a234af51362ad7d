#!/usr/bin/env bash
# The checks the chunked-snapshot tests share (mysql_cdc_snapshot.sh, postgres_cdc_snapshot.sh),
# sourced after lib/checks.sh. Both write into a PostgreSQL sink table t through jdbc, run the job
# in the background with --log-level info (stderr in job.err, pid in $job, restarted by the
# script's start_job), and set N (the table's rows) and SINK_PSQL (a psql function on the sink's
# database).
#   snap_sink_setup        the sink table t, and a BEFORE UPDATE trigger that records in table
#                          bad every update that does not raise v (a doubled or stale one)
#   snap_wait_done         waits (bounded) for "snapshot done" while the job lives; 0 when seen
#   snap_check_snapshot    the log and the trigger after a snapshot under the writer
#   snap_kill_rounds       up to five SIGKILL-and-restart rounds 0.5 s apart while the snapshot
#                          runs; sets kills
#   snap_check_restarts    after them: enough kills, the snapshot done, the last run resumed

snap_sink_setup() {
  "$SINK_PSQL" -c "DROP TABLE IF EXISTS t; DROP TABLE IF EXISTS bad;
    CREATE TABLE t (id bigint PRIMARY KEY, v int NOT NULL, a varchar(40), b double precision,
      c timestamp(3), d numeric(12,2), e int, f varchar(100), g date, h bigint);
    CREATE TABLE bad (id bigint, old_v int, new_v int);
    CREATE OR REPLACE FUNCTION check_v() RETURNS trigger AS \$\$
    BEGIN
      IF NEW.v <= OLD.v THEN INSERT INTO bad VALUES (NEW.id, OLD.v, NEW.v); END IF;
      RETURN NEW;
    END \$\$ LANGUAGE plpgsql;
    CREATE TRIGGER check_v BEFORE UPDATE ON t FOR EACH ROW EXECUTE FUNCTION check_v();" \
    >/dev/null || bad "sink setup"
}

snap_wait_done() {
  local i
  for i in $(seq 1 600); do
    grep -q "snapshot done" job.err && return 0
    kill -0 "$job" 2>/dev/null || return 1
    sleep 0.5
  done
  return 1
}

snap_check_snapshot() {
  if grep -q "snapshot done" job.err; then ok; else
    bad "no 'snapshot done' in the log"
    tail -20 job.err
  fi
  local nbad
  nbad=$("$SINK_PSQL" -At -c "SELECT count(*) FROM bad")
  if [[ $nbad == 0 ]]; then ok; else
    bad "$nbad applications did not raise v (doubled or stale)"
    "$SINK_PSQL" -At -c "SELECT * FROM bad LIMIT 5"
  fi
  # the stream changed rows of chunks while they were read: the log says how many were left out
  if grep -Eq "snapshot done: [0-9]+ rows in [0-9]+ chunks .* [1-9][0-9]* rows left to the stream" job.err; then ok; else
    bad "the reconciliation left nothing out (the writer should have raced some chunks)"
    grep "snapshot done" job.err
  fi
  grep -q "first streamed change after" job.err && ok || bad "no first streamed change logged"
}

snap_kill_rounds() {
  local round
  kills=0
  start_job
  for round in 1 2 3 4 5; do
    sleep 0.5 # (a few checkpoints of 100 ms: each run leaves progress)
    if grep -q "snapshot done" job.err; then break; fi
    kill -KILL "$job"
    wait "$job" 2>/dev/null
    kills=$((kills + 1))
    start_job
  done
  snap_wait_done
}

snap_check_restarts() {
  ((kills >= 3)) && ok || bad "the snapshot ended after $kills kills: too small to test restarts"
  if grep -q "snapshot done" job.err; then ok; else
    bad "no 'snapshot done' after the restarts"
    tail -20 job.err
  fi
  # the last run emitted only what was left, not the whole table again
  local rows
  rows=$(grep -o "snapshot done: [0-9]* rows" job.err | awk '{print $3}' | tail -1)
  if [[ -n $rows ]] && ((rows < N)); then ok; else
    bad "the last run read ${rows:-no} rows of $N: it did not resume"
  fi
}
