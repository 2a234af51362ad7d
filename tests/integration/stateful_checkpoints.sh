#!/usr/bin/env bash
# Checkpoints of a stateful job (issue 19; the figures bench/stateful.sh reports): a GROUP BY
# over 60,000 Debezium changes read by one split, with --state-dir, logs one debug line per
# checkpoint ("checkpoint N: sink flushed in X ms, state committed in Y ms (~K key(s), D byte(s)
# on disk, M byte(s) in memory)"), numbered from 1, with the store's figures; and checkpoints
# come on the interval (1 h here) or when the state's uncommitted changes outgrow their memory
# share, not every 10,000 written rows (each rewrote every touched group: 62% of a GROUP BY's
# time) nor after every batch (regression: the split's own arrival at the barrier asked for the
# next checkpoint).
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/a"
# 20,000 creates (ids 0..19999, 100 groups), then each row updated twice (val +1, then +2)
awk 'BEGIN {
  for (i = 0; i < 20000; i++)
    printf("{\"before\":null,\"after\":{\"id\":%d,\"grp\":%d,\"val\":1},\"op\":\"c\"}\n", i, i % 100);
  for (v = 1; v <= 2; v++)
    for (i = 0; i < 20000; i++)
      printf("{\"before\":{\"id\":%d,\"grp\":%d,\"val\":%d},\"after\":{\"id\":%d,\"grp\":%d,\"val\":%d},\"op\":\"u\"}\n",
             i, i % 100, v, i, i % 100, v + 1);
}' >"$tmp/a/part-0.json"
cat >"$tmp/g.sql" <<SQL
SET 'execution.checkpointing.interval' = '1h';
CREATE TABLE a (id INT, grp INT, val INT) WITH ('connector' = 'filesystem', 'path' = '$tmp/a',
  'format' = 'debezium-json');
CREATE TABLE out (grp INT, cnt BIGINT, total BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT grp, COUNT(*), SUM(val) FROM a GROUP BY grp;
SQL
"$bin" run "$tmp/g.sql" --state-dir "$tmp/state" --log-level debug >"$tmp/out" 2>"$tmp/log"
rc=$?
[[ $rc -eq 0 ]] && ok || bad "the job exited $rc: $(tail -3 "$tmp/log")"
# every group ends at 200 rows and a sum of 600 (the last +U of each group)
[[ $(grep -c '^+U\[[0-9]*, 200, 600\]$' "$tmp/out") -eq 100 ]] && ok ||
  bad "final groups: $(tail -3 "$tmp/out")"

re='checkpoint ([0-9]+): sink flushed in [0-9]+\.[0-9] ms, state committed in [0-9]+\.[0-9] ms \(~([0-9]+) key\(s\), ([0-9]+) byte\(s\) on disk, ([0-9]+) byte\(s\) in memory\)'
grep -Eo "$re" "$tmp/log" >"$tmp/ckpt"
n=$(wc -l <"$tmp/ckpt")
((n >= 1)) && ok || bad "no checkpoint line in the debug log: $(grep -m3 checkpoint "$tmp/log")"
# numbered 1..n in order
seq 1 "$n" | diff -q - <(sed -E "s/$re/\1/" "$tmp/ckpt") >/dev/null && ok ||
  bad "checkpoints not numbered 1..$n: $(head -3 "$tmp/ckpt")"
# the store's figures: keys (100 groups, RocksDB's estimate) and bytes on disk after the first
sed -E "s/$re/\2 \3 \4/" "$tmp/ckpt" | awk '$1 < 1 || $2 < 1 || $3 < 1 { bad = 1 } END { exit bad }' && ok ||
  bad "a checkpoint without keys, disk or memory bytes: $(head -3 "$tmp/ckpt")"
# the end's only: one per 10,000 rows written (~100,000 here) made 11, one per 1,024-row batch
# after the first (the regression) 91
written=$(grep -Eo 'job finished: [0-9]+ row' "$tmp/log" | grep -Eo '[0-9]+')
((n == 1)) && ok || bad "$n checkpoints for $written rows written with a 1 h interval"

echo "stateful_checkpoints: $pass passed, $fail failed"
((fail == 0))
