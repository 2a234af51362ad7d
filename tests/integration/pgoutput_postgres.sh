#!/usr/bin/env bash
# The pgoutput format against a real PostgreSQL 15 (tests/servers/postgres.sh): tables with
# the built-in types, REPLICA IDENTITY DEFAULT and FULL, unchanged TOAST, a rolled-back
# transaction, logical messages and a truncate (tests/data/pgoutput/*.sql); the changes are
# peeked hex-encoded from a pgoutput slot and `cdcflow decode --format pgoutput --table` must
# print tests/data/pgoutput/changes.gold (expected rows written by hand from dml.sql; the
# truncate as a `-- schema change:` line, LSNs masked). Schema changes between rows (ddl.sql)
# must print ddl.gold. Then
# protocol 2 with streaming of large transactions (S/E/c/A, a rolled-back savepoint, an
# aborted transaction) must give exactly the rows protocol 1 gives for the same changes, and
# test_decoding must agree on the number of changes. A server that cannot start is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
data=$src/tests/data/pgoutput
tmp=$(mktemp -d)
cd "$tmp" || exit 1

# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
if ! pg_start cdcflow; then
  bad "could not start PostgreSQL 15"
  pg_stop
  rm -rf "$tmp"
  echo "pgoutput_postgres: $pass passed, $fail failed"
  exit 1
fi
trap 'pg_stop; rm -rf "$tmp"' EXIT

peek() { # slot proto [options...]
  local slot=$1 proto=$2
  shift 2
  pg_psql -At -c "SET logical_decoding_work_mem = '64kB'" -c \
    "SELECT encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes('$slot', NULL, NULL,
       'proto_version', '$proto', 'publication_names', 'pub' $*)"
}

pg_psql -f "$data/setup.sql" >/dev/null || bad "setup.sql"
pg_psql -f "$data/dml.sql" >/dev/null || bad "dml.sql"

# 1. every type, identities, TOAST, messages, truncate (protocol 1)
peek slot 1 ", 'messages', 'true'" >p1.hex || bad "peek protocol 1"
if grep -q '^4d' p1.hex && grep -q '^54' p1.hex && grep -q '^59' p1.hex; then ok; else
  bad "the peek lacks M, T or Y messages"
fi
"$bin" decode --format pgoutput --table p1.hex >p1.out 2>p1.err
code=$?
sed -i -E "s/x{4000}/<4000 x>/; s#LSN [0-9A-F]+/[0-9A-F]+#LSN <lsn>#" p1.out
if [[ $code -eq 0 && ! -s p1.err ]] && diff -u "$data/changes.gold" p1.out; then ok; else
  bad "decode of protocol 1 (exit $code): $(head -3 p1.err)"
fi

# 2. a declared schema: columns matched by name, the table chosen by table-name
"$bin" decode --format pgoutput --schema 'v STRING, id BIGINT' -o table-name=t_full p1.hex \
  >named.out 2>&1
sed -i -E "s#LSN [0-9A-F]+/[0-9A-F]+#LSN <lsn>#" named.out
printf '%s\n' '+I[one, 1]' '-U[one, 1]' '+U[uno, 1]' '-D[uno, 1]' '+I[two, 2]' \
  '+I[three, 3]' '-U[three, 3]' '+U[null, 3]' \
  '-- schema change: public.t_full at LSN <lsn>: TRUNCATE TABLE' >named.want
if diff -u named.want named.out; then ok; else bad "decode with a declared schema"; fi

# 3. protocol 2 with streamed transactions = protocol 1
pg_psql -f "$data/stream.sql" >/dev/null || bad "stream.sql"
peek slot2 2 ", 'streaming', 'on'" >s2.hex || bad "peek protocol 2"
peek slot2 1 >s1.hex || bad "peek protocol 1 (slot2)"
for t in 53 45 63 41; do
  grep -q "^$t" s2.hex || bad "no message $t in the streamed peek"
done
"$bin" decode --format pgoutput s2.hex >s2.out 2>&1 || bad "decode protocol 2: $(head -3 s2.out)"
"$bin" decode --format pgoutput s1.hex >s1.out 2>&1 || bad "decode protocol 1 (slot2)"
if [[ $(wc -l <s2.out) -eq 2001 ]] && cmp -s s1.out s2.out && ! grep -q gone s2.out &&
  tail -1 s2.out | grep -qx '+I\[4000, kept\]'; then ok; else
  bad "streamed transactions: $(wc -l <s2.out) rows, $(wc -l <s1.out) with protocol 1"
fi

# 4. test_decoding and pgoutput slots made together see the same changes
for slot in "slot3 test_decoding" "slot4 pgoutput"; do
  set -- $slot
  pg_psql -At -c "SELECT 'x' FROM pg_create_logical_replication_slot('$1', '$2')" >/dev/null
done
pg_psql -c "INSERT INTO t_full VALUES (7, 'a'), (8, 'b'); UPDATE t_full SET v = 'c' WHERE id < 200;
            DELETE FROM t_full WHERE id = 7" >/dev/null
pg_psql -At -c "SELECT data FROM pg_logical_slot_peek_changes('slot3', NULL, NULL)" >td.txt
peek slot4 1 >s4.hex
"$bin" decode --format pgoutput s4.hex >s4.out 2>&1
# REPLICA IDENTITY FULL: an UPDATE is -U and +U
ti=$(grep -c '^table public.t_full: INSERT' td.txt)
tu=$(grep -c '^table public.t_full: UPDATE' td.txt)
tdl=$(grep -c '^table public.t_full: DELETE' td.txt)
if [[ $(grep -c '^+I' s4.out) -eq $ti && $(grep -c '^-U' s4.out) -eq $tu &&
  $(grep -c '^+U' s4.out) -eq $tu && $(grep -c '^-D' s4.out) -eq $tdl && $tu -eq 102 ]] &&
  grep -q "^table public.t_full: UPDATE: old-key: id\[integer\]:8 v\[text\]:'b' new-tuple: id\[integer\]:8 v\[text\]:'c'" td.txt &&
  grep -qx -- '-U\[8, b\]' s4.out && grep -qx -- '+U\[8, c\]' s4.out; then ok; else
  bad "test_decoding disagrees: $ti/$tu/$tdl vs $(sort s4.out | cut -c1-2 | uniq -c | tr '\n' ' ')"
fi

# 5. errors name the line, the message type and the byte offset
printf '42\n%s\n' "$(head -c 30 <(grep '^49' p1.hex | head -1))" >bad.hex
"$bin" decode --format pgoutput bad.hex >bad.out 2>&1
if grep -q "cannot decode line 1: message ends inside the begin fields (message 'B' at byte 1)" bad.out &&
  grep -q "cannot decode line 2: .*(message 'I' at byte" bad.out; then ok; else
  bad "error text: $(cat bad.out)"
fi

# 6. schema changes (ddl.sql): a new Relation message of a table seen before is a change
# between the rows (ADD with and without DEFAULT, DROP, RENAME, int4 -> int8, varchar(10) ->
# varchar(100) -> text; DROP NOT NULL shows nothing), one inside a transaction, TRUNCATE
pg_psql -At -c "SELECT 'x' FROM pg_create_logical_replication_slot('slot6', 'pgoutput')" >/dev/null
pg_psql -f "$data/ddl.sql" >/dev/null || bad "ddl.sql"
peek slot6 1 >ddl.hex || bad "peek of the schema changes"
"$bin" decode --format pgoutput --table ddl.hex 2>&1 | sed -E 's#LSN [0-9A-F]+/[0-9A-F]+#LSN <lsn>#' \
  >ddl.out
if diff -u "$data/ddl.gold" ddl.out; then ok; else bad "decode of the schema changes"; fi
# the declared a2 INT: rows of the old relation are read, the widened value 5000000000 is an
# error naming the column, the value and what to declare
"$bin" decode --format pgoutput --schema 'id INT, a2 INT' -o table-name=t_ddl ddl.hex \
  >ddl_decl.out 2>&1
if grep -qx '+I\[5, 5\]' ddl_decl.out && grep -qx '+I\[1, null\]' ddl_decl.out &&
  grep -q 'column "a2" of "public.t_ddl": value "5000000000" does not fit the declared INT' \
    ddl_decl.out && grep -q 'the source column is now BIGINT: declare it BIGINT' ddl_decl.out; then
  ok
else
  bad "a widened column under its declared type: $(cat ddl_decl.out)"
fi
# the declared s VARCHAR(10) after varchar(10) -> varchar(100): values are checked one by one
"$bin" decode --format pgoutput --schema 'id INT, s VARCHAR(10)' -o table-name=t_ddl ddl.hex \
  >ddl_len.out 2>&1
if grep -qx '+I\[6, six\]' ddl_len.out &&
  grep -q 'column "s" of "public.t_ddl": value "seven, longer than ten" does not fit the declared VARCHAR(10) (longer than the declared length); the source column is now VARCHAR(100): declare it VARCHAR(100)' \
    ddl_len.out; then
  ok
else
  bad "a widened VARCHAR under its declared length: $(cat ddl_len.out)"
fi

echo "pgoutput_postgres: $pass passed, $fail failed"
((fail == 0))
