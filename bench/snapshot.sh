#!/usr/bin/env bash
# Benchmark of the CDC sources' initial snapshot (issue 15). Not a test: prints figures.
#
#   bench/snapshot.sh [ROWS]     (ROWS rows per table, default 5000000; 200000 for a quick
#                                 check. CHUNK sets scan.incremental.snapshot.chunk.size,
#                                 default 8096; ONLY=mariadb|postgres runs one source)
#
# Uses CDCFLOW_BIN, else BUILD_DIR/cdcflow (BUILD_DIR default build-bench, configured
# Release and built here if missing), and throwaway servers from tests/servers/*.sh: MariaDB
# 10.11 (binlog ROW, buffer pool 2 GB, so the table is read from memory) and PostgreSQL 15
# (wal_level=logical). Each gets a table t of ROWS rows, ten columns of INT, BIGINT,
# VARCHAR, DECIMAL, DATETIME/TIMESTAMP, DOUBLE and DATE (MariaDB from seq_1_to_ROWS, written
# with sql_log_bin=0; PostgreSQL from generate_series). Per source, in this order:
#   ceiling   `mariadb-dump --single-transaction cdcflow t > /dev/null`, or
#             `psql -c "COPY t TO STDOUT" > /dev/null`, timed (after one untimed run through
#             `wc -c` that warms the caches and counts the dump's bytes); timed again after
#             p1 and p2, and the faster of the two is the ceiling (the machines are noisy)
#   p1, p2    `cdcflow run` of mysql-cdc / postgres-cdc (scan.startup.mode initial,
#             scan.parallelism 1 and 2, chunk size $CHUNK) into a blackhole sink, with a
#             fresh --state-dir (and slot), --log-level info, under GNU time -v. About 1 s
#             after the start one UPDATE of a row is committed; once the job logs "snapshot
#             done" (and the UPDATE has been streamed, or 10 s passed) it gets SIGTERM.
# Reported per run: the snapshot's seconds from the job's own "snapshot done ... in S s"
# line, the wall time from the process start to that line (every log line is stamped as
# it arrives), rows/s and MB/s (of the table's data size: DATA_LENGTH after ANALYZE TABLE /
# pg_table_size), peak RSS ("Maximum resident set size"), the ratio of rows/s to the
# ceiling's (from S, and from the wall time; the target is >= 0.7 at parallelism 1), and
# "first streamed change after X ms" from the log (from the source's open), with the time
# from the start of the UPDATE's client to that line.
# A postgres-cdc without scan.parallelism / the chunk size (before its chunked rewrite)
# gets only the options it knows (`cdcflow describe`); when it logs no "snapshot done",
# the snapshot ends at its "initial snapshot read" line, timed from its "initial snapshot
# started" line, and the run is marked so. Runs that fail print the log's tail and make
# the exit status 1.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rows=${1:-5000000}
chunk=${CHUNK:-8096}
only=${ONLY:-}
bin=${CDCFLOW_BIN:-}
if [[ -z $bin ]]; then
  build=${BUILD_DIR:-$here/build-bench}
  bin=$build/cdcflow
  if [[ ! -x $bin ]]; then
    cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCDC_TESTS=OFF -DCDC_WERROR=OFF >/dev/null
  fi
  cmake --build "$build" -j2 --target cdcflow >/dev/null # the sources may have changed
fi
[[ -x /usr/bin/time ]] || {
  echo "snapshot.sh: needs GNU time in /usr/bin/time (scripts/install-deps.sh)" >&2
  exit 1
}
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/snapshot.XXXXXX")
chmod 755 "$tmp"
res=$tmp/results.tsv # source label seconds wall rss first upd_to_log note
: >"$res"
failed=0
jobpid=
# shellcheck disable=SC2317 # called by the traps and run_job
cleanup() {
  [[ -n $jobpid ]] && kill -KILL "$jobpid" 2>/dev/null
  [[ -n ${MY_DIR:-} ]] && my_stop
  [[ -n ${PG_DIR:-} ]] && pg_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck source=../tests/servers/mariadb.sh
source "$here/tests/servers/mariadb.sh"
# shellcheck source=../tests/servers/postgres.sh
source "$here/tests/servers/postgres.sh"

now() { echo "$EPOCHREALTIME"; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }
# Every line of the job's log, prefixed with the epoch seconds at which it arrived.
stamp() { while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done; }
# The arrival stamp of the first log line matching ERE $2 in $1 (empty when none).
stamp_of() { grep -E -m1 -- "$2" "$1" | cut -d' ' -f1 || true; }

# time_ceiling SOURCE LABEL CMD...: one timed run of the ceiling into /dev/null.
time_ceiling() {
  local source=$1 label=$2 t0 t1
  shift 2
  t0=$(now)
  /usr/bin/time -v -o "$tmp/time.ceil" "$@" >/dev/null
  t1=$(now)
  printf '%s\t%s\t%s\t%s\t%s\t-\t-\t\n' "$source" "$label" "$(sub "$t1" "$t0")" \
    "$(sub "$t1" "$t0")" "$(rss_of "$tmp/time.ceil")" >>"$res"
}
rss_of() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }

# run_job SOURCE LABEL SQLFILE UPDATE-CMD: one snapshot run (see the header); appends its
# row to $res, or the failure.
run_job() {
  local source=$1 label=$2 sql=$3 update=$4
  local log=$tmp/$source-${label// /_}.log t0 tupd="" tdone="" deadline s wall first="-" lat="-"
  local note=${opts_missing:+options unknown to this build:$opts_missing}
  local tfirst limit=$((600 + rows / 2000)) # generous: a stuck job is a failure, not a hang
  rm -rf "$tmp/state"
  : >"$log"
  t0=$(now)
  /usr/bin/time -v -o "$tmp/time.job" "$bin" run "$sql" --state-dir "$tmp/state" \
    --log-level info >/dev/null 2> >(stamp >"$log") &
  local tpid=$! c kids=()
  jobpid=
  while [[ -z $jobpid ]] && kill -0 "$tpid" 2>/dev/null; do
    # the job is GNU time's child (beside the log's reader, which bash forked first)
    read -ra kids <"/proc/$tpid/task/$tpid/children" 2>/dev/null || true
    for c in "${kids[@]}"; do
      [[ $(readlink "/proc/$c/exe" 2>/dev/null) == "$(readlink -f "$bin")" ]] && jobpid=$c
    done
    sleep 0.01
  done
  deadline=$(awk -v t="$t0" -v l="$limit" 'BEGIN { printf "%d", t + l }')
  while :; do
    if [[ -z $tupd ]] && (($(sub "$(now)" "$t0" | cut -d. -f1) >= 1)); then
      tupd=$(now)
      $update
    fi
    if [[ -z $tdone ]] && grep -Eq 'snapshot done|initial snapshot read' "$log"; then
      tdone=$(now)
    fi
    if [[ -n $tdone && -n $tupd ]]; then
      # stop once the UPDATE was streamed (it normally was, long before), or after 10 s
      grep -q 'first streamed change after' "$log" && break
      (($(sub "$(now)" "$tdone" | cut -d. -f1) >= 10)) && break
    fi
    if ! kill -0 "$tpid" 2>/dev/null || (($(now | cut -d. -f1) >= deadline)); then
      echo "snapshot.sh: $source $label: no end of the snapshot (log tail below)" >&2
      tail -20 "$log" >&2
      kill -KILL "$jobpid" 2>/dev/null || true
      wait "$tpid" 2>/dev/null || true
      jobpid=
      failed=1
      printf '%s\t%s\t-\t-\t-\t-\t-\tFAILED\n' "$source" "$label" >>"$res"
      return 0
    fi
    sleep 0.05
  done
  kill -TERM "$jobpid" 2>/dev/null || true
  wait "$tpid" 2>/dev/null || true
  jobpid=
  sleep 0.1 # the stamping reader drains the last lines
  local line
  line=$(grep -m1 'snapshot done' "$log" || true)
  if [[ -n $line ]]; then
    # "snapshot done: N rows ... in S s (R rows/s)": S is to 0.1 s, N / R is not rounded
    local n r
    wall=$(sub "$(cut -d' ' -f1 <<<"$line")" "$t0")
    n=$(grep -oE 'snapshot done: [0-9]+ rows' <<<"$line" | grep -oE '[0-9]+' || true)
    r=$(grep -oE '\([0-9.]+ rows/s\)' <<<"$line" | grep -oE '[0-9.]+' || true)
    s=$(grep -oE ' in [0-9.]+ s\b' <<<"$line" | grep -oE '[0-9.]+' | tail -1 || true)
    if [[ -n $n && -n $r ]] && awk -v r="$r" 'BEGIN { exit !(r > 0) }'; then
      s=$(awk -v n="$n" -v r="$r" 'BEGIN { printf "%.3f", n / r }')
    elif [[ -z $s ]]; then
      s=$wall
      note="${note:+$note; }no seconds in \"snapshot done\": wall time"
    fi
  else # postgres-cdc before its chunked rewrite
    local a b
    a=$(stamp_of "$log" 'initial snapshot started')
    b=$(stamp_of "$log" 'initial snapshot read')
    s=$(sub "$b" "$a")
    wall=$(sub "$b" "$t0")
    note="${note:+$note; }no \"snapshot done\": timed from \"initial snapshot started\" to \"initial snapshot read\""
  fi
  line=$(grep -m1 'first streamed change after' "$log" || true)
  if [[ -n $line ]]; then
    first=$(sed -E 's/.*first streamed change after ([0-9]+) ms.*/\1/' <<<"$line")
    tfirst=$(cut -d' ' -f1 <<<"$line")
    lat=$(awk -v a="$tfirst" -v b="$tupd" 'BEGIN { printf "%.0f", (a - b) * 1000 }')
  else
    note="${note:+$note; }no \"first streamed change\" logged"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$source" "$label" "$s" "$wall" \
    "$(rss_of "$tmp/time.job")" "$first" "$lat" "$note" >>"$res"
}

# Options of FACTORY that this build knows, out of scan.parallelism and the chunk size.
with_opts() { # FACTORY PARALLELISM -> option text (empty when unknown); sets opts_missing
  local d
  d=$("$bin" describe "$1")
  opts_extra="" opts_missing=""
  if grep -q '^  scan.parallelism$' <<<"$d"; then
    opts_extra+=", 'scan.parallelism' = '$2'"
  else opts_missing+=" scan.parallelism"; fi
  if grep -q '^  scan.incremental.snapshot.chunk.size$' <<<"$d"; then
    opts_extra+=", 'scan.incremental.snapshot.chunk.size' = '$chunk'"
  else opts_missing+=" scan.incremental.snapshot.chunk.size"; fi
}

cols_flink="id BIGINT NOT NULL, v INT, a STRING, b DOUBLE, c TIMESTAMP(3), d DECIMAL(12, 2),
  e INT, f STRING, g DATE, h BIGINT, PRIMARY KEY (id) NOT ENFORCED"
sizes=$tmp/sizes.tsv # source table_bytes dump_bytes basis
: >"$sizes"

# ---- MariaDB ---------------------------------------------------------------------------------
mariadb_bench() {
  # shellcheck disable=SC2034 # read by my_start
  MY_EXTRA_ARGS="--log-bin=mbin --binlog-format=ROW --binlog-row-metadata=FULL --server-id=1
    --innodb-buffer-pool-size=2G --sync-binlog=0"
  my_start cdcflow || exit 1
  trap cleanup EXIT # my_start installed its own
  my_sql -e "GRANT REPLICATION SLAVE, BINLOG MONITOR, SELECT ON *.* TO 'writer'@'%';
    CREATE TABLE t (id BIGINT PRIMARY KEY, v INT NOT NULL, a VARCHAR(40), b DOUBLE,
      c DATETIME(3), d DECIMAL(12,2), e INT, f VARCHAR(100), g DATE, h BIGINT);
    SET sql_log_bin = 0;
    INSERT INTO t SELECT seq, 1, CONCAT('row-', seq), seq / 8, '2024-01-01 00:00:00.000' +
      INTERVAL seq SECOND, seq % 100000 / 100, seq % 1000, REPEAT('x', seq % 50),
      '2020-01-01' + INTERVAL seq % 2000 DAY, seq * 1000 FROM seq_1_to_$rows;
    ANALYZE TABLE t;" >/dev/null
  local size
  size=$(my_sql -N -B -e "SELECT DATA_LENGTH FROM information_schema.TABLES
    WHERE TABLE_SCHEMA = 'cdcflow' AND TABLE_NAME = 't'")
  local ceil=(mariadb-dump --no-defaults --socket="$MY_SOCK" -u root --single-transaction cdcflow t)
  dump_bytes=$("${ceil[@]}" | wc -c) # and the caches are warm
  time_ceiling mariadb "mariadb-dump (ceiling, before)" "${ceil[@]}"
  printf 'mariadb\t%s\t%s\tDATA_LENGTH\n' "$size" "$dump_bytes" >>"$sizes"
  # shellcheck disable=SC2317 # called by run_job
  my_update() { my_sql -e "UPDATE t SET v = v + 1 WHERE id = $((rows / 2))"; }
  local p
  for p in 1 2; do
    with_opts mysql-cdc "$p"
    cat >"$tmp/my$p.sql" <<SQL
CREATE TABLE src ($cols_flink)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = 't', 'server-id' = '$((910 + p))', 'scan.startup.mode' = 'initial'$opts_extra);
CREATE TABLE bh ($cols_flink) WITH ('connector' = 'blackhole');
INSERT INTO bh SELECT * FROM src;
SQL
    run_job mariadb "mysql-cdc parallelism $p" "$tmp/my$p.sql" my_update
  done
  time_ceiling mariadb "mariadb-dump (ceiling, after)" "${ceil[@]}"
  my_stop
}

# ---- PostgreSQL ------------------------------------------------------------------------------
postgres_bench() {
  pg_start cdcflow >/dev/null || exit 1
  trap cleanup EXIT # pg_start installed its own
  pg_psql -c "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT NOT NULL, a VARCHAR(40),
      b DOUBLE PRECISION, c TIMESTAMP(3), d NUMERIC(12,2), e INT, f VARCHAR(100), g DATE,
      h BIGINT);
    ALTER TABLE t REPLICA IDENTITY FULL;
    INSERT INTO t SELECT s, 1, 'row-' || s, s / 8.0, TIMESTAMP '2024-01-01' + s * INTERVAL '1 second',
      (s % 100000) / 100.0, s % 1000, repeat('x', (s % 50)::int),
      DATE '2020-01-01' + (s % 2000)::int, s * 1000 FROM generate_series(1::bigint, $rows) s;" \
    -c "VACUUM ANALYZE t"
  local size
  size=$(pg_psql -At -c "SELECT pg_table_size('t')")
  local ceil=(psql -X -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$PG_DB" -c "COPY t TO STDOUT")
  dump_bytes=$("${ceil[@]}" | wc -c) # and the caches are warm
  time_ceiling postgres "COPY TO STDOUT (ceiling, before)" "${ceil[@]}"
  printf 'postgres\t%s\t%s\tpg_table_size\n' "$size" "$dump_bytes" >>"$sizes"
  # shellcheck disable=SC2317 # called by run_job
  pg_update() { pg_psql -c "UPDATE t SET v = v + 1 WHERE id = $((rows / 2))"; }
  local p
  for p in 1 2; do
    with_opts postgres-cdc "$p"
    if [[ $p == 2 && $opts_missing == *scan.parallelism* ]]; then
      printf 'postgres\tpostgres-cdc parallelism 2\t-\t-\t-\t-\t-\tskipped: this postgres-cdc has no scan.parallelism\n' >>"$res"
      continue
    fi
    cat >"$tmp/pg$p.sql" <<SQL
CREATE TABLE src ($cols_flink)
WITH ('connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
      'username' = 'postgres', 'database-name' = 'cdcflow', 'table-name' = 't',
      'slot.name' = 'bench_p$p',
      'scan.startup.mode' = 'initial'$opts_extra);
CREATE TABLE bh ($cols_flink) WITH ('connector' = 'blackhole');
INSERT INTO bh SELECT * FROM src;
SQL
    run_job postgres "postgres-cdc parallelism $p" "$tmp/pg$p.sql" pg_update
    pg_psql -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots" >/dev/null
  done
  time_ceiling postgres "COPY TO STDOUT (ceiling, after)" "${ceil[@]}"
  pg_stop
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
[[ $only != postgres ]] && mariadb_bench
[[ $only != mariadb ]] && postgres_bench

"$py" - "$res" "$sizes" "$rows" "$chunk" "$load" "$(nproc)" <<'PY'
import sys
res, sizes, rows, chunk, load, ncpu = sys.argv[1:7]
rows = int(rows)
size = {}
for line in open(sizes):
    src, tb, db, basis = line.rstrip('\n').split('\t')
    size[src] = (int(tb), int(db), basis)
runs = [l.rstrip('\n').split('\t') for l in open(res)]
names = {'mariadb': 'MariaDB 10.11', 'postgres': 'PostgreSQL 15'}
print(f"snapshot benchmark: {rows:,} rows of 10 columns per table, chunk size {int(chunk):,}, "
      f"load average {load} on {ncpu} CPUs")
print("s = the job's own \"snapshot done ... in S s\" (the ceiling: its wall time); wall = "
      "process start -> that log line;")
print("ratio = rows/s / the ceiling's rows/s, of the faster ceiling run (target >= 0.7 at "
      "parallelism 1); 1st change = "
      "\"first streamed change after X ms\" (from the source's open), upd->log = from the "
      "UPDATE client's start to that line")
hdr = (f"{'':34s} {'s':>7s} {'wall s':>7s} {'rows/s':>11s} {'MB/s':>7s} {'peak RSS':>9s} "
       f"{'ratio':>6s} {'(wall)':>6s} {'1st change':>10s} {'upd->log':>8s}")
ok = True
for src in ('mariadb', 'postgres'):
    rs = [r for r in runs if r[0] == src]
    if not rs:
        continue
    tb, db, basis = size[src]
    print()
    print(f"{names[src]}: table data {tb / 1048576:.1f} MB ({basis}; MB/s below is of it), "
          f"the ceiling's output {db / 1048576:.1f} MB")
    print(hdr)
    ceil = min(float(r[2]) for r in rs if '(ceiling' in r[1])
    for r in rs:
        label, s, wall, rss, first, lat, note = r[1], r[2], r[3], r[4], r[5], r[6], r[7]
        if s == '-':
            print(f"{label:34s} {note}")
            continue
        s, wall = float(s), float(wall)
        mb = tb / 1048576
        ratio = ceil / s if s > 0 else float('inf')
        print(f"{label:34s} {s:7.2f} {wall:7.2f} {rows / s:11,.0f} {mb / s:7.1f} "
              f"{int(rss) / 1024:6.1f} MB {ratio:6.2f} {ceil / wall:6.2f} "
              f"{first + ' ms' if first != '-' else '-':>10s} "
              f"{lat + ' ms' if lat != '-' else '-':>8s}")
        if note:
            print(f"{'':34s} ({note})")
        if label.endswith('parallelism 1'):
            met = ratio >= 0.7
            ok = ok and met
            print(f"{'':34s} target >= 0.7 of the ceiling at parallelism 1: "
                  f"{'met' if met else 'NOT met'} ({ratio:.2f})")
PY
exit "$failed"
