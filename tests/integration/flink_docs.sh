#!/usr/bin/env bash
# The SQL of Flink's and Flink CDC's documentation pages as a regression suite.
#   tests/data/flinkdocs/<page>_<n>.sql  a snippet, verbatim below a header naming its page
#   tests/data/flinkdocs/<page>_<n>.sql.gold  what `cdcflow explain` prints: stdout, stderr, "exit: N"
# Every snippet is planned only (`cdcflow explain`: the connectors' servers are never contacted)
# and the plan must change nothing on disk. An error must name what cdcflow does not support
# ("... is not supported", "... are not supported", "only ... are supported", an unknown connector, format or option); any other error fails the
# test, unless the snippet's header says "-- doc-error:" (the page's SQL is invalid for Flink
# too). The summary line gives the share of snippets that plan.
# CDC_UPDATE_GOLD=1 rewrites the gold files (review the diff before committing).
set -uo pipefail
here=$(cd "$(dirname "$0")/../data/flinkdocs" && pwd)
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CDCFLOW_STATE_DIR="$tmp/state"
named='is not supported|are not supported|only .* supported|unknown connector|unknown format|unknown option|cannot be scanned'
n=0 planned=0 refused=0 other=0 doc=0 fail=0

snapshot() { # the names, sizes and times of every file under the snippets' folder
  find "$here" -printf '%P %s %T@\n' | sort
}

cd "$here"
for f in *.sql; do
  [[ -e $f ]] || continue
  n=$((n + 1))
  snapshot >"$tmp/before"
  "$bin" explain "$f" >"$tmp/out" 2>"$tmp/err"
  code=$?
  snapshot >"$tmp/after"
  if ! diff -q "$tmp/before" "$tmp/after" >/dev/null || [[ -e $CDCFLOW_STATE_DIR ]]; then
    echo "FAIL $f: explain changed files on disk"
    diff "$tmp/before" "$tmp/after" | head -10
    rm -rf "$CDCFLOW_STATE_DIR"
    fail=$((fail + 1))
  fi
  { cat "$tmp/out"; cat "$tmp/err"; echo "exit: $code"; } >"$tmp/actual"
  [[ ${CDC_UPDATE_GOLD:-} == 1 ]] && cp "$tmp/actual" "$f.gold"
  if [[ ! -f $f.gold ]]; then
    echo "FAIL $f: no gold file $f.gold"
    fail=$((fail + 1))
  elif ! diff -u "$f.gold" "$tmp/actual" >"$tmp/diff"; then
    echo "FAIL $f"
    head -40 "$tmp/diff"
    fail=$((fail + 1))
  fi
  if [[ $code -eq 0 ]]; then
    planned=$((planned + 1))
  elif grep -Eq "$named" "$tmp/err"; then
    refused=$((refused + 1))
  else
    other=$((other + 1))
    if grep -q '^-- doc-error:' "$f"; then
      doc=$((doc + 1))
    else
      echo "FAIL $f: the error does not name an unsupported feature:"
      head -3 "$tmp/err"
      fail=$((fail + 1))
    fi
  fi
done

echo "$n snippets: $planned plan, $refused refused with a named feature, $other other errors" \
  "($doc of them invalid SQL in the docs, marked doc-error)"
awk -v p=$planned -v n=$n -v d=$doc 'BEGIN {
  printf "planning: %.1f%% of the snippets, %.1f%% of the valid ones\n", 100 * p / n, 100 * p / (n - d) }'
echo "flink_docs: $((n - fail)) passed, $fail failed"
[[ $fail -eq 0 ]]
