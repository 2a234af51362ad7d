#!/usr/bin/env bash
# The kafka source's early start (scan.group.early-start, issue 17) against the mock cluster,
# with a jdbc:sqlite upsert sink whose final table must equal the expected one:
#  1. one process: it starts early, its first rows are applied before the group's first
#     assignment, it hands the partitions over; a restart reads on from its commit;
#  2. two processes started at once in one group: at most one starts early;
#  3. a second process started while the first reads early: it does not start early, and it
#     reads no partition before the first one released them;
#  4. a process killed with SIGKILL while it reads early, then restarted (its token names a
#     process that is gone: no waiting);
#  5. a process stopped with SIGTERM while it reads early (it commits through the group once
#     assigned), then restarted;
#  6. 'scan.group.early-start' = 'false': the group path as before; parallelism 2: both
#     splits start early, each with half the partitions and its own token.
# No timing assertions: the order of log lines of one process, and the order of the
# timestamps of two processes' lines (one clock), are what is checked.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
tmp=$(mktemp -d)
source "${CDC_SOURCE_DIR:?}/tests/servers/kafka.sh"
trap kafka_cleanup EXIT
cd "$tmp" || exit 1

mock_start mock --partitions 4 --topic e1 --topic e2 --topic e3 --topic e4 --topic e5 --topic e6

# pipeline TOPIC DB [EXTRA]: the Debezium topic materialised into a SQLite table by key
pipeline() {
  [[ -f $2 ]] || sqlite3 "$2" "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)"
  cat <<SQL
SET 'execution.checkpointing.interval' = '200ms';
CREATE TABLE src (id INT NOT NULL, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'kafka', 'topic' = '$1', 'format' = 'debezium-json',
  'properties.bootstrap.servers' = '$BS', 'properties.group.id' = 'grp-$1',
  'properties.auto.offset.reset' = 'earliest', 'properties.session.timeout.ms' = '6000',
  'properties.heartbeat.interval.ms' = '500'${3:-});
CREATE TABLE t (id INT NOT NULL, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:sqlite:$2', 'table-name' = 't',
  'sink.max-retries' = '100');
INSERT INTO t SELECT * FROM src;
SQL
}

# check_table NAME DB EXPECTED LOG...: the table reaches the expected one
check_table() {
  local name=$1 db=$2 expected=$3
  shift 3
  if wait_table "$db" "$expected" 120; then ok; else
    bad "$name: the table did not reach the expected one"
    diff <(table_now "$db") "$expected" | head -5
    for f in "$@"; do tail -5 "$f"; done
  fi
}

# line_no FILE REGEX: the number of the first line matching (0: none)
line_no() { grep -nE -m1 "$2" "$1" | cut -d: -f1 | grep . || echo 0; }
# stamp FILE REGEX: the timestamp of the first line matching
stamp() { grep -E -m1 "$2" "$1" | cut -d' ' -f1; }

early='early start, reading [0-9]+ partition'
over='early start over: [0-9]+ partition'
# released: at the handover, or later when the group refused it then (a rebalance began)
released="$over|partition\\(s\\) released to group"

# wait_count FILE REGEX N: until FILE has N lines matching (bounded: 60 s)
wait_count() {
  for _ in $(seq 1 600); do
    (($(grep -cE "$2" "$1") >= $3)) && return 0
    sleep 0.1
  done
  return 1
}

# ---- 1. one process ----------------------------------------------------------------------
gen_changes 20000 300 e1.txt
produce e1.txt e1
pipeline e1 e1.db >e1.sql
start_run a e1.sql --log-level info
pid_a=$LAST_PID
check_table "single" e1.db e1.txt.expected a.err
wait_for a.err "$over" 60 || bad "single: no handover to the group in the log"
wait_for a.err 'group "grp-e1" assigned 4 partition' 30 || bad "single: no assignment after it"
l_early=$(line_no a.err "$early")
l_first=$(line_no a.err 'first rows applied after')
l_over=$(line_no a.err "$over")
if ((l_early > 0 && l_first > l_early && l_over > l_first)); then ok; else
  bad "single: expected early start < first rows applied < handover (lines $l_early $l_first $l_over)"
  head -8 a.err
fi
# a restart reads on from the committed offsets: only the new changes (the mock cluster keeps
# the group once joined, so this start takes the group path and says why)
gen_changes 3000 300 e1b.txt
stop_run "$pid_a" && ok || bad "single: exit status on SIGTERM"
produce e1b.txt e1
start_run a2 e1.sql --log-level info
pid_a2=$LAST_PID
# the expected table: the first run's keys, updated by the second run's changes
python3 - e1.txt.expected e1b.txt >e1b.expected <<'PY'
import json, sys
state = dict(l.strip().split("|") for l in open(sys.argv[1]))
for line in open(sys.argv[2]):
    m = json.loads(line.split("|", 1)[1])
    if m["op"] == "d":
        state.pop(str(m["before"]["id"]), None)
    else:
        state[str(m["after"]["id"])] = str(m["after"]["v"])
for k in sorted(state, key=int):
    print(f"{k}|{state[k]}")
PY
check_table "single restart" e1.db e1b.expected a2.err
wait_for a2.err 'group "grp-e1" assigned' 30 || bad "single restart: no assignment"
stop_run "$pid_a2" && ok || bad "single restart: exit status on SIGTERM"
if grep -q 'is not empty' a2.err && ! grep -qE "$early" a2.err; then ok; else
  bad "single restart: expected the group path ('is not empty')"
  head -5 a2.err
fi
read_again=$(grep -oE '[0-9]+ row\(s\) written' a2.err | grep -oE '^[0-9]+')
if [[ -n $read_again ]] && ((read_again < 20000)); then ok; else
  bad "single restart: it read the topic again from the start ($read_again rows written)"
fi

# ---- 2. two processes at once --------------------------------------------------------------
gen_changes 20000 300 e2.txt
produce e2.txt e2
pipeline e2 e2.db >e2.sql
start_run b1 e2.sql --log-level info
pid_b1=$LAST_PID
start_run b2 e2.sql --log-level info
pid_b2=$LAST_PID
check_table "two at once" e2.db e2.txt.expected b1.err b2.err
wait_for b1.err 'group "grp-e2" assigned' 30 || bad "two at once: b1 got no assignment"
wait_for b2.err 'group "grp-e2" assigned' 30 || bad "two at once: b2 got no assignment"
stop_run "$pid_b1" && ok || bad "two at once: b1 exit status on SIGTERM"
stop_run "$pid_b2" && ok || bad "two at once: b2 exit status on SIGTERM"
n_early=$(cat b1.err b2.err | grep -cE "$early")
if ((n_early <= 1)); then ok; else bad "two at once: $n_early processes started early"; fi

# ---- 3. a second process while the first reads early --------------------------------------
gen_changes 20000 300 e3.txt
produce e3.txt e3
pipeline e3 e3.db >e3.sql
start_run c1 e3.sql --log-level info
pid_c1=$LAST_PID
wait_for c1.err "$early" 30 || bad "second: the first process did not start early"
start_run c2 e3.sql --log-level info
pid_c2=$LAST_PID
check_table "second" e3.db e3.txt.expected c1.err c2.err
wait_for c1.err "$released" 30 || bad "second: the first process did not release its partitions"
wait_for c2.err 'group "grp-e3" assigned' 30 || bad "second: the second process got no assignment"
if grep -q 'is not empty' c2.err && ! grep -qE "$early" c2.err; then ok; else
  bad "second: the second process should have found the group not empty"
  head -5 c2.err
fi
# the second one reads nothing before the first released the partitions: it holds back
# those that still carry the first one's token, else it looked after the release
t_over=$(stamp c1.err "$released")
if grep -q 'held back until its release' c2.err; then
  wait_for c2.err 'released by' 30 || bad "second: a held-back partition was never read"
  t_read=$(stamp c2.err 'released by')
else
  t_read=$(stamp c2.err 'group "grp-e3" assigned [1-9]')
fi
if [[ -n $t_over && -n $t_read && ! $t_read < $t_over ]]; then ok; else
  bad "second: the second process read partitions ($t_read) before the release ($t_over)"
fi
if grep -q 'did not release it' c2.err; then
  bad "second: the second process gave up waiting for the release"
else ok; fi
stop_run "$pid_c1" && ok || bad "second: c1 exit status on SIGTERM"
stop_run "$pid_c2" && ok || bad "second: c2 exit status on SIGTERM"

# ---- 4, 5. SIGKILL / SIGTERM while reading early, restart ---------------------------------
# interrupted NAME TOPIC SIGNAL: a process stopped by SIGNAL once its first rows were applied,
# then a second one: the table is exact, and the second waits for no release (the first's
# token names a process of this host that is gone)
interrupted() {
  local name=$1 topic=$2 sig=$3 pid
  gen_changes 20000 300 "$topic.txt"
  produce "$topic.txt" "$topic"
  pipeline "$topic" "$topic.db" >"$topic.sql"
  start_run "${name}1" "$topic.sql" --log-level info
  pid=$LAST_PID
  wait_for "${name}1.err" 'first rows applied after' 30 || bad "$name: no rows applied"
  grep -qE "$early" "${name}1.err" && ok || bad "$name: the process did not start early"
  grep -qE "$over" "${name}1.err" && echo "note: $name: the process had handed over already"
  kill "-$sig" "$pid"
  wait "$pid"
  local rc=$?
  if [[ $sig == KILL ]] || ((rc == 0)); then ok; else bad "$name: exit status $rc on SIG$sig"; fi
  # stopped, it waits for the group's assignment and commits what is durable through it
  if [[ $sig == KILL ]] || grep -qE 'early start over' "${name}1.err"; then ok; else
    bad "$name: stopped while early, the process did not commit its positions"
    grep -E 'early' "${name}1.err" | tail -3
  fi
  start_run "${name}2" "$topic.sql" --log-level info
  pid=$LAST_PID
  check_table "$name" "$topic.db" "$topic.txt.expected" "${name}1.err" "${name}2.err"
  wait_for "${name}2.err" "group \"grp-$topic\" assigned" 30 ||
    bad "$name: the restarted process got no assignment"
  stop_run "$pid" && ok || bad "$name: exit status on SIGTERM"
  if grep -qE 'held back until|did not release it' "${name}2.err"; then
    bad "$name: the restarted process waited for a process that is gone"
    grep -E 'release' "${name}2.err" | head -3
  else ok; fi
}
interrupted kill e4 KILL
interrupted stop e5 TERM

# ---- 6. turned off; parallelism 2 -----------------------------------------------------------
gen_changes 20000 300 e6.txt
produce e6.txt e6
pipeline e6 e6.db ", 'scan.group.early-start' = 'false'" >e6.sql
start_run g1 e6.sql --log-level info
pid_g1=$LAST_PID
check_table "off" e6.db e6.txt.expected g1.err
stop_run "$pid_g1" && ok || bad "off: exit status on SIGTERM"
grep -qE "$early|no early start" g1.err && bad "off: the early start was tried" || ok
rm -f e6.db
pipeline e6 e6.db | sed "s/grp-e6/grp-e6p/" >e6p.sql
start_run g2 e6p.sql --log-level info --parallelism 2
pid_g2=$LAST_PID
check_table "parallelism 2" e6.db e6.txt.expected g2.err
wait_count g2.err "$released" 2 || bad "parallelism 2: the splits did not both release"
stop_run "$pid_g2" && ok || bad "parallelism 2: exit status on SIGTERM"
# one decision for both splits: each reads half the partitions early, with its own token
n_early=$(grep -cE "early start, reading 2 partition" g2.err)
n_over=$(grep -cE "$released" g2.err)
if ((n_early == 2 && n_over == 2)); then ok; else
  bad "parallelism 2: expected two splits started early and handed over ($n_early, $n_over)"
  grep -E 'early|empty' g2.err | head -5
fi
if grep -q 'did not release it' g2.err; then
  bad "parallelism 2: a split gave up waiting for the other's release"
else ok; fi

echo "kafka_early_start: $pass passed, $fail failed"
((fail == 0))
