#!/usr/bin/env bash
# Benchmark of the main job at its defaults (issue 17): Kafka -> PostgreSQL. Not a test.
#
#   bench/kafka_pg.sh [N]       (N keyed Debezium changes, default 200000; 2000000 for the
#                                long run; over KEYS=20000 keys on PARTITIONS=64 partitions)
#
# In one run (bench/kafka_sink_lib.sh): the local mock broker (`cdcflow kafka-mock`) holds
# the changes; a throwaway PostgreSQL 15 (tests/servers/postgres.sh) holds t_expect, the
# final table computed from them, and one empty table per run:
#   c1, c2  `cdcflow run` of the job a user writes (kafka + debezium-json -> jdbc with a
#           PRIMARY KEY, no tuning options) at parallelism 1 and 2
#   py      bench/kafka_peer.py peer: confluent-kafka + json + psycopg2 execute_values,
#           offsets committed after each database commit
# each timed from process start until its table equals t_expect (bench/kafka_peer.py watch
# polls it), then stopped with SIGTERM. Prints changes/s, the ratio to the peer, peak RSS
# (GNU time), the time to the first applied row and the server's CPU (utime+stime of the
# postmaster and its children, live and reaped). The mock broker keeps about 5 MB per
# partition: 2,000,000 changes (640 MB) need PARTITIONS=256.
#
# Where the 200,000-change run went at the former defaults (perf record -e cpu-clock -g and
# the job's debug log; parallelism 1; 5.7-6.1 s from process start):
#   3.0 s   the consumer-group join: the broker's group.initial.rebalance.delay.ms (3 s in
#           Kafka's defaults; librdkafka 2.0.2's mock cluster hard-codes it) for the first
#           member of an empty group; the peer waits the same. Then ~15 ms to the first fetch.
#   2.8 s   200,000 changes, of which the process used ~0.9 s of CPU (JSON parsing 7% of
#           samples, printf of doubles for the text protocol 5%, memmove 4%, librdkafka's
#           broker thread 21%, futex/scheduling 20%); the rest was waiting on the database:
#           sink.buffer-flush.max-rows 100 made ~2,000 transactions, each hand-over waiting
#           for the previous flush (~1.4 ms a round trip), while the runtime's flush and
#           commit every 10,000 rows found the sink already flushed (1-6 ms each).
#   132-135 MB peak RSS: the 128 MB fetch queue (queued.max.messages.kbytes) held most of the
#           64 MB topic.
# With the early start (scan.group.early-start, the default since): no wait for the join; the
# whole topic is applied in 0.5-1.1 s from process start (first row after 0.2-0.5 s), and the
# group's first assignment, 3 s in, only takes the partitions over.
# At the new defaults before it: the same 3.0 s join; 200,000 changes read, decoded and coalesced in
# 0.5-1.0 s (process CPU 0.23 s: the reader waits on fetches on the shared 2 cores); two or
# three flushes instead of 2,000, the last one ~0.1 s after the source went idle; ~40 MB.
set -euo pipefail
n=${1:-200000}
keys=${KEYS:-20000}
parts=${PARTITIONS:-64}
# shellcheck source=kafka_sink_lib.sh
source "$(dirname "$0")/kafka_sink_lib.sh"
# shellcheck source=../tests/servers/postgres.sh
source "$here/tests/servers/postgres.sh"
pg_start bench || exit 1
trap 'kafka_bench_stop; pg_stop; [[ -n ${KEEP:-} ]] || rm -rf "${tmp:-}"' EXIT
kafka_bench_setup "$n" "$keys" "$parts"
ddl='(id BIGINT PRIMARY KEY, name TEXT, description TEXT, weight DOUBLE PRECISION, qty INTEGER)'
pg_psql -q -c "CREATE TABLE t_expect $ddl; CREATE TABLE t_c1 $ddl; CREATE TABLE t_c2 $ddl;
  CREATE TABLE t_py $ddl" -c "\\copy t_expect FROM '$tmp/expect.tsv'" -c "VACUUM ANALYZE t_expect"
dsn="host=127.0.0.1 port=$PG_PORT dbname=$PG_DB user=postgres"

for p in 1 2; do
  kafka_bench_job "c$p" "$PG_URL?user=postgres" "t_c$p" "$p"
  kafka_bench_watch "c$p" pg "$dsn" "t_c$p" pg_server_ticks "$cdcflow" run "$tmp/c$p.sql"
done
kafka_bench_watch py pg "$dsn" t_py pg_server_ticks \
  "$py" "$here/bench/kafka_peer.py" peer pg "$dsn" t_py "$bs" dbz "bench-py-$$"
kafka_bench_report "PostgreSQL 15" "$n"
