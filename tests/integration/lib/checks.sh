#!/usr/bin/env bash
# The pass/fail counters every tests/integration/*.sh script keeps (sourced):
#   ok          counts a passed check
#   bad NAME    prints "FAIL NAME" and counts a failed one
# The script ends with: echo "NAME: $pass passed, $fail failed"; ((fail == 0))
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
  echo "FAIL $1"
  fail=$((fail + 1))
}
