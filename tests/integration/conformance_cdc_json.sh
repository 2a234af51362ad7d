#!/usr/bin/env bash
# Conformance of canal-json, maxwell-json and ogg-json through the cdcflow binary:
# `cdcflow decode` of the Flink test-data files (read in place from
# $CDC_CONFORMANCE_DIR/flink-json) must print exactly the expected rows, with and
# without --table; errors, ignore-parse-errors, bad options and `describe` are
# checked too. Needs CDCFLOW_BIN and CDC_CONFORMANCE_DIR (ctest sets both).
set -uo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
dir=${CDC_CONFORMANCE_DIR:?CDC_CONFORMANCE_DIR must point at tests/conformance}/flink-json
exp=$dir/expected
schema='id INT NOT NULL, name STRING, description STRING, weight FLOAT'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() {
  pass=$((pass + 1))
}

bad() { # name; the explanation is in $tmp/why (not a pipe: the counter must survive)
  echo "FAIL $1"
  sed 's/^/    /' "$tmp/why"
  fail=$((fail + 1))
}

# decode_case NAME EXPECTED_FILE [PREFIX] -- decode arguments...
# Decodes and compares stdout with EXPECTED_FILE (each line prefixed with PREFIX
# when given); the run must exit 0 with nothing on stderr.
decode_case() {
  local name=$1 want=$2 prefix=$3
  shift 4
  "$bin" decode "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  if [[ -n $prefix ]]; then
    sed "s/^/$prefix\t/" "$want" >"$tmp/want"
  else
    cp "$want" "$tmp/want"
  fi
  if [[ $code -ne 0 || -s $tmp/err ]]; then
    { echo "exit $code"; head -5 "$tmp/err"; } >"$tmp/why"
    bad "$name"
  elif ! diff -u "$tmp/want" "$tmp/out" >"$tmp/diff"; then
    head -30 "$tmp/diff" >"$tmp/why"
    bad "$name"
  else
    ok
  fi
}

# expect_fail NAME CODE PATTERN -- command...: exits CODE and stderr contains PATTERN (fixed text)
expect_fail() {
  local name=$1 want_code=$2 pattern=$3
  shift 4
  "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  if [[ $code -ne $want_code ]]; then
    { echo "exit $code, wanted $want_code"; head -5 "$tmp/err"; } >"$tmp/why"
    bad "$name"
  elif ! grep -qF -- "$pattern" "$tmp/err"; then
    { echo "stderr lacks: $pattern"; head -5 "$tmp/err"; } >"$tmp/why"
    bad "$name"
  else
    ok
  fi
}

canal=(--format canal-json --schema "$schema")
maxwell=(--format maxwell-json --schema "$schema")
ogg=(--format ogg-json --schema "$schema")
filters=(-o 'database.include=^my.*' -o 'table.include=^prod.*')

# ---- rows (EXPECTED.md parts D, E, F) ----
decode_case canal-data "$exp/canal.rows.bracket.txt" "" -- "${canal[@]}" "$dir/canal-data.txt"
decode_case canal-data-iso "$exp/canal.rows.bracket.txt" "" -- "${canal[@]}" \
  -o timestamp-format.standard=ISO-8601 "$dir/canal-data.txt"
decode_case canal-data-filter-table "$exp/canal.rows.bracket.txt" "" -- "${canal[@]}" \
  "${filters[@]}" "$dir/canal-data-filter-table.txt"
decode_case canal-data-with-init "$exp/canal.rows.bracket.txt" "" -- "${canal[@]}" \
  "$dir/canal-data-with-init.txt"
decode_case canal-data-flink-1.11 "$exp/maxwell.rows.bracket.txt" "" -- "${canal[@]}" \
  "$dir/older-versions/canal-data.flink-1.11-7efdf0d.txt"
decode_case maxwell-data "$exp/maxwell.rows.bracket.txt" "" -- "${maxwell[@]}" \
  "$dir/maxwell-data.txt"
decode_case ogg-data "$exp/ogg.rows.bracket.txt" "" -- "${ogg[@]}" "$dir/ogg-data.txt"
decode_case ogg-data-priamry-keys-typo "$exp/ogg.rows.bracket.txt" "" -- "${ogg[@]}" \
  "$dir/older-versions/ogg-data.22e02b2-priamry_keys-typo.txt"
decode_case canal-data-stdin "$exp/canal.rows.bracket.txt" "" -- "${canal[@]}" - \
  <"$dir/canal-data.txt"

# ---- --table: the source table before each row ----
decode_case canal-data-table "$exp/canal.rows.bracket.txt" inventory.products2 -- \
  "${canal[@]}" --table "$dir/canal-data.txt"
decode_case canal-data-filter-table-table "$exp/canal.rows.bracket.txt" mydb.product -- \
  "${canal[@]}" "${filters[@]}" --table "$dir/canal-data-filter-table.txt"
decode_case maxwell-data-table "$exp/maxwell.rows.bracket.txt" test.product -- \
  "${maxwell[@]}" --table "$dir/maxwell-data.txt"
decode_case ogg-data-table "$exp/ogg.rows.bracket.txt" OGG.TBL_TEST -- "${ogg[@]}" --table \
  "$dir/ogg-data.txt"

# ---- the serialized messages decode back (-U/+U were written as DELETE/INSERT) ----
for f in canal maxwell ogg; do
  sed -e 's/^-U\[/-D[/' -e 's/^+U\[/+I[/' "$exp/$f.rows.bracket.txt" >"$tmp/$f.roundtrip"
  decode_case "$f-serialized-decodes-back" "$tmp/$f.roundtrip" "" -- --format "$f-json" \
    --schema "$schema" "$exp/$f.serialized.jsonl"
done

# ---- errors ----
printf '%s\n' '{"data":[{"id":"1"}],"type":"INSERT"}' '{"data":[{"id":"2"}],"type":"FOO"}' \
  >"$tmp/unknown-type.txt"
expect_fail canal-unknown-type 1 'cannot decode line 2: corrupt Canal JSON message: unknown "type" value "FOO"' -- \
  "$bin" decode "${canal[@]}" "$tmp/unknown-type.txt"
expect_fail canal-ignore-parse-errors 0 'skipped 1 message(s)' -- \
  "$bin" decode "${canal[@]}" -o ignore-parse-errors=true "$tmp/unknown-type.txt"
expect_fail canal-unfiltered-other-table 1 'corrupt Canal JSON message: "data"[0]: field "id": missing, expected INT NOT NULL' -- \
  "$bin" decode "${canal[@]}" "$dir/canal-data-filter-table.txt"
expect_fail canal-bad-regex 2 'option "database.include": invalid regular expression "("' -- \
  "$bin" decode "${canal[@]}" -o 'database.include=(' "$dir/canal-data.txt"
printf '%s\n' '{"type":"insert","data":{"id":1}}' '{"type":"upsert","data":{"id":1}}' \
  >"$tmp/maxwell-bad.txt"
expect_fail maxwell-unknown-type 1 'corrupt Maxwell JSON message: unknown "type" value "upsert"' -- \
  "$bin" decode "${maxwell[@]}" "$tmp/maxwell-bad.txt"
printf '%s\n' '{"op_type":"I","after":{"id":1}}' '{"op_type":"U","after":{"id":1}}' \
  >"$tmp/ogg-bad.txt"
expect_fail ogg-update-without-before 1 'corrupt OGG JSON message: "before" is missing for op_type "U"' -- \
  "$bin" decode "${ogg[@]}" "$tmp/ogg-bad.txt"

# ---- describe ----
for f in canal-json maxwell-json ogg-json; do
  expect_fail "describe-$f" 0 'changelog mode with default options: decode [I,UB,UA,D], encode [I,UB,UA,D]' -- \
    bash -c '"$1" describe "$2" 1>&2' _ "$bin" "$f"
done
expect_fail describe-lists-formats 0 'maxwell-json' -- bash -c '"$1" describe 1>&2' _ "$bin"

echo "conformance_cdc_json: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
