#!/usr/bin/env bash
# The file catalog through the binary: tables created by one `cdcflow run
# --catalog-dir DIR` are there for the next run; temporary ones are not.
set -uo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fail=$((fail + 1)); }
# runs script $1 on the catalog: it starts with SHOW TABLES printing $2, then 3 rows match $3
run_tables_rows() {
  local out=$tmp/out_$(basename "$1")
  if "$bin" run --catalog-dir "$tmp/cat" "$1" >"$out" 2>&1; then
    [[ $(head -2 "$out") == "$2" ]] && ok || ko "SHOW TABLES of $1: $(head -3 "$out")"
    [[ $(grep -c "$3" "$out") -eq 3 ]] && ok || ko "rows of $1: $(cat "$out")"
  else
    ko "run of $1: $(cat "$out")"
  fi
}

cat >"$tmp/create.sql" <<'SQL'
CREATE DATABASE inventory;
CREATE TABLE inventory.gen (id BIGINT NOT NULL, name STRING) WITH (
  'connector' = 'datagen', 'number-of-rows' = '3', 'seed' = '5',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3');
CREATE TABLE inventory.out (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'print');
CREATE TEMPORARY TABLE inventory.scratch (id INT) WITH ('connector' = 'blackhole');
SQL
cat >"$tmp/use.sql" <<'SQL'
USE inventory;
SHOW TABLES;
INSERT INTO `out` SELECT * FROM gen;
SQL
if "$bin" run --catalog-dir "$tmp/cat" "$tmp/create.sql" >"$tmp/o1" 2>&1; then ok; else ko "create: $(cat "$tmp/o1")"; fi
[[ -f $tmp/cat/inventory/gen.table.sql && -f $tmp/cat/inventory/out.table.sql ]] && ok || ko "no table files: $(ls -R "$tmp/cat")"
[[ ! -e $tmp/cat/inventory/scratch.table.sql ]] && ok || ko "a temporary table was persisted"
run_tables_rows "$tmp/use.sql" $'gen\nout' '^+I\['
# the same DDL again fails: the table is already there
if "$bin" run --catalog-dir "$tmp/cat" "$tmp/create.sql" >"$tmp/o3" 2>&1; then
  ko "re-creating a persisted database succeeded"
else
  grep -q 'already exists' "$tmp/o3" && ok || ko "unexpected error: $(cat "$tmp/o3")"
fi
# two processes creating tables at once leave a catalog both can read
for k in 1 2 3 4; do
  printf "CREATE TABLE inventory.t%s (id INT) WITH ('connector' = 'blackhole');\n" "$k" >"$tmp/c$k.sql"
done
for k in 1 2 3 4; do "$bin" run --catalog-dir "$tmp/cat" "$tmp/c$k.sql" >"$tmp/oc$k" 2>&1 & done
wait
echo "USE inventory; SHOW TABLES;" >"$tmp/show.sql"
"$bin" run --catalog-dir "$tmp/cat" "$tmp/show.sql" >"$tmp/o4" 2>&1
[[ $(grep -c '^t[1-4]$' "$tmp/o4") -eq 4 ]] && ok || ko "concurrent creates: $(cat "$tmp/o4")"

# cdcflow explain changes nothing: file-catalog DDL is planned but not written, so a second
# explain of the same file succeeds; a missing catalog directory is not created
cat >"$tmp/explain.sql" <<SQL
CREATE DATABASE shop;
CREATE TABLE shop.gen (id BIGINT NOT NULL) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE shop.out (id BIGINT NOT NULL) WITH ('connector' = 'blackhole');
CREATE CATALOG side WITH ('type' = 'file', 'path' = '$tmp/side');
CREATE TABLE side.default_database.t (id INT) WITH ('connector' = 'blackhole');
INSERT INTO shop.out SELECT id FROM shop.gen;
SQL
before=$(cd "$tmp/cat" && find . -exec stat -c '%n %s %Y' {} + | sort)
for k in 1 2; do
  if "$bin" explain --catalog-dir "$tmp/cat" "$tmp/explain.sql" >"$tmp/oe$k" 2>&1; then
    grep -q '^Sink(table=\[default_catalog.shop.out\]' "$tmp/oe$k" && ok || ko "explain $k: $(cat "$tmp/oe$k")"
  else
    ko "explain $k failed: $(cat "$tmp/oe$k")"
  fi
done
[[ $(cd "$tmp/cat" && find . -exec stat -c '%n %s %Y' {} + | sort) == "$before" ]] && ok ||
  ko "explain changed the catalog directory: $(ls -R "$tmp/cat")"
[[ ! -e $tmp/side ]] && ok || ko "explain created the CREATE CATALOG directory"
"$bin" explain --catalog-dir "$tmp/none" "$tmp/explain.sql" >"$tmp/oe3" 2>&1 && [[ ! -e $tmp/none ]] && ok ||
  ko "explain with a missing catalog directory: $(cat "$tmp/oe3"; ls -d "$tmp/none" 2>&1)"

# ALTER TABLE changes a file catalog's table on disk: the next run sees the new definition;
# a RENAME TO moves its file; an ALTER that fails leaves the file as it was
cat >"$tmp/alter.sql" <<'SQL'
ALTER TABLE inventory.out ADD note STRING;
ALTER TABLE inventory.out SET ('print-identifier' = 'altered');
ALTER TABLE inventory.gen RENAME TO inventory.gen2;
SQL
cat >"$tmp/after_alter.sql" <<'SQL'
USE inventory;
SHOW TABLES;
INSERT INTO `out` SELECT id, name, 'n' FROM gen2;
SQL
if "$bin" run --catalog-dir "$tmp/cat" "$tmp/alter.sql" >"$tmp/oa1" 2>&1; then ok; else ko "alter: $(cat "$tmp/oa1")"; fi
grep -q '`note` STRING' "$tmp/cat/inventory/out.table.sql" && ok || ko "ADD not persisted: $(cat "$tmp/cat/inventory/out.table.sql")"
[[ -f $tmp/cat/inventory/gen2.table.sql && ! -e $tmp/cat/inventory/gen.table.sql ]] && ok ||
  ko "RENAME TO not persisted: $(ls "$tmp/cat/inventory")"
run_tables_rows "$tmp/after_alter.sql" $'gen2\nout' '^altered> +I\[.*, n\]'
cp "$tmp/cat/inventory/out.table.sql" "$tmp/out_before"
printf 'ALTER TABLE inventory.out DROP note;\nALTER TABLE inventory.out RENAME TO inventory.o2;\n' >"$tmp/alter_explain.sql"
"$bin" explain --catalog-dir "$tmp/cat" "$tmp/alter_explain.sql" >"$tmp/oa4" 2>&1 || ko "explain of ALTER: $(cat "$tmp/oa4")"
cmp -s "$tmp/out_before" "$tmp/cat/inventory/out.table.sql" && [[ ! -e $tmp/cat/inventory/o2.table.sql ]] && ok ||
  ko "explain of ALTER TABLE changed the catalog directory"
printf "ALTER TABLE inventory.out RESET ('connector');\n" >"$tmp/alter_bad.sql"
"$bin" run --catalog-dir "$tmp/cat" "$tmp/alter_bad.sql" >"$tmp/oa3" 2>&1 && ko "a failing ALTER succeeded" || ok
cmp -s "$tmp/out_before" "$tmp/cat/inventory/out.table.sql" && ok || ko "a failing ALTER changed the file"

# ALTER TABLE with FIRST / AFTER, a primary key and a watermark round-trips through the table's
# file: the next run prints the definition the ALTER left; DROP PRIMARY KEY / WATERMARK too
cat >"$tmp/pos.sql" <<'SQL'
CREATE TABLE inventory.pos (id INT NOT NULL, ts TIMESTAMP(3)) WITH ('connector' = 'blackhole');
ALTER TABLE inventory.pos ADD (seq BIGINT COMMENT 's' FIRST, twice AS id * 2 AFTER id,
  CONSTRAINT pk PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
SQL
printf 'SHOW CREATE TABLE inventory.pos;\n' >"$tmp/pos_show.sql"
cat >"$tmp/pos_want" <<'SQL'
CREATE TABLE `default_catalog`.`inventory`.`pos` (
  `seq` BIGINT COMMENT 's',
  `id` INT NOT NULL,
  `twice` AS id * 2,
  `ts` TIMESTAMP(3),
  WATERMARK FOR `ts` AS ts - INTERVAL '1' SECOND,
  CONSTRAINT `pk` PRIMARY KEY (`id`) NOT ENFORCED
)
WITH (
  'connector' = 'blackhole'
)
SQL
"$bin" run --catalog-dir "$tmp/cat" "$tmp/pos.sql" >"$tmp/op1" 2>&1 || ko "ALTER with positions: $(cat "$tmp/op1")"
"$bin" run --catalog-dir "$tmp/cat" "$tmp/pos_show.sql" >"$tmp/op2" 2>&1
diff "$tmp/pos_want" "$tmp/op2" >/dev/null && ok || ko "ALTER with positions not persisted: $(diff "$tmp/pos_want" "$tmp/op2")"
printf 'ALTER TABLE inventory.pos DROP PRIMARY KEY;\nALTER TABLE inventory.pos DROP WATERMARK;\n' >"$tmp/pos_drop.sql"
"$bin" run --catalog-dir "$tmp/cat" "$tmp/pos_drop.sql" >"$tmp/op3" 2>&1 || ko "DROP PRIMARY KEY / WATERMARK: $(cat "$tmp/op3")"
"$bin" run --catalog-dir "$tmp/cat" "$tmp/pos_show.sql" >"$tmp/op4" 2>&1
grep -v -e WATERMARK -e PRIMARY "$tmp/pos_want" | sed 's/^  `ts` TIMESTAMP(3),$/  `ts` TIMESTAMP(3)/' >"$tmp/pos_want2"
diff "$tmp/pos_want2" "$tmp/op4" >/dev/null && ok || ko "DROP PRIMARY KEY / WATERMARK not persisted: $(diff "$tmp/pos_want2" "$tmp/op4")"

# CREATE TABLE ... AS SELECT persists the table it creates, with the query's columns
printf "CREATE TABLE inventory.copy WITH ('connector' = 'blackhole') AS SELECT id, name FROM inventory.gen2;\n" >"$tmp/ctas.sql"
"$bin" run --catalog-dir "$tmp/cat" "$tmp/ctas.sql" >"$tmp/oc" 2>&1 && ok || ko "CTAS: $(cat "$tmp/oc")"
grep -q '`id` BIGINT NOT NULL' "$tmp/cat/inventory/copy.table.sql" 2>/dev/null && ok ||
  ko "CTAS table not persisted: $(ls "$tmp/cat/inventory")"

# REPLACE TABLE ... AS SELECT rewrites the table's file with the query's columns
printf "REPLACE TABLE inventory.copy WITH ('connector' = 'blackhole') AS SELECT name FROM inventory.gen2;\n" >"$tmp/rtas.sql"
"$bin" run --catalog-dir "$tmp/cat" "$tmp/rtas.sql" >"$tmp/or" 2>&1 && ok || ko "RTAS: $(cat "$tmp/or")"
grep -q '`name` STRING' "$tmp/cat/inventory/copy.table.sql" && ! grep -q '`id`' "$tmp/cat/inventory/copy.table.sql" && ok ||
  ko "RTAS table not persisted: $(cat "$tmp/cat/inventory/copy.table.sql")"

echo "catalog_dir: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
