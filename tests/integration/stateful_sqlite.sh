#!/usr/bin/env bash
# Stateful SQL cross-checked by SQLite: random consistent changelogs of four `values` tables
# (lib/changelog_gen.py: inserts, updates, deletes, NULLs, repeated values, keys that come and
# go) run through GROUP BY, GROUPING SETS/ROLLUP/CUBE, HAVING, global aggregates, SELECT
# DISTINCT, INNER/LEFT/RIGHT/FULL joins (1:1, n:1, 1:n, three tables), GROUP BY over a join,
# Top-N and the set operators (UNION, INTERSECT, EXCEPT and their ALL forms); the result must
# equal the same query computed by SQLite on the final rows of the sources. Two ways to get the
# result: a jdbc SQLite sink keyed by the result's unique key (upserts and deletes by key), or a
# print sink whose changelog is applied to a multiset (a retraction of a row that is not there
# fails). Joins read two sources in two threads, so only final tables are compared.
# Every seed runs twice: as is, and with table.exec.mini-batch.* on (GroupAggregate folds its
# rows per batch of a size the seed picks: 3, 50, all rows in one), whose final tables must be
# the same; MINIBATCH=0 skips that pass.
# Several fixed seeds; STATEFUL_SEEDS="seed:changes ..." and STATEFUL_ONLY=case override.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
gen="python3 $(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd)/changelog_gen.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

seeds=${STATEFUL_SEEDS:-"1:200 2:800 3:2000"}
[[ -n ${CDC_SANITIZED:-} && -z ${STATEFUL_SEEDS:-} ]] && seeds="1:200 2:600"

dump() { # DB SQL: rows as a|b|NULL, sorted bytewise
  sqlite3 -batch -list -separator '|' -nullvalue NULL "$1" "$2" | LC_ALL=C sort
}

compare() { # NAME: want vs got, the diff shown on failure
  if [[ ! -s want ]]; then
    bad "$1: the expected result is empty (the case checks nothing)"
  elif diff -u want got >diff.txt; then ok; else
    bad "$1"
    head -20 diff.txt
  fi
}

run_job() { # NAME "SINK DDL" QUERY: the sources, the sink and the INSERT, run; 1 when it failed
  { printf '%s' "$mb_set"; cat sources.sql; echo "$2"; echo "INSERT INTO $1 $3;"; } >job.sql
  "$bin" run job.sql >out.txt 2>err.txt && return 0
  bad "$1 (seed $seed): cdcflow run failed"
  head -5 err.txt
  return 1
}

# The expected rows come from SQLite running EXPECTED SQL on the final sources; "=" means the
# query itself (the same SQL in both where SQLite's semantics are Flink's).

# jdbc NAME "SINK COLUMNS" "PK" "QUERY" "EXPECTED SQL" ["COMPARED COLUMNS"]
jdbc() {
  local name=$1 cols=$2 pk=$3 query=$4 want_sql=$5 sel=${6:-*}
  [[ $want_sql == = ]] && want_sql=$query
  [[ -n ${STATEFUL_ONLY:-} && $name != "$STATEFUL_ONLY" ]] && return
  rm -f res.db
  run_job "$name" "CREATE TABLE $name ($cols, PRIMARY KEY ($pk) NOT ENFORCED) WITH (
      'connector' = 'jdbc', 'url' = 'jdbc:sqlite:res.db', 'table-name' = '$name',
      'sink.auto-create-table' = 'true');" "$query" || return
  dump exp.db "$want_sql" >want
  dump res.db "SELECT $sel FROM $name" >got
  compare "$name (seed $seed)"
}

# printed NAME "SINK COLUMNS" "QUERY" "EXPECTED SQL"
printed() {
  local name=$1 cols=$2 query=$3 want_sql=$4
  [[ $want_sql == = ]] && want_sql=$query
  [[ -n ${STATEFUL_ONLY:-} && $name != "$STATEFUL_ONLY" ]] && return
  run_job "$name" "CREATE TABLE $name ($cols) WITH ('connector' = 'print');" "$query" || return
  dump exp.db "$want_sql" >want
  if ! $gen materialize <out.txt 2>mat.txt | LC_ALL=C sort >got || [[ -s mat.txt ]]; then
    bad "$name (seed $seed): the changelog does not apply: $(cat mat.txt)"
    return
  fi
  compare "$name (seed $seed)"
}

# the passes: "seed:changes" as is, then "seed:changes:size" with mini-batch batches of size rows
mb_sizes=(3 50 100000)
passes=
for sc in $seeds; do
  passes+=" $sc"
  [[ ${MINIBATCH:-1} != 0 ]] && passes+=" $sc:${mb_sizes[$((${sc%%:*} % 3))]}"
done
for sc in $passes; do
  IFS=: read -r seed changes mb_size <<<"$sc"
  mb_set=
  if [[ -n $mb_size ]]; then
    printf -v mb_set "SET 'table.exec.mini-batch.%s' = '%s';\n" enabled true allow-latency \
      '1 h' size "$mb_size"
  fi
  rm -f exp.db
  $gen gen "$seed" "$changes" .
  sqlite3 exp.db <final.sql
  [[ -n $mb_size ]] && seed+=" mini-batch $mb_size"

  # ---- GROUP BY (AVG of an integer is the integer quotient, truncated as Flink's) ----
  jdbc group_one "region STRING NOT NULL, n BIGINT, nq BIGINT, nd BIGINT, s INT, a INT, mn INT,
      mx INT, mxp BIGINT" region \
    "SELECT region, COUNT(*), COUNT(qty), COUNT(DISTINCT qty), SUM(qty), AVG(qty), MIN(qty),
      MAX(qty), MAX(price) FROM orders GROUP BY region" \
    "SELECT region, COUNT(*), COUNT(qty), COUNT(DISTINCT qty), SUM(qty), SUM(qty) / COUNT(qty),
      MIN(qty), MAX(qty), MAX(price) FROM orders GROUP BY region"
  # two keys, one of them with NULLs (the NULL customers form one group)
  printed group_two "region STRING, customer STRING, n BIGINT, np BIGINT, s BIGINT, a BIGINT,
      mn BIGINT, mx BIGINT" \
    "SELECT region, customer, COUNT(*), COUNT(DISTINCT product_id), SUM(price), AVG(price),
      MIN(price), MAX(price) FROM orders GROUP BY region, customer" \
    "SELECT region, customer, COUNT(*), COUNT(DISTINCT product_id), SUM(price),
      SUM(price) / COUNT(price), MIN(price), MAX(price) FROM orders GROUP BY region, customer"
  # keyed by a nullable group key: the product (MIN/MAX retracted as products change)
  printed group_product "product_id INT, n BIGINT, mn INT, mx INT, s BIGINT" \
    "SELECT product_id, COUNT(*), MIN(qty), MAX(qty), SUM(price) FROM orders GROUP BY product_id" \
    =
  # GROUPING SETS, ROLLUP, CUBE: SQLite has none of them, the expected rows are a UNION ALL of
  # the sets' GROUP BYs (a set's rows have NULL for the keys outside it; GROUPING_ID tells a
  # NULL customer from a customer left out)
  printed grouping_sets "region STRING, customer STRING, n BIGINT, s BIGINT, g BIGINT" \
    "SELECT region, customer, COUNT(*), SUM(price), GROUPING_ID(region, customer) FROM orders
      GROUP BY GROUPING SETS ((region, customer), (region), ())" \
    "SELECT region, customer, COUNT(*), SUM(price), 0 FROM orders GROUP BY region, customer
      UNION ALL SELECT region, NULL, COUNT(*), SUM(price), 1 FROM orders GROUP BY region
      UNION ALL SELECT NULL, NULL, COUNT(*), SUM(price), 3 FROM orders HAVING COUNT(*) > 0"
  printed rollup "region STRING, product_id INT, n BIGINT, mx INT" \
    "SELECT region, product_id, COUNT(*), MAX(qty) FROM orders GROUP BY ROLLUP (region, product_id)" \
    "SELECT region, product_id, COUNT(*), MAX(qty) FROM orders GROUP BY region, product_id
      UNION ALL SELECT region, NULL, COUNT(*), MAX(qty) FROM orders GROUP BY region
      UNION ALL SELECT NULL, NULL, COUNT(*), MAX(qty) FROM orders HAVING COUNT(*) > 0"
  printed cube "region STRING, customer STRING, n BIGINT, mn INT, g BIGINT" \
    "SELECT region, customer, COUNT(DISTINCT product_id), MIN(qty), GROUPING(region, customer)
      FROM orders GROUP BY CUBE (region, customer) HAVING COUNT(*) > 1" \
    "SELECT region, customer, COUNT(DISTINCT product_id), MIN(qty), 0 FROM orders
      GROUP BY region, customer HAVING COUNT(*) > 1
      UNION ALL SELECT region, NULL, COUNT(DISTINCT product_id), MIN(qty), 1 FROM orders
      GROUP BY region HAVING COUNT(*) > 1
      UNION ALL SELECT NULL, customer, COUNT(DISTINCT product_id), MIN(qty), 2 FROM orders
      GROUP BY customer HAVING COUNT(*) > 1
      UNION ALL SELECT NULL, NULL, COUNT(DISTINCT product_id), MIN(qty), 3 FROM orders
      HAVING COUNT(*) > 1"
  # HAVING: groups enter and leave the result (the bound lets two of the three regions in)
  thr=$(sqlite3 exp.db "SELECT SUM(qty) FROM orders GROUP BY region ORDER BY 1 LIMIT 1 OFFSET 1")
  printed having_region "region STRING, n BIGINT, s INT" \
    "SELECT region, COUNT(*), SUM(qty) FROM orders GROUP BY region HAVING SUM(qty) >= $thr" \
    =
  # into an upsert sink, a group that stops passing HAVING is deleted: its last -U passed the
  # filter and becomes a -D (its +U is filtered out)
  if true; then
    jdbc having_region_upsert "region STRING NOT NULL, n BIGINT, s INT" region \
      "SELECT region, COUNT(*), SUM(qty) FROM orders GROUP BY region HAVING SUM(qty) >= $thr" \
      =
  fi
  printed having_product "product_id INT, n BIGINT, mn INT" \
    "SELECT product_id, COUNT(*), MIN(qty) FROM orders GROUP BY product_id
      HAVING COUNT(*) >= 3 AND MIN(qty) < 5" \
    =
  # a global aggregate: one row while the table has rows
  printed global "n BIGINT, nc BIGINT, s BIGINT, mn BIGINT, mx BIGINT, a INT" \
    "SELECT COUNT(*), COUNT(DISTINCT customer), SUM(price), MIN(price), MAX(price), AVG(qty)
      FROM orders" \
    "SELECT COUNT(*), COUNT(DISTINCT customer), SUM(price), MIN(price), MAX(price),
      SUM(qty) / COUNT(qty) FROM orders HAVING COUNT(*) > 0"

  # ---- SELECT DISTINCT ----
  jdbc distinct_key "region STRING NOT NULL" region \
    "SELECT DISTINCT region FROM orders WHERE price > 100" \
    =
  printed distinct_two "customer STRING, product_id INT" \
    "SELECT DISTINCT customer, product_id FROM orders" \
    =

  # ---- joins 1:1 on the primary key ----
  jdbc join_inner_11 "order_id INT NOT NULL, customer STRING, note STRING, prio INT" order_id \
    "SELECT o.order_id, o.customer, d.note, d.prio FROM orders o JOIN details d
      ON o.order_id = d.order_id" \
    =
  jdbc join_left_11 "order_id INT NOT NULL, customer STRING, note STRING, prio INT" order_id \
    "SELECT o.order_id, o.customer, d.note, d.prio FROM orders o LEFT JOIN details d
      ON o.order_id = d.order_id" \
    =
  jdbc join_right_11 "order_id INT NOT NULL, customer STRING, note STRING" order_id \
    "SELECT d.order_id, o.customer, d.note FROM orders o RIGHT JOIN details d
      ON o.order_id = d.order_id" \
    "SELECT d.order_id, o.customer, d.note FROM details d LEFT JOIN orders o
      ON o.order_id = d.order_id"
  printed join_full_11 "o_id INT, d_id INT, customer STRING, note STRING" \
    "SELECT o.order_id, d.order_id, o.customer, d.note FROM orders o FULL JOIN details d
      ON o.order_id = d.order_id" \
    =

  # ---- joins n:1 (orders to products; a NULL product_id matches nothing) ----
  jdbc join_inner_n1 "order_id INT NOT NULL, product_id INT, name STRING, weight INT" order_id \
    "SELECT o.order_id, o.product_id, p.name, p.weight FROM orders o JOIN products p
      ON o.product_id = p.id" \
    =
  jdbc join_left_n1 "order_id INT NOT NULL, product_id INT, name STRING" order_id \
    "SELECT o.order_id, o.product_id, p.name FROM orders o LEFT JOIN products p
      ON o.product_id = p.id" \
    =

  # ---- joins 1:n on a column that is not a key ----
  # a shipment joins one order at most: the shipment's key is the result's unique key
  jdbc join_inner_1n "order_id INT NOT NULL, shipment_id INT NOT NULL, region STRING,
      origin STRING" "shipment_id" \
    "SELECT o.order_id, s.shipment_id, o.region, s.origin FROM orders o JOIN shipments s
      ON o.order_id = s.order_id" \
    =
  # a sink keyed by the pair of keys, a key that contains the result's unique key (Flink takes
  # it without a materializer)
  if true; then
    jdbc join_inner_1n_pair "order_id INT NOT NULL, shipment_id INT NOT NULL, region STRING,
        origin STRING" "order_id, shipment_id" \
      "SELECT o.order_id, s.shipment_id, o.region, s.origin FROM orders o JOIN shipments s
        ON o.order_id = s.order_id" \
      =
    jdbc join_three_pair "order_id INT NOT NULL, shipment_id INT NOT NULL, name STRING,
        origin STRING" "order_id, shipment_id" \
      "SELECT o.order_id, s.shipment_id, p.name, s.origin FROM orders o
        JOIN products p ON o.product_id = p.id JOIN shipments s ON o.order_id = s.order_id" \
      =
  fi
  for kind in LEFT RIGHT FULL; do
    printed "join_${kind,,}_1n" "order_id INT, shipment_id INT, region STRING, origin STRING" \
      "SELECT o.order_id, s.shipment_id, o.region, s.origin FROM orders o $kind JOIN shipments s
        ON o.order_id = s.order_id" \
      =
  done

  # ---- ON with more than the equality: a second equality, or a condition on both sides
  #      (an outer side's row is padded while no row passes it) ----
  for kind in LEFT FULL; do
    printed "join_${kind,,}_cond" "order_id INT, customer STRING, shipment_id INT, origin STRING" \
      "SELECT o.order_id, o.customer, s.shipment_id, s.origin FROM orders o $kind JOIN shipments s
        ON o.order_id = s.order_id AND s.origin <> o.customer" \
      =
  done
  printed join_two_keys "order_id INT, qty INT, d_id INT, note STRING" \
    "SELECT o.order_id, o.qty, d.order_id, d.note FROM orders o RIGHT JOIN details d
      ON o.order_id = d.order_id AND o.qty = d.prio" \
    =

  # ---- three tables, as the Flink CDC tutorial: orders, products, shipments ----
  jdbc join_three "order_id INT NOT NULL, shipment_id INT NOT NULL, name STRING, origin STRING" \
    shipment_id \
    "SELECT o.order_id, s.shipment_id, p.name, s.origin FROM orders o
      JOIN products p ON o.product_id = p.id JOIN shipments s ON o.order_id = s.order_id" \
    =
  printed join_three_left "order_id INT, customer STRING, name STRING, shipment_id INT,
      origin STRING" \
    "SELECT o.order_id, o.customer, p.name, s.shipment_id, s.origin FROM orders o
      LEFT JOIN products p ON o.product_id = p.id LEFT JOIN shipments s ON o.order_id = s.order_id" \
    =

  # ---- GROUP BY over a join ----
  jdbc group_join "region STRING NOT NULL, n BIGINT, w INT, np BIGINT, mw INT" region \
    "SELECT o.region, COUNT(*), SUM(p.weight), COUNT(DISTINCT p.id), MAX(p.weight)
      FROM orders o JOIN products p ON o.product_id = p.id GROUP BY o.region" \
    =

  # ---- operators over operators: an aggregate of an aggregate, a join of an aggregate,
  #      Top-N over a join ----
  printed agg_of_agg "n BIGINT, groups BIGINT" \
    "SELECT n, COUNT(*) FROM (SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer)
      GROUP BY n" \
    =
  # (a subquery as a join's right side is a syntax error yet: "expected table name", so WITH)
  printed join_of_agg "id INT, name STRING, n BIGINT" \
    "WITH a AS (SELECT product_id, COUNT(*) AS n FROM orders GROUP BY product_id)
      SELECT p.id, p.name, a.n FROM products p LEFT JOIN a ON p.id = a.product_id" \
    =
  printed topn_of_join "name STRING, price BIGINT, rn BIGINT" \
    "SELECT name, price, rn FROM (SELECT p.name, o.price, ROW_NUMBER() OVER (PARTITION BY p.name
      ORDER BY o.price DESC) AS rn FROM orders o JOIN products p ON o.product_id = p.id)
      WHERE rn <= 2" \
    =

  # ---- Top-N: rows of equal price may take each other's rank, so (partition, rn, price)
  #      is compared, and each ranked order must be a live order of that region and price ----
  topn_want="SELECT region, rn, price FROM (SELECT region, price,
      ROW_NUMBER() OVER (PARTITION BY region ORDER BY price DESC) AS rn FROM orders) WHERE rn <= 3"
  jdbc topn "region STRING NOT NULL, rn BIGINT NOT NULL, price BIGINT, order_id INT" "region, rn" \
    "SELECT region, rn, price, order_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY region
      ORDER BY price DESC) AS rn FROM orders) WHERE rn <= 3" "$topn_want" "region, rn, price"
  if [[ -z ${STATEFUL_ONLY:-} || $STATEFUL_ONLY == topn ]] && [[ -f res.db ]]; then
    sqlite3 res.db "ATTACH 'exp.db' AS e; SELECT t.region, t.rn FROM topn t
        WHERE NOT EXISTS (SELECT 1 FROM e.orders o WHERE o.order_id = t.order_id
          AND o.region = t.region AND o.price IS t.price)
        OR t.order_id IN (SELECT order_id FROM topn GROUP BY order_id HAVING COUNT(*) > 1)" >got
    if [[ ! -s got ]]; then ok; else
      bad "topn (seed $seed): ranked rows that are not the orders they name: $(head -3 got)"
    fi
  fi
  printed topn_product "product_id INT, price BIGINT, rn BIGINT" \
    "SELECT product_id, price, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY product_id
      ORDER BY price DESC) AS rn FROM orders) WHERE rn <= 2" \
    "SELECT product_id, price, rn FROM (SELECT product_id, price, ROW_NUMBER()
      OVER (PARTITION BY product_id ORDER BY price DESC) AS rn FROM orders) WHERE rn <= 2"
  # deduplication: the first row of each partition, by a column descending
  jdbc dedup "region STRING NOT NULL, qty INT" region \
    "SELECT region, qty FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY region
      ORDER BY qty DESC) AS rn FROM orders) WHERE rn = 1" \
    "SELECT region, MAX(qty) FROM orders GROUP BY region"

  # ---- set operators: NULLs equal, multiplicities of the ALL forms computed from counts ----
  printed set_union "customer STRING, product_id INT" \
    "SELECT customer, product_id FROM orders UNION SELECT name, weight FROM products" \
    =
  printed set_intersect "product_id INT" \
    "SELECT product_id FROM orders INTERSECT SELECT weight FROM products" \
    =
  printed set_except "customer STRING, product_id INT" \
    "SELECT customer, product_id FROM orders EXCEPT SELECT customer, product_id FROM orders
      WHERE qty > 5" \
    =
  # copies of each distinct row: min(left, right) for INTERSECT ALL, left - right for EXCEPT ALL
  set_counts="WITH l AS (SELECT customer AS v, COUNT(*) AS c FROM orders GROUP BY customer),
      r AS (SELECT customer AS v, COUNT(*) AS c FROM orders WHERE qty > 5 GROUP BY customer)"
  set_copies="rep(v, k) AS (SELECT v, 1 FROM m WHERE n >= 1 UNION ALL
      SELECT rep.v, k + 1 FROM rep JOIN m ON rep.v IS m.v WHERE k < m.n) SELECT v FROM rep"
  printed set_intersect_all "customer STRING" \
    "SELECT customer FROM orders INTERSECT ALL SELECT customer FROM orders WHERE qty > 5" \
    "$set_counts, m AS (SELECT l.v, MIN(l.c, r.c) AS n FROM l JOIN r ON l.v IS r.v), $set_copies"
  printed set_except_all "customer STRING" \
    "SELECT customer FROM orders EXCEPT ALL SELECT customer FROM orders WHERE qty > 5" \
    "$set_counts, m AS (SELECT l.v, l.c - COALESCE(r.c, 0) AS n FROM l LEFT JOIN r
      ON l.v IS r.v), $set_copies"

  # ---- subquery predicates: semi and anti joins; NOT IN with SQL's NULL logic ----
  printed sub_in "order_id INT, product_id INT" \
    "SELECT order_id, product_id FROM orders WHERE product_id IN (SELECT id FROM products
      WHERE weight > 2)" \
    =
  printed sub_not_in "order_id INT, product_id INT" \
    "SELECT order_id, product_id FROM orders WHERE product_id NOT IN (SELECT weight FROM
      products WHERE weight > 3)" \
    =
  printed sub_exists "order_id INT, customer STRING" \
    "SELECT order_id, customer FROM orders o WHERE qty > 1 AND EXISTS (SELECT * FROM products p
      WHERE p.id = o.product_id AND p.weight < o.qty)" \
    =
  printed sub_not_exists "order_id INT, customer STRING" \
    "SELECT order_id, customer FROM orders o WHERE NOT EXISTS (SELECT 1 FROM products p
      WHERE p.id = o.product_id AND p.name IS NOT NULL)" \
    =
done

echo "stateful_sqlite: $pass passed, $fail failed"
((fail == 0))
