#!/usr/bin/env bash
# End-to-end pipeline tests of the cdcflow binary: datagen -> print in
# parallel splits, the Quick start demo, SIGTERM on an unbounded job.
set -uo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fail=$((fail + 1)); }

# 1. datagen with 4 splits yields exactly number-of-rows distinct sequence values
cat >"$tmp/split.sql" <<'SQL'
CREATE TABLE gen (id BIGINT NOT NULL, v INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '10000', 'rows-per-second' = '100000000', 'seed' = '7',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10000');
CREATE TABLE out (id BIGINT NOT NULL, v INT) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM gen;
SQL
if "$bin" run --parallelism 4 "$tmp/split.sql" >"$tmp/split.out" 2>"$tmp/split.err"; then
  # lines look like "3> +I[17, 42]": keep the id
  sed -E 's/^[0-9]+> \+I\[([0-9]+),.*/\1/' "$tmp/split.out" | sort -n >"$tmp/ids"
  seq 1 10000 >"$tmp/want"
  if cmp -s "$tmp/ids" "$tmp/want"; then ok; else ko "4 splits did not yield 1..10000 exactly once"; fi
  # every subtask 1..4 printed something
  subtasks=$(cut -d'>' -f1 "$tmp/split.out" | sort -u | tr '\n' ' ')
  if [[ $subtasks == "1 2 3 4 " ]]; then ok; else ko "subtasks seen: $subtasks"; fi
else
  ko "parallel run failed: $(cat "$tmp/split.err")"
fi

# 2. the same rows with 1 split and with 3 splits (deterministic generator)
"$bin" run "$tmp/split.sql" | sort >"$tmp/one"
"$bin" run --parallelism 3 "$tmp/split.sql" | sed -E 's/^[0-9]+> //' | sort >"$tmp/three"
if [[ -s $tmp/one ]] && cmp -s "$tmp/one" "$tmp/three"; then ok; else ko "1 split and 3 splits differ"; fi

# 3. the Quick start demo runs and prints its 10 rows
if "$bin" run "$src/schemas/demo.sql" >"$tmp/demo.out" 2>"$tmp/demo.err"; then
  n=$(grep -c '^orders> +I\[10[0-9][0-9], ' "$tmp/demo.out")
  if [[ $n -eq 10 ]]; then ok; else ko "demo printed $n rows"; fi
else
  ko "demo failed: $(cat "$tmp/demo.err")"
fi

# 4. an unbounded job stops cleanly on SIGTERM and SIGINT: rows flushed, exit 0
cat >"$tmp/unbounded.sql" <<'SQL'
CREATE TABLE gen (id BIGINT NOT NULL) WITH ('connector' = 'datagen', 'rows-per-second' = '200',
  'fields.id.min' = '1', 'fields.id.max' = '9');
CREATE TABLE out (id BIGINT NOT NULL) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM gen;
SQL
for sig in TERM INT; do
  "$bin" run "$tmp/unbounded.sql" >"$tmp/unb.out" 2>"$tmp/unb.err" &
  pid=$!
  sleep 1
  kill -s $sig $pid
  wait $pid
  code=$?
  n=$(grep -c '^+I\[' "$tmp/unb.out")
  if [[ $code -eq 0 && $n -gt 0 ]]; then ok; else ko "SIG$sig: exit $code, $n rows"; fi
done

# 5. LIMIT on datagen is pushed into the source and yields exactly that many rows
cat >"$tmp/limit.sql" <<'SQL'
CREATE TABLE gen (a INT, b STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000');
CREATE TABLE out (a INT) WITH ('connector' = 'print');
INSERT INTO out SELECT a FROM gen LIMIT 25;
SQL
n=$("$bin" run --parallelism 2 "$tmp/limit.sql" | grep -c '+I\[')
if [[ $n -eq 25 ]]; then ok; else ko "LIMIT 25 gave $n rows"; fi

echo "pipeline: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
