#!/usr/bin/env bash
# Interval joins against regular joins: for random sorted event times and keys, each join kind
# and several batch sizes (watermarks moving between batches), the IntervalJoin (state cleaned
# as the watermark passes) must end with the same rows as the same condition planned as a
# regular join (an OR that the planner does not take as time bounds), both materialized. The
# rows are sorted in time per table, so no row is late and the two must agree exactly.
set -euo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/gen.py" <<'PY'
import datetime, random, sys
random.seed(int(sys.argv[1]))
def rows(n):
    t, out = 0, []
    for _ in range(n):
        t += random.choice([0, 30, 30, 60]) * 60000  # ascending, many ties and bound-equal times
        out.append((random.randint(1, 4), t))
    return '; '.join('+I[%d, %s]' % (k, (datetime.datetime(2024, 1, 1) + datetime.timedelta(
        milliseconds=t)).strftime('%Y-%m-%d %H:%M:%S')) for k, t in out)
lo, hi = random.randint(0, 6) * 30, random.randint(0, 6) * 30
kind = ['JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN'][int(sys.argv[1]) % 4]
bs = [1, 3, 7, 50][int(sys.argv[1]) // 4 % 4]
head = f"""SET 'execution.batch-size' = '{bs}';
CREATE TABLE l (k INT, t TIMESTAMP(3), WATERMARK FOR t AS t) WITH ('connector' = 'values', 'data' = '{rows(60)}');
CREATE TABLE r (k INT, t TIMESTAMP(3), WATERMARK FOR t AS t) WITH ('connector' = 'values', 'data' = '{rows(60)}');
CREATE TABLE o (lk INT, lt TIMESTAMP(3), rk INT, rt TIMESTAMP(3)) WITH ('connector' = 'values', 'sink.materialize' = 'true');
"""
bound = f"l.t BETWEEN r.t - INTERVAL '{lo}' MINUTE AND r.t + INTERVAL '{hi}' MINUTE"
open(sys.argv[2] + '/ij.sql', 'w').write(head + f"INSERT INTO o SELECT * FROM l {kind} r ON l.k = r.k AND {bound};\n")
open(sys.argv[2] + '/rj.sql', 'w').write(head + f"INSERT INTO o SELECT * FROM l {kind} r ON l.k = r.k AND ({bound} OR l.k < 0);\n")
PY
for seed in $(seq 0 15); do
  python3 "$tmp/gen.py" "$seed" "$tmp"
  "$bin" explain "$tmp/ij.sql" | grep -q '^+- IntervalJoin(' || { echo "seed $seed: no IntervalJoin"; exit 1; }
  "$bin" explain "$tmp/rj.sql" | grep -q '^+- Join(' || { echo "seed $seed: no regular Join"; exit 1; }
  "$bin" run "$tmp/ij.sql" | sort >"$tmp/ij.out"
  "$bin" run "$tmp/rj.sql" | sort >"$tmp/rj.out"
  [[ -s $tmp/rj.out ]] || { echo "seed $seed: no rows"; exit 1; }
  diff -u "$tmp/rj.out" "$tmp/ij.out" || { echo "seed $seed: interval join differs"; exit 1; }
done
echo "interval_join: 16 cases agree"
