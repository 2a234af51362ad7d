#!/usr/bin/env bash
# The postgres-cdc source against a real PostgreSQL 15 (wal_level=logical) started here:
# initial snapshot then streaming into a PostgreSQL table of another database through the
# jdbc sink, checked with psql until the target equals the source; REPLICA IDENTITY FULL
# (changelog-mode all) and DEFAULT (upsert) tables; unchanged TOAST values kept; a clean
# stop and a SIGKILL mid-stream, each resumed from the slot with the target equal to the
# source; the slot's confirmed position moving only with commits; clear errors for a
# missing table, a wrong replica identity and a slot in use; snapshot values with COPY's
# escapes (a text key holding them, chunks of two; a keyless table). A server that cannot be
# started is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1

# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
if ! pg_start shop; then
  bad "could not start PostgreSQL 15"
  pg_stop
  rm -rf "$tmp"
  echo "postgres_cdc: $pass passed, $fail failed"
  exit 1
fi
cleanup() {
  jobs -p | xargs -r kill -9 2>/dev/null
  pg_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
tgt() { PGTZ=UTC psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d replica "$@"; }
pg_psql -c "CREATE DATABASE replica" || bad "CREATE DATABASE replica"
pg_psql -c "CREATE ROLE cdc LOGIN REPLICATION SUPERUSER PASSWORD 's3cret'" || bad "CREATE ROLE"

pg_psql <<'SQL' || bad "source schema"
CREATE TABLE orders (
  id integer PRIMARY KEY,
  customer text NOT NULL,
  amount numeric(12,2),
  qty bigint,
  ok boolean,
  placed timestamp(3),
  placed_tz timestamptz,
  day date,
  note text,
  ratio double precision
);
ALTER TABLE orders REPLICA IDENTITY FULL;
ALTER TABLE orders ALTER COLUMN note SET STORAGE EXTERNAL;
CREATE TABLE items (sku text PRIMARY KEY, stock integer);
INSERT INTO orders SELECT g, 'c' || g, g * 1.25, g * 1000000000::bigint, g % 2 = 0,
  '2024-01-02 03:04:05.678'::timestamp + g * interval '1 hour',
  '2024-01-02 03:04:05+02'::timestamptz + g * interval '1 day', DATE '2024-02-29' + g,
  CASE WHEN g = 3 THEN repeat('toast-', 4000) ELSE 'n' || g END, g / 3.0
  FROM generate_series(1, 50) g;
INSERT INTO items VALUES ('a', 1), ('b', 2), ('c''q', 3);
SQL

tgt <<'SQL' || bad "target schema"
CREATE TABLE orders (id integer PRIMARY KEY, customer text NOT NULL, amount numeric(12,2),
  qty bigint, ok boolean, placed timestamp(3), placed_tz timestamptz, day date, note text,
  ratio double precision);
CREATE TABLE items (sku text PRIMARY KEY, stock integer);
SQL

cat >capture.sql <<SQL
SET 'execution.checkpointing.interval' = '200ms';
CREATE TABLE orders_src (
  id INT NOT NULL, customer STRING NOT NULL, amount DECIMAL(12, 2), qty BIGINT, ok BOOLEAN,
  placed TIMESTAMP(3), placed_tz TIMESTAMP_LTZ(6), day DATE, note STRING, ratio DOUBLE,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
  'username' = 'cdc', 'password' = '\${CDC_PG_PASSWORD}', 'database-name' = 'shop',
  'table-name' = 'orders', 'slot.name' = 'orders_slot');
CREATE TABLE orders_dst (
  id INT NOT NULL, customer STRING NOT NULL, amount DECIMAL(12, 2), qty BIGINT, ok BOOLEAN,
  placed TIMESTAMP(3), placed_tz TIMESTAMP_LTZ(6), day DATE, note STRING, ratio DOUBLE,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:$PG_PORT/replica',
  'table-name' = 'orders', 'username' = 'postgres');
INSERT INTO orders_dst SELECT * FROM orders_src;
SQL
export CDC_PG_PASSWORD=s3cret

q_orders="SELECT id, customer, amount, qty, ok, placed, placed_tz, day, md5(note), ratio FROM orders ORDER BY id"
# waits (bounded) until the target's orders equal the source's
converge() {
  local want got
  for _ in $(seq 1 150); do
    want=$(pg_psql -At -c "$q_orders" 2>&1)
    got=$(tgt -At -c "$q_orders" 2>&1)
    [[ $want == "$got" ]] && return 0
    sleep 0.2
  done
  diff <(echo "$want") <(echo "$got") | head -10
  return 1
}

# 1. snapshot, then streaming
"$bin" run capture.sql --log-level info >run1.out 2>run1.err &
pid=$!
converge && ok || bad "the snapshot did not reach the target: $(tail -5 run1.err)"
pg_psql <<'SQL' || bad "source DML"
INSERT INTO orders VALUES (100, 'new', 1.00, 1, true, '2020-01-01 00:00:00', now(), '2020-01-01', 'x', 0.5);
UPDATE orders SET amount = amount + 1, customer = 'upd' WHERE id <= 10;
UPDATE orders SET qty = -1 WHERE id = 3;
DELETE FROM orders WHERE id BETWEEN 20 AND 25;
BEGIN; UPDATE orders SET id = 1000 WHERE id = 30; INSERT INTO orders VALUES (30, 're', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL); COMMIT;
BEGIN; DELETE FROM orders WHERE id = 40; ROLLBACK;
SQL
converge && ok || bad "streamed changes did not reach the target: $(tail -5 run1.err)"
# the TOAST value of row 3 was not in the update's new tuple: it must still be there
[[ $(tgt -At -c "SELECT length(note), qty FROM orders WHERE id = 3") == "24000|-1" ]] && ok || bad "unchanged TOAST column was overwritten: $(tgt -At -c "SELECT length(note), qty FROM orders WHERE id = 3")"
grep -q s3cret run1.err && bad "the password was logged" || ok

# 2. a clean stop commits the position; changes made while stopped arrive after a restart
kill -TERM "$pid"
wait "$pid" && ok || bad "SIGTERM exit status: $(tail -3 run1.err)"
confirmed1=$(pg_psql -At -c "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'orders_slot'")
[[ -n $confirmed1 ]] && ok || bad "the slot is gone after a clean stop"
pg_psql -c "INSERT INTO orders SELECT g, 'while-down', g, g, false, NULL, NULL, NULL, 'w', g FROM generate_series(200, 260) g; DELETE FROM orders WHERE id = 5;" || bad "DML while stopped"
"$bin" run capture.sql --log-level info >run2.out 2>run2.err &
pid=$!
converge && ok || bad "changes made while stopped were not applied: $(tail -5 run2.err)"
grep -q 'resuming from its confirmed position' run2.err && ok || bad "the restart did not resume the slot: $(cat run2.err)"
grep -q 'initial snapshot started' run2.err && bad "the restart took a second snapshot" || ok

# 3. SIGKILL mid-stream: nothing acknowledged is lost
pg_psql -c "INSERT INTO orders SELECT g, 'burst', g, g, true, NULL, NULL, NULL, 'b', g FROM generate_series(1000, 4000) g ON CONFLICT (id) DO UPDATE SET customer = 'burst2';" &
sleep 0.3
kill -9 "$pid"
wait "$pid" 2>/dev/null
wait
pg_psql -c "UPDATE orders SET customer = 'after-kill' WHERE id % 7 = 0" || bad "DML after kill"
"$bin" run capture.sql >run3.out 2>run3.err &
pid=$!
converge && ok || bad "after SIGKILL the target differs from the source: $(tail -5 run3.err)"
confirmed2=$(pg_psql -At -c "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'orders_slot'")
pg_psql -At -c "SELECT '$confirmed2'::pg_lsn > '$confirmed1'::pg_lsn" | grep -q t && ok || bad "the confirmed LSN did not move ($confirmed1 -> $confirmed2)"

# 4. a second reader of the same slot is refused with a clear message
"$bin" run capture.sql >dup.out 2>dup.err
rc=$?
[[ $rc -eq 1 ]] && grep -q 'replication slot "orders_slot" is in use' dup.err && ok || bad "slot in use: exit $rc: $(cat dup.err)"
kill -TERM "$pid"
wait "$pid"

# 5. upsert mode with REPLICA IDENTITY DEFAULT (keyed deletes), and 'all' refused for it
cat >items.sql <<SQL
SET 'execution.checkpointing.interval' = '200ms';
CREATE TABLE items_src (sku STRING NOT NULL, stock INT, PRIMARY KEY (sku) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
  'username' = 'cdc', 'password' = 's3cret', 'database-name' = 'shop',
  'table-name' = 'items', 'slot.name' = 'items_slot', 'changelog-mode' = 'upsert',
  'publication.name' = 'items_pub');
CREATE TABLE items_dst (sku STRING NOT NULL, stock INT, PRIMARY KEY (sku) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:$PG_PORT/replica',
  'table-name' = 'items', 'username' = 'postgres');
INSERT INTO items_dst SELECT * FROM items_src;
SQL
"$bin" run items.sql --log-level debug >items.out 2>items.err &
pid=$!
sleep 1
pg_psql -c "UPDATE items SET stock = 10 WHERE sku = 'a'; DELETE FROM items WHERE sku = 'b'; INSERT INTO items VALUES ('d', 4); UPDATE items SET sku = 'e' WHERE sku = 'c''q';" || bad "items DML"
want="a|10
d|4
e|3"
for _ in $(seq 1 100); do
  got=$(tgt -At -c "SELECT sku, stock FROM items ORDER BY sku")
  [[ $got == "$want" ]] && break
  sleep 0.2
done
[[ $got == "$want" ]] && ok || bad "upsert-mode target: $got: $(cat items.err)"
kill -TERM "$pid"
wait "$pid"
sed "s/'changelog-mode' = 'upsert'/'changelog-mode' = 'all'/; s/items_slot/items_slot2/" items.sql >items_all.sql
"$bin" run items_all.sql >ia.out 2>ia.err
grep -q 'REPLICA IDENTITY DEFAULT' ia.err && grep -q 'REPLICA IDENTITY FULL' ia.err && ok || bad "identity error: $(cat ia.err)"

# 7. an idle captured table does not pin WAL: other tables' traffic moves the slot on
pg_psql -c "CREATE TABLE other (x int); INSERT INTO other SELECT generate_series(1, 1000);" || bad "other table"
"$bin" run capture.sql >idle.out 2>idle.err &
pid=$!
sleep 1
before=$(pg_psql -At -c "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'orders_slot'")
pg_psql -c "INSERT INTO other SELECT generate_series(1, 20000); CHECKPOINT;" || bad "other DML"
moved=no
for _ in $(seq 1 60); do
  after=$(pg_psql -At -c "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'orders_slot'")
  if pg_psql -At -c "SELECT '$after'::pg_lsn > '$before'::pg_lsn" | grep -q t; then moved=yes; break; fi
  sleep 0.5
done
[[ $moved == yes ]] && ok || bad "the slot did not advance past unrelated WAL ($before -> $after)"
kill -TERM "$pid"
wait "$pid"
converge && ok || bad "target differs after the idle phase"

# 8. SIGKILL during the initial snapshot: the next run snapshots again and replays the
#    changes since the first attempt's slot, which removes rows deleted in between
pg_psql -c "CREATE TABLE big (id bigint PRIMARY KEY, pad text); ALTER TABLE big REPLICA IDENTITY FULL; INSERT INTO big SELECT g, repeat('p', 50) FROM generate_series(1, 200000) g;" || bad "big table"
tgt -c "CREATE TABLE big (id bigint PRIMARY KEY, pad text)" || bad "big target"
cat >big.sql <<SQL
CREATE TABLE big_src (id BIGINT NOT NULL, pad STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
  'username' = 'cdc', 'password' = 's3cret', 'database-name' = 'shop',
  'table-name' = 'big', 'slot.name' = 'big_slot');
CREATE TABLE big_dst (id BIGINT NOT NULL, pad STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:$PG_PORT/replica',
  'table-name' = 'big', 'username' = 'postgres');
INSERT INTO big_dst SELECT * FROM big_src;
SQL
"$bin" run big.sql --log-level info >big1.out 2>big1.err &
pid=$!
for _ in $(seq 1 100); do
  grep -q 'initial snapshot started' big1.err && break
  sleep 0.05
done
sleep 0.2
kill -9 "$pid"
wait "$pid" 2>/dev/null
if grep -q 'made permanent' big1.err; then
  echo "note: the snapshot finished before the kill; the crash case was not exercised"
else
  sleep 0.5
  [[ $(pg_psql -At -c "SELECT string_agg(slot_name, ',') FROM pg_replication_slots WHERE slot_name LIKE 'big_slot%'") == big_slot_init ]] && ok || bad "after a crash during the snapshot: slots $(pg_psql -At -c 'SELECT slot_name FROM pg_replication_slots')"
fi
pg_psql -c "DELETE FROM big WHERE id % 1000 = 0" || bad "big DML"
"$bin" run big.sql --log-level info >big2.out 2>big2.err &
pid=$!
qb="SELECT count(*), sum(id) FROM big"
for _ in $(seq 1 300); do
  [[ $(tgt -At -c "$qb") == "$(pg_psql -At -c "$qb")" ]] && break
  sleep 0.2
done
[[ $(tgt -At -c "$qb") == "$(pg_psql -At -c "$qb")" ]] && ok || bad "after a crash in the snapshot: target $(tgt -At -c "$qb") source $(pg_psql -At -c "$qb"): $(tail -3 big2.err)"
grep -q 'made permanent' big2.err && ok || bad "the second run did not finish its snapshot: $(tail -3 big2.err)"
[[ $(pg_psql -At -c "SELECT string_agg(slot_name, ',') FROM pg_replication_slots WHERE slot_name LIKE 'big_slot%'") == big_slot ]] && ok || bad "slots after the snapshot: $(pg_psql -At -c 'SELECT slot_name FROM pg_replication_slots')"
kill -TERM "$pid"
wait "$pid"

# 9. metadata columns (what a Debezium source block needs): snapshot rows, then a streamed one
pg_psql -c "CREATE TABLE meta_t (id int PRIMARY KEY, v text); ALTER TABLE meta_t REPLICA IDENTITY FULL; INSERT INTO meta_t VALUES (1, 'a'), (2, 'b');" || bad "meta_t"
cat >meta.sql <<SQL
CREATE TABLE m (id INT NOT NULL, v STRING, db STRING METADATA FROM 'database_name' VIRTUAL,
  sch STRING METADATA FROM 'schema_name' VIRTUAL, tbl STRING METADATA FROM 'table_name' VIRTUAL,
  lsn BIGINT METADATA FROM 'source.lsn' VIRTUAL, tx BIGINT METADATA FROM 'source.txId' VIRTUAL,
  snap BOOLEAN METADATA FROM 'source.snapshot' VIRTUAL, ts TIMESTAMP_LTZ(3) METADATA FROM 'op_ts' VIRTUAL,
  PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
  'username' = 'cdc', 'password' = 's3cret', 'database-name' = 'shop',
  'table-name' = 'meta_t', 'slot.name' = 'meta_slot', 'publication.name' = 'meta_pub');
CREATE TABLE p (id INT, v STRING, db STRING, sch STRING, tbl STRING, has_lsn BOOLEAN, tx BIGINT,
  snap BOOLEAN, recent BOOLEAN) WITH ('connector' = 'print');
INSERT INTO p SELECT id, v, db, sch, tbl, lsn > 0, tx, snap, CAST(ts AS STRING) >= '2020' FROM m;
SQL
"$bin" run meta.sql >meta.out 2>meta.err &
pid=$!
for _ in $(seq 1 100); do [[ $(grep -c '^+I' meta.out) -ge 2 ]] && break; sleep 0.1; done
tx=$(pg_psql -At -c "BEGIN; INSERT INTO meta_t VALUES (3, 'c'); SELECT txid_current(); COMMIT;" | grep -E '^[0-9]+$' | head -1)
for _ in $(seq 1 100); do grep -q '^+I\[3' meta.out && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid"
want="+I[1, a, shop, public, meta_t, null, null, true, false]
+I[2, b, shop, public, meta_t, null, null, true, false]
+I[3, c, shop, public, meta_t, true, $tx, false, true]"
[[ $(cat meta.out) == "$want" ]] && ok || bad "metadata columns: $(cat meta.out meta.err)"

# 10. snapshot values as COPY's text format carries them (escapes, \N, bytes, arrays), by chunks
#     of two rows of a text key holding escapes (the next chunk's bound is the key unescaped),
#     and a keyless table's ctid ranges
pg_psql <<'SQL' || bad "odd tables"
CREATE TABLE odd (k text PRIMARY KEY, s text, b bytea, a text[]);
ALTER TABLE odd REPLICA IDENTITY FULL;
INSERT INTO odd VALUES
  (E'a\tb', E'tab\there', '\x00ff5c', ARRAY['x', E'y\\z', 'q"t']),
  (E'a\\b', E'back\\slash\\N', '', ARRAY[NULL, '']),
  (E'a\nb', E'new\nline\rcr', NULL, NULL),
  ('a''b', '\N', '\x5c4e', '{}'),
  ('b', '', '\x0a09', ARRAY[E'\t']),
  ('c', NULL, '\x00', ARRAY['{}']);
CREATE TABLE odd_nokey (s text, n int);
ALTER TABLE odd_nokey REPLICA IDENTITY FULL;
INSERT INTO odd_nokey VALUES (E'x\ty', 1), (NULL, 2), ('\N', 3), (E'\\', NULL);
SQL
cat >odd.sql <<SQL
CREATE TABLE odd_src (k STRING NOT NULL, s STRING, b BYTES, a ARRAY<STRING>,
  PRIMARY KEY (k) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
  'username' = 'cdc', 'password' = 's3cret', 'database-name' = 'shop', 'table-name' = 'odd',
  'slot.name' = 'odd_slot', 'publication.name' = 'odd_pub',
  'scan.incremental.snapshot.chunk.size' = '2');
CREATE TABLE p (k STRING, s STRING, b BYTES, a ARRAY<STRING>) WITH ('connector' = 'print');
INSERT INTO p SELECT * FROM odd_src;
SQL
cat >nk.sql <<SQL
CREATE TABLE nk_src (s STRING, n INT) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
  'username' = 'cdc', 'password' = 's3cret', 'database-name' = 'shop',
  'table-name' = 'odd_nokey', 'slot.name' = 'nk_slot', 'publication.name' = 'nk_pub');
CREATE TABLE p (s STRING, n INT) WITH ('connector' = 'print');
INSERT INTO p SELECT * FROM nk_src;
SQL
# snap_print SQLFILE N: runs the job until it printed N rows, then stops it; the rows sorted
snap_print() {
  "$bin" run "$1" --log-level info >"$1.out" 2>"$1.err" &
  local pid=$!
  for _ in $(seq 1 100); do [[ $(grep -c '^+I' "$1.out") -ge $2 ]] && break; sleep 0.1; done
  kill -TERM "$pid"
  wait "$pid"
  LC_ALL=C sort "$1.out"
}
# (the print sink writes strings as they are: the row with a newline and a CR spans lines)
t=$'\t' cr=$'\r'
want=$(LC_ALL=C sort <<ROWS
+I[a'b, \\N, x'5c4e', []]
+I[a
b, new
line${cr}cr, null, null]
+I[a${t}b, tab${t}here, x'00ff5c', [x, y\\z, q"t]]
+I[a\\b, back\\slash\\N, x'', [null, ]]
+I[b, , x'0a09', [${t}]]
+I[c, null, x'00', [{}]]
ROWS
)
got=$(snap_print odd.sql 6)
[[ $got == "$want" ]] && ok || bad "snapshot values through COPY: $(diff <(echo "$want") <(echo "$got")) $(tail -3 odd.sql.err)"
want=$(LC_ALL=C sort <<'ROWS'
+I[x	y, 1]
+I[null, 2]
+I[\N, 3]
+I[\, null]
ROWS
)
got=$(snap_print nk.sql 4)
[[ $got == "$want" ]] && ok || bad "keyless snapshot values through COPY: $(diff <(echo "$want") <(echo "$got")) $(tail -3 nk.sql.err)"

# 6. a missing table, and EXPLAIN without a server
sed "s/'table-name' = 'orders'/'table-name' = 'nope'/; s/orders_slot/nope_slot/" capture.sql >nope.sql
"$bin" run nope.sql >nope.out 2>nope.err
grep -q 'table "public.nope" does not exist in database "shop"' nope.err && ok || bad "missing table: $(cat nope.err)"
"$bin" explain capture.sql >explain.out 2>&1 && grep -q 'TableSourceScan(table=\[\[default_catalog, default_database, orders_src\]\].*changelogMode=\[I,UB,UA,D\])' explain.out && ok || bad "explain: $(cat explain.out)"
grep -q s3cret explain.out && bad "EXPLAIN shows the password" || ok
[[ $(pg_psql -At -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE 'nope_slot%' OR slot_name LIKE 'items_slot2%'") == 0 ]] && ok || bad "a failed start left a slot behind"

echo "postgres_cdc: $pass passed, $fail failed"
((fail == 0))
