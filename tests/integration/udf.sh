#!/usr/bin/env bash
# A temporary and a permanent C function from a shared object, used in a
# pipeline; a bad path and a bad symbol give clear errors.
set -uo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fail=$((fail + 1)); }

cc -shared -fPIC -I"$src/src" -o "$tmp/libtest_udf.so" "$src/tests/data/udf/test_udf.c" || {
  echo "udf: could not build the test library"
  exit 1
}
cat >"$tmp/p.sql" <<SQL
CREATE TEMPORARY FUNCTION twice AS '$tmp/libtest_udf.so:udf_twice' LANGUAGE C;
CREATE FUNCTION greet AS '$tmp/libtest_udf.so:udf_greet';
CREATE TABLE gen (id BIGINT NOT NULL) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',
  'fields.id.start' = '1', 'fields.id.end' = '3');
CREATE TABLE out (id BIGINT NOT NULL, t BIGINT, g STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, twice(id), greet(CAST(id AS STRING)) FROM gen;
SQL
if "$bin" run "$tmp/p.sql" >"$tmp/o" 2>&1; then
  [[ $(grep -c '^+I\[' "$tmp/o") -eq 3 ]] && ok || ko "rows: $(cat "$tmp/o")"
  grep -q '^+I\[2, 4, ' "$tmp/o" && ok || ko "twice(2): $(cat "$tmp/o")"
else
  ko "pipeline with functions failed: $(cat "$tmp/o")"
fi
printf "CREATE TEMPORARY FUNCTION f AS '%s/nope.so:udf_twice';\n" "$tmp" >"$tmp/bad1.sql"
if "$bin" run "$tmp/bad1.sql" >"$tmp/o1" 2>&1; then ko "a missing library was accepted"; else
  grep -q 'nope.so' "$tmp/o1" && ok || ko "missing library message: $(cat "$tmp/o1")"
fi
printf "CREATE TEMPORARY FUNCTION f AS '%s/libtest_udf.so:no_such_symbol';\n" "$tmp" >"$tmp/bad2.sql"
if "$bin" run "$tmp/bad2.sql" >"$tmp/o2" 2>&1; then ko "a missing symbol was accepted"; else
  grep -q 'no_such_symbol' "$tmp/o2" && ok || ko "missing symbol message: $(cat "$tmp/o2")"
fi
echo "udf: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
