#!/usr/bin/env bash
# A stateful job killed with SIGKILL five times ends exactly right (issue 19): Debezium changes
# of orders and products on Kafka (the local mock broker), a LEFT JOIN of the two into SQLite,
# then a GROUP BY over the join, the same with mini-batch (table.exec.mini-batch.*: each batch
# folded into the state before the checkpoint commits), each run with --state-dir. More changes are produced between
# the kills; after the last start the sink must equal the join (and the aggregate) of the final
# source tables, computed independently here. The state (RocksDB under --state-dir) is committed
# with the consumer's offsets at each checkpoint, so a restart neither loses nor counts twice.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
source "${CDC_SOURCE_DIR:?}/tests/servers/kafka.sh"
job_pid=
trap '[[ -n $job_pid ]] && kill -9 "$job_pid" 2>/dev/null; mock_stop_all; [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mock_start mock --partitions 2 --topic orders --topic products --topic orders2 --topic products2 \
  --topic orders3 --topic products3

# chunks orders.K / products.K ("key|value" Debezium messages), the final tables, the expected
# join (order_id|name|qty) and aggregate (name|count|sum) over them
python3 - <<'PY'
import json, random
rnd = random.Random(19)
orders, products = {}, {}
def msg(before, after, op):
    return json.dumps({"before": before, "after": after, "op": op}, separators=(",", ":"))
for chunk in range(6):
    with open("orders.%d" % chunk, "w") as fo, open("products.%d" % chunk, "w") as fp:
        for i in range(400):
            pid = rnd.randint(1, 60)
            if pid in products and rnd.random() < 0.15:
                fp.write('{"id":%d}|%s\n' % (pid, msg({"id": pid, "name": products[pid]}, None, "d")))
                del products[pid]
            else:
                name = "p%d_%d" % (pid, rnd.randint(0, 9))
                before = {"id": pid, "name": products[pid]} if pid in products else None
                fp.write('{"id":%d}|%s\n' % (pid, msg(before, {"id": pid, "name": name}, "u" if before else "c")))
                products[pid] = name
        for i in range(3000):
            oid = rnd.randint(1, 1500)
            if oid in orders and rnd.random() < 0.1:
                p, q = orders[oid]
                fo.write('{"order_id":%d}|%s\n' % (oid, msg({"order_id": oid, "product_id": p, "qty": q}, None, "d")))
                del orders[oid]
            else:
                p, q = rnd.randint(1, 70), rnd.randint(1, 9)
                before = None
                if oid in orders:
                    before = {"order_id": oid, "product_id": orders[oid][0], "qty": orders[oid][1]}
                fo.write('{"order_id":%d}|%s\n' % (oid, msg(before, {"order_id": oid, "product_id": p, "qty": q}, "u" if before else "c")))
                orders[oid] = (p, q)
with open("join.expected", "w") as f:
    for oid in sorted(orders):
        p, q = orders[oid]
        f.write("%d|%s|%d\n" % (oid, products.get(p, ""), q))
agg = {}
for oid, (p, q) in orders.items():
    if p in products:
        n, s = agg.get(products[p], (0, 0))
        agg[products[p]] = (n + 1, s + q)
with open("agg.expected", "w") as f:
    for name in sorted(agg):
        f.write("%s|%d|%d\n" % (name, agg[name][0], agg[name][1]))
PY

# job NAME ORDERS_TOPIC PRODUCTS_TOPIC SINK_DDL QUERY [SET STATEMENTS]
job() {
  cat >"$1.sql" <<SQL
${6:-}
SET 'execution.checkpointing.interval' = '150ms';
SET 'pipeline.name' = '$1';
CREATE TABLE orders (order_id INT NOT NULL, product_id INT, qty INT,
                     PRIMARY KEY (order_id) NOT ENFORCED)
WITH ('connector' = 'kafka', 'topic' = '$2', 'properties.bootstrap.servers' = '$BS',
      'properties.group.id' = 'g-$1', 'scan.startup.mode' = 'earliest-offset',
      'properties.session.timeout.ms' = '6000', 'properties.heartbeat.interval.ms' = '500',
      'format' = 'debezium-json');
CREATE TABLE products (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'kafka', 'topic' = '$3', 'properties.bootstrap.servers' = '$BS',
      'properties.group.id' = 'g-$1', 'scan.startup.mode' = 'earliest-offset',
      'properties.session.timeout.ms' = '6000', 'properties.heartbeat.interval.ms' = '500',
      'format' = 'debezium-json');
$4
$5
SQL
}

# run_kills NAME ORDERS_TOPIC PRODUCTS_TOPIC: five starts killed with SIGKILL, a chunk produced
# before each, then the last chunk and a run until the sink is right
run_kills() {
  local name=$1 ot=$2 pt=$3
  for k in 0 1 2 3 4; do
    produce "orders.$k" "$ot"
    produce "products.$k" "$pt"
    "$bin" run "$name.sql" --state-dir "$tmp/state" --log-level info >"$name.$k.out" 2>"$name.$k.err" &
    job_pid=$!
    # killed once rows flow (the consumer group's join takes seconds), at a different point
    # of each run
    wait_for "$name.$k.err" "first rows applied" 30 || bad "$name: run $k applied no rows"
    sleep "0.$((1 + k * 2))"
    kill -9 "$job_pid" 2>/dev/null
    wait "$job_pid" 2>/dev/null
    job_pid=
    cat "$name.$k.err" >>"$name.err"
  done
  produce orders.5 "$ot"
  produce products.5 "$pt"
  "$bin" run "$name.sql" --state-dir "$tmp/state" --log-level info >>"$name.out" 2>>"$name.err" &
  job_pid=$!
}

stop_job() {
  kill -TERM "$job_pid" 2>/dev/null
  wait "$job_pid" 2>/dev/null
  job_pid=
}

# wait_query DB SQL EXPECTED_FILE SECONDS
wait_query() {
  for _ in $(seq 1 $(($4 * 5))); do
    [[ "$(sqlite3 "$1" "$2" 2>/dev/null)" == "$(cat "$3")" ]] && return 0
    sleep 0.2
  done
  return 1
}

# ---- the LEFT JOIN ----------------------------------------------------------------------------
sqlite3 join.db "CREATE TABLE enriched (order_id INTEGER PRIMARY KEY, name TEXT, qty INTEGER)"
job join orders products \
  "CREATE TABLE enriched (order_id INT NOT NULL, name STRING, qty INT,
                          PRIMARY KEY (order_id) NOT ENFORCED)
   WITH ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:$tmp/join.db', 'table-name' = 'enriched');" \
  "INSERT INTO enriched SELECT o.order_id, p.name, o.qty
     FROM orders AS o LEFT JOIN products AS p ON o.product_id = p.id;"
run_kills join orders products
q="SELECT order_id, COALESCE(name, ''), qty FROM enriched ORDER BY order_id"
if wait_query join.db "$q" join.expected 90; then ok; else
  bad "join: after five kills the sink differs from the join of the final tables:
$(diff <(sqlite3 join.db "$q") join.expected | head -10)
$(grep -iE 'error|warn' join.err | head -5)"
fi
stop_job
wait_query join.db "$q" join.expected 1 && ok || bad "join: the sink changed at the stop"
grep -q "operators' state is in .*resuming from its last checkpoint" join.err && ok ||
  bad "join: no restart resumed from a checkpoint"
ls -d "$tmp"/state/*.state >/dev/null 2>&1 && ok || bad "join: no state directory under --state-dir"

# ---- GROUP BY over the join: as is, then with mini-batch (batches of 50 rows or 100 ms, the
#      ticker; the checkpoints, every 150 ms, fire them too) ------------------------------------
# agg_kills NAME ORDERS_TOPIC PRODUCTS_TOPIC [SET STATEMENTS]
agg_kills() {
  local name=$1
  sqlite3 "$name.db" "CREATE TABLE per_name (name TEXT PRIMARY KEY, n INTEGER, total INTEGER)"
  job "$name" "$2" "$3" \
    "CREATE TABLE per_name (name STRING NOT NULL, n BIGINT, total INT,
                            PRIMARY KEY (name) NOT ENFORCED)
     WITH ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:$tmp/$name.db', 'table-name' = 'per_name');" \
    "INSERT INTO per_name SELECT p.name, COUNT(*), SUM(o.qty)
       FROM orders AS o JOIN products AS p ON o.product_id = p.id GROUP BY p.name;" "${4:-}"
  run_kills "$name" "$2" "$3"
  q="SELECT name, n, total FROM per_name ORDER BY name"
  if wait_query "$name.db" "$q" agg.expected 90; then ok; else
    bad "$name: after five kills the sink differs from the aggregate of the final tables:
$(diff <(sqlite3 "$name.db" "$q") agg.expected | head -10)
$(grep -iE 'error|warn' "$name.err" | head -5)"
  fi
  stop_job
  grep -q "operators' state is in .*resuming from its last checkpoint" "$name.err" && ok ||
    bad "$name: no restart resumed from a checkpoint"
}
agg_kills agg orders2 products2
agg_kills aggmb orders3 products3 "SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '100 ms';
SET 'table.exec.mini-batch.size' = '50';"
grep -q 'MiniBatchAssigner' <("$bin" explain aggmb.sql) && ok || bad "aggmb: no mini-batch in the plan"

# ---- a window aggregation on event time: pending windows survive the kills -------------------
python3 - <<'PY'
import json, random
rnd = random.Random(20)
counts = {}
t = 1_700_000_000_000
for chunk in range(6):
    with open("events.%d" % chunk, "w") as f:
        for i in range(2000):
            t += rnd.randint(0, 40)           # mostly in order; the watermark allows 5 s
            ts = t - rnd.randint(0, 4000)
            k = "k%d" % rnd.randint(0, 9)
            f.write('%s|{"k":"%s","ts":%d,"v":%d}\n' % (k, k, ts, i % 7))
            w = ts - ts % 60000
            n, s = counts.get((w, k), (0, 0))
            counts[(w, k)] = (n + 1, s + i % 7)
    if chunk == 5:   # a last event far ahead closes every window before it
        with open("events.5", "a") as f:
            f.write('k0|{"k":"k0","ts":%d,"v":0}\n' % (t + 3_600_000))
with open("win.expected", "w") as f:
    for (w, k) in sorted(counts):
        f.write("%d|%s|%d|%d\n" % (w, k, counts[(w, k)][0], counts[(w, k)][1]))
PY
# one partition: a split's watermark is its own, not each partition's (README, Windows)
mock_cmd "create events 1" >/dev/null
sqlite3 win.db "CREATE TABLE per_minute (w INTEGER, k TEXT, n INTEGER, s INTEGER, PRIMARY KEY (w, k))"
cat >win.sql <<SQL
SET 'execution.checkpointing.interval' = '150ms';
SET 'pipeline.name' = 'win';
CREATE TABLE events (k STRING, ts BIGINT, v INT, et AS TO_TIMESTAMP_LTZ(ts, 3),
                     WATERMARK FOR et AS et - INTERVAL '5' SECOND)
WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '$BS',
      'properties.group.id' = 'g-win', 'scan.startup.mode' = 'earliest-offset',
      'properties.session.timeout.ms' = '6000', 'properties.heartbeat.interval.ms' = '500',
      'format' = 'json');
CREATE TABLE per_minute (w BIGINT NOT NULL, k STRING NOT NULL, n BIGINT, s INT,
                         PRIMARY KEY (w, k) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:$tmp/win.db', 'table-name' = 'per_minute');
INSERT INTO per_minute SELECT UNIX_TIMESTAMP(CAST(window_start AS STRING)) * 1000, k, COUNT(*), SUM(v)
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(et), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, k;
SQL
for k in 0 1 2 3 4; do
  produce "events.$k" events
  "$bin" run win.sql --state-dir "$tmp/state" --log-level info >"win.$k.out" 2>"win.$k.err" &
  job_pid=$!
  wait_for "win.$k.err" "first rows applied" 30 || true
  sleep "0.$((1 + k * 2))"
  kill -9 "$job_pid" 2>/dev/null
  wait "$job_pid" 2>/dev/null
  job_pid=
  cat "win.$k.err" >>win.err
done
produce events.5 events
"$bin" run win.sql --state-dir "$tmp/state" --log-level info >>win.out 2>>win.err &
job_pid=$!
q="SELECT w, k, n, s FROM per_minute ORDER BY w, k"
if wait_query win.db "$q" win.expected 90; then ok; else
  bad "window: after five kills the sink differs from the windows of all events:
$(diff <(sqlite3 win.db "$q") win.expected | head -10)
$(grep -iE 'error|warn|late' win.err | head -5)"
fi
stop_job
grep -q "operators' state is in .*resuming from its last checkpoint" win.err && ok ||
  bad "window: no restart resumed from a checkpoint"

echo "stateful_kafka_kill: $pass passed, $fail failed"
((fail == 0))
