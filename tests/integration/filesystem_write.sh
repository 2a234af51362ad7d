#!/usr/bin/env bash
# The filesystem sink: files written by cdcflow read back identically (json
# and csv, every scalar type, dynamic partitions with NULL and characters
# that need escaping); rolling by size; static partitions; INSERT OVERWRITE
# of one partition leaves the others untouched; partition commit policies
# (success-file, catalog with SHOW PARTITIONS, custom shared object) and the
# partition-time trigger; changelog archiving with debezium-json;
# sink.shuffle-by-partition.enable accepted (no exchange between splits: one file per
# partition per split, and a warning saying so under parallelism > 1).
set -uo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fail=$((fail + 1)); }

cols="id BIGINT NOT NULL, s STRING, b BOOLEAN, d DECIMAL(10, 2), f DOUBLE, dt DATE, ts TIMESTAMP(3), p STRING"
data="+I[1, 'a,b \"q\"', true, 1.50, 0.1, 2024-01-01, 2024-01-01T10:00:00.123, 'p/1']; \
+I[2, null, false, -2.00, 1.0E7, 2024-01-02, 2024-01-02T00:00:00.000, null]; \
+I[3, '', null, 0.00, -3.5, null, null, 'p=2']; \
+I[4, 'four', true, 4.44, 4.0, 2024-12-31, 2024-12-31T23:59:59.999, 'p/1']"
for fmt in json csv; do
  cat >"$tmp/w_$fmt.sql" <<SQL
CREATE TABLE src ($cols) WITH ('connector' = 'values', 'data' = '$(printf '%s' "$data" | sed "s/'/''/g")');
CREATE TABLE t ($cols) PARTITIONED BY (p) WITH (
  'connector' = 'filesystem', 'path' = '$tmp/$fmt', 'format' = '$fmt');
INSERT INTO t SELECT * FROM src;
SELECT * FROM src;
SELECT * FROM t;
SQL
  if "$bin" run "$tmp/w_$fmt.sql" >"$tmp/o_$fmt" 2>&1; then
    # the first 4 printed rows are the source, the next 4 the table read back
    head -4 "$tmp/o_$fmt" | sort >"$tmp/want"
    tail -n +5 "$tmp/o_$fmt" | sort >"$tmp/got"
    [[ $(wc -l <"$tmp/got") -eq 4 ]] && diff "$tmp/want" "$tmp/got" >/dev/null && ok ||
      ko "$fmt round trip: $(cat "$tmp/o_$fmt")"
    [[ -d "$tmp/$fmt/p=p%2F1" && -d "$tmp/$fmt/p=p%3D2" && -d "$tmp/$fmt/p=__HIVE_DEFAULT_PARTITION__" ]] &&
      ok || ko "$fmt partition directories: $(ls "$tmp/$fmt")"
    [[ -z $(find "$tmp/$fmt" -name '.*') ]] && ok || ko "$fmt left hidden files: $(find "$tmp/$fmt")"
  else
    ko "$fmt write/read failed: $(cat "$tmp/o_$fmt")"
  fi
done

# rolling: a 100-byte file size gives several files, none in progress after the job
cat >"$tmp/roll.sql" <<SQL
CREATE TABLE g (id BIGINT NOT NULL) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',
  'fields.id.start' = '1', 'fields.id.end' = '100');
CREATE TABLE r (id BIGINT NOT NULL) WITH ('connector' = 'filesystem', 'path' = '$tmp/roll',
  'format' = 'json', 'sink.rolling-policy.file-size' = '100b');
INSERT INTO r SELECT * FROM g;
SQL
if "$bin" run "$tmp/roll.sql" >"$tmp/roll.out" 2>&1; then
  n=$(find "$tmp/roll" -name 'part-*' | wc -l)
  [[ $n -ge 10 ]] && ok || ko "rolling made $n files"
  [[ $(cat "$tmp"/roll/part-* | sort -u | wc -l) -eq 100 ]] && ok || ko "rolled rows"
else
  ko "rolling write failed: $(cat "$tmp/roll.out")"
fi

# static partitions and OVERWRITE of one partition
ov=$tmp/ov
tbl="CREATE TABLE ov (id BIGINT NOT NULL, dt STRING) PARTITIONED BY (dt) WITH (
  'connector' = 'filesystem', 'path' = '$ov', 'format' = 'json',
  'sink.partition-commit.policy.kind' = 'success-file,catalog',
  'sink.partition-commit.success-file.name' = '_DONE');"
cat >"$tmp/ov1.sql" <<SQL
CREATE TABLE src (id BIGINT NOT NULL, dt STRING) WITH ('connector' = 'values',
  'data' = '+I[1, d1]; +I[2, d1]; +I[3, d2]; +I[4, d3]');
$tbl
INSERT INTO ov SELECT * FROM src;
INSERT INTO ov PARTITION (dt = 'd4') SELECT id FROM src WHERE id = 1;
SHOW PARTITIONS ov;
SQL
if "$bin" run "$tmp/ov1.sql" >"$tmp/ov1" 2>&1; then
  printf 'dt=d1\ndt=d2\ndt=d3\ndt=d4\n' | diff - "$tmp/ov1" >/dev/null && ok || ko "SHOW PARTITIONS: $(cat "$tmp/ov1")"
  [[ -f "$ov/dt=d1/_DONE" && -f "$ov/dt=d4/_DONE" && ! -e "$ov/dt=d1/_SUCCESS" ]] && ok || ko "success files: $(find "$ov")"
  [[ -d "$ov/dt=d4" && ! -d "$ov/dt=ignored" ]] && ok || ko "static partition: $(find "$ov")"
else
  ko "partitioned write failed: $(cat "$tmp/ov1")"
fi
d2_before=$(cat "$ov"/dt=d2/part-* "$ov"/dt=d3/part-* | sort)
cat >"$tmp/ov2.sql" <<SQL
CREATE TABLE src (id BIGINT NOT NULL, dt STRING) WITH ('connector' = 'values',
  'data' = '+I[10, d1]; +I[11, d1]');
$tbl
INSERT OVERWRITE ov SELECT * FROM src;
INSERT OVERWRITE ov PARTITION (dt = 'd4') SELECT id FROM src WHERE id = 99;
SELECT id, dt FROM ov;
SQL
if "$bin" run "$tmp/ov2.sql" >"$tmp/ov2" 2>&1; then
  printf '+I[10, d1]\n+I[11, d1]\n+I[3, d2]\n+I[4, d3]\n' | diff - <(sort "$tmp/ov2") >/dev/null && ok ||
    ko "overwrite of d1 (and an empty overwrite of d4): $(cat "$tmp/ov2")"
  [[ "$(cat "$ov"/dt=d2/part-* "$ov"/dt=d3/part-* | sort)" == "$d2_before" ]] && ok || ko "other partitions touched"
else
  ko "overwrite failed: $(cat "$tmp/ov2")"
fi

# custom commit policy from a shared object (and a failing one)
cc -shared -fPIC -I"$src/connectors/filesystem" -o "$tmp/libpolicy.so" \
  "$src/tests/data/filesystem/commit_policy.c" || { echo "cannot build the policy"; exit 1; }
cat >"$tmp/custom.sql" <<SQL
CREATE TABLE src (id BIGINT NOT NULL, k STRING) WITH ('connector' = 'values',
  'data' = '+I[1, a]; +I[2, null]');
CREATE TABLE cu (id BIGINT NOT NULL, k STRING) PARTITIONED BY (k) WITH (
  'connector' = 'filesystem', 'path' = '$tmp/cu', 'format' = 'json',
  'sink.partition-commit.policy.kind' = 'custom',
  'sink.partition-commit.policy.class' = '$tmp/libpolicy.so');
INSERT INTO cu SELECT * FROM src;
SQL
if FS_POLICY_LOG=$tmp/policy.log "$bin" run "$tmp/custom.sql" >"$tmp/custom" 2>&1; then
  printf '%s\n' "default_catalog.default_database.cu|k=__HIVE_DEFAULT_PARTITION__|k=__HIVE_DEFAULT_PARTITION__" \
    "default_catalog.default_database.cu|k=a|k=a" | diff - <(sort "$tmp/policy.log") >/dev/null && ok ||
    ko "custom policy log: $(cat "$tmp/policy.log" "$tmp/custom")"
else
  ko "custom policy run failed: $(cat "$tmp/custom")"
fi
sed -i "s/+I\[1, a\]/+I[1, fail]/" "$tmp/custom.sql"
if FS_POLICY_LOG=$tmp/policy.log "$bin" run "$tmp/custom.sql" >"$tmp/custom2" 2>&1; then
  ko "a failing policy was ignored"
else
  grep -q 'refused partition k=fail' "$tmp/custom2" && ok || ko "failing policy message: $(cat "$tmp/custom2")"
fi
sed -i "s|libpolicy.so'|libpolicy.so:no_such_fn'|" "$tmp/custom.sql"
if "$bin" run "$tmp/custom.sql" >"$tmp/custom3" 2>&1; then ko "a missing policy symbol was accepted"; else
  grep -q 'no function "no_such_fn"' "$tmp/custom3" && ok || ko "missing symbol message: $(cat "$tmp/custom3")"
fi

# partition-time trigger: a past partition is committed while the job runs, a future one only at the end
cat >"$tmp/pt.sql" <<SQL
SET 'execution.checkpointing.interval' = '100 ms';
CREATE TABLE src (id BIGINT NOT NULL, dt STRING) WITH ('connector' = 'values', 'bounded' = 'false',
  'data' = '+I[1, 2000-01-01]; +I[2, 2999-01-01]');
CREATE TABLE pt (id BIGINT NOT NULL, dt STRING) PARTITIONED BY (dt) WITH (
  'connector' = 'filesystem', 'path' = '$tmp/pt', 'format' = 'json',
  'sink.partition-commit.trigger' = 'partition-time', 'sink.partition-commit.delay' = '1 h',
  'partition.time-extractor.timestamp-pattern' = '\$dt 00:00:00',
  'sink.partition-commit.policy.kind' = 'success-file');
INSERT INTO pt SELECT * FROM src;
SQL
"$bin" run "$tmp/pt.sql" >"$tmp/pt.out" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [[ -f "$tmp/pt/dt=2000-01-01/_SUCCESS" ]] && break; sleep 0.05; done
[[ -f "$tmp/pt/dt=2000-01-01/_SUCCESS" ]] && ok || ko "past partition not committed: $(find "$tmp/pt")"
compgen -G "$tmp/pt/dt=2999-01-01/part-*" >/dev/null && [[ ! -e "$tmp/pt/dt=2999-01-01/_SUCCESS" ]] && ok ||
  ko "future partition committed early: $(find "$tmp/pt")"
kill -TERM $pid
wait $pid && ok || ko "stopping the partition-time job: $(cat "$tmp/pt.out")"
[[ -f "$tmp/pt/dt=2999-01-01/_SUCCESS" ]] && ok || ko "the job's end did not commit: $(find "$tmp/pt")"

# changelog: debezium-json files take -U as a delete and +U as a create; json takes inserts only
cat >"$tmp/cl.sql" <<SQL
CREATE TABLE src (id BIGINT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, a]; +I[2, b]; -U[1, a]; +U[1, a2]; -D[2, b]');
CREATE TABLE arch (id BIGINT NOT NULL, name STRING) WITH (
  'connector' = 'filesystem', 'path' = '$tmp/arch', 'format' = 'debezium-json');
INSERT INTO arch SELECT * FROM src;
SELECT * FROM arch;
SQL
if "$bin" run "$tmp/cl.sql" >"$tmp/cl" 2>&1; then
  [[ "$(cat "$tmp"/arch/part-* | grep -o '"op":"[a-z]"' | tr -d '\n')" == '"op":"c""op":"c""op":"d""op":"c""op":"d"' ]] &&
    ok || ko "debezium ops: $(cat "$tmp"/arch/part-*)"
  printf '+I[1, a]\n+I[2, b]\n-D[1, a]\n+I[1, a2]\n-D[2, b]\n' | diff - "$tmp/cl" >/dev/null && ok ||
    ko "archived changelog read back: $(cat "$tmp/cl")"
else
  ko "changelog archive failed: $(cat "$tmp/cl")"
fi
sed -i "s/'debezium-json'/'json'/" "$tmp/cl.sql"
if "$bin" run "$tmp/cl.sql" >"$tmp/cl2" 2>&1; then ko "json files accepted a changelog"; else
  grep -q "doesn't support consuming update and delete changes" "$tmp/cl2" && ok || ko "json changelog message: $(cat "$tmp/cl2")"
fi
# ---- sink.shuffle-by-partition.enable: accepted; each split still writes every partition ------
for par in 1 2; do
  cat >"$tmp/shuffle$par.sql" <<SQL
SET 'parallelism.default' = '$par';
CREATE TABLE dg (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '400',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '400');
CREATE TABLE fs (id BIGINT, p INT) PARTITIONED BY (p) WITH ('connector' = 'filesystem',
  'path' = '$tmp/shuffle$par', 'format' = 'json', 'sink.shuffle-by-partition.enable' = 'true');
INSERT INTO fs SELECT id, CAST(id % 4 AS INT) FROM dg;
SQL
  if "$bin" run "$tmp/shuffle$par.sql" >"$tmp/shuffle$par.out" 2>"$tmp/shuffle$par.err"; then
    files=$(find "$tmp/shuffle$par" -type f -name 'part-*' | wc -l)
    rows=$(cat "$tmp/shuffle$par"/p=*/part-* | wc -l)
    [[ $files == $((4 * par)) && $rows == 400 ]] && ok ||
      ko "shuffle-by-partition, parallelism $par: $files files, $rows rows"
    if ((par > 1)); then
      grep -q 'option "sink.shuffle-by-partition.enable" has no effect' "$tmp/shuffle$par.err" && ok ||
        ko "shuffle-by-partition: no warning: $(cat "$tmp/shuffle$par.err")"
    else
      [[ ! -s $tmp/shuffle$par.err ]] && ok || ko "shuffle-by-partition, one split: $(cat "$tmp/shuffle$par.err")"
    fi
  else
    ko "shuffle-by-partition, parallelism $par: $(cat "$tmp/shuffle$par.err")"
  fi
done

echo "filesystem_write: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
