#!/usr/bin/env bash
# mysql-cdc's positions kept by the job's state (cdc_reader_ops_t.positions and
# set_position_store) against a real MariaDB 10.11, driven by pos_probe
# (tests/integration/pos_probe.c: polls two rows at a time, stops at the first transaction
# boundary after N rows, saves positions(), commits): a reader opened with a store holding
# that line goes on exactly where the first stopped —
#  a. streaming after the snapshot, transactions of two events being written meanwhile, the
#     position file never committed (the store's record wins over the reader's own files);
#  b. in the middle of a chunked snapshot (chunk size 3) with updates, deletes and inserts
#     during the first run and while stopped: each untouched row once, the changelog ending
#     at the table's content;
#  c. two tables of one server have distinct keys;
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
source "$src/tests/servers/mariadb.sh"
MY_EXTRA_ARGS="--log-bin=mbin --binlog-format=ROW --binlog-row-metadata=FULL --server-id=1"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  my_stop
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
finish() {
  echo "positions_mysql_cdc: $pass passed, $fail failed"
  ((fail == 0))
  exit
}
if ! my_start cdcflow; then
  bad "could not start MariaDB"
  finish
fi
trap cleanup EXIT
my_sql -e "GRANT REPLICATION SLAVE, BINLOG MONITOR, SELECT ON *.* TO 'writer'@'%';
  CREATE TABLE a (id INT PRIMARY KEY, v INT); INSERT INTO a SELECT seq, 0 FROM seq_1_to_5;
  CREATE TABLE b (id INT PRIMARY KEY, v INT); INSERT INTO b SELECT seq, 0 FROM seq_1_to_30;" ||
  bad "source setup"

cols='id INT NOT NULL, v INT'
opts() { # table server-id
  echo hostname=127.0.0.1 port="$MY_PORT" username=writer \
    password="$MY_PASSWORD" database-name=cdcflow table-name="$1" server-id="$2"
}
# shellcheck disable=SC2046
probe_run() { # out-file table server-id [probe options...]
  local out=$1 table=$2 id=$3
  shift 3
  timeout 120 "$probe" mysql-cdc "$cols" "$@" $(opts "$table" "$id") >"$out" 2>"$out.err"
}

# ---- a. streaming after the snapshot; the position file never committed ---------------------
probe_run a1.txt a 901 --rows 15 --save a.pos --no-commit position.file="$tmp/a.file" &
pids+=($!)
p1=$!
wait_for a1.txt '^\+I\[5, 0\]$' 60 || bad "a: the snapshot of a was not read: $(cat a1.txt.err)"
sql() { my_sql -e "$1"; }
pos_writer "$p1" a sql &
writer=$!
wait "$p1" || bad "a: first run: $(cat a1.txt.err)"
wait "$writer"
[[ -s a.pos && ! -e a.file ]] || bad "a: saved $(wc -c <a.pos) bytes; position file: $(ls a.file 2>&1)"
probe_run a2.txt a 901 --store a.pos --idle-ms 2000 position.file="$tmp/a.file" ||
  bad "a: resumed run: $(cat a2.txt.err)"
pos_stream_want 5 a >a.want
cat a1.txt a2.txt >a.got
pos_same "a: the stream goes on exactly (none lost, none repeated)" a.want a.got
n1=$(wc -l <a1.txt)
((n1 >= 15 && n1 < $(wc -l <a.want))) && ok || bad "a: the first run stopped after $n1 rows"
pos_record a.pos | grep -q '^cdcflow mysql-binlog schema history v1$' && ok ||
  bad "a: the record has no schema history: $(pos_record a.pos | head -5)"

# ---- b. in the middle of a chunked snapshot, changes meanwhile ------------------------------
(for i in $(seq 1 15); do
  my_sql -e "UPDATE b SET v = v + 1 WHERE id IN (2, 14, 27)"
  sleep 0.03
done
my_sql -e "DELETE FROM b WHERE id = 29; INSERT INTO b VALUES (1001, 7)") &
writer=$!
probe_run b1.txt b 902 --rows 8 --save b.pos scan.incremental.snapshot.chunk.size=3 ||
  bad "b: first run: $(cat b1.txt.err)"
wait "$writer"
pos_record b.pos | grep -q '^range' && ok ||
  bad "b: the first run did not stop inside the snapshot: $(pos_record b.pos | head -8)"
my_sql -e "UPDATE b SET v = 50 WHERE id = 20; DELETE FROM b WHERE id = 23;
  INSERT INTO b VALUES (1002, 8)" || bad "b: changes while stopped"
probe_run b2.txt b 902 --store b.pos --idle-ms 2500 scan.incremental.snapshot.chunk.size=3 ||
  bad "b: resumed run: $(cat b2.txt.err)"
my_sql -N -e "SELECT id, v FROM b ORDER BY id" | tr '\t' ' ' >b.want
pos_snapshot_checks b b.want "$(seq 1 30 | grep -vxE '2|14|20|23|27|29')" b1.txt b2.txt

# ---- c. one key per reader ------------------------------------------------------------------
ka=$(cut -f1 a.pos) kb=$(cut -f1 b.pos)
[[ $ka == "mysql-cdc/127.0.0.1:$MY_PORT/cdcflow.a/0" && $kb == "mysql-cdc/127.0.0.1:$MY_PORT/cdcflow.b/0" ]] &&
  ok || bad "c: keys \"$ka\" and \"$kb\""
[[ $(wc -l <a.pos) == 1 ]] && ! cut -f2 a.pos | grep -q '[[:space:]]' && ok || bad "c: one line, a token"

# ---- d. tokens that cannot be read ----------------------------------------------------------
bad_token() { # name token expected-error
  pos_bad_token "d: $1" "$ka" "$2" "$3" probe_run d.txt a 903 --store d.pos --idle-ms 500
}
bad_token "not base64" 'not*base64!' \
  "the stored position of \"$ka\" cannot be read: it is not base64 text"
bad_token "another version's" "$(printf 'cdcflow mysql-cdc position v9\nx\n' | base64 -w0)" \
  "the stored position of \"$ka\" cannot be read: it is not a position record of this version"
bad_token "cut" "$(pos_record a.pos | head -2 | base64 -w0)" \
  "the stored position of \"$ka\" cannot be read: its position line or schema history is missing"
bad_token "a bad position" "$(pos_record a.pos | sed '2s/\t.*/\tx/' | base64 -w0)" \
  "the stored position of \"$ka\" cannot be read: its binlog position is not a number"
finish
