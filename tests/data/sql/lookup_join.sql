-- lookup joins over the values connector: inner and left, two keys, conditions after the
-- lookup, `t.*`, a dim column renamed where the probe side has its name, and every change
-- kind of a changelog probe kept
CREATE TABLE orders (id INT NOT NULL, k INT, tag STRING, proc_time AS PROCTIME()) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, 10, a]; +I[2, 20, b]; -U[1, 10, a]; +U[1, 10, b]; +I[3, 30, a]; -D[2, 20, b]; +I[4, null, a]');
CREATE TABLE dim (k INT, tag STRING, name STRING) WITH (
    'connector' = 'values',
    'data' = '+I[10, a, ten]; +I[20, b, twenty]; +I[10, b, dix]; +I[null, a, nothing]');
-- inner: one output row per matching dim row, kinds kept
SELECT o.id, d.name FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.k;
-- left: no match (and a NULL key) gives NULL dim fields
SELECT o.id, o.k, d.name FROM orders AS o LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d
ON o.k = d.k;
-- two keys
SELECT o.id, d.name FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d
ON o.k = d.k AND d.tag = o.tag;
-- a condition that is not a key: evaluated on each looked-up row
SELECT o.id, d.name FROM orders AS o LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d
ON o.k = d.k AND d.name LIKE 't%';
-- WHERE over both sides, after the join
SELECT o.id, d.name FROM orders AS o LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d
ON o.k = d.k WHERE d.name IS NULL OR o.tag = d.tag;
-- d.* and the renamed column
SELECT d.*, o.id FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.k;
-- without aliases
SELECT orders.id, dim.name FROM orders JOIN dim FOR SYSTEM_TIME AS OF orders.proc_time
ON orders.k = dim.k AND dim.tag = 'b';
-- a view holding the join, filtered outside
CREATE VIEW enriched AS SELECT o.id, d.name, d.tag FROM orders AS o
JOIN dim FOR SYSTEM_TIME AS OF o.proc_time d ON o.k = d.k;
SELECT id, name FROM enriched WHERE tag = 'b';
-- keys compared with constants
SELECT o.id, d.name FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d
ON d.tag = 'a' AND d.k = 10;
