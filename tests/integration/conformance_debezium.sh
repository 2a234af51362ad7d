#!/usr/bin/env bash
# Conformance of `cdcflow decode --format debezium-json` on the shared data, read in place:
#   $CDC_CONFORMANCE_DIR/flink-json  (Flink's test files and expected rows, EXPECTED.md A, B)
#   $CDC_CONFORMANCE_DIR/debezium    (real/documented/reconstructed Debezium messages)
# Compares printed rows with diff; checks errors, exit codes, --table and describe.
# Ends with "conformance_debezium: N passed, M failed"; exits non-zero on any failure.
set -uo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
conf=${CDC_CONFORMANCE_DIR:?CDC_CONFORMANCE_DIR must point at tests/conformance}
fj=$conf/flink-json
dbz=$conf/debezium
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
PRODUCTS='id INT NOT NULL, name STRING, description STRING, weight FLOAT'
CUSTOMERS='id INT NOT NULL, first_name STRING, last_name STRING, email STRING'
RI='The "before" field of %s message is null, if you are using Debezium Postgres Connector, please check the Postgres table has been set REPLICA IDENTITY to FULL level.'

ok() { pass=$((pass + 1)); }
bad() {
  echo "FAIL $1"
  fail=$((fail + 1))
}

# same NAME EXPECTED_FILE ACTUAL_FILE
same() {
  if diff -u "$2" "$3" >"$tmp/diff"; then ok; else
    bad "$1"
    head -20 "$tmp/diff"
  fi
}

# expect_code NAME WANT GOT
expect_code() {
  if [[ $3 -eq $2 ]]; then ok; else bad "$1: exit $3, expected $2"; fi
}

# contains NAME FILE TEXT [COUNT]
contains() {
  local n
  n=$(grep -cF -- "$3" "$2")
  if [[ $n -ge ${4:-1} ]]; then ok; else
    bad "$1: \"$3\" found $n time(s) in output, expected ${4:-1}"
    head -5 "$2"
  fi
}

decode() { "$bin" decode --format debezium-json "$@"; }

# ---- Flink part A: four files to the 20 expected rows, with and without --table ----------------
want=$fj/expected/debezium.rows.bracket.txt
sed 's/^/inventory.products\t/' "$want" >"$tmp/want_table"
for spec in debezium-data-schema-include.txt:true \
  debezium-data-schema-exclude.RECONSTRUCTED.txt:false \
  debezium-postgres-data-schema-include.txt:true \
  debezium-postgres-data-schema-exclude.txt:false; do
  file=${spec%%:*}
  inc=${spec##*:}
  decode --schema "$PRODUCTS" -o schema-include="$inc" "$fj/$file" >"$tmp/out" 2>"$tmp/err"
  expect_code "A $file" 0 $?
  same "A $file" "$want" "$tmp/out"
  decode --schema "$PRODUCTS" -o schema-include="$inc" --table "$fj/$file" >"$tmp/out" 2>"$tmp/err"
  same "A --table $file" "$tmp/want_table" "$tmp/out"
  # the same bytes on stdin
  decode --schema "$PRODUCTS" -o schema-include="$inc" - <"$fj/$file" >"$tmp/out" 2>"$tmp/err"
  same "A stdin $file" "$want" "$tmp/out"
done

# the same events in the debezium/ folder
for spec in flink_mysql_products_schema.jsonl:true flink_mysql_products_noschema.jsonl:false \
  flink_postgres_products_schema.jsonl:true flink_postgres_products_noschema.jsonl:false; do
  file=${spec%%:*}
  inc=${spec##*:}
  decode --schema "$PRODUCTS" -o schema-include="$inc" "$dbz/$file" >"$tmp/out" 2>"$tmp/err"
  same "debezium/$file" "$want" "$tmp/out"
done

# ---- Flink part B: REPLICA IDENTITY DEFAULT ---------------------------------------------------
for file in "$fj/debezium-postgres-data-replica-identity.txt" \
  "$dbz/flink_postgres_products_replica_identity_nonfull.jsonl"; do
  name=B/$(basename "$file")
  decode --schema "$PRODUCTS" "$file" >"$tmp/out" 2>"$tmp/err"
  expect_code "$name" 1 $?
  { head -9 "$want"; sed -n '14,15p' "$want"; } >"$tmp/want_b"
  same "$name rows" "$tmp/want_b" "$tmp/out"
  # shellcheck disable=SC2059
  contains "$name update" "$tmp/err" "corrupt Debezium JSON message: $(printf "$RI" UPDATE)" 4
  # shellcheck disable=SC2059
  contains "$name delete" "$tmp/err" "cannot decode line 16: corrupt Debezium JSON message: $(printf "$RI" DELETE)"
  contains "$name context" "$tmp/err" "CONTEXT: format \"debezium-json\", $file line 10"

  decode --schema "$PRODUCTS" -o ignore-parse-errors=true "$file" >"$tmp/out" 2>"$tmp/err"
  expect_code "$name ignore-parse-errors" 0 $?
  same "$name ignore-parse-errors rows" "$tmp/want_b" "$tmp/out"
  contains "$name skipped" "$tmp/err" "skipped 5 message(s)"

  decode --schema "$PRODUCTS" -o changelog-mode=upsert --table "$file" >"$tmp/out" 2>"$tmp/err"
  expect_code "$name upsert" 1 $?
  contains "$name upsert +U" "$tmp/out" "inventory.products	+U[" 4
  if grep -q -- '-U\[' "$tmp/out"; then bad "$name upsert gave -U"; else ok; fi
  contains "$name upsert delete" "$tmp/err" "REPLICA IDENTITY NOTHING"
done

# ---- debezium/: customers, TOAST, control messages -------------------------------------------
cat >"$tmp/want_pg" <<'EOF'
inventory.customers	+I[1001, Sally, Thomas, sally.thomas@acme.com]
inventory.customers	+I[1002, George, Bailey, gbailey@foobar.com]
inventory.customers	+I[1003, Edward, Walker, ed@walker.com]
inventory.customers	+I[1004, Anne, Kretchmar, annek@noanswer.org]
inventory.customers	+I[1005, Sarah, Thompson, kitt@acme.com]
inventory.customers	+U[1004, Anne Marie, Kretchmar, annek@noanswer.org]
inventory.customers	-D[1005, , , ]
inventory.customers	+U[1004, Anne Mary, Kretchmar, annek@noanswer.org]
inventory.customers	-D[1004, Anne Mary, Kretchmar, annek@noanswer.org]
EOF
for spec in reconstructed_postgres_customers_v2_noschema.jsonl:false \
  reconstructed_postgres_customers_v2_schema.jsonl:true; do
  file=${spec%%:*}
  decode --schema "$CUSTOMERS" -o schema-include="${spec##*:}" -o changelog-mode=upsert --table \
    "$dbz/$file" >"$tmp/out" 2>"$tmp/err"
  expect_code "debezium/$file upsert" 0 $?
  same "debezium/$file upsert" "$tmp/want_pg" "$tmp/out"
done

printf 'inventory.customers\t+U[1004, Dana, Kretchmar, annek@noanswer.org, <unchanged>]\n' >"$tmp/want_toast"
decode --schema "$CUSTOMERS, biography STRING" -o changelog-mode=upsert --table \
  "$dbz/blog_postgres_customers_toast_noschema.jsonl" >"$tmp/out" 2>"$tmp/err"
same "debezium/blog toast" "$tmp/want_toast" "$tmp/out"

# control messages give no row and no error (a data line follows so that one row prints)
for spec in docs_mysql_customers_noschema.jsonl:false docs_mysql_customers_schema.jsonl:true; do
  { cat "$dbz/control_messages.jsonl"; head -1 "$dbz/${spec%%:*}"; echo; } >"$tmp/in"
  decode --schema "$CUSTOMERS" -o schema-include="${spec##*:}" --table - <"$tmp/in" >"$tmp/out" 2>"$tmp/err"
  expect_code "control messages (schema-include=${spec##*:})" 0 $?
  printf 'inventory.customers\t+I[1004, Anne, Kretchmar, annek@noanswer.org]\n' >"$tmp/want_c"
  same "control messages (schema-include=${spec##*:})" "$tmp/want_c" "$tmp/out"
  if [[ -s $tmp/err ]]; then bad "control messages wrote to stderr: $(head -2 "$tmp/err")"; else ok; fi
done

# ---- debezium/: semantic types -----------------------------------------------------------------
M='id INT NOT NULL, c_tinyint TINYINT NOT NULL, c_bool SMALLINT, c_bit1 BOOLEAN, c_bit10 BIGINT, c_int_unsigned BIGINT, c_bigint BIGINT, c_bigint_unsigned DECIMAL(20, 0), c_decimal DECIMAL(10, 2), c_decimal_neg DECIMAL(10, 2), c_decimal_zero DECIMAL(10, 2), c_float FLOAT, c_double DOUBLE, c_varchar STRING, c_varbinary BYTES, c_date DATE, c_date_old DATE, c_time TIME(6), c_datetime3 TIMESTAMP(3), c_datetime6 TIMESTAMP(6), c_timestamp TIMESTAMP_LTZ(0), c_year INT, c_json STRING, c_enum STRING, c_set STRING, c_geom ROW<wkb BYTES, srid INT>, c_nullable_default STRING'
cat >"$tmp/want_m" <<'EOF'
+I[1, -5, 1, true, 513, 4294967295, 9007199254740993, 11111111111111111111, 7.90, -1234.56, 0.00, 3.14, 2.718281828459045, héllo wörld ✓, x'0001feff', 2016-01-16, 1969-12-31, 12:34:56.789012, 2018-06-20T06:37:03.123, 2018-06-20T06:37:03.123456, 2018-06-20T13:37:03Z, 2024, {"a": 1, "b": [true, null]}, M, a,c, (x'0101000000000000000000f03f0000000000000040', 0), dflt]
EOF
decode --schema "$M" -o schema-include=true "$dbz/types_mysql_v2_schema.jsonl" >"$tmp/out" 2>"$tmp/err"
same "debezium/types_mysql_v2_schema" "$tmp/want_m" "$tmp/out"

P='id INT NOT NULL, c_smallint SMALLINT, c_bigint BIGINT, c_real FLOAT, c_double DOUBLE, c_numeric DECIMAL(10, 2), c_numeric_var DECIMAL(10, 3), c_money DECIMAL(10, 2), c_bool BOOLEAN, c_date DATE, c_time TIME(6), c_time3 TIME(3), c_ts TIMESTAMP(6), c_ts3 TIMESTAMP(3), c_ts_inf TIMESTAMP(6), c_tstz TIMESTAMP_LTZ(6), c_timetz STRING, c_interval BIGINT, c_uuid STRING, c_jsonb STRING, c_hstore STRING, c_bytea BYTES, c_int_array ARRAY<INT>, c_text_array ARRAY<STRING>, c_enum STRING, c_inet STRING, c_point ROW<x DOUBLE, y DOUBLE, wkb BYTES, srid INT>, c_varbit BIGINT, c_ltree STRING, c_xml STRING, c_big_text STRING'
cat >"$tmp/want_p" <<'EOF'
inventory.pg_type_samples	+U[1, -7, 9223372036854775807, 1.5, 1.0E-7, 7.90, 12.345, 12.34, true, 2021-01-01, 10:15:30.123456, 10:15:30.123, 2018-06-20T15:13:16.945104, 2018-06-20T15:13:16.945, 9999-12-31T23:59:59.999999, 2018-06-20T13:13:16.945104Z, 08:13:16.945104Z, 2813645000000, a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11, {"k": [1, 2]}, {"a":"1","b":null}, x'deadbeef', [1, 2, 3], [a, null, c], happy, 192.168.0.1, (1.0, 2.0, x'0101000000000000000000f03f0000000000000040', null), 5, Top.Science, <a>1</a>, <unchanged>]
EOF
decode --schema "$P" -o schema-include=true -o changelog-mode=upsert --table \
  "$dbz/types_postgres_v2_schema.jsonl" >"$tmp/out" 2>"$tmp/err"
same "debezium/types_postgres_v2_schema" "$tmp/want_p" "$tmp/out"

# without the schema a base64 decimal is a clear error, not a wrong number
{ head -1 "$dbz/docs_mysql_customers_noschema.jsonl" | sed 's/"id":1004,//'; cat "$dbz/types_mysql_v2_noschema.jsonl"; } >"$tmp/in"
decode --schema 'c_decimal DECIMAL(10, 2)' "$tmp/in" >"$tmp/out" 2>"$tmp/err"
expect_code "types_mysql noschema decimal" 1 $?
contains "types_mysql noschema decimal" "$tmp/err" "cannot decode line 2: corrupt Debezium JSON message: field \"after.c_decimal\": expected DECIMAL(10, 2) as decimal text, found string \"AxY=\", which looks like Debezium's precise (base64) decimal encoding"
decode --schema 'c_decimal DECIMAL(10, 2)' -o decimal.handling=precise-base64 "$tmp/in" >"$tmp/out" 2>"$tmp/err"
printf '+I[null]\n+I[7.90]\n' >"$tmp/want_d"
same "types_mysql noschema precise-base64" "$tmp/want_d" "$tmp/out"

# ---- errors name the field and the line ----------------------------------------------------------
{ head -1 "$fj/debezium-postgres-data-schema-exclude.txt"; echo; echo '{"before":null,"after":{"id":1,"weight":"abc"},"op":"c"}'; } >"$tmp/in"
decode --schema "$PRODUCTS" "$tmp/in" >"$tmp/out" 2>"$tmp/err"
expect_code "bad field" 1 $?
# line 2 is blank: a tombstone, no row and no error
contains "bad field" "$tmp/err" 'cdcflow: error: cannot decode line 3: corrupt Debezium JSON message: field "after.weight": expected FLOAT, found string "abc"'
contains "bad field detail" "$tmp/err" 'DETAIL: message: {"before":null,"after":{"id":1,"weight":"abc"},"op":"c"}'

# ---- describe --------------------------------------------------------------------------------------
"$bin" describe debezium-json >"$tmp/out" 2>"$tmp/err"
expect_code "describe" 0 $?
for key in schema-include ignore-parse-errors timestamp-format.standard map-null-key.mode \
  map-null-key.literal encode.decimal-as-plain-number decimal.handling changelog-mode \
  unavailable.value.placeholder source.properties ingestion-timestamp; do
  contains "describe $key" "$tmp/out" "$key"
done
contains "describe mode" "$tmp/out" "decode [I,UB,UA,D], encode [I,UB,UA,D]"
"$bin" describe >"$tmp/out" 2>&1
contains "describe lists debezium-json" "$tmp/out" "debezium-json"

echo "conformance_debezium: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
