#!/usr/bin/env bash
# Golden-file tests of the cdcflow binary.
#   tests/data/sql/<case>.sql      -> `cdcflow run` (or `explain` for explain_*), output vs .sql.gold
#   tests/data/decode/<case>.txt   -> first line "args: ..." are the decode arguments, the
#                                     rest is the input; output vs .txt.gold
# The gold file holds stdout, then stderr, then "exit: N". Cases named err_* must fail.
# CDC_UPDATE_GOLD=1 rewrites the gold files (review the diff before committing).
set -uo pipefail
here=$(cd "$(dirname "$0")/../data" && pwd)
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

check() { # name gold actual exitcode
  local name=$1 gold=$2 actual=$3 code=$4
  if [[ $(basename "$name") == err_* && $code -eq 0 ]]; then
    echo "FAIL $name: an err_ case must fail, it exited 0"
    fail=$((fail + 1))
    return
  fi
  if [[ ${CDC_UPDATE_GOLD:-} == 1 ]]; then
    cp "$actual" "$gold"
  fi
  if [[ ! -f $gold ]]; then
    echo "FAIL $name: no gold file $gold"
    fail=$((fail + 1))
  elif diff -u "$gold" "$actual" >"$tmp/diff"; then
    pass=$((pass + 1))
  else
    echo "FAIL $name"
    head -40 "$tmp/diff"
    fail=$((fail + 1))
  fi
}

# environment for the ${VAR} cases (env_*.sql, err_env_*.sql)
export CDCFLOW_TEST_ROWS=3 CDCFLOW_TEST_EMPTY=
unset CDCFLOW_TEST_NOT_SET
cd "$here/sql"
for f in *.sql; do
  [[ -e $f ]] || continue
  cmd=run
  [[ $f == explain_* ]] && cmd=explain
  "$bin" "$cmd" "$f" >"$tmp/out" 2>"$tmp/err"
  code=$?
  { cat "$tmp/out"; cat "$tmp/err"; echo "exit: $code"; } >"$tmp/actual"
  check "sql/$f" "$f.gold" "$tmp/actual" $code
done

cd "$here/decode"
for f in *.txt; do
  [[ -e $f ]] || continue
  args=$(head -1 "$f" | sed 's/^args: //')
  tail -n +2 "$f" >"$tmp/input"
  eval "set -- $args"
  "$bin" decode "$@" "$tmp/input" >"$tmp/out" 2>"$tmp/err"
  code=$?
  { cat "$tmp/out"; sed "s#$tmp/input#INPUT#g" "$tmp/err"; echo "exit: $code"; } >"$tmp/actual"
  check "decode/$f" "$f.gold" "$tmp/actual" $code
done

echo "golden: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
