#!/usr/bin/env bash
# The unbounded filesystem source (source.monitor-interval): a partition
# created while the job runs is discovered and read; a restart reads no file
# twice; a job killed with SIGKILL while writing leaves only complete visible
# files (in-progress files are hidden): a bounded INSERT OVERWRITE re-run
# completes the table without duplicates; an unbounded job (two-phase commit,
# fs -> fs) killed five times never repeats a row and its re-run completes the
# table exactly.
set -uo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fail=$((fail + 1)); }
# rows in the visible files of a table (hidden names skipped, as readers do)
visible_rows() { find "$1" -type f -name 'part-*' -exec cat {} + 2>/dev/null | wc -l; }
wait_rows() { # dir count: waits up to 60 s for the table to hold count rows
  for _ in $(seq 1 600); do [[ $(visible_rows "$1") -ge $2 ]] && return 0; sleep 0.1; done
  return 1
}

in=$tmp/in
out=$tmp/out
mkdir -p "$in/dt=2024-01-01"
printf '{"id":1}\n{"id":2}\n' >"$in/dt=2024-01-01/a.json"
cat >"$tmp/job.sql" <<SQL
SET 'execution.checkpointing.interval' = '50 ms';
CREATE TABLE s (id BIGINT, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'filesystem',
  'path' = '$in', 'format' = 'json', 'source.monitor-interval' = '50 ms');
CREATE TABLE o (id BIGINT, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'filesystem',
  'path' = '$out', 'format' = 'json');
INSERT INTO o SELECT * FROM s;
SQL
"$bin" run "$tmp/job.sql" >"$tmp/job.out" 2>&1 &
pid=$!
pids+=($pid)
wait_rows "$out" 2 && ok || ko "first partition not read: $(cat "$tmp/job.out")"
# a new partition appears atomically (written hidden, then renamed)
mkdir -p "$in/dt=2024-01-02"
printf '{"id":3}\n' >"$in/dt=2024-01-02/.b.tmp" && mv "$in/dt=2024-01-02/.b.tmp" "$in/dt=2024-01-02/b.json"
wait_rows "$out" 3 && ok || ko "new partition not discovered: $(find "$out")"
[[ -d "$out/dt=2024-01-02" ]] && ok || ko "new partition directory: $(find "$out")"
kill -TERM $pid
wait $pid && ok || ko "stop: $(cat "$tmp/job.out")"
# a restart reads nothing again, and goes on with new files
printf '{"id":4}\n' >"$in/dt=2024-01-02/.c.tmp" && mv "$in/dt=2024-01-02/.c.tmp" "$in/dt=2024-01-02/c.json"
"$bin" run "$tmp/job.sql" >"$tmp/job2.out" 2>&1 &
pid=$!
pids+=($pid)
wait_rows "$out" 4 && ok || ko "restart did not read the new file: $(cat "$tmp/job2.out")"
kill -TERM $pid
wait $pid && ok || ko "stop after restart: $(cat "$tmp/job2.out")"
[[ $(visible_rows "$out") -eq 4 ]] && ok || ko "restart read files twice: $(find "$out" -name 'part-*' -exec cat {} +)"

# SIGKILL while writing, then a re-run
big=$tmp/big
total=0
for p in 0 1 2 3; do
  mkdir -p "$big/p=$p"
  for f in $(seq 1 25); do
    seq $((total + 1)) $((total + 2000)) | sed 's/.*/{"id":&}/' >"$big/p=$p/f$f.json"
    total=$((total + 2000))
  done
done
# every visible file of table $1 is complete: whole JSON lines, ending with a newline
check_complete() {
  local bad=0 f
  while IFS= read -r -d '' f; do
    [[ -s $f && $(tail -c 1 "$f" | od -An -c | tr -d ' ') == '\n' ]] || bad=$((bad + 1))
    grep -qv '^{"id":[0-9]*}$' "$f" && bad=$((bad + 1))
  done < <(find "$1" -type f -name 'part-*' -print0)
  [[ $bad -eq 0 ]] && ok || ko "$2: $bad visible files are incomplete after SIGKILL"
}
kill_while_writing() { # sql dst label
  "$bin" run "$1" >"$tmp/kill.out" 2>&1 &
  local pid=$!
  pids+=($pid)
  wait_rows "$2" 1 || ko "$3: nothing written before the kill: $(cat "$tmp/kill.out")"
  kill -9 $pid
  wait $pid 2>/dev/null
  local got
  got=$(visible_rows "$2")
  [[ $got -lt $total ]] || echo "note: $3: the job finished ($got rows) before SIGKILL"
  check_complete "$2" "$3"
}
count_rows() { find "$1" -type f -name 'part-*' -exec cat {} + | wc -l; }
count_distinct() { find "$1" -type f -name 'part-*' -exec cat {} + | sort -u | wc -l; }

# a bounded INSERT OVERWRITE: the re-run replaces what the killed run made visible
dst=$tmp/dst_bounded
cat >"$tmp/bounded.sql" <<SQL
SET 'execution.checkpointing.interval' = '20 ms';
SET 'execution.batch-size' = '50';
SET 'parallelism.default' = '2';
CREATE TABLE s (id BIGINT, p INT) PARTITIONED BY (p) WITH ('connector' = 'filesystem',
  'path' = '$big', 'format' = 'json');
CREATE TABLE d (id BIGINT, p INT) PARTITIONED BY (p) WITH ('connector' = 'filesystem',
  'path' = '$dst', 'format' = 'json', 'sink.rolling-policy.file-size' = '2kb');
INSERT OVERWRITE d SELECT * FROM s;
SQL
kill_while_writing "$tmp/bounded.sql" "$dst" "bounded overwrite"
if "$bin" run "$tmp/bounded.sql" >"$tmp/bounded2.out" 2>&1; then
  rows=$(count_rows "$dst")
  uniq=$(count_distinct "$dst")
  [[ $rows -eq $total && $uniq -eq $total ]] && ok || ko "bounded re-run: $rows rows, $uniq distinct, want $total"
else
  ko "bounded re-run failed: $(cat "$tmp/bounded2.out")"
fi

# an unbounded job writing files (fs -> fs) commits in two phases: the sink's
# files are prepared (synced, hidden, listed in a manifest under the checkpoint
# id), the source stores the id with its position, then the files are renamed
# into place; a restart publishes what the stored id covers and removes the
# rest. Killed five times at different moments, the table never holds a
# duplicate, and the last run completes it exactly.
dst=$tmp/dst_stream
sed -e "s|'format' = 'json');|'format' = 'json', 'source.monitor-interval' = '50 ms');|" \
  -e "s|dst_bounded|dst_stream|" -e "s|INSERT OVERWRITE|INSERT INTO|" "$tmp/bounded.sql" >"$tmp/crash.sql"
no_duplicates() { # label
  local rows uniq
  rows=$(count_rows "$dst")
  uniq=$(count_distinct "$dst")
  [[ $rows -eq $uniq ]] && ok || ko "$1: $rows rows but $uniq distinct (repeated after a SIGKILL)"
}
for k in 1 2 3 4 5; do
  # each run goes on from the last; killed once the table passed k/8 of the rows, a little later each time
  "$bin" run "$tmp/crash.sql" >"$tmp/kill$k.out" 2>&1 &
  pid=$!
  pids+=($pid)
  wait_rows "$dst" $((k * total / 8)) || ko "kill $k: the table did not grow: $(cat "$tmp/kill$k.out")"
  sleep "0.00$k"
  kill -9 $pid
  wait $pid 2>/dev/null
  got=$(visible_rows "$dst")
  [[ $got -lt $total ]] || echo "note: streaming kill $k: the table was complete ($got rows) before SIGKILL"
  check_complete "$dst" "streaming kill $k"
  no_duplicates "streaming kill $k"
done
"$bin" run "$tmp/crash.sql" >"$tmp/crash2.out" 2>&1 &
pid=$!
pids+=($pid)
wait_rows "$dst" $total && ok || ko "the re-run did not complete the table: $(visible_rows "$dst") of $total"
kill -TERM $pid
wait $pid && ok || ko "stop of the re-run: $(cat "$tmp/crash2.out")"
rows=$(count_rows "$dst")
uniq=$(count_distinct "$dst")
[[ $uniq -eq $total && $rows -eq $total ]] && ok || ko "after the re-runs: $rows rows, $uniq distinct, want $total of each"
# nothing prepared is left behind (files a kill cut short before their prepare stay hidden)
left=$(find "$dst" -path '*/_cdcflow_pending/*' | wc -l)
[[ $left -eq 0 ]] && ok || ko "manifests left after a clean stop: $(find "$dst" -path '*/_cdcflow_pending/*')"
echo "filesystem_stream: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
