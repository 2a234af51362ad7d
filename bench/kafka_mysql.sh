#!/usr/bin/env bash
# Benchmark of the main job at its defaults (issue 17): Kafka -> MariaDB. Not a test.
#
#   bench/kafka_mysql.sh [N]    (N keyed Debezium changes, default 200000; 2000000 for the
#                                long run; over KEYS=20000 keys on PARTITIONS=64 partitions)
#
# bench/kafka_pg.sh with a throwaway MariaDB 10.11 (tests/servers/mariadb.sh) and, as the
# peer, confluent-kafka + json + MySQLdb executemany upserts (ON DUPLICATE KEY UPDATE) and
# deletes, offsets committed after each database commit. Server CPU is mariadbd's
# utime+stime.
set -euo pipefail
n=${1:-200000}
keys=${KEYS:-20000}
parts=${PARTITIONS:-64}
# shellcheck source=kafka_sink_lib.sh
source "$(dirname "$0")/kafka_sink_lib.sh"
# shellcheck source=../tests/servers/mariadb.sh
source "$here/tests/servers/mariadb.sh"
my_start bench || exit 1
trap 'kafka_bench_stop; my_stop; [[ -n ${KEEP:-} ]] || rm -rf "${tmp:-}"' EXIT
kafka_bench_setup "$n" "$keys" "$parts"
ddl='(id BIGINT PRIMARY KEY, name TEXT, description TEXT, weight DOUBLE, qty INT) ENGINE=InnoDB'
my_sql --local-infile=1 -e "CREATE TABLE t_expect $ddl; CREATE TABLE t_c1 $ddl;
  CREATE TABLE t_c2 $ddl; CREATE TABLE t_py $ddl;
  LOAD DATA LOCAL INFILE '$tmp/expect.tsv' INTO TABLE t_expect"
dsn="127.0.0.1:$MY_PORT:writer:$MY_PASSWORD:$MY_DB"

server_cpu() { awk '{print $14 + $15}' "/proc/$MY_PID/stat"; }

creds=", 'username' = 'writer', 'password' = '$MY_PASSWORD'"
for p in 1 2; do
  kafka_bench_job "c$p" "$MY_URL" "t_c$p" "$p" "$creds"
  kafka_bench_watch "c$p" mysql "$dsn" "t_c$p" server_cpu "$cdcflow" run "$tmp/c$p.sql"
done
kafka_bench_watch py mysql "$dsn" t_py server_cpu \
  "$py" "$here/bench/kafka_peer.py" peer mysql "$dsn" t_py "$bs" dbz "bench-py-$$"
kafka_bench_report "MariaDB 10.11" "$n"
