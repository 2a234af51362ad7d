#!/usr/bin/env bash
# The two docker-compose pipelines, run natively: MariaDB 10.11 seeded with
# docker/mysql/10-inventory.sql (row binlog, full metadata) -> `cdcflow run
# schemas/capture.sql` (mysql-cdc -> Kafka in Debezium JSON, keyed) -> the Kafka mock
# cluster (4 partitions) -> two `cdcflow run schemas/apply.sql` replicas in one consumer
# group -> PostgreSQL 15 with docker/postgres/10-replica.sql. Checks the PostgreSQL tables
# equal MariaDB's after the snapshot, after inserts/updates/deletes, after a clean restart of
# capture (changes made while it was down arrive once), after SIGKILL of one apply replica
# (the other takes its partitions over) and its restart; and that the metrics endpoint of an
# apply replica shows plausible values.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
finish() {
  echo "compose_pipelines: $pass passed, $fail failed"
  ((fail == 0))
  exit
}

# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
# shellcheck source=../servers/mariadb.sh
source "$src/tests/servers/mariadb.sh"
# shellcheck source=../servers/kafka.sh
source "$src/tests/servers/kafka.sh"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  mock_stop_all
  my_stop
  pg_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
MY_EXTRA_ARGS="--log-bin=mbin --binlog-format=ROW --binlog-row-metadata=FULL --server-id=1"
my_start inventory || { bad "could not start MariaDB"; finish; }
pg_start inventory || { bad "could not start PostgreSQL"; finish; }
trap cleanup EXIT
my_sql <"$src/docker/mysql/10-inventory.sql" || bad "seeding MariaDB"
my_sql -e "CREATE USER 'cdc'@'%' IDENTIFIED BY 'cdc-secret';
  GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'cdc'@'%';" ||
  bad "cdc user"
pg_psql -f "$src/docker/postgres/10-replica.sql" >/dev/null || bad "PostgreSQL tables"
mock_start kafka --partitions 4 --topic inventory.products --topic inventory.customers

# the environment docker-compose.yml gives the services (only to them: MYSQL_HOST would
# also steer the mariadb client of this script)
svc_env=(env MYSQL_HOST=127.0.0.1 MYSQL_PORT="$MY_PORT" CDC_MYSQL_USER=cdc
  CDC_MYSQL_PASSWORD=cdc-secret KAFKA_BOOTSTRAP="$BS" APPLY_GROUP=compose-apply
  KAFKA_SESSION_TIMEOUT_MS=6000 PG_HOST=127.0.0.1 PG_PORT="$PG_PORT" PG_DATABASE=inventory
  PG_USER=postgres PG_PASSWORD=)

start_capture() {
  "${svc_env[@]}" "$bin" run "$src/schemas/capture.sql" --state-dir "$tmp/state" --log-level info \
    >>capture.out 2>>capture.err &
  cap_pid=$!
  pids+=("$cap_pid")
}
start_apply() { # N
  "${svc_env[@]}" "$bin" run "$src/schemas/apply.sql" --log-level info --metrics-port 0 \
    --metrics-address 127.0.0.1 >>"apply$1.out" 2>"apply$1.err" &
  eval "apply$1_pid=$!"
  pids+=("$!")
}

q_my_products="SELECT id, name, IFNULL(description, 'NULL'), CAST(weight AS DECIMAL(20,6)), IFNULL(price, 'NULL'), DATE_FORMAT(updated_at, '%Y-%m-%d %H:%i:%s.%f') FROM products ORDER BY id"
q_pg_products="SELECT id, name, coalesce(description, 'NULL'), weight::numeric(20,6), coalesce(price::text, 'NULL'), to_char(updated_at, 'YYYY-MM-DD HH24:MI:SS.US') FROM products ORDER BY id"
q_my_customers="SELECT id, first_name, last_name, email FROM customers ORDER BY id"
q_pg_customers="SELECT id, first_name, last_name, email FROM customers ORDER BY id"
converge() { # what
  local a b c d
  for _ in $(seq 1 300); do
    a=$(my_sql -N -B -e "$q_my_products" 2>&1)
    b=$(pg_psql -At -F $'\t' -c "$q_pg_products" 2>&1)
    c=$(my_sql -N -B -e "$q_my_customers" 2>&1)
    d=$(pg_psql -At -F $'\t' -c "$q_pg_customers" 2>&1)
    if [[ $a == "$b" && $c == "$d" ]]; then
      ok
      return 0
    fi
    sleep 0.2
  done
  bad "$1: PostgreSQL differs from MariaDB"
  diff <(echo "$a") <(echo "$b") | head -6
  diff <(echo "$c") <(echo "$d") | head -6
  tail -n 3 capture.err apply1.err apply2.err
  return 1
}

start_capture
start_apply 1
start_apply 2
converge "after the snapshot"
[[ $(pg_psql -At -c "SELECT count(*) FROM products") == 6 ]] && ok || bad "snapshot row count"

my_sql -e "INSERT INTO products (name, description, weight, price) VALUES ('lamp', 'desk lamp', 1.1, 15.00), ('glue', NULL, 0.1, NULL);
  UPDATE products SET price = price * 2, description = 'it''s \"quoted\"' WHERE id IN (101, 103);
  DELETE FROM products WHERE id = 105;
  INSERT INTO customers (first_name, last_name, email) VALUES ('Alan', 'Turing', 'alan@example.com');
  UPDATE customers SET email = 'ada@lovelace.example' WHERE id = 1001;
  DELETE FROM customers WHERE id = 1002;
  START TRANSACTION; DELETE FROM products; ROLLBACK;" || bad "DML 1"
converge "after inserts, updates and deletes"

# capture stops cleanly; changes made meanwhile arrive once it is back
kill -TERM "$cap_pid"
wait "$cap_pid" && ok || bad "capture did not stop cleanly: $(tail -3 capture.err)"
my_sql -e "UPDATE products SET weight = weight + 1 WHERE id <= 103; INSERT INTO products (name, weight) VALUES ('while-down', 2.5);" ||
  bad "DML while capture is down"
start_capture
converge "after a capture restart"
[[ -s $tmp/state/default_catalog.default_database.products_mysql.mysql-cdc.pos ]] && ok || bad "capture kept no position in --state-dir: $(ls "$tmp/state" 2>&1)"

# one apply replica dies: the other takes its partitions over
kill -9 "$apply1_pid"
wait "$apply1_pid" 2>/dev/null
my_sql -e "UPDATE products SET price = 1.00 WHERE id > 100; DELETE FROM customers WHERE id = 1003; INSERT INTO customers (first_name, last_name, email) VALUES ('Barbara', 'Liskov', 'barbara@example.com');" ||
  bad "DML after the kill"
converge "after an apply replica was killed"
start_apply 1
my_sql -e "UPDATE customers SET last_name = UPPER(last_name); INSERT INTO products (name, weight, price) VALUES ('last', 9.75, 99.99);" ||
  bad "DML after the restart"
converge "after the replica came back"

# the metrics of the replicas (gauges are refreshed after each commit, and which replica owns
# which partitions depends on the last rebalance: scrape both, for a while)
ports=$(grep -hEo '127.0.0.1:[0-9]+/metrics' apply1.err apply2.err | cut -d: -f2 | cut -d/ -f1)
seen_lag=no seen_commit=no seen_written=no
for _ in $(seq 1 50); do
  : >metrics.txt
  for port in $ports; do curl -sf "http://127.0.0.1:$port/metrics" >>metrics.txt; done
  grep -q '^cdcflow_source_lag_records{job="apply",table="default_catalog.default_database.products_topic",topic="inventory.products",partition="' metrics.txt && seen_lag=yes
  grep -q '^cdcflow_source_committed_offset{' metrics.txt && seen_commit=yes
  awk '/^cdcflow_records_written_total\{job="apply",table="default_catalog.default_database.products_pg"\}/ && $2 > 0 {f=1} END {exit !f}' metrics.txt && seen_written=yes
  [[ $seen_lag$seen_commit$seen_written == yesyesyes ]] && break
  sleep 0.2
done
[[ -n $ports ]] && ok || bad "no apply replica logged its metrics address"
[[ $seen_written == yes ]] && ok || bad "no products rows written per /metrics"
[[ $seen_lag == yes ]] && ok || bad "no consumer lag per partition in /metrics"
[[ $seen_commit == yes ]] && ok || bad "no committed offsets in /metrics"
grep -q 'cdc-secret' metrics.txt && bad "a password shows in /metrics" || ok
grep -q 'cdc-secret' capture.err apply1.err apply2.err && bad "a password shows in a log" || ok
for p in "$cap_pid" "$apply1_pid" "$apply2_pid"; do
  kill -TERM "$p" 2>/dev/null
  wait "$p" || bad "a pipeline did not stop cleanly"
done
finish
