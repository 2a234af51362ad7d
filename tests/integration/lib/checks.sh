#!/usr/bin/env bash
# The pass/fail counters every tests/integration/*.sh script keeps (sourced):
#   ok          counts a passed check
#   bad NAME    prints "FAIL NAME" and counts a failed one
#   wait_for FILE REGEX [SECONDS]   waits (bounded, default 10 s) until FILE has a line
#               matching the extended REGEX; returns 1 when it did not come
# The script ends with: echo "NAME: $pass passed, $fail failed"; ((fail == 0))
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
  echo "FAIL $1"
  fail=$((fail + 1))
}
wait_for() {
  local i
  for ((i = 0; i < ${3:-10} * 20; i++)); do
    grep -Eq "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}
