#!/usr/bin/env bash
# The Flink CDC tutorial's pipeline ("Streaming ETL for MySQL and Postgres"), end to end
# (issue 19): orders, products and shipments in MariaDB, read by mysql-cdc, orders LEFT JOIN
# products LEFT JOIN shipments into enriched_orders in PostgreSQL (jdbc), with --state-dir.
# After the snapshot and after each step (the tutorial's inserts, updates and deletes on every
# table) the sink must equal the same query run by MariaDB itself; the job is killed with
# SIGKILL in between and resumes from its state.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
source "$src/tests/servers/mariadb.sh"
source "$src/tests/servers/postgres.sh"
MY_EXTRA_ARGS="--log-bin=mbin --binlog-format=ROW --binlog-row-metadata=FULL --server-id=1"
job=
cleanup() {
  [[ -n $job ]] && kill -KILL "$job" 2>/dev/null
  my_stop
  pg_stop
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
finish() {
  echo "stateful_mysql_tutorial: $pass passed, $fail failed"
  ((fail == 0))
  exit
}
my_start cdcflow || {
  bad "could not start MariaDB"
  finish
}
pg_start cdcflow || {
  bad "could not start PostgreSQL"
  finish
}
trap cleanup EXIT
my_sql -e "GRANT REPLICATION SLAVE, BINLOG MONITOR, SELECT ON *.* TO 'writer'@'%'" ||
  bad "grants"

# the tutorial's tables and rows
my_sql -e "
CREATE TABLE products (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(255) NOT NULL,
  description VARCHAR(512)) AUTO_INCREMENT = 101;
INSERT INTO products VALUES (default, 'scooter', 'Small 2-wheel scooter'),
  (default, 'car battery', '12V car battery'),
  (default, '12-pack drill bits', '12-pack of drill bits with sizes ranging from #40 to #3'),
  (default, 'hammer', '12oz carpenter''s hammer'), (default, 'hammer', '14oz carpenter''s hammer'),
  (default, 'hammer', '16oz carpenter''s hammer'), (default, 'rocks', 'box of assorted rocks'),
  (default, 'jacket', 'water resistent black wind breaker'),
  (default, 'spare tire', '24 inch spare tire');
CREATE TABLE orders (order_id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, order_date DATETIME NOT NULL,
  customer_name VARCHAR(255) NOT NULL, price DECIMAL(10, 5) NOT NULL, product_id INT NOT NULL,
  order_status BOOLEAN NOT NULL) AUTO_INCREMENT = 10001;
INSERT INTO orders VALUES (default, '2020-07-30 10:08:22', 'Jark', 50.50, 102, false),
  (default, '2020-07-30 10:11:09', 'Sally', 15.00, 105, false),
  (default, '2020-07-30 12:00:30', 'Edward', 25.25, 106, false);
CREATE TABLE shipments (shipment_id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, order_id INT NOT NULL,
  origin VARCHAR(255) NOT NULL, destination VARCHAR(255) NOT NULL, is_arrived BOOLEAN NOT NULL)
  AUTO_INCREMENT = 1001;
INSERT INTO shipments VALUES (default, 10001, 'Beijing', 'Shanghai', false),
  (default, 10002, 'Hangzhou', 'Shanghai', false), (default, 10003, 'Shanghai', 'Hangzhou', false);
" || bad "source tables"
pg_psql -q -c "CREATE TABLE enriched_orders (order_id INT PRIMARY KEY, order_date TIMESTAMP(0),
  customer_name TEXT, price NUMERIC(10, 5), product_id INT, order_status BOOLEAN,
  product_name TEXT, product_description TEXT, shipment_id INT, origin TEXT, destination TEXT,
  is_arrived BOOLEAN)" || bad "sink table"

cdc() { # NAME TABLE SERVER_ID COLUMNS
  cat <<SQL
CREATE TABLE $1 ($4) WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1',
  'port' = '$MY_PORT', 'username' = 'writer', 'password' = '$MY_PASSWORD',
  'database-name' = 'cdcflow', 'table-name' = '$2', 'server-id' = '$3');
SQL
}
{
  echo "SET 'execution.checkpointing.interval' = '3s';"
  echo "SET 'pipeline.name' = 'tutorial';"
  cdc products products 5401 "id INT NOT NULL, name STRING, description STRING,
    PRIMARY KEY (id) NOT ENFORCED"
  cdc orders orders 5402 "order_id INT NOT NULL, order_date TIMESTAMP(0), customer_name STRING,
    price DECIMAL(10, 5), product_id INT, order_status BOOLEAN, PRIMARY KEY (order_id) NOT ENFORCED"
  cdc shipments shipments 5403 "shipment_id INT NOT NULL, order_id INT, origin STRING,
    destination STRING, is_arrived BOOLEAN, PRIMARY KEY (shipment_id) NOT ENFORCED"
  cat <<SQL
CREATE TABLE enriched_orders (order_id INT, order_date TIMESTAMP(0), customer_name STRING,
  price DECIMAL(10, 5), product_id INT, order_status BOOLEAN, product_name STRING,
  product_description STRING, shipment_id INT, origin STRING, destination STRING,
  is_arrived BOOLEAN, PRIMARY KEY (order_id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'username' = 'postgres',
      'table-name' = 'enriched_orders');
-- the tutorial's statement, as written there
INSERT INTO enriched_orders
  SELECT o.*, p.name, p.description, s.shipment_id, s.origin, s.destination, s.is_arrived
  FROM orders AS o
  LEFT JOIN products AS p ON o.product_id = p.id
  LEFT JOIN shipments AS s ON o.order_id = s.order_id;
SQL
} >tutorial.sql

start_job() {
  "$bin" run tutorial.sql --state-dir "$tmp/state" --log-level info >>job.out 2>>job.err &
  job=$!
}
stop_job() { # SIGNAL
  kill "-$1" "$job" 2>/dev/null
  wait "$job" 2>/dev/null
  job=
}
expected() {
  my_sql -N -B -e "SELECT o.order_id, o.order_date, o.customer_name, o.price, o.product_id,
      o.order_status, COALESCE(p.name, '-'), COALESCE(p.description, '-'),
      COALESCE(s.shipment_id, '-'), COALESCE(s.origin, '-'), COALESCE(s.destination, '-'),
      COALESCE(s.is_arrived, '-')
    FROM orders o LEFT JOIN products p ON o.product_id = p.id
    LEFT JOIN shipments s ON o.order_id = s.order_id ORDER BY o.order_id, s.shipment_id"
}
actual() {
  pg_psql -At -F $'\t' -c "SELECT order_id, order_date, customer_name, price, product_id,
      order_status::int, COALESCE(product_name, '-'), COALESCE(product_description, '-'),
      COALESCE(shipment_id::text, '-'), COALESCE(origin, '-'), COALESCE(destination, '-'),
      COALESCE(is_arrived::int::text, '-')
    FROM enriched_orders ORDER BY order_id" 2>/dev/null
}
wait_equal() { # WHAT
  local want
  want=$(expected)
  for _ in $(seq 1 300); do
    [[ "$(actual)" == "$want" ]] && {
      ok
      return 0
    }
    sleep 0.2
  done
  bad "$1: enriched_orders differs from the join MariaDB computes:
$(diff <(actual) <(echo "$want") | head -8)
$(grep -E 'ERROR|WARN' job.err | head -5)"
  return 1
}

start_job
wait_equal "after the snapshot"
# the tutorial's steps, one table at a time
my_sql -e "INSERT INTO orders VALUES (default, '2020-07-30 15:22:00', 'Jark', 29.71, 104, false)"
wait_equal "a new order (no shipment yet: NULLs)"
my_sql -e "INSERT INTO shipments VALUES (default, 10004, 'Shanghai', 'Beijing', false)"
wait_equal "its shipment"
stop_job KILL
my_sql -e "UPDATE orders SET order_status = true WHERE order_id = 10004"
start_job
wait_equal "an order updated while the job was killed"
my_sql -e "UPDATE shipments SET is_arrived = true WHERE shipment_id = 1004"
wait_equal "a shipment updated"
my_sql -e "UPDATE products SET description = 'a very heavy hammer' WHERE id = 106"
wait_equal "a product updated (an order's row changes)"
stop_job KILL
my_sql -e "DELETE FROM orders WHERE order_id = 10004; DELETE FROM shipments WHERE order_id = 10003;
  DELETE FROM products WHERE id = 105"
start_job
wait_equal "deletes on every table while killed"
for i in $(seq 1 40); do
  my_sql -e "INSERT INTO orders VALUES (default, '2020-08-01 00:00:00', 'c$i', $i.5, $((101 + i % 12)), false);
    INSERT INTO shipments VALUES (default, $((10004 + i)), 'x$i', 'y$i', $((i % 2)));
    UPDATE orders SET price = price + 1 WHERE order_id = $((10004 + i / 2))"
  ((i == 20)) && {
    stop_job KILL
    start_job
  }
done
my_sql -e "UPDATE products SET name = 'rocks!' WHERE id = 107; INSERT INTO products VALUES (111, 'new', 'late')"
wait_equal "40 more orders and shipments, a kill in the middle"
grep -q "operators' state is in .*resuming from its last checkpoint" job.err && ok ||
  bad "no restart resumed from the state"
stop_job TERM
finish
