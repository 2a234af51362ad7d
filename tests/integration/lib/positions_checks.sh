#!/usr/bin/env bash
# Checks shared by positions_mysql_cdc.sh and positions_postgres_cdc.sh (sourced after
# lib/checks.sh): the changelog of a reader stopped at its saved position and a reader resumed
# from it, read as one.
#   pos_record FILE              the record of the first line's token (base64 decoded)
#   pos_materialize FILES...     "id v" lines of the rows the changelog leaves (+I/+U set the
#                                row of the id, -D removes it), in id order
#   pos_once_each NAME IDS FILES...  every id of IDS (space-separated) has exactly one row in
#                                the changelog, an +I: no snapshot row lost or repeated
#   pos_same NAME WANT GOT       WANT and GOT (files) are equal, or the diff and a failure
pos_record() {
  cut -f2 "$1" | head -1 | base64 -d 2>/dev/null
}
pos_materialize() {
  cat "$@" | sed -nE 's/^([-+][IUD])\[([0-9-]+), ([0-9-]+|null)\]$/\1 \2 \3/p' |
    awk '$1 == "+I" || $1 == "+U" { v[$2] = $3 } $1 == "-D" { delete v[$2] }
         END { for (k in v) print k, v[k] }' | sort -n
}
pos_once_each() {
  local name=$1 ids=$2 id n
  shift 2
  local all
  all=$(cat "$@")
  for id in $ids; do
    n=$(grep -cE "^[-+][IUD]\[$id, " <<<"$all")
    if [[ $n != 1 ]] || ! grep -qE "^\+I\[$id, " <<<"$all"; then
      bad "$name: id $id has $n rows: $(grep -E "^[-+][IUD]\[$id, " <<<"$all" | tr '\n' ' ')"
      return
    fi
  done
  ok
}
pos_same() {
  if diff -u "$2" "$3" >"$3.diff"; then ok; else
    bad "$1"
    head -40 "$3.diff"
  fi
}
#   pos_writer PID TABLE SQLFN   (in the background) transactions of two inserts into TABLE
#                                (ids 102.., v = the transaction's number) through the function
#                                SQLFN "statements", while PID runs and five after; their
#                                count into TABLE.writes
#   pos_stream_want N TABLE      the changelog of a table of N rows (v 0) snapshotted, then
#                                pos_writer's transactions
#   pos_snapshot_checks NAME WANT UNTOUCHED FILES...  the changelog of FILES ends at WANT
#                                ("id v" lines) and has each id of UNTOUCHED once
#   pos_bad_token NAME KEY TOKEN ERROR CMD...  with d.pos holding "KEY<TAB>TOKEN", CMD (which
#                                reads d.pos, output in d.txt.err) fails with ERROR and the
#                                hint to delete the state directory
pos_writer() {
  local pid=$1 t=$2 sqlfn=$3 i=0 after=0
  while ((i < 400 && after < 5)); do
    kill -0 "$pid" 2>/dev/null || after=$((after + 1))
    i=$((i + 1))
    "$sqlfn" "BEGIN; INSERT INTO $t VALUES ($((100 + 2 * i)), $i);
              INSERT INTO $t VALUES ($((101 + 2 * i)), $i); COMMIT;"
    sleep 0.05
  done
  echo "$i" >"$t.writes"
}
pos_stream_want() {
  local i
  for i in $(seq 1 "$1"); do echo "+I[$i, 0]"; done
  for i in $(seq 1 "$(cat "$2.writes")"); do
    echo "+I[$((100 + 2 * i)), $i]" && echo "+I[$((101 + 2 * i)), $i]"
  done
}
pos_snapshot_checks() {
  local name=$1 want=$2 untouched=$3
  shift 3
  pos_materialize "$@" >"$want.got"
  pos_same "$name: the changelog of both runs ends at the table's content" "$want" "$want.got"
  pos_once_each "$name: every untouched row exactly once" "$untouched" "$@"
}
pos_bad_token() {
  local name=$1 key=$2 token=$3 want=$4
  shift 4
  printf '%s\t%s\n' "$key" "$token" >d.pos
  if "$@"; then
    bad "$name: no error"
  elif grep -qF "$want" d.txt.err && grep -q "delete the job's state directory" d.txt.err; then
    ok
  else
    bad "$name: $(cat d.txt.err)"
  fi
}
