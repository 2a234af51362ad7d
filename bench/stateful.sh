#!/usr/bin/env bash
# Benchmark of the stateful operators (issue 19): GROUP BY and a regular join over a Debezium
# changelog, state in RocksDB under --state-dir. Not a test: prints figures and ratios.
#
#   bench/stateful.sh [N] [KEYS]   (N changes of table a over KEYS keys; default 2000000, 200000)
#
# Env: NGROUPS (default 10000) groups of the GROUP BY; NB (default N/5) changes of table b (same
# KEYS keys); VERIFY=0 skips the result check, VERIFY_N its changes (default N/10, KEYS/10 keys); PERF=1 records `perf record -g` of the GROUP BY
# run into $tmp/perf.data and prints its top functions; KEEP=1 keeps the temporary directory.
# Uses BUILD_DIR (default: build-bench, configured Release here if missing).
#
# Data: one debezium-json file per table, read by the `filesystem` connector; a consistent
# changelog by construction (a's changes: KEYS creates, then updates of val, and of grp one in
# three, deletes one in ten, re-creates of deleted keys; every update's and delete's "before"
# is the key's current row). The generator also writes the final rows of both tables.
# Runs, each once, wall clock, peak RSS from GNU time, checkpoints from the debug log:
#   stateless  INSERT INTO blackhole SELECT * FROM a                    (the ceiling)
#   group by   SELECT grp, COUNT(*), SUM(val) FROM a GROUP BY grp       (GROUPS groups)
#   group by, mini-batch  the same with table.exec.mini-batch.* on (MB_SIZE rows, default
#              100000; MB_LATENCY, default 1 s): per batch one state get and put per group, one
#              change out per group
#   join       SELECT ... FROM a JOIN b ON a.id = b.id                  (N + NB changes in)
#   sqlite     the same two queries in sqlite3 on the final rows (loaded first, not timed)
# then (VERIFY=1), on a second data set of VERIFY_N changes, the GROUP BY and the join into
# `print`, their changelogs folded into tables (a retraction of an absent row is an error),
# compared with SQLite's answer on that set's final rows.
# Targets (issue 19): GROUP BY >= 0.5 and join >= 0.3 of the stateless rate; peak RSS < 64 MB.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-2000000}
keys=${2:-200000}
groups=${NGROUPS:-10000}
nb=${NB:-$((n / 5))}
vn=${VERIFY_N:-$((n / 10))}
build=${BUILD_DIR:-$here/build-bench}
cdcflow=$build/cdcflow
if [[ ! -x $cdcflow ]]; then
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCDC_TESTS=OFF -DCDC_WERROR=OFF >/dev/null
  cmake --build "$build" -j2 --target cdcflow >/dev/null
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stateful.XXXXXX")
trap '[[ -n ${KEEP:-} ]] || rm -rf "$tmp"' EXIT

# gen N KEYS KIND OUT FINAL: KIND a (id, grp, val, note) or b (id, status, qty)
gen() {
  awk -v n="$1" -v k="$2" -v kind="$3" -v g="$groups" -v out="$4" -v fin="$5" '
  function row(i) {
    if (kind == "a")
      return sprintf("{\"id\":%d,\"grp\":%d,\"val\":%d,\"note\":\"%s\"}", i, grp[i], val[i], note[i]);
    return sprintf("{\"id\":%d,\"status\":\"%s\",\"qty\":%d}", i, note[i], val[i]);
  }
  function fill(i) {
    grp[i] = int(rand() * g); val[i] = int(rand() * 1000);
    note[i] = (kind == "a" ? "note-" i "-" int(rand() * 100000) : "st" int(rand() * 8));
  }
  BEGIN {
    srand(kind == "a" ? 19 : 20);
    for (c = 0; c < n; c++) {
      i = c < k ? c : int(rand() * k);
      if (c < k || !(i in alive)) {
        fill(i); alive[i] = 1;
        printf("{\"before\":null,\"after\":%s,\"op\":\"c\"}\n", row(i)) > out;
      } else if (rand() < 0.1) {
        printf("{\"before\":%s,\"after\":null,\"op\":\"d\"}\n", row(i)) > out;
        delete alive[i];
      } else {
        b = row(i); val[i] = int(rand() * 1000);
        if (kind == "a" && rand() < 1 / 3) grp[i] = int(rand() * g);
        if (kind == "b" && rand() < 0.5) note[i] = "st" int(rand() * 8);
        printf("{\"before\":%s,\"after\":%s,\"op\":\"u\"}\n", b, row(i)) > out;
      }
    }
    for (i = 0; i < k; i++)
      if (i in alive)
        print i "\t" (kind == "a" ? grp[i] "\t" val[i] "\t" note[i] : note[i] "\t" val[i]) > fin;
  }'
}
dataset() { # DIR N KEYS NB: DIR/{a,b}/part-0.json, the final rows in DIR/final.db
  mkdir -p "$1/a" "$1/b"
  gen "$2" "$3" a "$1/a/part-0.json" "$1/a.tsv" &
  gen "$4" "$3" b "$1/b/part-0.json" "$1/b.tsv"
  wait
  sqlite3 "$1/final.db" "CREATE TABLE a (id INTEGER PRIMARY KEY, grp INT, val INT, note TEXT)" \
    "CREATE TABLE b (id INTEGER PRIMARY KEY, status TEXT, qty INT)" ".mode tabs" \
    ".import $1/a.tsv a" ".import $1/b.tsv b"
}
dataset "$tmp" "$n" "$keys" "$nb"
mb=$(du -cb "$tmp"/a/part-0.json "$tmp"/b/part-0.json | tail -1 | cut -f1)
q_agg="SELECT grp, COUNT(*) AS cnt, SUM(val) AS total FROM a GROUP BY grp"
q_join="SELECT a.id, a.grp, a.val, b.status, b.qty FROM a JOIN b ON a.id = b.id"
agg_cols="grp INT, cnt BIGINT, total BIGINT"
join_cols="id BIGINT, grp INT, val INT, status STRING, qty INT"
# Flink's mini-batch. Size 100,000, not the 5,000 of Flink's documentation: a batch pays once per
# group it touches (state get and put, the change out), and 5,000 rows over 10,000 groups touch
# ~3,900 (1.3 rows folded per group: no faster than without), 100,000 touch all (10 per group);
# the rows are folded as they come, so a batch holds its groups' accumulators, not its rows
# (peak RSS 35 MB at any size here). Allow-latency 1 s, the default checkpoint interval: the size
# fires the batches here (100,000 rows are ~50 ms of input).
mb_size=${MB_SIZE:-100000}
mb_latency=${MB_LATENCY:-1 s}
mb_set="SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '$mb_latency';
SET 'table.exec.mini-batch.size' = '$mb_size';"
job() { # DIR name sink-columns query [sink WITH options] [SET statements]: DIR/name.sql
  local with=${5:-"'connector' = 'blackhole'"}
  cat >"$1/$2.sql" <<SQL
${6:-}
CREATE TABLE a (id BIGINT, grp INT, val INT, note STRING) WITH ('connector' = 'filesystem',
  'path' = '$1/a', 'format' = 'debezium-json');
CREATE TABLE b (id BIGINT, status STRING, qty INT) WITH ('connector' = 'filesystem',
  'path' = '$1/b', 'format' = 'debezium-json');
CREATE TABLE out ($3) WITH ($with);
INSERT INTO out $4;
SQL
}
job "$tmp" stateless "id BIGINT, grp INT, val INT, note STRING" "SELECT * FROM a"
job "$tmp" agg "$agg_cols" "$q_agg"
job "$tmp" aggmb "$agg_cols" "$q_agg" "" "$mb_set"
job "$tmp" join "$join_cols" "$q_join"

now() { date +%s.%N; }
# run NAME [perf args...]: sets secs_NAME, rss_NAME (KiB), disk_NAME (bytes), ckpt_NAME
declare -A secs rss disk ckpt
run() {
  local name=$1
  shift
  rm -rf "$tmp/state"
  local s e
  s=$(now)
  /usr/bin/time -v -o "$tmp/$name.time" "$@" "$cdcflow" run "$tmp/$name.sql" \
    --state-dir "$tmp/state" --log-level debug 2>"$tmp/$name.log" >/dev/null ||
    { echo "$name failed:" >&2; tail -5 "$tmp/$name.log" >&2; exit 1; }
  e=$(now)
  secs[$name]=$(echo "$e - $s" | bc -l)
  rss[$name]=$(awk -F': ' '/Maximum resident/ {print $2}' "$tmp/$name.time")
  disk[$name]=$(du -sb "$tmp/state" | cut -f1)
  # "checkpoint K: sink flushed in X ms, state committed in Y ms (...)": count, mean, max of Y
  ckpt[$name]=$(sed -n 's/.*checkpoint [0-9]*: sink flushed in [0-9.]* ms, state committed in \([0-9.]*\) ms.*/\1/p' \
    "$tmp/$name.log" | awk '{ s += $1; if ($1 > m) m = $1; c++ }
      END { if (c) printf("%d, mean %.1f ms, max %.1f ms, total %.2f s", c, s / c, m, s / 1000);
            else printf("none") }')
}
run stateless
if [[ ${PERF:-} == 1 ]]; then
  run agg perf record -g -o "$tmp/perf.data" --
else
  run agg
fi
run aggmb
run join

db=$tmp/final.db
sq() { # seconds of sqlite3 running query $1 on the final rows, result to /dev/null
  local s e
  s=$(now)
  sqlite3 "$db" "$1" >/dev/null
  e=$(now)
  echo "$e - $s" | bc -l
}
sq_agg=$(sq "$q_agg")
sq_join=$(sq "$q_join")

verified="skipped (VERIFY=0)"
if [[ ${VERIFY:-1} != 0 ]]; then
  # The whole changelog through `print`, folded here into a multiset of rows (+I/+U add, -U/-D
  # take away a row that must be there), against SQLite's answer on the final rows. (A jdbc
  # sink keyed by the group keys or the join's keys is refused by the planner for now.)
  fold() { # changelog on stdin -> final rows, sorted; "RETRACT-ABSENT row" lines on errors
    awk '{ k = substr($0, 4, length($0) - 4); op = substr($0, 1, 2)
           if (op == "+I" || op == "+U") c[k]++
           else if (--c[k] < 0) { print "RETRACT-ABSENT " $0; c[k] = 0 } }
         END { for (k in c) for (j = 0; j < c[k]; j++) print k }' | sort
  }
  v=$tmp/verify
  dataset "$v" "$vn" "$((keys / 10 > 0 ? keys / 10 : 1))" "$((vn / 5))"
  job "$v" vagg "$agg_cols" "$q_agg" "'connector' = 'print'"
  job "$v" vjoin "$join_cols" "$q_join" "'connector' = 'print'"
  job "$v" vaggmb "$agg_cols" "$q_agg" "'connector' = 'print'" "$mb_set"
  for j in vagg vaggmb vjoin; do
    "$cdcflow" run "$v/$j.sql" --state-dir "$v/state" 2>"$v/$j.log" >"$v/$j.out" ||
      { echo "$j failed:" >&2; tail -5 "$v/$j.log" >&2; exit 1; }
    fold <"$v/$j.out" >"$v/$j.got"
    sqlite3 -separator ', ' "$v/final.db" "$([[ $j == vagg* ]] && echo "$q_agg" || echo "$q_join")" |
      sort >"$v/$j.want"
  done
  if cmp -s "$v/vagg.got" "$v/vagg.want" && cmp -s "$v/vaggmb.got" "$v/vaggmb.want" &&
    cmp -s "$v/vjoin.got" "$v/vjoin.want"; then
    verified="exact on $vn changes: GROUP BY (also mini-batch) $(wc -l <"$v/vagg.want") rows, join"
    verified+=" $(wc -l <"$v/vjoin.want") rows (print changelogs folded) equal SQLite's on the final rows;"
    verified+=" GROUP BY changes out $(wc -l <"$v/vagg.out"), with mini-batch $(wc -l <"$v/vaggmb.out")"
  else
    verified="WRONG on $vn changes: $(diff "$v/vagg.got" "$v/vagg.want" | grep -c '^[<>]') GROUP BY,"
    verified+=" $(diff "$v/vaggmb.got" "$v/vaggmb.want" | grep -c '^[<>]') mini-batch GROUP BY"
    verified+=" and $(diff "$v/vjoin.got" "$v/vjoin.want" | grep -c '^[<>]') join row(s) differ"
    verified+=" from SQLite's (files $v/v*.got, v*.want; KEEP=1 keeps them)"
  fi
fi

rate() { echo "$1 / ${secs[$2]}" | bc -l; }
r0=$(rate "$n" stateless)
ra=$(rate "$n" agg)
rm=$(rate "$n" aggmb)
rj=$(rate "$((n + nb))" join)
met() { if (($(echo "$1" | bc -l))); then echo "met"; else echo "MISSED"; fi; }
printf 'input: a %d changes over %d keys (%d alive at the end), b %d changes (%d alive), %.1f MB of debezium-json (%s)\n' \
  "$n" "$keys" "$(wc -l <"$tmp/a.tsv")" "$nb" "$(wc -l <"$tmp/b.tsv")" "$(echo "$mb / 1048576" | bc -l)" "$tmp"
printf '%-22s %8s %12s %8s %9s %11s  %s\n' run seconds changes/s ratio "peak RSS" "state disk" checkpoints
line() { # label name rate ratio
  printf '%-22s %8.2f %12.0f %8.2f %6d MB %8.1f MB  %s\n' "$1" "${secs[$2]}" "$3" "$4" \
    "$((rss[$2] / 1024))" "$(echo "${disk[$2]} / 1048576" | bc -l)" "${ckpt[$2]}"
}
line "stateless (ceiling)" stateless "$r0" 1
line "GROUP BY ($groups groups)" agg "$ra" "$(echo "$ra / $r0" | bc -l)"
line "GROUP BY, mini-batch" aggmb "$rm" "$(echo "$rm / $r0" | bc -l)"
line "join a.id = b.id" join "$rj" "$(echo "$rj / $r0" | bc -l)"
printf '%-22s %8.3f s GROUP BY, %.3f s join, on the final rows (load not counted): the\n' \
  "sqlite3 one query" "$sq_agg" "$sq_join"
printf '%-22s incremental runs over every change take %.0fx and %.0fx as long\n' "" \
  "$(echo "${secs[agg]} / $sq_agg" | bc -l)" "$(echo "${secs[join]} / $sq_join" | bc -l)"
printf 'mini-batch: size %s, allow-latency %s\n' "$mb_size" "$mb_latency"
printf 'targets: GROUP BY >= 0.5 of stateless: %s (%.2f; mini-batch %s, %.2f); join >= 0.3: %s (%.2f); peak RSS < 64 MB: %s (%d, %d MB)\n' \
  "$(met "$ra / $r0 >= 0.5")" "$(echo "$ra / $r0" | bc -l)" "$(met "$rm / $r0 >= 0.5")" \
  "$(echo "$rm / $r0" | bc -l)" "$(met "$rj / $r0 >= 0.3")" \
  "$(echo "$rj / $r0" | bc -l)" "$(met "${rss[agg]} < 65536 && ${rss[join]} < 65536")" \
  "$((rss[agg] / 1024))" "$((rss[join] / 1024))"
echo "results: $verified"
if [[ ${PERF:-} == 1 ]]; then
  echo "perf, GROUP BY run, top functions by self time:"
  perf report -i "$tmp/perf.data" --no-children --stdio --percent-limit 2 2>/dev/null |
    grep -E '^ +[0-9.]+%' | head -20
fi
