#!/usr/bin/env bash
# postgres-cdc's positions kept by the job's state (cdc_reader_ops_t.positions and
# set_position_store) against a real PostgreSQL 15, driven by pos_probe
# (tests/integration/pos_probe.c: polls two rows at a time, stops at the first transaction
# boundary after N rows, saves positions(), commits): a reader opened with a store holding
# that line goes on exactly where the first stopped —
#  a. streaming after the (chunked) snapshot, transactions of two rows written meanwhile;
#  b. in the middle of a chunked snapshot (chunk size 3) with updates, deletes and inserts
#     during the first run and while stopped: each untouched row once, the changelog ending
#     at the table's content;
#  c. the slot's confirmed LSN behind the stored one (the upstream commit not done): the
#     transactions between are not read again;
#  d. a token that cannot be read is an error naming the key, with the hint to start over.
# A server that cannot be started is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
source "$(dirname "${BASH_SOURCE[0]}")/lib/positions_checks.sh"
probe=${CDC_POS_PROBE:?CDC_POS_PROBE must point at the pos_probe binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
source "$src/tests/servers/postgres.sh"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  pg_stop
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
finish() {
  echo "positions_postgres_cdc: $pass passed, $fail failed"
  ((fail == 0))
  exit
}
if ! pg_start shop; then
  bad "could not start PostgreSQL 15"
  finish
fi
trap cleanup EXIT
pg_psql <<'SQL' || bad "source setup"
CREATE TABLE a (id int PRIMARY KEY, v int); INSERT INTO a SELECT g, 0 FROM generate_series(1, 5) g;
CREATE TABLE b (id int PRIMARY KEY, v int); INSERT INTO b SELECT g, 0 FROM generate_series(1, 30) g;
CREATE TABLE c (id int PRIMARY KEY, v int); INSERT INTO c SELECT g, 0 FROM generate_series(1, 5) g;
ALTER TABLE a REPLICA IDENTITY FULL; ALTER TABLE b REPLICA IDENTITY FULL;
ALTER TABLE c REPLICA IDENTITY FULL;
SQL

cols='id INT NOT NULL, v INT'
sql() { pg_psql -c "$1"; }
# shellcheck disable=SC2046
probe_run() { # out-file table [probe options...]: slot s<table>, publication p<table>
  local out=$1 table=$2
  shift 2
  timeout 120 "$probe" postgres-cdc "$cols" "$@" hostname=127.0.0.1 port="$PG_PORT" \
    username=postgres database-name=shop schema-name=public table-name="$table" \
    slot.name="s$table" publication.name="p$table" >"$out" 2>"$out.err"
}
lsn_num() { # X/Y -> a decimal number
  local hi=${1%/*} lo=${1#*/}
  echo $((16#$hi * 4294967296 + 16#$lo))
}

# ---- a. and c. streaming after the snapshot, with and without the upstream commit -----------
stream_case() { # name table commit|no-commit
  local name=$1 t=$2 mode=$3 i
  local -a extra=()
  [[ $mode == no-commit ]] && extra=(--no-commit)
  probe_run "${t}1.txt" "$t" --rows 15 --save "$t.pos" "${extra[@]}" &
  local p1=$!
  pids+=("$p1")
  wait_for "${t}1.txt" '^\+I\[5, 0\]$' 60 || bad "$name: the snapshot was not read: $(cat "${t}1.txt.err")"
  pos_writer "$p1" "$t" sql &
  local writer=$!
  wait "$p1" || bad "$name: first run: $(cat "${t}1.txt.err")"
  wait "$writer"
  if [[ $mode == no-commit ]]; then # the slot is behind what the store keeps
    local kept confirmed
    kept=$(pos_record "$t.pos" | sed -n '2s/^[0-9]*\t\([0-9A-F]*\/[0-9A-F]*\)\t.*/\1/p')
    confirmed=$(pg_psql -At -c "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 's$t'")
    if [[ -n $kept && -n $confirmed ]] && (($(lsn_num "$confirmed") < $(lsn_num "$kept"))); then
      ok
    else
      bad "$name: the slot's confirmed LSN \"$confirmed\" is not behind the stored \"$kept\""
    fi
  fi
  probe_run "${t}2.txt" "$t" --store "$t.pos" --idle-ms 2000 || bad "$name: resumed run: $(cat "${t}2.txt.err")"
  pos_stream_want 5 "$t" >"$t.want"
  cat "${t}1.txt" "${t}2.txt" >"$t.got"
  pos_same "$name: the stream goes on exactly (none lost, none repeated)" "$t.want" "$t.got"
  local n1
  n1=$(wc -l <"${t}1.txt")
  ((n1 >= 15 && n1 < $(wc -l <"$t.want"))) && ok || bad "$name: the first run stopped after $n1 rows"
}
stream_case "a" a commit
stream_case "c (slot behind)" c no-commit
pos_record a.pos | grep -q '^schema	relation	52' && ok ||
  bad "a: the record has no relation history: $(pos_record a.pos | head -5)"

# ---- b. in the middle of a chunked snapshot, changes meanwhile ------------------------------
(for i in $(seq 1 15); do
  pg_psql -c "UPDATE b SET v = v + 1 WHERE id IN (2, 14, 27)"
  sleep 0.03
done
pg_psql -c "DELETE FROM b WHERE id = 29; INSERT INTO b VALUES (1001, 7)") &
writer=$!
probe_run b1.txt b --rows 8 --save b.pos scan.incremental.snapshot.chunk.size=3 ||
  bad "b: first run: $(cat b1.txt.err)"
wait "$writer"
pos_record b.pos | grep -q '^range' && ok ||
  bad "b: the first run did not stop inside the snapshot: $(pos_record b.pos | head -8)"
pg_psql -c "UPDATE b SET v = 50 WHERE id = 20; DELETE FROM b WHERE id = 23;
  INSERT INTO b VALUES (1002, 8)" || bad "b: changes while stopped"
probe_run b2.txt b --store b.pos --idle-ms 2500 scan.incremental.snapshot.chunk.size=3 ||
  bad "b: resumed run: $(cat b2.txt.err)"
pg_psql -At -F ' ' -c "SELECT id, v FROM b ORDER BY id" >b.want
pos_snapshot_checks b b.want "$(seq 1 30 | grep -vxE '2|14|20|23|27|29')" b1.txt b2.txt

# ---- the keys ----------------------------------------------------------------------------------
ka=$(cut -f1 a.pos)
[[ $ka == "postgres-cdc/127.0.0.1:$PG_PORT/shop/sa/0" && $(cut -f1 b.pos) == "postgres-cdc/127.0.0.1:$PG_PORT/shop/sb/0" ]] &&
  ok || bad "keys \"$ka\" and \"$(cut -f1 b.pos)\""

# ---- d. tokens that cannot be read ----------------------------------------------------------
bad_token() { # name token expected-error
  pos_bad_token "d: $1" "$ka" "$2" "$3" probe_run d.txt a --store d.pos --idle-ms 500
}
bad_token "not base64" 'not*base64!' \
  "the stored position of \"$ka\" cannot be read: it is not base64 text"
bad_token "another version's" "$(printf 'cdcflow postgres-cdc position v9\nx\n' | base64 -w0)" \
  "the stored position of \"$ka\" cannot be read: it is not a position record of this version"
bad_token "a bad first line" "$(printf 'cdcflow postgres-cdc position v1\n0\tnowhere\tstream\n' | base64 -w0)" \
  "the stored position of \"$ka\" cannot be read: its first line is not"
bad_token "a bad range" "$(pos_record b.pos | sed 's/^range\t.*/range\tbroken/' | base64 -w0)" \
  "postgres-cdc: the stored position of \"$ka\": a malformed snapshot range line"
finish
