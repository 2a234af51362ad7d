#!/usr/bin/env bash
# Benchmark of the main job at its defaults (issue 17): Kafka -> SQLite, the embedded
# default. Not a test.
#
#   bench/kafka_sqlite.sh [N]   (N keyed Debezium changes, default 200000; over KEYS=20000
#                                keys on PARTITIONS=64 partitions)
#
# bench/kafka_pg.sh with one SQLite file (WAL, so the watcher's reads never block a writer)
# and, as the peer, confluent-kafka + json + python's sqlite3 executemany upserts (ON
# CONFLICT DO UPDATE) and deletes, offsets committed after each commit. No server: the
# server CPU column is 0.
set -euo pipefail
n=${1:-200000}
keys=${KEYS:-20000}
parts=${PARTITIONS:-64}
# shellcheck source=kafka_sink_lib.sh
source "$(dirname "$0")/kafka_sink_lib.sh"
trap 'kafka_bench_stop; [[ -n ${KEEP:-} ]] || rm -rf "${tmp:-}"' EXIT
kafka_bench_setup "$n" "$keys" "$parts"
db=$tmp/bench.db
ddl='(id INTEGER PRIMARY KEY, name TEXT, description TEXT, weight REAL, qty INTEGER)'
sqlite3 "$db" "PRAGMA journal_mode=WAL" "CREATE TABLE t_expect $ddl" "CREATE TABLE t_c1 $ddl" \
  "CREATE TABLE t_c2 $ddl" "CREATE TABLE t_py $ddl" ".mode tabs" ".import $tmp/expect.tsv t_expect" \
  >/dev/null

no_server() { echo 0; }

for p in 1 2; do
  kafka_bench_job "c$p" "jdbc:sqlite:$db" "t_c$p" "$p"
  kafka_bench_watch "c$p" sqlite "$db" "t_c$p" no_server "$cdcflow" run "$tmp/c$p.sql"
done
kafka_bench_watch py sqlite "$db" t_py no_server \
  "$py" "$here/bench/kafka_peer.py" peer sqlite "$db" t_py "$bs" dbz "bench-py-$$"
kafka_bench_report "SQLite" "$n"
