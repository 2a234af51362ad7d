#!/usr/bin/env bash
# tests/conformance/ is the project's copy of the shared conformance set. Where
# that set lies beside the repository (conformance/ in ../shared, as on the
# team's machines and in CI), the copy must equal it byte for byte, so a case added or
# corrected there becomes a test here; scripts/sync-conformance.sh refreshes it.
# On a plain clone there is nothing beside it to compare, and the copy must
# still hold every file the tests read.
set -uo pipefail
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$(dirname "$0")/lib/checks.sh"
copy=$src/tests/conformance
shared=${CDC_SHARED_DIR:-$src/../shared}/conformance

# the files the tests and fuzz seeds read, present in the repository
for f in flink-json/EXPECTED.md flink-json/debezium-data-schema-include.txt \
  flink-json/canal-data.txt flink-json/maxwell-data.txt flink-json/ogg-data.txt \
  flink-json/expected/debezium.rows.txt debezium/README.md \
  debezium/types_mysql_v2.expected.json debezium/control_messages.jsonl; do
  [[ -s $copy/$f ]] && ok || bad "tests/conformance/$f is missing"
done
[[ -s $copy/README.md ]] && ok || bad "tests/conformance/README.md (sources and licences) is missing"

if [[ -d $shared ]]; then
  if diff -r -q -x README.md "$shared" "$copy" >/tmp/conformance_in_step.$$ 2>&1 &&
    diff -q "$shared/debezium/README.md" "$copy/debezium/README.md" >/dev/null; then
    ok
  else
    bad "tests/conformance differs from $shared; run scripts/sync-conformance.sh and commit:"
    head -20 /tmp/conformance_in_step.$$
  fi
  rm -f /tmp/conformance_in_step.$$
else
  echo "conformance_in_step: no shared set at $shared to compare (a plain clone)"
fi
echo "conformance_in_step: $pass passed, $fail failed"
((fail == 0))
