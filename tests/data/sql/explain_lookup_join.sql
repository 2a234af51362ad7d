-- lookup joins in plans: the LookupJoin node between the probe table's row and the Calc,
-- with its keys, extra condition, output fields and cache settings
CREATE TABLE orders (id INT NOT NULL, k INT, region STRING, proc_time AS PROCTIME()) WITH (
    'connector' = 'values', 'data' = '+I[1, 10, eu]');
CREATE TABLE dim (k INT, region STRING, name STRING, rank INT) WITH (
    'connector' = 'values', 'data' = '+I[10, eu, ten, 1]',
    'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '1000',
    'lookup.partial-cache.expire-after-access' = '10 min');
CREATE TABLE out (id INT NOT NULL, name STRING) WITH ('connector' = 'print');
-- inner join on one key
EXPLAIN INSERT INTO out
SELECT o.id, d.name FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.k;
-- left join on two keys (one computed on the probe side) and a condition on the dim row
EXPLAIN INSERT INTO out
SELECT o.id, name FROM orders AS o
LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d
  ON d.k = o.k + 1 AND UPPER(o.region) = d.region AND d.rank > 0 AND d.name <> o.region
WHERE o.id > 0;
-- an upsert probe: normalized first, the join keeps every kind
CREATE TABLE ups (id INT NOT NULL, k INT, pt AS PROCTIME(), PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UA,D', 'data' = '+I[1, 10]');
CREATE TABLE keyed (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'sink-changelog-mode-enforced' = 'I,UB,UA,D');
EXPLAIN INSERT INTO keyed
SELECT u.id, d.name FROM ups AS u LEFT JOIN dim FOR SYSTEM_TIME AS OF u.pt AS d ON u.k = d.k;
-- output names: a dim column keeps its name unless the probe side's column is selected too
EXPLAIN SELECT d.k, d.region, o.id FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.k;
EXPLAIN SELECT d.k, o.k FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.k;
