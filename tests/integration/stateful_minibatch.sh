#!/usr/bin/env bash
# Mini-batch GROUP BY on an endless source (issue 19): with a size no batch reaches and a
# checkpoint interval of an hour, the changes reach the sink only because a batch fires once
# its first row has waited table.exec.mini-batch.allow-latency (the graph's ticker); they
# come while the job runs, batch after batch, each group's count going up. Then the same
# job stopped with SIGINT: the stop's checkpoint fires the last batch, so the counts printed
# last add up to every row read (the job logs how many).
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
job_pid=
trap '[[ -n $job_pid ]] && kill -9 "$job_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
cat >tick.sql <<'SQL'
SET 'execution.checkpointing.interval' = '1 h';
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '200 ms';
SET 'table.exec.mini-batch.size' = '1000000';
CREATE TABLE g (k INT) WITH ('connector' = 'datagen', 'rows-per-second' = '50',
  'fields.k.min' = '1', 'fields.k.max' = '3');
CREATE TABLE out (k INT, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT k, COUNT(*) FROM g GROUP BY k;
SQL
"$bin" run tick.sql --log-level info >out.txt 2>err.txt &
job_pid=$!
# a group's count updated: a second batch fired while the job runs
if wait_for out.txt '^\+U\[' 30; then ok; else
  bad "no batch fired while the job ran: $(head -3 out.txt) $(tail -3 err.txt)"
fi
kill -0 "$job_pid" 2>/dev/null && ok || bad "the job ended: $(tail -3 err.txt)"
kill -INT "$job_pid"
wait "$job_pid"
rc=$?
job_pid=
[[ $rc -eq 0 ]] && ok || bad "the stopped job exited $rc: $(tail -3 err.txt)"
# the last change of each group is its final count; they add up to the rows read
read_rows=$(grep -Eo 'job (finished|stopped): [0-9]+ row' err.txt | grep -Eo '[0-9]+')
total=$(grep -E '^\+[IU]\[' out.txt | sed -E 's/^\+[IU]\[([0-9]+), ([0-9]+)\]$/\1 \2/' |
  awk '{ n[$1] = $2 } END { for (k in n) s += n[k]; print s + 0 }')
[[ -n $read_rows && $total -eq $read_rows ]] && ok ||
  bad "the final counts add up to $total, the job read ${read_rows:-?} row(s)"

echo "stateful_minibatch: $pass passed, $fail failed"
((fail == 0))
