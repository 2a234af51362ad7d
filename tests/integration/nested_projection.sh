#!/usr/bin/env bash
# Nested projection pushdown gives the same rows as no pushdown: the same
# SELECT of nested fields runs on a datagen table once with only the leaves
# pushed (project=[id, r.a, ...]) and once with `r` also read whole (which
# makes the planner push the whole column), for several seeds, null rates,
# parallelism, a deeper path and a computed column over a nested field.
set -uo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fail=$((fail + 1)); }

table() { # seed null-rate parallelism
  cat <<SQL
CREATE TABLE t (
    id BIGINT NOT NULL,
    r ROW<a INT, b STRING, c ROW<x DOUBLE, y BOOLEAN, z ROW<k SMALLINT, s STRING>>>,
    other STRING,
    ra AS r.a % 1000,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '300',
    'seed' = '$1',
    'scan.parallelism' = '$3',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '300',
    'fields.r.null-rate' = '$2'
);
SQL
}

# case name | pushed query | the same query with r read whole | expected project=[...] when pushed
cases=(
  "leaves|SELECT id, r.a, r.c.y FROM t|SELECT id, r.a, r.c.y FROM t WHERE r IS NULL OR r IS NOT NULL|[id, r.a, r.c.y]"
  "where|SELECT id, r.c.x FROM t WHERE r.a > 0 OR r.c.y|SELECT id, r.c.x FROM t WHERE (r.a > 0 OR r.c.y) AND (r IS NULL OR r IS NOT NULL)|[id, r.a, r.c.x, r.c.y]"
  "deep|SELECT t.id, t.r.c.z.s, r.c.z.k, r.b FROM t|SELECT t.id, t.r.c.z.s, r.c.z.k, r.b FROM t WHERE r IS NULL OR r IS NOT NULL|[id, r.b, r.c.z.k, r.c.z.s]"
  "absorbed|SELECT id, r.c IS NULL AS n, r.c.z.k FROM t|SELECT id, r.c IS NULL AS n, r.c.z.k FROM t WHERE r IS NULL OR r IS NOT NULL|[id, r.c]"
  "computed|SELECT id, ra, r.b FROM t|SELECT id, ra, r.b FROM t WHERE r IS NULL OR r IS NOT NULL|[id, r.a, r.b]"
)

for setup in "7 0.3 1" "12345 0 2" "99 0.9 3"; do
  set -- $setup
  for c in "${cases[@]}"; do
    IFS='|' read -r name pushed whole proj <<<"$c"
    label="$name (seed $1, null-rate $2, parallelism $3)"
    { table "$@"; echo "EXPLAIN $pushed;"; echo "$pushed;"; } >"$tmp/p.sql"
    { table "$@"; echo "EXPLAIN $whole;"; echo "$whole;"; } >"$tmp/w.sql"
    if ! "$bin" run "$tmp/p.sql" >"$tmp/p.out" 2>&1; then
      ko "$label: pushed query failed: $(head -20 "$tmp/p.out")"
      continue
    fi
    if ! "$bin" run "$tmp/w.sql" >"$tmp/w.out" 2>&1; then
      ko "$label: whole-column query failed: $(head -20 "$tmp/w.out")"
      continue
    fi
    grep -qF "project=$proj" "$tmp/p.out" && ok || ko "$label: expected project=$proj in: $(grep TableSourceScan "$tmp/p.out")"
    grep -q 'project=\[id, r\]' "$tmp/w.out" && ok || ko "$label: expected project=[id, r] without pushdown: $(grep TableSourceScan "$tmp/w.out")"
    # rows, without the "N> " subtask prefix the print sink adds when parallel
    sed -E -n 's/^([0-9]+> )?([-+][IUD]\[.*)$/\2/p' "$tmp/p.out" | sort >"$tmp/p.rows"
    sed -E -n 's/^([0-9]+> )?([-+][IUD]\[.*)$/\2/p' "$tmp/w.out" | sort >"$tmp/w.rows"
    if [[ ! -s $tmp/p.rows ]]; then
      ko "$label: no rows"
    elif diff -u "$tmp/w.rows" "$tmp/p.rows" >"$tmp/diff"; then
      ok
    else
      ko "$label: rows differ"
      head -20 "$tmp/diff"
    fi
  done
done

echo "nested_projection: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
